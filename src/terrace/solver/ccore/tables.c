/* Card tables, Zobrist keys, memory and the transposition table of the
 * compiled core (tables.py). */
#include "keyset.h"
#include "tables.h"

static zset *zsets = NULL;

zset *zobrist(uint64_t seed) {  /* called with the GIL held */
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

/* The transposition table: open addressing, linear probing, 16 bytes an
 * entry, (0, 0) marks a free slot. */

int tt_alloc(Core *s, uint64_t slots) {
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
    if (old) {
        keys_rehash(old, old_slots, t, s->tt_mask);
        free(old);
        mem_give(old_bytes);
    }
    return 1;
}

void build_tables(Core *s) {
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
