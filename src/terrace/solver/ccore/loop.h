/* Moves, prunings and the search loop of the compiled core (state.py,
 * movegen.py, prune.py, search.py), compiled twice: by search.c, reading
 * every option from the search, and by hunter.c, where the options of
 * the restarting win-hunters of suit games are constants (OPT, core.h).
 * Everything here is static, so each file has its own copy. */
#ifndef TERRACE_LOOP_H
#define TERRACE_LOOP_H

#include "keyset.h"
#include "reach.h"
#include "search.h"
#include "state.h"
#include "tables.h"

/* 1 when the next entry would fill the table past three quarters, where
 * it grows */
static inline int tt_due(const Core *s) { return (uint64_t)(s->tt_count + 1) * 4 > (s->tt_mask + 1) * 3; }

/* the position into the table: 1 new (inserted), 0 seen before, -1 no
 * memory left */
static int tt_insert(Core *s) {
    uint64_t a, b;
    position_key(s, &a, &b);
    mend_key(a, &b);
    if (tt_due(s)) {
        if (!tt_alloc(s, (s->tt_mask + 1) * 2)) {
            if ((uint64_t)(s->tt_count + 1) * 20 > (s->tt_mask + 1) * 19) return -1;
        }
    }
    uint64_t j = tt_slot(s, a, b);
    if (tt_used(s, j)) return 0;
    if (s->tt_count >= s->max_entries) return -1;
    tt_set(s, j, a, b);
    return 1;
}

/* The table's slot of the position after move m, found without playing
 * the move (key_after): -1 when it is already in the table (nearly half
 * the moves a hunter plays lead to a position it has entered), else the
 * free slot it takes, its key in key[]; -2 when the table is due to grow
 * (tt_insert() does that) or m is a redeal */
static inline int64_t slot_after(const Core *s, int m, uint64_t key[2], keyed *w) {
    if (tt_due(s) || !key_after(s, m, key, w)) return -2;
    mend_key(key[0], &key[1]);
    uint64_t j = tt_slot(s, key[0], key[1]);
    return tt_used(s, j) ? -1 : (int64_t)j;
}

/* the position after a move into free slot j of the table (slot_after,
 * with the table unchanged since): 1, or -1 when no entry is left */
static inline int tt_put(Core *s, int64_t j, const uint64_t key[2]) {
    if (s->tt_count >= s->max_entries) return -1;
    tt_set(s, (uint64_t)j, key[0], key[1]);
    return 1;
}

/* ------------------------------------------------------------------ */
/* Prunings (prune.py). */

/* Safe foundation moves, the count condition, with the IS_BASE exception. */
static inline int safe_count(const Core *s, int k) { return s->IS_BASE[k] || s->off[k] <= s->want[k]; }

/* Safe foundation moves, the holder condition. */
static inline int nothing_can_lie_on(const Core *s, int k) {
    for (int i = 0; i < s->nholds[k]; i++)
        if (s->off[s->holds[k][i]]) return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Move generation (movegen.py). */

/* the piles of mask m: how many */
static inline int piles_in(uint32_t m) {
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* Digging (Options.dig_only): 1 when pile i can be taken apart to its
 * last card, each card from the top going onto another pile whose top
 * takes it (under[d]: the piles whose top card takes a card of rank and
 * colour d; a card put there becomes a top in its turn) or to a
 * foundation that wants it (each wanted card counted once). What the walk
 * has changed is kept as differences from under[] and want[] (dt, dw),
 * started at zero, so that only the ranks and colours and the slot keys
 * it meets are counted: the counts of all 26 and a copy of want[] for
 * every pile asked cost a quarter of a digging nested hunter's time */
static int diggable(const Core *s, int i, const uint32_t *under) {
    int8_t dt[32] = {0}, dw[52] = {0};
    const uint8_t *p = s->pile[i];
    dt[s->pd[i]]--;  /* (the pile's own top takes nothing of its own) */
    for (int d = s->plen[i] - 1; d >= 0; d--) {
        uint8_t c = p[d];
        int r = s->RC[c];
        if (piles_in(under[r]) + dt[r] > 0) {
            dt[r]--;
            dt[s->DOWNRC[c]]++;
            continue;
        }
        int k = s->SK[c];
        if (s->want[k] + dw[k] > 0) { dw[k]--; continue; }
        return 0;
    }
    return 1;
}

static int dig_moves(const Core *s, int i, int32_t *out) {
    int n = 0;
    uint8_t c = s->pile[i][s->plen[i] - 1];
    if (s->want[s->SK[c]] > 0) out[n++] = i * 64 + DST_FOUNDATION;
    for (int j = 0; j < s->piles_n; j++)
        if (j != i && s->plen[j] && s->DOWNRC[s->pile[j][s->plen[j] - 1]] == s->RC[c]) out[n++] = i * 64 + j;
    return n;
}

/* the places of the sources' ranking keys: MAXP rounded up to 8 */
#define ORDER_PLACES ((MAXP + 7) & ~7)

/* srcs[0..n) become the sources in the order of their keys order[0..n),
 * which all differ; order[n..places) hold INT16_MAX. Each source goes to
 * its rank, the number of keys below its own, counted without branches (an
 * insertion sort's mispredicted branches cost more than these comparisons)
 * for all places at once: with `places` a constant (8, 16 or 24) and 16-bit
 * keys, eight to a vector instruction */
static inline void rank_sources(const int16_t *order, int n, int places, int *srcs) {
    int16_t rank[ORDER_PLACES] = {0};
    for (int b = 0; b < places; b++)
        for (int a = 0; a < places; a++) rank[a] += order[b] < order[a];
    for (int a = 0; a < n; a++) srcs[rank[a]] = order[a] & 31;
}

/* the moves from = (source * 64) to the piles of mask m, in pile order,
 * after out[0..n): the new count. The first two are written without a
 * branch (a loop of varying length was mispredicted): both are written
 * whatever m holds, and what is past the new count is overwritten or left
 * past the end (out has MAXGEN places, far more than any position's moves) */
_Static_assert(MAXP < 32, "a pile is a bit of a 32-bit mask, bit 31 a sentinel");

static inline int targets(int32_t *out, int n, int from, uint32_t m) {
    uint32_t m2 = m & (m - 1);
    out[n] = from + __builtin_ctz(m | 1u << 31);
    out[n + 1] = from + __builtin_ctz(m2 | 1u << 31);
    n += (m != 0) + (m2 != 0);
    for (m2 &= m2 - 1; m2; m2 &= m2 - 1) out[n++] = from + __builtin_ctz(m2);
    return n;
}

/* 1 when pile j is equal (by key) to one of the piles of mask m */
static int equal_to_one(const Core *s, uint32_t m, int j) {
    for (; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        if (s->ph[a][0] == s->ph[j][0] && s->ph[a][1] == s->ph[j][1]) return 1;
    }
    return 0;
}

/* the moves of live source i to other piles (not to those of dup), and
 * to the first empty pile when spaces_too, after out[0..n): the new count */
static inline int pile_moves(const Core *s, int i, int32_t *out, int n, uint32_t dup, int spaces_too,
                             int first_empty) {
    n = targets(out, n, i * 64, s->under[s->pr[i]] & ~dup);
    /* Empty piles: the first one, and never for a pile's only card */
    if (spaces_too && s->plen[i] > 1) out[n++] = i * 64 + first_empty;
    return n;
}

static int gen_moves(Core *s, int prev, int prev_u, int32_t *out) {
    int n = 0;
    /* Just-moved card: not moved between piles again at once */
    int again = -1;
    if (plain_pile_move(prev, prev_u)) {
        again = prev & 63;
        if (s->dig_only && s->plen[prev >> 6]) return dig_moves(s, prev >> 6, out);
    }
    /* under[d]: the piles whose top card takes a card of rank and colour
     * d, a bit a pile, kept move by move (Core.under); those of them that
     * are new piles by key (Keys: equal piles are one target; all of them
     * when not canonical) are under[d] & ~dup. Equal piles have the same
     * top card, so they are looked for in the crowded d alone */
    const uint32_t *under = s->under;
    uint32_t dup = 0;
    if (OPT(s, canon)) {
        for (uint32_t c = s->crowd & ((1u << 26) - 1); c; c &= c - 1) {
            uint32_t m = under[__builtin_ctz(c)], earlier = m & (0 - m);
            for (m &= m - 1; m; m &= m - 1) {
                int j = __builtin_ctz(m);
                if (equal_to_one(s, earlier, j)) dup |= 1u << j;
                earlier |= 1u << j;
            }
        }
    }
    uint32_t empties = under[26];
    /* the sources: the piles that are new by key */
    uint32_t sources = ((1u << s->piles_n) - 1) & ~empties & ~dup;
    int first_empty = empties ? __builtin_ctz(empties) : -1;
    /* foundation moves; Safe foundation moves are returned alone */
    if (s->nres) {
        int k = s->SK[s->res[s->nres - 1]];
        if (s->want[k] > 0) {
            if (OPT(s, safe) && safe_count(s, k)) { out[0] = SRC_RESERVE * 64 + DST_FOUNDATION; return 1; }
            out[n++] = SRC_RESERVE * 64 + DST_FOUNDATION;
        }
    }
    /* live: the sources that have a move to another pile (one whose top
     * takes theirs: its rank and colour is in `taken`, and the first pile
     * under it is never an equal one), and to the first empty pile when
     * spaces_too and it has more than one card; wanted: the piles whose
     * top a foundation wants. The loop runs over every pile, as many times
     * at every position, without a branch (an empty pile keeps the pr and
     * pk of its last top, and is masked by the sources after): a branch on
     * whether each source had a target mispredicted about once a position
     * (a solve took 13% less time without it, "Changes measured") */
    uint32_t live = 0, many = 0, wanted = 0;
    int spaces_too = first_empty >= 0 && s->freesp;
    for (int j = 0; j < s->piles_n; j++) {
        wanted |= (uint32_t)(s->want[s->pk[j]] > 0) << j;
        live |= (s->taken >> s->pr[j] & 1) << j;
        many |= (uint32_t)(s->plen[j] > 1) << j;
    }
    for (uint32_t m = wanted & sources; m; m &= m - 1) {
        int j = __builtin_ctz(m), k = s->pk[j];
        if (OPT(s, safe) && safe_count(s, k) && (!s->autosp || s->plen[j] > 1) && nothing_can_lie_on(s, k)) {
            out[0] = j * 64 + DST_FOUNDATION;
            return 1;
        }
        out[n++] = j * 64 + DST_FOUNDATION;
    }
    if (spaces_too) live |= many;
    live &= sources;
    if (again >= 0) live &= ~(1u << again);
    /* Digging: the sources that cannot be taken apart have no moves to
     * other piles, so they are left out before the rest are ranked (about
     * one live source in nine can be, in a digging nested hunter) */
    if (s->dig_only) {
        for (uint32_t m = live; m; m &= m - 1)
            if (!diggable(s, __builtin_ctz(m), under)) live &= ~(m & (0 - m));
    }
    if (s->nwst) {
        int k = s->SK[s->wst[s->nwst - 1]];
        if (s->want[k] > 0) {
            if (OPT(s, safe) && !s->autosp && s->ru >= s->redeals && safe_count(s, k) && nothing_can_lie_on(s, k)) {
                out[0] = SRC_WASTE * 64 + DST_FOUNDATION;
                return 1;
            }
            out[n++] = SRC_WASTE * 64 + DST_FOUNDATION;
        }
    }
    int draw_early = OPT(s, order) == ORDER_DRAW_EARLY && can_draw(s);
    if (draw_early) out[n++] = DRAW;
    /* the waste card onto piles */
    if (s->nwst) {
        int rc = s->RC[s->wst[s->nwst - 1]];
        n = targets(out, n, SRC_WASTE * 64, under[rc] & ~dup);
        /* Empty piles: only the first one */
        if (first_empty >= 0 && (s->freesp || s->wastesp)) out[n++] = SRC_WASTE * 64 + first_empty;
    }
    /* pile to pile, sources with fewer cards first, the pile numbers
     * breaking ties (ORDER_UNRANKED keeps the pile order, taking the live
     * sources' bits as they come, in one loop): ranked by one key, length
     * then pile (below 32 * MAXSZ, so 16 bits). Only the live sources are
     * ranked: most sources have no move to a pile */
    if (OPT(s, order) == ORDER_UNRANKED) {
        for (uint32_t m = live; m; m &= m - 1) n = pile_moves(s, __builtin_ctz(m), out, n, dup, spaces_too, first_empty);
    } else {
        int srcs[MAXP], nsrc = 0;
        for (uint32_t m = live; m; m &= m - 1) srcs[nsrc++] = __builtin_ctz(m);
        if (nsrc > 1) {
            int16_t order[ORDER_PLACES];
            for (int a = 0; a < ORDER_PLACES; a++) order[a] = INT16_MAX;
            for (int a = 0; a < nsrc; a++) order[a] = (int16_t)(s->plen[srcs[a]] * 32 + srcs[a]);
            if (nsrc <= 8) rank_sources(order, nsrc, 8, srcs);
            else if (nsrc <= 16) rank_sources(order, nsrc, 16, srcs);
            else rank_sources(order, nsrc, ORDER_PLACES, srcs);
        }
        for (int q = 0; q < nsrc; q++) n = pile_moves(s, srcs[q], out, n, dup, spaces_too, first_empty);
    }
    if (OPT(s, ret)) {
        for (int k = 0; k < s->nslot; k++) {
            if (s->ftop[k] && !s->IS_BASE[k]) {
                int rc = s->RC[s->REP[k]];
                for (uint32_t m = under[rc]; m; m &= m - 1) out[n++] = (SRC_RETURN + k) * 64 + __builtin_ctz(m);
                if (first_empty >= 0 && s->freesp) out[n++] = (SRC_RETURN + k) * 64 + first_empty;
            }
        }
    }
    if (!draw_early && can_draw(s)) out[n++] = DRAW;
    if (s->shuffled && n > 1) {
        int first = 0;
        while (first < n && out[first] >= 0 && (out[first] & 63) == DST_FOUNDATION) first++;
        /* Options.hunt_mix: the waste's foundation move (the last of
         * them) first, or in one position in eight all of them shuffled
         * with the rest (movegen.py does the same) */
        if (OPT(s, fmode) == 1 && first > 1 && (out[first - 1] >> 6) == SRC_WASTE) {
            int32_t w = out[first - 1];
            for (int i = first - 1; i > 0; i--) out[i] = out[i - 1];
            out[0] = w;
        } else if (OPT(s, fmode) == 2 && first > 0 && (splitmix(&s->rng) & 7) == 0) {
            first = 0;
        }
        for (int i = n - 1 - first; i > 0; i--) {
            int j = (int)(splitmix(&s->rng) % (uint64_t)(i + 1));
            int32_t tmp = out[first + i];
            out[first + i] = out[first + j];
            out[first + j] = tmp;
        }
        /* Options.stock_lookahead: the draw first where the stock brings
         * a card a foundation wants within the next `look` cards (the
         * stock's top is its last card; with cards in it the draw is
         * among the shuffled moves) */
        if (OPT(s, look)) {
            int lo = s->nstk > OPT(s, look) ? s->nstk - OPT(s, look) : 0;
            for (int i = s->nstk - 1; i >= lo; i--) {
                if (s->want[s->SK[s->stk[i]]] > 0) {
                    int d = first;
                    while (d < n && out[d] != DRAW) d++;
                    if (d == n) break;  /* (never: a stock lets the search draw) */
                    for (; d > first; d--) out[d] = out[d - 1];
                    out[first] = DRAW;
                    break;
                }
            }
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* The search loop (search.py, Search._run). */

/* tables with fewer slots than this (a hunter's) stay in the cache */
#define PREFETCH_SLOTS ((uint64_t)1 << 16)

/* pushes the frame of the position just entered (after move m with refill
 * u); *cut: 1 when the reserve schedule cut it (no moves) */
static int push_frame(Core *s, int m, int u, int up_, int *cut) {
    /* grow() only when an array is near its end (a call through the PLT
     * for every position entered cost 1% of the time) */
    if ((s->mv_len + MAXGEN > s->mv_cap || s->nfr + 1 >= s->cap || s->npath + 1 >= s->cap) && !grow(s)) return 0;
    int64_t at = s->mv_len;
    int n = 0;
    /* Reserve schedule: checked at the start and after every foundation
     * move, then only for the class of the card that went up (the
     * position before it passed, and the other classes are as they were) */
    int only = up_ && m >= 0 ? s->CLASS_OF[s->SK[s->upc[s->npath - 1]]] : -1;
    *cut = reserve_cut(s, up_, only);
    /* Reserve schedule with blocking: at every new position but those
     * after a move that never turns a position it passes into one it cuts
     * (blocking_kept; the position before the move passed, or it would
     * have no moves) */
    if (!*cut && OPT(s, blocking)) {
        if (blocking_kept(s, m, u)) s->blocked_kept++;
        else if (s->blocked_checks++, reserve_blocked(s)) { *cut = 1; s->blocked_cuts++; }
    }
    if (!*cut) n = gen_moves(s, m, u, s->mv + at);
    /* the table's slots of the positions these moves lead to are fetched
     * into the cache now, while the search plays the first of them: a
     * probe of a large table waits for memory (two thirds of the complete
     * search's time went to that one load, perf) */
    if (s->tt_mask >= PREFETCH_SLOTS) {
        for (int i = 0; i < n; i++) {
            uint64_t key[2];
            if (key_after(s, s->mv[at + i], key, NULL)) __builtin_prefetch(s->tt + 2 * (key[0] & s->tt_mask));
        }
    }
    s->fstart[s->nfr] = at;
    s->fcount[s->nfr] = n;
    s->fidx[s->nfr] = 0;
    s->nfr++;
    s->mv_len = at + n;
    return 1;
}

/* the line to the position just entered is the best so far (its worth is
 * more than the best's); 1 when it wins */
static int note_best(Core *s) {
    s->best = worth(s);
    s->best_found = s->best;
    s->best_first = s->path[s->base_len];
    /* (the part of the path that is still the best line's is not copied
     * again: a whole copy of some 300 moves every 25 positions, as a dive
     * betters its best move after move) */
    int64_t same = s->best_same;
    memcpy(s->best_path + same, s->path + same, (s->npath - same) * sizeof(int32_t));
    s->best_same = s->npath;
    s->best_len = s->npath;
    return s->found == s->total;
}

static int search_loop(Core *s, int64_t max_nodes, double seconds) {
    double t0 = now(), deadline = t0 + seconds;
    int64_t stop = s->nodes + max_nodes;
    int cut;
    s->best_same = 0;  /* (the path may have changed between two calls) */
    if (!s->started) {
        s->started = 1;
        s->nodes = 1;
        s->best = worth(s);
        if (!s->tt || tt_insert(s) < 0) return R_MEMORY;  /* (no table: none fitted under the limit) */
        if (s->found == s->total) return R_WON;
        if (!push_frame(s, -2, 0, OPT(s, dead_check), &cut)) return R_MEMORY;
    }
    int tick = 0;
    for (;;) {
        if (s->nodes >= stop) break;
        if (++tick >= 256) {
            tick = 0;
            if (now() >= deadline) break;
        }
        int64_t fr = s->nfr - 1;
        if (s->fidx[fr] < s->fcount[fr]) {
            int m = s->mv[s->fstart[fr] + s->fidx[fr]++];
            /* a position already entered is counted, like every move
             * played, but not played and taken back: it was played before,
             * when the best so far was updated, and is no win */
            uint64_t key[2];
            keyed w;
            int64_t slot = slot_after(s, m, key, &w);
            if (slot == -1) {
                s->nodes++;
                continue;
            }
            int up_;
            int u = play(s, m, &up_, slot >= 0 ? &w : NULL);
            /* (a position entered before is never better than the best:
             * it was weighed when first entered) */
            int gain = worth(s) > s->best;
            if (gain && !OPT(s, live_best) && note_best(s)) return R_WON;
            int fresh = slot >= 0 ? tt_put(s, slot, key) : tt_insert(s);
            if (fresh < 0) return R_MEMORY;
            if (fresh) {
                if (!push_frame(s, m, u, up_, &cut)) return R_MEMORY;
                if (gain && OPT(s, live_best) && !cut && note_best(s)) return R_WON;
                continue;
            }
        } else {
            s->nfr--;
            s->mv_len = s->fstart[s->nfr];
            /* (out of moves proves the loss only with keys of both lanes:
             * a false "seen" of one-lane keys may have skipped a win) */
            if (s->npath == s->base_len) return OPT(s, one_lane) ? R_SPENT : R_LOST;
        }
        s->npath--;
        if (s->npath < s->best_same) s->best_same = s->npath;
        undo(s, s->path[s->npath], s->undo[s->npath]);
    }
    return 0;
}

#endif
