/* Moves, prunings and the search loop of the compiled core (state.py,
 * movegen.py, prune.py, search.py; the moves and the loop are in loop.h).
 * run() is called without the GIL. */
#include "hunter.h"
#include "loop.h"

int gen(Core *s, int prev, int prev_u, int32_t *out) { return gen_moves(s, prev, prev_u, out); }

int run(Core *s, int64_t max_nodes, double seconds) {
    if (hunter_options(s)) return run_hunter(s, max_nodes, seconds);
    return search_loop(s, max_nodes, seconds);
}

/* ------------------------------------------------------------------ */
/* The search's arrays. */

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
