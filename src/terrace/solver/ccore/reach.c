/* The reserve schedule with blocking of the compiled core (reach.h): the
 * pure-Python reserve_blocked and Reach (prune.py), which the tests compare
 * it with position for position.
 *
 * The least fixpoint of prune.Reach is worked out with a work list instead
 * of passes over every card until nothing changes: a card is looked at
 * again only when something it reads has changed (the card above it has
 * come to leave, a space can appear, a holder of it is shown, a card of the
 * key below it has gone up). The rules only ever turn a card's flags on,
 * so both reach the same least fixpoint. A card's holders (the cards one
 * rank higher in the other colour) are counted by rank and colour: "a
 * holder of i is shown" is shown_down[RC of i] > 0, the shown cards whose
 * DOWNRC is i's rank and colour (never i itself, whose DOWNRC is of another
 * rank). */
#include "reach.h"

typedef struct {
    int n, nup, space;
    uint8_t card[MAXSZ], in_pile[MAXSZ], bottom[MAXSZ];
    uint8_t leaves[MAXSZ], shown[MAXSZ], up[MAXSZ], queued[MAXSZ];
    int16_t above[MAXSZ];   /* the card lying right above it, whose leaving frees it (-1: none) */
    int16_t below[MAXSZ];   /* the card whose `above` it is (-1: none) */
    int16_t by_rc[MAXSZ], rc_at[27];    /* the cards grouped by rank and colour */
    int16_t by_key[MAXSZ], key_at[53];  /* ... and by slot key */
    int16_t queue[MAXSZ];
    int qn;
    int shown_down[26];
    int up_keys[52], outside_up[52];
} reach;

static inline void push(reach *r, int i) {
    if (!r->queued[i]) { r->queued[i] = 1; r->queue[r->qn++] = (int16_t)i; }
}

/* a card of key k has gone up (outside the reserve or from it): the cards
 * of the key above may now be ready */
static inline void key_up(const Core *s, reach *r, int k) {
    if (r->up_keys[k]++ == 0 && s->NEXT[k] >= 0) {
        int nk = s->NEXT[k];
        for (int a = r->key_at[nk]; a < r->key_at[nk + 1]; a++) push(r, r->by_key[a]);
    }
}

/* the rules of prune.Reach._settle for card i */
static void look(const Core *s, reach *r, int i) {
    if (r->up[i] && r->shown[i]) return;
    int a = r->above[i];
    if (a >= 0 && !r->leaves[a]) return;
    uint8_t c = r->card[i];
    int held = r->shown_down[s->RC[c]] > 0;
    if (!r->shown[i] && (r->in_pile[i] || r->space || held)) {
        r->shown[i] = 1;
        int d = s->DOWNRC[c];
        if (r->shown_down[d]++ == 0)  /* the cards it can hold may now leave */
            for (int b = r->rc_at[d]; b < r->rc_at[d + 1]; b++) push(r, r->by_rc[b]);
    }
    int k = s->SK[c];
    int ready = s->IS_BASE[k] || s->want[k] > 0 || r->up_keys[s->PREV[k]] > 0;
    if (!r->leaves[i] && (ready || (r->shown[i] && !r->in_pile[i]) ||
                          (r->in_pile[i] && ((s->freesp && r->space) || held)))) {
        r->leaves[i] = 1;
        if (r->below[i] >= 0) push(r, r->below[i]);
        if (r->bottom[i] && !r->space) {
            r->space = 1;
            for (int j = 0; j < r->n; j++) push(r, j);
        }
    }
    if (ready && r->leaves[i] && !r->up[i]) {
        r->up[i] = 1;
        r->nup++;
        r->outside_up[k]++;
        key_up(s, r, k);
    }
}

static void settle(const Core *s, reach *r) {
    while (r->qn) {
        int i = r->queue[--r->qn];
        r->queued[i] = 0;
        look(s, r, i);
    }
}

/* one card of the list: c, lying right above card `under` (-1: none) */
static inline int add(reach *r, uint8_t c, int in_pile, int under) {
    int i = r->n++;
    r->card[i] = c;
    r->in_pile[i] = (uint8_t)in_pile;
    r->bottom[i] = in_pile && under < 0;
    r->above[i] = r->below[i] = -1;
    if (under >= 0) { r->above[under] = (int16_t)i; r->below[i] = (int16_t)under; }
    return i;
}

/* prune.Reach(s): the cards outside the reserve and the foundations, the
 * whole reserve held back, settled */
static void reach_build(const Core *s, reach *r) {
    r->n = r->nup = r->qn = 0;
    r->space = 0;
    for (int j = 0; j < s->piles_n; j++) {
        if (!s->plen[j]) { r->space = 1; continue; }
        int under = -1;
        for (int d = 0; d < s->plen[j]; d++) under = add(r, s->pile[j][d], 1, under);
    }
    /* (with a redeal left the waste may come round again: no order) */
    int ordered = s->ru >= s->redeals, under = -1;
    for (int d = 0; d < s->nwst; d++) {
        int i = add(r, s->wst[d], 0, under);
        under = ordered ? i : -1;
    }
    for (int d = 0; d < s->nstk; d++) add(r, s->stk[d], 0, -1);
    int n = r->n;
    memset(r->leaves, 0, n);
    memset(r->shown, 0, n);
    memset(r->up, 0, n);
    memset(r->shown_down, 0, sizeof r->shown_down);
    memset(r->up_keys, 0, sizeof r->up_keys);
    memset(r->outside_up, 0, sizeof r->outside_up);
    /* the groups, by counting */
    int16_t crc[27] = {0}, ckey[53] = {0};
    for (int i = 0; i < n; i++) { crc[s->RC[r->card[i]] + 1]++; ckey[s->SK[r->card[i]] + 1]++; }
    for (int d = 0; d < 26; d++) crc[d + 1] += crc[d];
    for (int k = 0; k < s->nslot; k++) ckey[k + 1] += ckey[k];
    memcpy(r->rc_at, crc, sizeof crc);
    memcpy(r->key_at, ckey, (s->nslot + 1) * sizeof(int16_t));
    for (int i = 0; i < n; i++) {
        r->by_rc[crc[s->RC[r->card[i]]]++] = (int16_t)i;
        r->by_key[ckey[s->SK[r->card[i]]]++] = (int16_t)i;
    }
    /* every card looked at once (the last first: the stock's, then the
     * waste's top down, then the piles' tops down, which often settles a
     * card before the one beneath it asks) */
    for (int i = 0; i < n; i++) { r->queued[i] = 1; r->queue[i] = (int16_t)i; }
    r->qn = n;
    settle(s, r);
}

int reserve_blocked(const Core *s) {
    if (s->ret) return 0;
    reach r;
    reach_build(s, &r);
    const int32_t *counts = s->pref + (int64_t)s->nres * s->nslot;
    uint8_t hs[4][MAXFD];
    int demand[4][13] = {{0}};
    memcpy(hs, s->fh, sizeof hs);
    int n = s->class_size;
    for (int p = s->nres - 1; p >= 0; p--) {
        int k = s->SK[s->res[p]], cls = s->CLASS_OF[k], height = s->HEIGHT[k];
        uint8_t *h = hs[cls];
        int best_i = -1;
        for (int i = 0; i < n && h[i] <= height; i++) best_i = i;
        if (best_i < 0) return 1;
        for (int j = h[best_i]; j < height; j++) {
            int kj = s->chain[cls][j], dj = ++demand[cls][j];
            if (dj > s->off[kj] - counts[kj] || dj > r.outside_up[kj]) return 1;
        }
        h[best_i] = (uint8_t)(height + 1);
        /* Reach.played: the reserve card has gone up */
        key_up(s, &r, k);
        settle(s, &r);
    }
    return r.nup < r.n;
}
