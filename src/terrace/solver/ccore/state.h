/* The position of the compiled core: cards pushed and popped with their
 * Zobrist keys (state.py). Included by search.c and module.c. */
#ifndef TERRACE_STATE_H
#define TERRACE_STATE_H

#include "core.h"

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

#endif
