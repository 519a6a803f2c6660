/* Moves, prunings and the search loop of the compiled core (state.py,
 * movegen.py, prune.py, search.py). run() is called without the GIL. */
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

/* under[d]: the piles whose top card takes a card of rank and colour d */
static int diggable(const Core *s, int i, const uint32_t *under) {
    int tops[26], wl[52];
    for (int d = 0; d < 26; d++) tops[d] = piles_in(under[d]);
    memcpy(wl, s->want, sizeof wl);
    const uint8_t *p = s->pile[i];
    tops[s->DOWNRC[p[s->plen[i] - 1]]]--;
    for (int d = s->plen[i] - 1; d >= 0; d--) {
        uint8_t c = p[d];
        if (tops[s->RC[c]] > 0) {
            tops[s->RC[c]]--;
            tops[s->DOWNRC[c]]++;
            continue;
        }
        if (wl[s->SK[c]] > 0) { wl[s->SK[c]]--; continue; }
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

int gen(Core *s, int prev, int prev_u, int32_t *out) {
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
    if (s->canon) {
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
            if (s->safe && safe_count(s, k)) { out[0] = SRC_RESERVE * 64 + DST_FOUNDATION; return 1; }
            out[n++] = SRC_RESERVE * 64 + DST_FOUNDATION;
        }
    }
    /* live: the sources that have a move to another pile, each to the
     * piles of its mask to[i] (and to the first empty pile when
     * spaces_too and it has more than one card). The loop runs over every
     * pile, as many times at every position, and live is worked out
     * without a branch, then masked by the sources (an empty pile keeps
     * the pr and pk of its last top): a loop over the sources' bits with a
     * branch on whether each had a target mispredicted both about once a
     * position (a solve took 13% less time without them, "Changes
     * measured") */
    uint32_t live = 0, many = 0, to[MAXP];
    int spaces_too = first_empty >= 0 && s->freesp;
    for (int j = 0; j < s->piles_n; j++) {
        int k = s->pk[j];
        if (s->want[k] > 0 && (sources >> j & 1)) {
            if (s->safe && safe_count(s, k) && (!s->autosp || s->plen[j] > 1) && nothing_can_lie_on(s, k)) {
                out[0] = j * 64 + DST_FOUNDATION;
                return 1;
            }
            out[n++] = j * 64 + DST_FOUNDATION;
        }
        /* (pile j is never among its own targets: a card does not take a
         * card of its own rank) */
        to[j] = under[s->pr[j]] & ~dup;
        live |= (uint32_t)(to[j] != 0) << j;
        many |= (uint32_t)(s->plen[j] > 1) << j;
    }
    if (spaces_too) live |= many;
    live &= sources;
    if (again >= 0) live &= ~(1u << again);
    if (s->nwst) {
        int k = s->SK[s->wst[s->nwst - 1]];
        if (s->want[k] > 0) {
            if (s->safe && !s->autosp && s->ru >= s->redeals && safe_count(s, k) && nothing_can_lie_on(s, k)) {
                out[0] = SRC_WASTE * 64 + DST_FOUNDATION;
                return 1;
            }
            out[n++] = SRC_WASTE * 64 + DST_FOUNDATION;
        }
    }
    int draw_early = s->order == ORDER_DRAW_EARLY && can_draw(s);
    if (draw_early) out[n++] = DRAW;
    /* the waste card onto piles */
    if (s->nwst) {
        int rc = s->RC[s->wst[s->nwst - 1]];
        n = targets(out, n, SRC_WASTE * 64, under[rc] & ~dup);
        /* Empty piles: only the first one */
        if (first_empty >= 0 && (s->freesp || s->wastesp)) out[n++] = SRC_WASTE * 64 + first_empty;
    }
    /* pile to pile, sources with fewer cards first, the pile numbers
     * breaking ties (ORDER_UNRANKED keeps the pile order): ranked by one
     * key, length then pile (below 32 * MAXSZ, so 16 bits). Only the
     * live sources are ranked: most sources have no move to a pile */
    int srcs[MAXP], nsrc = 0;
    for (uint32_t m = live; m; m &= m - 1) srcs[nsrc++] = __builtin_ctz(m);
    if (s->order != ORDER_UNRANKED && nsrc > 1) {
        int16_t order[ORDER_PLACES];
        for (int a = 0; a < ORDER_PLACES; a++) order[a] = INT16_MAX;
        for (int a = 0; a < nsrc; a++) order[a] = (int16_t)(s->plen[srcs[a]] * 32 + srcs[a]);
        if (nsrc <= 8) rank_sources(order, nsrc, 8, srcs);
        else if (nsrc <= 16) rank_sources(order, nsrc, 16, srcs);
        else rank_sources(order, nsrc, ORDER_PLACES, srcs);
    }
    for (int q = 0; q < nsrc; q++) {
        int i = srcs[q];
        if (s->dig_only && !diggable(s, i, under)) continue;
        n = targets(out, n, i * 64, to[i]);
        /* Empty piles: the first one, and never for a pile's only card */
        if (spaces_too && s->plen[i] > 1) out[n++] = i * 64 + first_empty;
    }
    if (s->ret) {
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
        if (s->fmode == 1 && first > 1 && (out[first - 1] >> 6) == SRC_WASTE) {
            int32_t w = out[first - 1];
            for (int i = first - 1; i > 0; i--) out[i] = out[i - 1];
            out[0] = w;
        } else if (s->fmode == 2 && first > 0 && (splitmix(&s->rng) & 7) == 0) {
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
        if (s->look) {
            int lo = s->nstk > s->look ? s->nstk - s->look : 0;
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

int grow(Core *s) {
    if (s->mv_len + MAXGEN > s->mv_cap) {
        int64_t cap = s->mv_cap * 2 + MAXGEN;
        int32_t *mv = realloc(s->mv, cap * sizeof(int32_t));
        if (!mv) return 0;
        s->mv = mv;
        s->mv_cap = cap;
    }
    if (s->nfr + 1 >= s->cap || s->npath + 1 >= s->cap) {
        int64_t cap = s->cap * 2 + 64;
        int64_t *fstart = realloc(s->fstart, cap * sizeof(int64_t));
        if (fstart) s->fstart = fstart;
        int32_t *fcount = realloc(s->fcount, cap * sizeof(int32_t));
        if (fcount) s->fcount = fcount;
        int32_t *fidx = realloc(s->fidx, cap * sizeof(int32_t));
        if (fidx) s->fidx = fidx;
        int32_t *path = realloc(s->path, cap * sizeof(int32_t));
        if (path) s->path = path;
        uint8_t *un = realloc(s->undo, cap);
        if (un) s->undo = un;
        uint8_t *upc = realloc(s->upc, cap);
        if (upc) s->upc = upc;
        int32_t *best_path = realloc(s->best_path, cap * sizeof(int32_t));
        if (best_path) s->best_path = best_path;
        if (!fstart || !fcount || !fidx || !path || !un || !upc || !best_path) return 0;
        s->cap = cap;
    }
    return 1;
}

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
    if (!*cut && s->blocking) {
        if (blocking_kept(s, m, u)) s->blocked_kept++;
        else if (s->blocked_checks++, reserve_blocked(s)) { *cut = 1; s->blocked_cuts++; }
    }
    if (!*cut) n = gen(s, m, u, s->mv + at);
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
    memcpy(s->best_path, s->path, s->npath * sizeof(int32_t));
    s->best_len = s->npath;
    return s->found == s->total;
}

int run(Core *s, int64_t max_nodes, double seconds) {
    double t0 = now(), deadline = t0 + seconds;
    int64_t stop = s->nodes + max_nodes;
    int cut;
    if (!s->started) {
        s->started = 1;
        s->nodes = 1;
        s->best = worth(s);
        if (!s->tt || tt_insert(s) < 0) return R_MEMORY;  /* (no table: none fitted under the limit) */
        if (s->found == s->total) return R_WON;
        if (!push_frame(s, -2, 0, s->dead_check, &cut)) return R_MEMORY;
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
            if (gain && !s->live_best && note_best(s)) return R_WON;
            int fresh = slot >= 0 ? tt_put(s, slot, key) : tt_insert(s);
            if (fresh < 0) return R_MEMORY;
            if (fresh) {
                if (!push_frame(s, m, u, up_, &cut)) return R_MEMORY;
                if (gain && s->live_best && !cut && note_best(s)) return R_WON;
                continue;
            }
        } else {
            s->nfr--;
            s->mv_len = s->fstart[s->nfr];
            /* (out of moves proves the loss only with keys of both lanes:
             * a false "seen" of one-lane keys may have skipped a win) */
            if (s->npath == s->base_len) return s->one_lane ? R_SPENT : R_LOST;
        }
        s->npath--;
        undo(s, s->path[s->npath], s->undo[s->npath]);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Restarts (Search.restart): the same search object starts again from the
 * position it was built on, after a prefix of moves, with another random
 * order; what it finds is then exactly what a new search built on the
 * position after the prefix would find, with the prefix in front. */

/* one field between the search and its copy: kept (keep 1) or set again */
static inline void field(void *in_core, void *in_root, size_t n, int keep) {
    if (keep) memcpy(in_root, in_core, n);
    else memcpy(in_core, in_root, n);
}

static void root_copy(Core *s, struct root *r, int keep) {
    field(&s->nres, &r->nres, sizeof r->nres, keep);
    field(&s->nstk, &r->nstk, sizeof r->nstk, keep);
    field(&s->nwst, &r->nwst, sizeof r->nwst, keep);
    field(&s->ru, &r->ru, sizeof r->ru, keep);
    field(&s->found, &r->found, sizeof r->found, keep);
    field(s->want, r->want, sizeof r->want, keep);
    field(s->off, r->off, sizeof r->off, keep);
    field(s->ftop, r->ftop, sizeof r->ftop, keep);
    field(s->done, r->done, sizeof r->done, keep);
    field(s->fh, r->fh, sizeof r->fh, keep);
    field(s->h, r->h, sizeof r->h, keep);
    field(s->hpt, r->hpt, sizeof r->hpt, keep);
    field(s->ph, r->ph, sizeof r->ph, keep);
    field(s->pm, r->pm, sizeof r->pm, keep);
    field(s->stk, r->stk, r->nstk, keep);
    field(s->wst, r->wst, r->nwst, keep);
    field(s->plen, r->plen, sizeof r->plen, keep);
    for (int j = 0; j < s->piles_n; j++) field(s->pile[j], r->pile[j], r->plen[j], keep);
}

void root_free(Core *s) {
    free(s->root);
    s->root = NULL;
}

static int contains(const int32_t *moves, int n, int m) {
    for (int j = 0; j < n; j++)
        if (moves[j] == m) return 1;
    return 0;
}

/* 1 when move m can be played where the search stands: a card is where
 * it comes from, and a foundation wants it (a check that keeps apply()
 * safe, not the rules of the tableau) */
static int playable(const Core *s, int m) {
    if (m == DRAW) return can_draw(s);
    if (m < 0) return 0;
    int src = m >> 6, dst = m & 63;
    uint8_t c;
    if (dst != DST_FOUNDATION && dst >= s->piles_n) return 0;
    if (src < SRC_RESERVE) {
        if (src >= s->piles_n || !s->plen[src] || src == dst) return 0;
        c = s->pile[src][s->plen[src] - 1];
    } else if (src == SRC_RESERVE) {
        if (!s->nres) return 0;
        c = s->res[s->nres - 1];
    } else if (src == SRC_WASTE) {
        if (!s->nwst) return 0;
        c = s->wst[s->nwst - 1];
    } else {
        int k = src - SRC_RETURN;
        return k >= 0 && s->ret && k < s->nslot && s->ftop[k] && !s->IS_BASE[k] && dst != DST_FOUNDATION;
    }
    return dst != DST_FOUNDATION || s->want[s->SK[c]] > 0;
}

/* 1: done; 0: out of memory; -1: moves[i] is not a move the search (or a
 * digging one) makes there (*bad = i; the search is back at its first
 * position, in the new order). With checked 0 the moves are a line of the
 * solver's own from this position (a hunter's best line), so only
 * playable() is asked, not the move list of every position on the way. */
int restart(Core *s, uint64_t shuffle, const int32_t *moves, int64_t n, int64_t *bad, int checked) {
    if (s->root) {
        root_copy(s, s->root, 0);
        tops_build(s);
        s->npath = 0;
    } else {
        take_back_to(s, 0);
        s->root = malloc(sizeof *s->root);
        if (s->root) root_copy(s, s->root, 1);
    }
    s->nfr = 0; s->mv_len = 0; s->started = 0; s->result = 0; s->nodes = 0;
    s->best = 0; s->best_found = -1; s->best_first = -2; s->best_len = 0; s->base_len = 0;
    /* emptied by a new epoch, not zeroed (tt_renew); none under the limit:
     * the first step ends for want of memory (run) */
    tt_renew(s, 4096);
    s->shuffled = 0;  /* the prefix is checked against the moves in their plain order */
    int32_t legal[MAXGEN];
    int prev = -2, prev_u = 0, r = 1;
    for (int64_t i = 0; i < n; i++) {
        /* the moves from here as from a first position (which the moves
         * after the previous one are among), or a digging hunter's
         * (Options.dig_only): they go on digging the pile a card has just
         * left, which the plain moves may leave out */
        int ok = checked ? contains(legal, gen(s, -2, 0, legal), moves[i]) ||
                               (plain_pile_move(prev, prev_u) && s->plen[prev >> 6] &&
                                contains(legal, dig_moves(s, prev >> 6, legal), moves[i]))
                         : playable(s, moves[i]);
        if (!ok) { *bad = i; r = -1; break; }
        if (!grow(s)) { r = 0; break; }
        int up_;
        int u = apply(s, moves[i], &up_);
        s->path[s->npath] = moves[i];
        s->undo[s->npath] = (uint8_t)u;
        s->npath++;
        prev = moves[i]; prev_u = u;
    }
    if (r < 1) take_back_to(s, 0);
    s->base_len = s->npath;
    s->rng = shuffle;
    s->shuffled = shuffle != 0;
    s->fmode = foundation_mode(s->hunt_mix, shuffle);
    return r;
}
