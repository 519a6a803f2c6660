/* The compiled core of the solver: the same depth-first search as the
 * pure-Python reference (search.py, state.py, movegen.py, prune.py), on
 * byte arrays, with a transposition table of 128-bit keys.
 *
 * Every pruning carries the name of its heading in docs/winnability.md,
 * where its proof is written. The Python search is the reference: the tests
 * check that both visit exactly the same number of positions.
 *
 * A slice of the search runs without the GIL, so other Python threads (the
 * web server) keep running while a hint is solved.
 */
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
#define MAXP 20      /* piles */
#define MAXSZ 417    /* cards + 1 (8 decks) */
#define MAXRD 12     /* redeals + 2 */
#define MAXGEN 2048  /* moves of one position, at most */

typedef uint64_t lane2[2];

/* ------------------------------------------------------------------ */
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

static zset *zsets = NULL;

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static zset *zobrist(uint64_t seed) {  /* called with the GIL held */
    for (zset *z = zsets; z; z = z->next)
        if (z->seed == seed) return z;
    zset *z = malloc(sizeof(zset));
    if (!z) return NULL;
    uint64_t st = seed ^ 0x7465727261636521ULL;
    uint64_t *all = &z->zr[0][0];
    size_t n = (offsetof(zset, next) - offsetof(zset, zr)) / sizeof(uint64_t);
    for (size_t i = 0; i < n; i++) all[i] = splitmix(&st);
    z->seed = seed;
    z->next = zsets;
    zsets = z;
    return z;
}

/* The mixing function of suit games (docs/winnability.md, "Keys"): each
 * pile's key goes through MurmurHash3's 64-bit finaliser before the piles
 * are summed, so the sum keys the piles as a multiset. */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* ------------------------------------------------------------------ */
/* Memory: every transposition table of the process draws from one limit. */

static size_t mem_used = 0;
static size_t mem_limit = (size_t)1536 << 20;

static int mem_take(size_t n) {
    size_t cur = __atomic_load_n(&mem_used, __ATOMIC_RELAXED);
    for (;;) {
        if (cur + n > mem_limit) return 0;
        if (__atomic_compare_exchange_n(&mem_used, &cur, cur + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    }
}

static void mem_give(size_t n) { __atomic_fetch_sub(&mem_used, n, __ATOMIC_RELAXED); }

/* ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int busy;
    /* rules */
    int piles_n, in_suit, redeals, ret, base, total, class_size;
    int autosp, freesp, wastesp;
    /* options */
    int canon, safe, dead_check, order, dig_only, mixed, shuffled, greedy, returns;
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
    uint64_t h[2], hpt[2], ph[MAXP][2];
    int32_t *pref;
    const lane2 (*zp[MAXP])[52];
    zset *z;
    /* the search */
    int32_t *mv;
    int64_t mv_len, mv_cap;
    int64_t *fstart;
    int32_t *fcount, *fidx, *path, *best_path;
    int64_t best_len;
    uint8_t *undo, *upc;
    int64_t nfr, npath, cap;
    uint64_t *tt;
    uint64_t tt_mask;
    int64_t tt_count;
    size_t tt_bytes;
    int result, started, best;
    int64_t nodes;
    int best_found, best_first;
    double last_seconds;
} Core;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* The transposition table: open addressing, linear probing, 16 bytes an
 * entry, (0, 0) marks a free slot. */

static int tt_alloc(Core *s, uint64_t slots) {
    size_t bytes = slots * 2 * sizeof(uint64_t);
    if (!mem_take(bytes)) return 0;
    uint64_t *t = calloc(slots * 2, sizeof(uint64_t));
    if (!t) { mem_give(bytes); return 0; }
    uint64_t *old = s->tt;
    uint64_t old_slots = old ? s->tt_mask + 1 : 0;
    size_t old_bytes = s->tt_bytes;
    s->tt = t;
    s->tt_mask = slots - 1;
    s->tt_bytes = bytes;
    for (uint64_t i = 0; i < old_slots; i++) {
        uint64_t a = old[2 * i], b = old[2 * i + 1];
        if (a | b) {
            uint64_t j = a & s->tt_mask;
            while (t[2 * j] | t[2 * j + 1]) j = (j + 1) & s->tt_mask;
            t[2 * j] = a;
            t[2 * j + 1] = b;
        }
    }
    if (old) { free(old); mem_give(old_bytes); }
    return 1;
}

/* 1: new (inserted), 0: seen before, -1: no memory left */
static int tt_insert(Core *s, uint64_t a, uint64_t b) {
    if (!(a | b)) b = 1;
    if ((uint64_t)(s->tt_count + 1) * 4 > (s->tt_mask + 1) * 3) {
        if (!tt_alloc(s, (s->tt_mask + 1) * 2)) {
            if ((uint64_t)(s->tt_count + 1) * 20 > (s->tt_mask + 1) * 19) return -1;
        }
    }
    uint64_t *t = s->tt;
    uint64_t j = a & s->tt_mask;
    while (t[2 * j] | t[2 * j + 1]) {
        if (t[2 * j] == a && t[2 * j + 1] == b) return 0;
        j = (j + 1) & s->tt_mask;
    }
    if (s->tt_count >= s->max_entries) return -1;
    t[2 * j] = a;
    t[2 * j + 1] = b;
    s->tt_count++;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Playing and taking back moves (state.py). */

static inline void set_pile_key(Core *s, int j, uint64_t a, uint64_t b) {
    if (s->mixed) {
        s->hpt[0] += mix64(a) - mix64(s->ph[j][0]);
        s->hpt[1] += mix64(b ^ 0x5bd1e9955bd1e995ULL) - mix64(s->ph[j][1] ^ 0x5bd1e9955bd1e995ULL);
    } else {
        s->hpt[0] += a - s->ph[j][0];
        s->hpt[1] += b - s->ph[j][1];
    }
    s->ph[j][0] = a;
    s->ph[j][1] = b;
}

static inline void pile_push(Core *s, int j, uint8_t c) {
    const lane2 *z = s->zp[j][s->plen[j]];
    uint8_t hk = s->HK[c];
    set_pile_key(s, j, s->ph[j][0] + z[hk][0], s->ph[j][1] + z[hk][1]);
    s->pile[j][s->plen[j]++] = c;
}

static inline uint8_t pile_pop(Core *s, int j) {
    uint8_t c = s->pile[j][--s->plen[j]];
    const lane2 *z = s->zp[j][s->plen[j]];
    uint8_t hk = s->HK[c];
    set_pile_key(s, j, s->ph[j][0] - z[hk][0], s->ph[j][1] - z[hk][1]);
    return c;
}

static inline void waste_push(Core *s, uint8_t c) {
    const uint64_t *z = s->z->zw[s->nwst][s->HK[c]];
    s->h[0] += z[0];
    s->h[1] += z[1];
    s->wst[s->nwst++] = c;
}

static inline uint8_t waste_pop(Core *s) {
    uint8_t c = s->wst[--s->nwst];
    const uint64_t *z = s->z->zw[s->nwst][s->HK[c]];
    s->h[0] -= z[0];
    s->h[1] -= z[1];
    return c;
}

static inline void stock_push(Core *s, uint8_t c) {
    const uint64_t *z = s->z->zs[s->nstk][s->HK[c]];
    s->h[0] += z[0];
    s->h[1] += z[1];
    s->stk[s->nstk++] = c;
}

static inline uint8_t stock_pop(Core *s) {
    uint8_t c = s->stk[--s->nstk];
    const uint64_t *z = s->z->zs[s->nstk][s->HK[c]];
    s->h[0] -= z[0];
    s->h[1] -= z[1];
    return c;
}

static inline void set_reserve_len(Core *s, int n) {
    s->h[0] += s->z->zr[n][0] - s->z->zr[s->nres][0];
    s->h[1] += s->z->zr[n][1] - s->z->zr[s->nres][1];
    s->nres = n;
}

static inline void set_redeals(Core *s, int n) {
    s->h[0] += s->z->zd[n][0] - s->z->zd[s->ru][0];
    s->h[1] += s->z->zd[n][1] - s->z->zd[s->ru][1];
    s->ru = n;
}

static void redeal(Core *s) {
    /* the waste turned over becomes the stock */
    while (s->nwst) stock_push(s, waste_pop(s));
    set_redeals(s, s->ru + 1);
}

static void unredeal(Core *s) {
    while (s->nstk) waste_push(s, stock_pop(s));
    set_redeals(s, s->ru - 1);
}

/* card c goes to a foundation that wants it (sign 1) or is taken back (-1) */
static inline void up(Core *s, uint8_t c, int sign) {
    int k = s->SK[c];
    if (s->IS_BASE[k]) {
        for (int i = 0; i < s->nbasek; i++) s->want[s->BASEK[i]] -= sign;
    } else {
        s->want[k] -= sign;
        if (s->ret) s->ftop[s->PREV[k]] -= sign;
    }
    if (s->ret) s->ftop[k] += sign;
    int nk = s->NEXT[k];
    if (nk >= 0) s->want[nk] += sign;
    else s->done[s->CLASS_OF[k]] += sign;
    s->off[k] -= sign;
    s->found += sign;
}

static inline void ret_card(Core *s, int k, int sign) {
    /* foundation-return: a card of slot key k leaves (+1) or comes back (-1) */
    s->ftop[k] -= sign;
    s->ftop[s->PREV[k]] += sign;
    s->want[k] += sign;
    if (s->NEXT[k] >= 0) s->want[s->NEXT[k]] -= sign;
    else s->done[s->CLASS_OF[k]] -= sign;
    s->off[k] += sign;
    s->found -= sign;
}

/* returns the refill code (see State.apply); *up_ = 1 for a foundation move */
static int apply(Core *s, int m, int *up_) {
    *up_ = 0;
    if (m < 0) {
        if (s->nstk) { waste_push(s, stock_pop(s)); return 0; }
        redeal(s);
        return 1;
    }
    int src = m >> 6, dst = m & 63;
    uint8_t c;
    if (src < SRC_RESERVE) c = pile_pop(s, src);
    else if (src == SRC_RESERVE) { c = s->res[s->nres - 1]; set_reserve_len(s, s->nres - 1); }
    else if (src == SRC_WASTE) c = waste_pop(s);
    else { int k = src - SRC_RETURN; c = s->REP[k]; ret_card(s, k, 1); }
    if (dst == DST_FOUNDATION) {
        up(s, c, 1);
        s->upc[s->npath] = c;
        *up_ = 1;
    } else {
        pile_push(s, dst, c);
    }
    int u = 0;
    if (src < SRC_RESERVE && s->autosp && !s->plen[src]) {
        if (s->nwst) { c = waste_pop(s); u = 1; }
        else if (s->nstk) { c = stock_pop(s); u = 2; }
        if (u) pile_push(s, src, c);
    }
    return u;
}

static void undo(Core *s, int m, int u) {
    if (m < 0) {
        if (u) unredeal(s);
        else stock_push(s, waste_pop(s));
        return;
    }
    int src = m >> 6, dst = m & 63;
    uint8_t c;
    if (u) {
        c = pile_pop(s, src);
        if (u == 1) waste_push(s, c);
        else stock_push(s, c);
    }
    if (dst == DST_FOUNDATION) { c = s->upc[s->npath]; up(s, c, -1); }
    else c = pile_pop(s, dst);
    if (src < SRC_RESERVE) pile_push(s, src, c);
    else if (src == SRC_RESERVE) { s->res[s->nres] = c; set_reserve_len(s, s->nres + 1); }
    else if (src == SRC_WASTE) waste_push(s, c);
    else ret_card(s, src - SRC_RETURN, -1);
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

/* Reserve schedule: 1 when the reserve cards cannot all reach the foundations. */
static int reserve_dead(const Core *s) {
    const int32_t *counts = s->pref + (int64_t)s->nres * s->nslot;
    int hs[4][20], hn[4];
    int demand[52];
    memset(demand, 0, sizeof demand);
    for (int cls = 0; cls < s->classes; cls++) {
        int started = s->done[cls], n = 0;
        for (int j = 1; j < 13; j++) started += s->want[s->chain[cls][j]];
        for (int i = 0; i < s->class_size - started; i++) hs[cls][n++] = 0;
        for (int j = 1; j < 13; j++)
            for (int i = 0; i < s->want[s->chain[cls][j]]; i++) hs[cls][n++] = j;
        hn[cls] = n;
    }
    for (int p = s->nres - 1; p >= 0; p--) {
        int k = s->SK[s->res[p]];
        int height = s->HEIGHT[k], cls = s->CLASS_OF[k];
        int *h = hs[cls];
        int best_i = -1;
        for (int i = 0; i < hn[cls] && h[i] <= height; i++) best_i = i;
        if (best_i < 0) return 1;
        for (int j = h[best_i]; j < height; j++) {
            int kj = s->chain[cls][j];
            if (++demand[kj] > s->off[kj] - counts[kj]) return 1;
        }
        for (int i = best_i; i < hn[cls] - 1; i++) h[i] = h[i + 1];
        hn[cls]--;
        if (height < 12) {
            int v = height + 1, i = 0;
            while (i < hn[cls] && h[i] < v) i++;
            for (int q = hn[cls]; q > i; q--) h[q] = h[q - 1];
            h[i] = v;
            hn[cls]++;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Move generation (movegen.py). */

static int diggable(const Core *s, int i, const int *accn) {
    int tops[26], wl[52];
    memcpy(tops, accn, sizeof tops);
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

static inline int same_pile_key(const Core *s, int a, int b) {
    return s->ph[a][0] == s->ph[b][0] && s->ph[a][1] == s->ph[b][1];
}

/* the targets in lst that are new piles by key (all when not canonical) */
static int add_targets(const Core *s, int src, int skip, const int *lst, int n, int32_t *out, int count) {
    int seen[MAXP], ns = 0;
    for (int q = 0; q < n; q++) {
        int j = lst[q];
        if (j == skip) continue;
        if (s->canon) {
            int dup = 0;
            for (int r = 0; r < ns && !dup; r++) dup = same_pile_key(s, seen[r], j);
            if (dup) continue;
            seen[ns++] = j;
        }
        out[count++] = src * 64 + j;
    }
    return count;
}

static inline int can_draw(const Core *s) { return s->nstk || (s->nwst && s->ru < s->redeals); }

static int gen(Core *s, int prev, int prev_u, int32_t *out) {
    int n = 0;
    /* Just-moved card: not moved between piles again at once */
    int again = -1;
    if (prev >= 0 && prev_u == 0 && (prev >> 6) < SRC_RESERVE && (prev & 63) < SRC_RESERVE) {
        again = prev & 63;
        if (s->dig_only && s->plen[prev >> 6]) return dig_moves(s, prev >> 6, out);
    }
    int accn[26], accl[26][MAXP];
    memset(accn, 0, sizeof accn);
    int srcs[MAXP], nsrc = 0, first_empty = -1;
    for (int j = 0; j < s->piles_n; j++) {
        if (s->plen[j]) {
            int d = s->DOWNRC[s->pile[j][s->plen[j] - 1]];
            accl[d][accn[d]++] = j;
            if (s->canon) { /* Keys: equal piles are one source */
                int dup = 0;
                for (int r = 0; r < nsrc && !dup; r++) dup = same_pile_key(s, srcs[r], j);
                if (dup) continue;
            }
            srcs[nsrc++] = j;
        } else if (first_empty < 0) {
            first_empty = j;
        }
    }
    /* foundation moves; Safe foundation moves are returned alone */
    if (s->nres) {
        int k = s->SK[s->res[s->nres - 1]];
        if (s->want[k] > 0) {
            if (s->greedy || (s->safe && safe_count(s, k))) { out[0] = SRC_RESERVE * 64 + DST_FOUNDATION; return 1; }
            out[n++] = SRC_RESERVE * 64 + DST_FOUNDATION;
        }
    }
    for (int q = 0; q < nsrc; q++) {
        int j = srcs[q];
        int k = s->SK[s->pile[j][s->plen[j] - 1]];
        if (s->want[k] > 0) {
            if (s->greedy || (s->safe && safe_count(s, k) && (!s->autosp || s->plen[j] > 1) && nothing_can_lie_on(s, k))) {
                out[0] = j * 64 + DST_FOUNDATION;
                return 1;
            }
            out[n++] = j * 64 + DST_FOUNDATION;
        }
    }
    if (s->nwst) {
        int k = s->SK[s->wst[s->nwst - 1]];
        if (s->want[k] > 0) {
            if (s->greedy || (s->safe && !s->autosp && s->ru >= s->redeals && safe_count(s, k) && nothing_can_lie_on(s, k))) {
                out[0] = SRC_WASTE * 64 + DST_FOUNDATION;
                return 1;
            }
            out[n++] = SRC_WASTE * 64 + DST_FOUNDATION;
        }
    }
    int draw_early = s->order == 1 && can_draw(s);
    if (draw_early) out[n++] = DRAW;
    /* the waste card onto piles */
    if (s->nwst) {
        int rc = s->RC[s->wst[s->nwst - 1]];
        n = add_targets(s, SRC_WASTE, -1, accl[rc], accn[rc], out, n);
        /* Empty piles: only the first one */
        if (first_empty >= 0 && (s->freesp || s->wastesp)) out[n++] = SRC_WASTE * 64 + first_empty;
    }
    /* pile to pile, sources with fewer cards first (a stable sort) */
    for (int a = 1; a < nsrc; a++) {
        int v = srcs[a], b = a;
        while (b > 0 && s->plen[srcs[b - 1]] > s->plen[v]) { srcs[b] = srcs[b - 1]; b--; }
        srcs[b] = v;
    }
    for (int q = 0; q < nsrc; q++) {
        int i = srcs[q];
        if (i == again) continue;
        if (s->dig_only && !diggable(s, i, accn)) continue;
        int rc = s->RC[s->pile[i][s->plen[i] - 1]];
        n = add_targets(s, i, i, accl[rc], accn[rc], out, n);
        /* Empty piles: the first one, and never for a pile's only card */
        if (first_empty >= 0 && s->freesp && s->plen[i] > 1) out[n++] = i * 64 + first_empty;
    }
    if (s->returns) {
        for (int k = 0; k < s->nslot; k++) {
            if (s->ftop[k] && !s->IS_BASE[k]) {
                int rc = s->RC[s->REP[k]];
                for (int q = 0; q < accn[rc]; q++) out[n++] = (SRC_RETURN + k) * 64 + accl[rc][q];
                if (first_empty >= 0 && s->freesp) out[n++] = (SRC_RETURN + k) * 64 + first_empty;
            }
        }
    }
    if (!draw_early && can_draw(s)) out[n++] = DRAW;
    if (s->shuffled && n > 1) {
        int first = 0;
        while (first < n && out[first] >= 0 && (out[first] & 63) == DST_FOUNDATION) first++;
        for (int i = n - 1 - first; i > 0; i--) {
            int j = (int)(splitmix(&s->rng) % (uint64_t)(i + 1));
            int32_t tmp = out[first + i];
            out[first + i] = out[first + j];
            out[first + j] = tmp;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* The search loop (search.py, Search._run). */

static int grow(Core *s) {
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

/* pushes the frame of the position just entered (after move m with refill u) */
static int push_frame(Core *s, int m, int u, int up_) {
    if (!grow(s)) return 0;
    int64_t at = s->mv_len;
    int n = 0;
    /* Reserve schedule: checked at the start and after every foundation move */
    if (!(up_ && s->dead_check && s->nres && reserve_dead(s))) n = gen(s, m, u, s->mv + at);
    s->fstart[s->nfr] = at;
    s->fcount[s->nfr] = n;
    s->fidx[s->nfr] = 0;
    s->nfr++;
    s->mv_len = at + n;
    return 1;
}

#define R_WON 1
#define R_LOST 2
#define R_MEMORY 3

static int run(Core *s, int64_t max_nodes, double seconds) {
    double t0 = now(), deadline = t0 + seconds;
    int64_t stop = s->nodes + max_nodes;
    if (!s->started) {
        s->started = 1;
        s->nodes = 1;
        s->best = s->found;
        if (tt_insert(s, s->h[0] + s->hpt[0], s->h[1] + s->hpt[1]) < 0) return R_MEMORY;
        if (s->found == s->total) return R_WON;
        if (!push_frame(s, -2, 0, s->dead_check)) return R_MEMORY;
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
            int up_;
            int u = apply(s, m, &up_);
            s->path[s->npath] = m;
            s->undo[s->npath] = (uint8_t)u;
            s->npath++;
            s->nodes++;
            if (s->found > s->best) {
                s->best = s->found;
                s->best_found = s->found;
                s->best_first = s->path[0];
                memcpy(s->best_path, s->path, s->npath * sizeof(int32_t));
                s->best_len = s->npath;
                if (s->found == s->total) return R_WON;
            }
            int fresh = tt_insert(s, s->h[0] + s->hpt[0], s->h[1] + s->hpt[1]);
            if (fresh < 0) return R_MEMORY;
            if (fresh) {
                if (!push_frame(s, m, u, up_)) return R_MEMORY;
                continue;
            }
        } else {
            s->nfr--;
            s->mv_len = s->fstart[s->nfr];
            if (!s->npath) return R_LOST;
        }
        s->npath--;
        undo(s, s->path[s->npath], s->undo[s->npath]);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Python glue. */

static void build_tables(Core *s) {
    int in_suit = s->in_suit, base = s->base;
    s->nslot = in_suit ? 52 : 26;
    s->classes = in_suit ? 4 : 2;
    for (int c = 0; c < 52; c++) {
        int rank = c >> 2, suit = c & 3, red = (suit == 1 || suit == 2);
        s->RC[c] = (uint8_t)(rank * 2 + red);
        s->DOWNRC[c] = (uint8_t)(((rank + 12) % 13) * 2 + (1 - red));
        s->SK[c] = in_suit ? (uint8_t)c : s->RC[c];
        s->HK[c] = s->canon ? s->SK[c] : (uint8_t)c;
    }
    for (int cls = 0; cls < s->classes; cls++)
        for (int j = 0; j < 13; j++) {
            int rank = (base + j) % 13;
            s->chain[cls][j] = (uint8_t)(in_suit ? rank * 4 + cls : rank * 2 + (cls ^ (j & 1)));
        }
    s->nbasek = 0;
    for (int cls = 0; cls < s->classes; cls++)
        for (int j = 0; j < 13; j++) {
            int k = s->chain[cls][j];
            s->HEIGHT[k] = (uint8_t)j;
            s->CLASS_OF[k] = (uint8_t)cls;
            s->NEXT[k] = (int8_t)(j < 12 ? s->chain[cls][j + 1] : -1);
            s->PREV[k] = (int8_t)(j > 0 ? s->chain[cls][j - 1] : -1);
            s->IS_BASE[k] = j == 0;
            if (j == 0) s->BASEK[s->nbasek++] = (uint8_t)k;
        }
    /* slot keys are numbered in card order, so the first card of a key is its representative */
    for (int c = 51; c >= 0; c--) s->REP[s->SK[c]] = (uint8_t)c;
    for (int k = 0; k < s->nslot; k++) s->nholds[k] = 0;
    for (int c = 0; c < 52; c++) {
        int k = s->SK[c], below = ((c >> 2) + 12) % 13, red = ((c & 3) == 1 || (c & 3) == 2);
        if (s->nholds[k]) continue;
        for (int d = 0; d < 52; d++) {
            int dred = ((d & 3) == 1 || (d & 3) == 2);
            if ((d >> 2) == below && dred != red) {
                int kd = s->SK[d], dup = 0;
                for (int i = 0; i < s->nholds[k]; i++) dup |= s->holds[k][i] == kd;
                if (!dup) s->holds[k][s->nholds[k]++] = (uint8_t)kd;
            }
        }
    }
}

static int read_cards(PyObject *obj, uint8_t *out, int limit, int *n) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(obj, &buf, &len) < 0) return 0;
    if (len > limit) { PyErr_SetString(PyExc_ValueError, "too many cards"); return 0; }
    for (Py_ssize_t i = 0; i < len; i++) {
        if ((uint8_t)buf[i] >= 52) { PyErr_SetString(PyExc_ValueError, "bad card code"); return 0; }
        out[i] = (uint8_t)buf[i];
    }
    *n = (int)len;
    return 1;
}

static void core_free_arrays(Core *s) {
    free(s->res); free(s->stk); free(s->wst);
    for (int j = 0; j < MAXP; j++) free(s->pile[j]);
    free(s->pref); free(s->mv); free(s->fstart); free(s->fcount); free(s->fidx);
    free(s->path); free(s->undo); free(s->upc); free(s->best_path);
    if (s->tt) { free(s->tt); mem_give(s->tt_bytes); }
    s->tt = NULL;
}

static void Core_dealloc(Core *s) {
    core_free_arrays(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int Core_init(Core *s, PyObject *args, PyObject *kw) {
    int decks, piles, in_suit, spaces, redeals, ret, base, ru;
    PyObject *res, *stk, *wst, *tab, *fnd;
    int canon, safe, dead, order, dig, greedy, returns;
    unsigned long long shuffle, seed;
    long long max_entries;
    if (!PyArg_ParseTuple(args, "iipiipiSSSOOippipiKLKpp", &decks, &piles, &in_suit, &spaces, &redeals, &ret,
                          &base, &res, &stk, &wst, &tab, &fnd, &ru, &canon, &safe, &dead, &order, &dig,
                          &shuffle, &max_entries, &seed, &greedy, &returns))
        return -1;
    if (s->mv) { PyErr_SetString(PyExc_RuntimeError, "already initialised"); return -1; }
    if (decks < 1 || decks > 8 || piles < 1 || piles > MAXP || redeals < 0 || redeals > MAXRD - 2 ||
        base < 0 || base > 12 || spaces < 0 || spaces > 2 || ru < 0 || ru > redeals) {
        PyErr_SetString(PyExc_ValueError, "rules out of range");
        return -1;
    }
    if (!PyList_Check(tab) || PyList_GET_SIZE(tab) != piles || !PyList_Check(fnd) ||
        PyList_GET_SIZE(fnd) != 4 * decks) {
        PyErr_SetString(PyExc_ValueError, "bad tableau or foundations");
        return -1;
    }
    s->piles_n = piles; s->in_suit = in_suit; s->redeals = redeals; s->ret = ret; s->base = base;
    s->total = 52 * decks; s->class_size = decks * (in_suit ? 1 : 2);
    s->autosp = spaces == 0; s->freesp = spaces == 1; s->wastesp = spaces == 2;
    s->canon = canon; s->safe = safe && !ret; s->dead_check = dead && !ret; s->order = order;
    s->dig_only = dig; s->rng = shuffle; s->shuffled = shuffle != 0;
    s->greedy = greedy; s->returns = ret && returns; s->max_entries = max_entries; s->mixed = canon && in_suit;
    s->best_found = -1; s->best_first = -2;
    build_tables(s);
    int total = s->total;
    s->res = malloc(total + 1); s->stk = malloc(total + 1); s->wst = malloc(total + 1);
    for (int j = 0; j < piles; j++) s->pile[j] = malloc(total + 1);
    s->z = zobrist(seed);
    if (!s->res || !s->stk || !s->wst || !s->z) { PyErr_NoMemory(); return -1; }
    for (int j = 0; j < piles; j++) {
        if (!s->pile[j]) { PyErr_NoMemory(); return -1; }
        s->zp[j] = (const lane2(*)[52])s->z->zpp[canon ? 0 : j];
    }
    int nres, nstk, nwst;
    if (!read_cards(res, s->res, total, &nres) || !read_cards(stk, s->stk, total, &nstk) ||
        !read_cards(wst, s->wst, total, &nwst))
        return -1;
    int empties = 0, counted = nres + nstk + nwst;
    for (int f = 0; f < 4 * decks; f++) {
        uint8_t buf[16];
        int n;
        PyObject *item = PyList_GET_ITEM(fnd, f);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) > 13) {
            PyErr_SetString(PyExc_ValueError, "bad foundation");
            return -1;
        }
        if (!read_cards(item, buf, 13, &n)) return -1;
        counted += n;
        if (!n) { empties++; continue; }
        s->found += n;
        int top = s->SK[buf[n - 1]];
        s->ftop[top]++;
        if (n < 13) s->want[s->NEXT[top]]++;
        else s->done[s->CLASS_OF[top]]++;
    }
    for (int i = 0; i < s->nbasek; i++) s->want[s->BASEK[i]] = empties;
    for (int j = 0; j < piles; j++) {
        uint8_t *tmp = malloc(total + 1);
        int n;
        if (!tmp) { PyErr_NoMemory(); return -1; }
        PyObject *item = PyList_GET_ITEM(tab, j);
        if (!PyBytes_Check(item) || !read_cards(item, tmp, total, &n)) {
            free(tmp);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad pile");
            return -1;
        }
        counted += n;
        for (int i = 0; i < n; i++) pile_push(s, j, tmp[i]);
        free(tmp);
    }
    if (counted != total) { PyErr_SetString(PyExc_ValueError, "the position must hold every card"); return -1; }
    s->nres = 0; s->nstk = 0; s->nwst = 0;
    s->h[0] = s->z->zr[0][0]; s->h[1] = s->z->zr[0][1];
    set_reserve_len(s, nres);
    s->h[0] += s->z->zd[0][0]; s->h[1] += s->z->zd[0][1];
    s->ru = 0;
    set_redeals(s, ru);
    { uint8_t tmp[MAXSZ]; memcpy(tmp, s->stk, nstk); for (int i = 0; i < nstk; i++) stock_push(s, tmp[i]); }
    { uint8_t tmp[MAXSZ]; memcpy(tmp, s->wst, nwst); for (int i = 0; i < nwst; i++) waste_push(s, tmp[i]); }
    for (int i = 0; i < nres; i++) s->off[s->SK[s->res[i]]]++;
    for (int i = 0; i < nstk; i++) s->off[s->SK[s->stk[i]]]++;
    for (int i = 0; i < nwst; i++) s->off[s->SK[s->wst[i]]]++;
    for (int j = 0; j < piles; j++)
        for (int i = 0; i < s->plen[j]; i++) s->off[s->SK[s->pile[j][i]]]++;
    s->pref = calloc((size_t)(nres + 1) * s->nslot, sizeof(int32_t));
    if (!s->pref) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < nres; i++) {
        memcpy(s->pref + (int64_t)(i + 1) * s->nslot, s->pref + (int64_t)i * s->nslot, s->nslot * sizeof(int32_t));
        s->pref[(int64_t)(i + 1) * s->nslot + s->SK[s->res[i]]]++;
    }
    s->cap = 0;
    s->mv_cap = 0;
    if (!grow(s) || !tt_alloc(s, 4096)) { PyErr_NoMemory(); return -1; }
    return 0;
}

static PyObject *Core_step(Core *s, PyObject *args) {
    long long max_nodes;
    double seconds;
    if (!PyArg_ParseTuple(args, "Ld", &max_nodes, &seconds)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    if (s->busy) { PyErr_SetString(PyExc_RuntimeError, "this search is already running in another thread"); return NULL; }
    if (s->result) return PyLong_FromLong(s->result);
    s->busy = 1;
    double t0 = now();
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = run(s, max_nodes, seconds);
    Py_END_ALLOW_THREADS
    s->last_seconds = now() - t0;
    s->busy = 0;
    s->result = r;
    return PyLong_FromLong(r);
}

static PyObject *moves_list(const int32_t *moves, int64_t n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int64_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(moves[i]);
        if (!v) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *Core_line(Core *s, PyObject *unused) { return moves_list(s->path, s->npath); }

static PyObject *Core_best_line(Core *s, PyObject *unused) { return moves_list(s->best_path, s->best_len); }

static PyObject *Core_get_nodes(Core *s, void *c) { return PyLong_FromLongLong(s->nodes); }
static PyObject *Core_get_best_found(Core *s, void *c) { return PyLong_FromLong(s->best_found); }
static PyObject *Core_get_best_first(Core *s, void *c) { return PyLong_FromLong(s->best_first); }
static PyObject *Core_get_last_seconds(Core *s, void *c) { return PyFloat_FromDouble(s->last_seconds); }
static PyObject *Core_get_entries(Core *s, void *c) { return PyLong_FromLongLong(s->tt_count); }
static PyObject *Core_get_table_bytes(Core *s, void *c) { return PyLong_FromSize_t(s->tt_bytes); }

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, NULL, "positions entered", NULL},
    {"best_found", (getter)Core_get_best_found, NULL, "most foundation cards reached", NULL},
    {"best_first", (getter)Core_get_best_first, NULL, "first move of that line (-2: none)", NULL},
    {"last_seconds", (getter)Core_get_last_seconds, NULL, "wall time of the last slice", NULL},
    {"entries", (getter)Core_get_entries, NULL, "positions in the transposition table", NULL},
    {"table_bytes", (getter)Core_get_table_bytes, NULL, "bytes of the transposition table", NULL},
    {NULL},
};

static PyMethodDef Core_methods[] = {
    {"step", (PyCFunction)Core_step, METH_VARARGS,
     "step(max_nodes, seconds) -> 0 running, 1 won, 2 lost, 3 memory"},
    {"line", (PyCFunction)Core_line, METH_NOARGS, "the internal moves of the current line"},
    {"best_line", (PyCFunction)Core_best_line, METH_NOARGS, "the line that put most cards on the foundations"},
    {NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "terrace.solver._core.Search",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled search of one position (see search.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static PyObject *set_memory_limit(PyObject *self, PyObject *args) {
    unsigned long long limit;
    if (!PyArg_ParseTuple(args, "K", &limit)) return NULL;
    size_t old = mem_limit;
    mem_limit = (size_t)limit;
    return PyLong_FromSize_t(old);
}

static PyObject *memory_in_use(PyObject *self, PyObject *unused) {
    return PyLong_FromSize_t(__atomic_load_n(&mem_used, __ATOMIC_RELAXED));
}

static PyMethodDef module_methods[] = {
    {"set_memory_limit", set_memory_limit, METH_VARARGS,
     "set_memory_limit(bytes) -> the old limit: all transposition tables of the process together"},
    {"memory_in_use", memory_in_use, METH_NOARGS, "bytes of transposition tables in use"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "The compiled core of the Terrace solver.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
