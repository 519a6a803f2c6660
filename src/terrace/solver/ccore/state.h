/* The position of the compiled core: cards pushed and popped with their
 * Zobrist keys (state.py). Included by loop.h, beam.c and module.c. */
#ifndef TERRACE_STATE_H
#define TERRACE_STATE_H

#include "core.h"
#include "schedule.h"

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

/* what a pile of key (a, b) adds to the sum of the piles' keys: mixed
 * in suit games, else the key itself. With one-lane keys (Core.one_lane,
 * the win-hunters') nothing goes to the second lane: the piles then rest
 * on 64 bits, and a false "seen" can only make the search skip a position
 * (docs/winnability.md, "One-lane keys for the win-hunters") */
static inline void pile_share(const Core *s, uint64_t a, uint64_t b, uint64_t out[2]) {
    if (OPT(s, mixed)) {
        out[0] = mix64(a);
        if (OPT(s, one_lane)) {
            /* (a branch, which the empty asm keeps: as a conditional move
             * the lane was mixed anyway, then dropped, and nothing saved) */
            __asm__ volatile("");
            out[1] = 0;
        } else {
            out[1] = mix64(b ^ 0x5bd1e9955bd1e995ULL);
        }
    } else {
        out[0] = a;
        out[1] = OPT(s, one_lane) ? 0 : b;
    }
}

/* pile j's key becomes (a, b); its old share is kept in pm (computing it
 * again took a third of the mixing: 6% of the instructions of a solve,
 * Admiral's Patience) */
static inline void set_pile_key(Core *s, int j, uint64_t a, uint64_t b) {
    uint64_t m[2];
    pile_share(s, a, b, m);
    s->hpt[0] += m[0] - s->pm[j][0];
    s->hpt[1] += m[1] - s->pm[j][1];
    s->pm[j][0] = m[0];
    s->pm[j][1] = m[1];
    s->ph[j][0] = a;
    s->ph[j][1] = b;
}

/* pile j's key with card c pushed on it (sign 1) or taken off its top (-1) */
static inline void pile_key_moved(const Core *s, int j, uint8_t c, int sign, uint64_t out[2]) {
    const uint64_t *z = s->zp[j][s->plen[j] - (sign < 0)][s->HK[c]];
    out[0] = sign > 0 ? s->ph[j][0] + z[0] : s->ph[j][0] - z[0];
    out[1] = sign > 0 ? s->ph[j][1] + z[1] : s->ph[j][1] - z[1];
}

/* Core.ptop and the rest: pile j has changed (a card put on it or taken
 * off); it leaves its old place in under[] for its new one */
static inline void tops_set(Core *s, int j) {
    uint32_t bit = 1u << j;
    int old = s->pd[j], d = 26;
    if (s->plen[j]) {
        uint8_t c = s->pile[j][s->plen[j] - 1];
        s->ptop[j] = c;
        s->pr[j] = s->RC[c];
        s->pk[j] = s->SK[c];
        d = s->DOWNRC[c];
    }
    s->pd[j] = (uint8_t)d;
    uint32_t o = s->under[old] & ~bit, n = s->under[d] | bit;
    s->under[old] = o;
    s->under[d] = n;
    /* (old may be d: the pile is then still under d, in n) */
    s->crowd &= ~((uint32_t)((o & (o - 1)) == 0) << old);
    s->crowd |= (uint32_t)((n & (n - 1)) != 0) << d;
    s->taken &= ~((uint32_t)(o == 0) << old);
    s->taken |= 1u << d;
}

/* ... all of them worked out afresh, where the piles are set whole */
static inline void tops_build(Core *s) {
    memset(s->under, 0, sizeof s->under);
    s->crowd = 0;
    s->taken = s->piles_n ? 1u << 26 : 0;
    for (int j = 0; j < s->piles_n; j++) {
        s->pd[j] = 26;
        s->under[26] |= 1u << j;
    }
    for (int j = 0; j < s->piles_n; j++) tops_set(s, j);
}

static inline void pile_push(Core *s, int j, uint8_t c) {
    uint64_t k[2];
    pile_key_moved(s, j, c, 1, k);
    set_pile_key(s, j, k[0], k[1]);
    s->pile[j][s->plen[j]++] = c;
    tops_set(s, j);
}

static inline uint8_t pile_pop(Core *s, int j) {
    uint8_t c = s->pile[j][s->plen[j] - 1];
    uint64_t k[2];
    pile_key_moved(s, j, c, -1, k);
    set_pile_key(s, j, k[0], k[1]);
    s->plen[j]--;
    tops_set(s, j);
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

/* the position's key: its two 64-bit lanes */
static inline void position_key(const Core *s, uint64_t *a, uint64_t *b) {
    *a = s->h[0] + s->hpt[0];
    *b = s->h[1] + s->hpt[1];
}

/* What a move does to the key, worked out before it is played (key_after):
 * the two sums of the key (Core.h and Core.hpt) and the new key and share
 * of the piles it changes (pile[i] < 0: none), which apply_() then sets
 * instead of working them out again */
typedef struct {
    uint64_t h[2], t[2], ph[2][2], pm[2][2];
    int pile[2];
} keyed;

/* a pile's new key and share into w (when not NULL), as the i-th pile the
 * move changes */
static inline void keyed_pile(keyed *w, int i, int j, const uint64_t k[2], const uint64_t share[2]) {
    if (!w) return;
    w->pile[i] = j;
    memcpy(w->ph[i], k, sizeof w->ph[i]);
    memcpy(w->pm[i], share, sizeof w->pm[i]);
}

/* The key of the position after move m, without playing it: 1 when
 * worked out, 0 for a redeal, which it leaves alone; what apply() changes
 * in the key, computed from the same parts. With w the parts go there too */
static inline int key_after(const Core *s, int m, uint64_t key[2], keyed *w) {
    uint64_t h0 = s->h[0], h1 = s->h[1], t0 = s->hpt[0], t1 = s->hpt[1], k[2], share[2];
    if (w) w->pile[0] = w->pile[1] = -1;
    if (m < 0) {
        if (!s->nstk) return 0;
        uint8_t hk = s->HK[s->stk[s->nstk - 1]];
        h0 += s->z->zw[s->nwst][hk][0] - s->z->zs[s->nstk - 1][hk][0];
        h1 += s->z->zw[s->nwst][hk][1] - s->z->zs[s->nstk - 1][hk][1];
    } else {
        int src = m >> 6, dst = m & 63;
        uint8_t c;
        if (src < SRC_RESERVE) {
            c = s->pile[src][s->plen[src] - 1];
            pile_key_moved(s, src, c, -1, k);
            if (s->autosp && s->plen[src] == 1 && (s->nwst || s->nstk)) {
                /* the space is refilled from the waste, else the stock */
                const uint64_t *z;
                if (s->nwst) {
                    uint8_t hk = s->HK[s->wst[s->nwst - 1]];
                    z = s->z->zw[s->nwst - 1][hk];
                    h0 -= z[0];
                    h1 -= z[1];
                    z = s->zp[src][0][hk];
                } else {
                    uint8_t hk = s->HK[s->stk[s->nstk - 1]];
                    z = s->z->zs[s->nstk - 1][hk];
                    h0 -= z[0];
                    h1 -= z[1];
                    z = s->zp[src][0][hk];
                }
                k[0] += z[0];
                k[1] += z[1];
            }
            pile_share(s, k[0], k[1], share);
            t0 += share[0] - s->pm[src][0];
            t1 += share[1] - s->pm[src][1];
            keyed_pile(w, 0, src, k, share);
        } else if (src == SRC_RESERVE) {
            c = s->res[s->nres - 1];
            h0 += s->z->zr[s->nres - 1][0] - s->z->zr[s->nres][0];
            h1 += s->z->zr[s->nres - 1][1] - s->z->zr[s->nres][1];
        } else if (src == SRC_WASTE) {
            c = s->wst[s->nwst - 1];
            h0 -= s->z->zw[s->nwst - 1][s->HK[c]][0];
            h1 -= s->z->zw[s->nwst - 1][s->HK[c]][1];
        } else {
            c = s->REP[src - SRC_RETURN];
        }
        if (dst != DST_FOUNDATION) {
            pile_key_moved(s, dst, c, 1, k);
            pile_share(s, k[0], k[1], share);
            t0 += share[0] - s->pm[dst][0];
            t1 += share[1] - s->pm[dst][1];
            keyed_pile(w, 1, dst, k, share);
        }
    }
    key[0] = h0 + t0;
    key[1] = h1 + t1;
    if (w) {
        w->h[0] = h0; w->h[1] = h1;
        w->t[0] = t0; w->t[1] = t1;
    }
    return 1;
}

/* Reserve schedule: 1 when the move just played (a foundation move when
 * up_) leaves a position the schedule cuts; only >= 0 checks that class
 * alone (loop.h, where the position before the move passed) */
static inline int reserve_cut(const Core *s, int up_, int only) {
    return up_ && OPT(s, dead_check) && s->nres && reserve_schedule(s, 1, NULL, only);
}

/* reserve_cut() in a hunter that enters only positions that pass the
 * schedule (the nested ones, rollout.h): the position before the move
 * passed too, when the first position did (root_passed, hunter_starts),
 * as every move of the hunter that changes what the schedule reads is a
 * foundation move it checks (without foundation-return, which root_passed
 * excludes, the reserve and the foundations change by foundation moves
 * alone); so, as in the complete search (loop.h, push_frame), only the
 * class of the card that went up can be cut. A full check of every class
 * after each foundation move was a seventh of the digging nested hunter's
 * time */
static inline int hunter_cut(const Core *s, int up_) {
    return reserve_cut(s, up_, up_ && s->root_passed ? s->CLASS_OF[s->SK[s->upc[s->npath - 1]]] : -1);
}

/* A hunter's first step (beam.c, nested.c): the first position is counted;
 * 1 when it is already won (with an empty line) */
static inline int hunter_starts(Core *s) {
    s->started = 1;
    s->nodes = 1;
    s->root_passed = !s->ret && !reserve_cut(s, 1, -1);
    s->best_found = s->found;
    if (s->found == s->total) { s->npath = 0; return 1; }
    return 0;
}

static inline int can_draw(const Core *s) { return s->nstk || (s->nwst && s->ru < s->redeals); }

/* ------------------------------------------------------------------ */
/* Moves played and taken back in place (State.apply, State.undo). */

static inline void redeal(Core *s) {
    /* the waste turned over becomes the stock */
    while (s->nwst) stock_push(s, waste_pop(s));
    set_redeals(s, s->ru + 1);
}

static inline void unredeal(Core *s) {
    while (s->nstk) waste_push(s, stock_pop(s));
    set_redeals(s, s->ru - 1);
}

/* Core.fh: a foundation of class cls at height t rises by one, the last
 * at that height (the heights after it are above t, so the order stays) */
static inline void fh_raise(Core *s, int cls, int t) {
    uint8_t *h = s->fh[cls];
    int i = s->class_size - 1;
    while (h[i] != t) i--;
    h[i]++;
}

/* ... or falls by one, the first at that height */
static inline void fh_lower(Core *s, int cls, int t) {
    uint8_t *h = s->fh[cls];
    int i = 0;
    while (h[i] != t) i++;
    h[i]--;
}

/* card c goes to a foundation that wants it (sign 1) or is taken back (-1) */
static inline void up(Core *s, uint8_t c, int sign) {
    int k = s->SK[c];
    if (sign > 0) fh_raise(s, s->CLASS_OF[k], s->HEIGHT[k]);
    else fh_lower(s, s->CLASS_OF[k], s->HEIGHT[k] + 1);
    if (s->IS_BASE[k]) {
        for (int i = 0; i < s->nbasek; i++) s->want[s->BASEK[i]] -= sign;
    } else {
        s->want[k] -= sign;
        if (OPT(s, ret)) s->ftop[s->PREV[k]] -= sign;
    }
    if (OPT(s, ret)) s->ftop[k] += sign;
    int nk = s->NEXT[k];
    if (nk >= 0) s->want[nk] += sign;
    else s->done[s->CLASS_OF[k]] += sign;
    s->off[k] -= sign;
    s->found += sign;
}

static inline void ret_card(Core *s, int k, int sign) {
    /* foundation-return: a card of slot key k leaves (+1) or comes back (-1) */
    if (sign > 0) fh_lower(s, s->CLASS_OF[k], s->HEIGHT[k] + 1);
    else fh_raise(s, s->CLASS_OF[k], s->HEIGHT[k]);
    s->ftop[k] -= sign;
    s->ftop[s->PREV[k]] += sign;
    s->want[k] += sign;
    if (s->NEXT[k] >= 0) s->want[s->NEXT[k]] -= sign;
    else s->done[s->CLASS_OF[k]] -= sign;
    s->off[k] += sign;
    s->found -= sign;
}

/* 1 when m moved a card between piles and no space was refilled (refill
 * code u 0): the move the Just-moved card and digging rules look back at */
static inline int plain_pile_move(int m, int u) {
    return m >= 0 && u == 0 && (m >> 6) < SRC_RESERVE && (m & 63) < SRC_RESERVE;
}

/* The moves of cards that apply_() makes: with a move's key worked out
 * before (w, key_after) the cards alone move, else their keys change too */
static inline uint8_t take_pile(Core *s, int j, const keyed *w) {
    if (!w) return pile_pop(s, j);
    uint8_t c = s->pile[j][--s->plen[j]];
    tops_set(s, j);
    return c;
}

static inline void put_pile(Core *s, int j, uint8_t c, const keyed *w) {
    if (!w) { pile_push(s, j, c); return; }
    s->pile[j][s->plen[j]++] = c;
    tops_set(s, j);
}

static inline uint8_t take_waste(Core *s, const keyed *w) { return w ? s->wst[--s->nwst] : waste_pop(s); }

static inline uint8_t take_stock(Core *s, const keyed *w) { return w ? s->stk[--s->nstk] : stock_pop(s); }

/* returns the refill code (see State.apply); *up_ = 1 for a foundation
 * move. w: what key_after() worked out for m here, set at the end (never a
 * redeal), or NULL */
static inline int apply_(Core *s, int m, int *up_, const keyed *w) {
    *up_ = 0;
    int u = 0;
    if (m < 0) {
        if (!s->nstk) { redeal(s); return 1; }
        uint8_t c = take_stock(s, w);
        if (w) s->wst[s->nwst++] = c;
        else waste_push(s, c);
    } else {
        int src = m >> 6, dst = m & 63;
        uint8_t c;
        if (src < SRC_RESERVE) c = take_pile(s, src, w);
        else if (src == SRC_RESERVE) {
            c = s->res[s->nres - 1];
            if (w) s->nres--;
            else set_reserve_len(s, s->nres - 1);
        }
        else if (src == SRC_WASTE) c = take_waste(s, w);
        else { int k = src - SRC_RETURN; c = s->REP[k]; ret_card(s, k, 1); }
        if (dst == DST_FOUNDATION) {
            up(s, c, 1);
            s->upc[s->npath] = c;
            *up_ = 1;
        } else {
            put_pile(s, dst, c, w);
        }
        if (src < SRC_RESERVE && s->autosp && !s->plen[src]) {
            if (s->nwst) { c = take_waste(s, w); u = 1; }
            else if (s->nstk) { c = take_stock(s, w); u = 2; }
            if (u) put_pile(s, src, c, w);
        }
    }
    if (w) {
        memcpy(s->h, w->h, sizeof s->h);
        memcpy(s->hpt, w->t, sizeof s->hpt);
        for (int i = 0; i < 2; i++) {
            if (w->pile[i] < 0) continue;
            memcpy(s->ph[w->pile[i]], w->ph[i], sizeof w->ph[i]);
            memcpy(s->pm[w->pile[i]], w->pm[i], sizeof w->pm[i]);
        }
    }
    return u;
}

static inline int apply(Core *s, int m, int *up_) { return apply_(s, m, up_, NULL); }

/* apply() on the search's path: the move and its refill code are recorded
 * and the position counted; w as for apply_() */
static inline int play(Core *s, int m, int *up_, const keyed *w) {
    int u = apply_(s, m, up_, w);
    s->path[s->npath] = m;
    s->undo[s->npath] = (uint8_t)u;
    s->npath++;
    s->nodes++;
    return u;
}

static inline void undo(Core *s, int m, int u) {
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

/* takes the moves of the path back until it is `depth` moves long */
static inline void take_back_to(Core *s, int64_t depth) {
    while (s->npath > depth) {
        s->npath--;
        undo(s, s->path[s->npath], s->undo[s->npath]);
    }
}

#endif
