/* The compiled core of the solver: shared definitions.
 *
 * The core is the same depth-first search as the pure-Python reference
 * (search.py, state.py, movegen.py, prune.py), on byte arrays, with a
 * transposition table of 128-bit keys. Every pruning carries the name of
 * its heading in docs/winnability.md, where its proof is written. The
 * Python search is the reference: the tests check that both visit exactly
 * the same number of positions.
 *
 *   core.h     this file: the Search object and what all parts share
 *   state.h    the position: pushing and popping cards with their keys
 *   tables.c   card tables, Zobrist keys, the transposition table
 *   memory.c   the memory limit every table draws from
 *   schedule.c the reserve schedule (a pruning that state.h and beam.c use)
 *   reach.c    the reserve schedule with blocking (a pruning of loop.h)
 *   loop.h     moves, prunings and the search loop (runs without the GIL),
 *              compiled by search.c and again by hunter.c
 *   search.c   the search loop's entry (run), its arrays, restarts
 *   hunter.c   the search loop with the hunters' options as constants
 *   beam.c     the beam hunter, a win-finding search over layers of draws
 *   nested.c   the nested hunter, nested Monte Carlo search (level 1)
 *   nrpa.c     the policy-learning hunter (nested rollout policy adaptation)
 *   lds.c      the discrepancy hunter (limited discrepancy search)
 *   rollout.h  what the two nested hunters share
 *   hunt.c     the restarting win-hunters' loop (api._Task's, in one call)
 *   keyset.h   sets of position keys for the beam and nested hunters
 *   module.c   the Python type terrace.solver._core.Search
 *
 * Each .c file but module.c has a header of the same name declaring what
 * it offers the others.
 */
#ifndef TERRACE_CORE_H
#define TERRACE_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DRAW (-1)
#define SRC_RESERVE 40
#define SRC_WASTE 41
#define SRC_RETURN 64
#define DST_FOUNDATION 63
#define ORDER_DRAW_EARLY 1  /* the move orders of options.py (0: ORDER_PLAIN) */
#define ORDER_UNRANKED 2
#define MAXP 20      /* piles */
#define MAXSZ 417    /* cards + 1 (8 decks) */
#define MAXRD 12     /* redeals + 2 */
#define MAXGEN 2048  /* moves of one position, at most */
#define MAXFD 16     /* foundations of one class (8 decks, alternate colours) */

#define R_WON 1
#define R_LOST 2
#define R_MEMORY 3
#define R_SPENT 4  /* a search of one-lane keys ran out of moves: proves nothing (Core.one_lane) */

typedef uint64_t lane2[2];

/* Zobrist keys: two independent 64-bit lanes per entry, one set per seed,
 * kept for the life of the process (searches in other threads read them). */
typedef struct zset {
    uint64_t seed;
    lane2 zr[MAXSZ];
    lane2 zs[MAXSZ][52];
    lane2 zw[MAXSZ][52];
    lane2 zd[MAXRD];
    lane2 zpp[MAXP][MAXSZ][52];
    struct zset *next;
} zset;

struct beam;
struct nest;
struct nrpa;
struct lds;

/* The first position, kept so that a restart sets it at once instead of
 * taking back every move of the last hunter (3% of a solve's instructions
 * on Admiral's Patience): everything apply() changes (state.h). */
struct root {
    int nres, nstk, nwst, ru, found, plen[MAXP];
    int want[52], off[52], ftop[52], done[4];
    uint8_t fh[4][MAXFD];
    uint64_t h[2], hpt[2], ph[MAXP][2], pm[MAXP][2];
    uint8_t stk[MAXSZ], wst[MAXSZ], pile[MAXP][MAXSZ];
};

typedef struct {
    PyObject_HEAD
    int busy;
    int inited;  /* __init__ has been called: it runs once, as one that fails leaves half a position */
    /* rules */
    int piles_n, in_suit, redeals, ret, base, total, class_size;
    int autosp, freesp, wastesp;
    /* options */
    int canon, safe, dead_check, order, dig_only, mixed, shuffled;
    int live_best;      /* Options.live_best: a position the reserve schedule cuts is never the best */
    int reserve_extra;  /* Options.reserve_weight - 1: a line's worth counts a reserve card played this much more */
    int one_lane;       /* Options.one_lane: the piles key the first lane alone (a win-hunter's keys) */
    int root_passed;    /* a hunter's first position passed the reserve schedule and the rules have no
                         * foundation-return: every position it enters has passed (hunter_cut, state.h) */
    int hunt_mix;       /* Options.hunt_mix (0-3) */
    int look;           /* Options.stock_lookahead: a shuffled search draws first where the next `look`
                         * stock cards hold one a foundation wants (0: off) */
    int blocking;       /* Options.reserve_blocking, no foundation-return: the complete search's cut (reach.c) */
    int64_t blocked_checks, blocked_cuts, blocked_kept;  /* how often it was asked, cut, and not asked (loop.h) */
    int fmode;          /* a shuffled search's foundation moves: 0 first, 1 the waste's first, 2 shuffled in
                         * one position in eight (Options.hunt_mix; 3 picks by the shuffle); 0 unshuffled */
    uint64_t rng;
    int64_t max_entries;
    /* tables (see tables.py) */
    int nslot, classes, nbasek;
    uint8_t SK[52], HK[52], RC[52], DOWNRC[52], REP[52];
    int8_t NEXT[52], PREV[52];
    uint8_t HEIGHT[52], CLASS_OF[52], IS_BASE[52], BASEK[4];
    uint8_t holds[52][4], nholds[52];
    uint8_t chain[4][13];
    /* position */
    uint8_t *res, *stk, *wst, *pile[MAXP];
    int nres, nstk, nwst, plen[MAXP], ru;
    int want[52], off[52], ftop[52], done[4], found;
    /* each class's foundation heights, lowest first (13: done), as want
     * and done count them: kept by up() and ret_card() (state.h), so that
     * the reserve schedule starts from them instead of counting them out
     * of want on every call (schedule.c, fh_build) */
    uint8_t fh[4][MAXFD];
    uint64_t h[2], hpt[2], ph[MAXP][2];
    uint64_t pm[MAXP][2];  /* each pile's share of hpt (state.h, pile_share) */
    /* each pile's top, kept by every change of a pile (state.h, tops_set)
     * so that gen() does not scan the piles: the top card of each pile
     * that has one, the rank and colour it takes (DOWNRC; 26: the pile is
     * empty), the piles whose top takes rank and colour d, a bit a pile
     * (under[26]: the empty piles), the d of under[0..26) that hold
     * two piles or more (crowd: where equal piles can be), and the d of
     * under[0..27) that hold one or more (taken: a pile whose top is of
     * rank and colour d has a pile to go to) */
    uint8_t ptop[MAXP], pd[MAXP];
    uint32_t under[27], crowd, taken;
    /* and the top's own rank and colour (RC) and slot key (SK), read by
     * gen() for each source without going through the card */
    uint8_t pr[MAXP], pk[MAXP];
    int32_t *pref;
    int nres0;          /* the reserve's first length (its cards never change) */
    int16_t *rbelow;    /* [cls * (nres0 + 1) + n]: reserve cards of class cls among res[0..n) */
    uint8_t *rheight;   /* [cls * nres0 + i]: the height of the i-th of them, bottom first */
    const lane2 (*zp[MAXP])[52];
    zset *z;
    /* the search */
    int32_t *mv;
    int64_t mv_len, mv_cap;
    int64_t *fstart;
    int32_t *fcount, *fidx, *path, *best_path;
    int64_t best_len;
    /* the first best_same moves of the path are those of best_path: run()
     * keeps it as moves are taken back, and note_best() copies the rest
     * alone (loop.h) */
    int64_t best_same;
    uint8_t *undo, *upc;
    int64_t nfr, npath, cap;
    uint64_t *tt;
    uint64_t tt_mask;
    int64_t tt_count;
    size_t tt_bytes;
    int tt_mapped;  /* the table has a mapping of its own (tables.c) */
    /* a restarted search's table (tt_renew): a slot is taken only when its
     * stamp is the table's epoch, so a restart empties it by taking a new
     * epoch instead of zeroing it; NULL for every other table, where
     * (0, 0) marks a free slot (tables.c) */
    uint16_t *tt_st;
    uint16_t tt_ep;
    int result, started, best;
    int64_t base_len;  /* moves of the restart's prefix at the bottom of the path (restart()) */
    int64_t nodes;
    int best_found, best_first;
    double last_seconds;
    struct beam *beam;  /* set: the search is the beam hunter (beam.c) */
    struct nest *nest;  /* set: the search is the nested hunter (nested.c) */
    struct nrpa *nrpa;  /* set: the search is the policy-learning hunter (nrpa.c) */
    struct lds *lds;    /* set: the search is the discrepancy hunter (lds.c) */
    struct root *root;  /* the first position, kept by the first restart() */
} Core;

static inline uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The options of the restarting win-hunters of solve() in suit games
 * (mixed keys, one lane, unranked shuffled moves, Safe foundation moves,
 * the reserve schedule, no foundation-return, and every other switch
 * off): the search loop is compiled a second time with them as constants
 * (hunter.c, loop.h), which run() takes for a search that has them all
 * (hunter_options). The code reads an option through OPT: the constant
 * in that build, the search's field everywhere else. */
#define HUNTER_mixed 1
#define HUNTER_canon 1
#define HUNTER_one_lane 1
#define HUNTER_safe 1
#define HUNTER_ret 0
#define HUNTER_look 0
#define HUNTER_order ORDER_UNRANKED
#define HUNTER_blocking 0
#define HUNTER_live_best 0
#define HUNTER_reserve_extra 0
#define HUNTER_fmode 0
#define HUNTER_dead_check 1

#ifdef HUNTER_BUILD
#define OPT(s, name) HUNTER_##name
#else
#define OPT(s, name) ((s)->name)
#endif

/* 1 when the search has the options of the hunters' build */
static inline int hunter_options(const Core *s) {
    return s->mixed == HUNTER_mixed && s->canon == HUNTER_canon && s->one_lane == HUNTER_one_lane &&
           s->safe == HUNTER_safe && s->ret == HUNTER_ret && s->look == HUNTER_look && s->order == HUNTER_order &&
           s->blocking == HUNTER_blocking && s->live_best == HUNTER_live_best &&
           s->reserve_extra == HUNTER_reserve_extra && s->fmode == HUNTER_fmode && s->dead_check == HUNTER_dead_check;
}

/* what the best line is chosen by: cards up, and each reserve card
 * played reserve_extra times more (Options.reserve_weight) */
static inline int worth(const Core *s) { return s->found + OPT(s, reserve_extra) * (s->nres0 - s->nres); }

/* the foundation moves' place in a search of move order `shuffle` under
 * Options.hunt_mix (Core.fmode): none but the plain one when unshuffled;
 * mix 3 gives each hunter one of the three by its order (movegen.py,
 * foundation_mode) */
static inline int foundation_mode(int mix, uint64_t shuffle) {
    if (!shuffle) return 0;
    return mix == 3 ? (int)(shuffle % 3) : mix;
}

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
