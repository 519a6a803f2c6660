/* Card tables, Zobrist keys, memory and the transposition table of the
 * compiled core (tables.py). */
#include "keyset.h"
#include "tables.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

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
 * entry, (0, 0) marks a free slot (a restarted search's table: a stamp
 * that is not its epoch, tt_renew below). A table of TT_MAP_BYTES or more has a
 * mapping of its own, which grows in place (tt_grow): the kernel zeroes
 * only the new half instead of a whole new table, and the old half's pages
 * are not faulted in again (zeroing and faulting a new table at each
 * doubling was 14% of the complete search's time, perf). Smaller tables,
 * a hunter's, come from malloc (TT_MAP_BYTES: tables.h). */

void tt_free(Core *s) {
    if (!s->tt) return;
#ifdef __linux__
    if (s->tt_mapped) munmap(s->tt, s->tt_bytes);
    else
#endif
        free(s->tt);
    free(s->tt_st);
    mem_give(s->tt_bytes);
    s->tt = NULL;
    s->tt_st = NULL;
    s->tt_mapped = 0;
    s->tt_mask = 0;
    s->tt_count = 0;
    s->tt_bytes = 0;
}

#ifdef __linux__
/* The keys of the first old_slots slots of t, a table laid out for fewer
 * slots, moved to their places for mask; done: a zeroed bit a slot of
 * them. An entry is done once it is where mask puts it; the probe path of
 * every done entry holds done entries only (done entries never move), so
 * a key that is carried to its place passes over done entries, takes the
 * first free slot or changes places with the first entry that is not yet
 * done, which is carried on in turn. */
static void keys_rehash_in_place(uint64_t *t, uint64_t old_slots, uint64_t mask, uint64_t *done) {
    for (uint64_t i = 0; i < old_slots; i++) {
        if (!keys_used(t, i) || (done[i >> 6] >> (i & 63) & 1)) continue;
        uint64_t a = t[2 * i], b = t[2 * i + 1];
        t[2 * i] = t[2 * i + 1] = 0;
        uint64_t j = a & mask;
        for (;;) {
            int used = keys_used(t, j);
            if (used && (j >= old_slots || (done[j >> 6] >> (j & 63) & 1))) { j = (j + 1) & mask; continue; }
            uint64_t na = t[2 * j], nb = t[2 * j + 1];
            t[2 * j] = a; t[2 * j + 1] = b;
            if (j < old_slots) done[j >> 6] |= (uint64_t)1 << (j & 63);
            if (!used) break;
            a = na; b = nb;
            j = a & mask;
        }
    }
}

/* a mapped table extended to `slots` in place; 0 (unchanged) without memory */
static int tt_grow(Core *s, uint64_t slots) {
    uint64_t old_slots = s->tt_mask + 1;
    size_t bytes = slots * 2 * sizeof(uint64_t), words = (old_slots + 63) / 64;
    size_t more = bytes - s->tt_bytes + words * sizeof(uint64_t);
    if (!mem_take(more)) return 0;
    uint64_t *done = calloc(words, sizeof(uint64_t));
    void *t = done ? mremap(s->tt, s->tt_bytes, bytes, MREMAP_MAYMOVE) : MAP_FAILED;
    if (t == MAP_FAILED) { free(done); mem_give(more); return 0; }
    s->tt = t;
    s->tt_mask = slots - 1;
    s->tt_bytes = bytes;
    keys_rehash_in_place(s->tt, old_slots, s->tt_mask, done);
    free(done);
    mem_give(words * sizeof(uint64_t));
    return 1;
}
#endif

int tt_alloc(Core *s, uint64_t slots) {
    size_t bytes = slots * 2 * sizeof(uint64_t);
    int mapped = 0;
    uint64_t *t;
#ifdef __linux__
    if (s->tt_mapped) return tt_grow(s, slots);
    mapped = bytes >= TT_MAP_BYTES;
#endif
    if (!mem_take(bytes)) return 0;
#ifdef __linux__
    if (mapped) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        t = p == MAP_FAILED ? NULL : p;
    } else
#endif
        t = calloc(slots * 2, sizeof(uint64_t));
    if (!t) { mem_give(bytes); return 0; }
    uint64_t *old = s->tt;
    uint64_t old_slots = old ? s->tt_mask + 1 : 0;
    size_t old_bytes = s->tt_bytes;
    s->tt = t;
    s->tt_mask = slots - 1;
    s->tt_bytes = bytes;
    s->tt_mapped = mapped;
    if (old && s->tt_st) {
        /* a restarted search's table grows into a plain one: the slots of
         * its epoch alone are taken */
        for (uint64_t i = 0; i < old_slots; i++) {
            if (s->tt_st[i] != s->tt_ep) continue;
            uint64_t j = keys_slot(t, s->tt_mask, old[2 * i], old[2 * i + 1]);
            t[2 * j] = old[2 * i];
            t[2 * j + 1] = old[2 * i + 1];
        }
        free(s->tt_st);
        s->tt_st = NULL;
        free(old);
        mem_give(old_bytes);
    } else if (old) {
        keys_rehash(old, old_slots, t, s->tt_mask);
        free(old);
        mem_give(old_bytes);
    }
    return 1;
}

/* An empty table of `slots` (a power of two, below TT_MAP_BYTES) for a
 * restarted search, whose slots are taken by their stamps (Core.tt_st):
 * a stamped table of that size is emptied by its next epoch, so its
 * keys are never zeroed, nor its stamps but when the epoch wraps; any
 * other table is freed and a stamped one allocated (its keys are left as
 * they come: a slot not of the epoch is never read). Zeroing a table of
 * 4,096 slots at each restart was 4.7% of a solve's instructions on
 * Admiral's Patience (callgrind). 0: none under the limit (no table) */
int tt_renew(Core *s, uint64_t slots) {
    if (s->tt_st && s->tt_mask + 1 == slots) {
        if (++s->tt_ep == 0) {
            memset(s->tt_st, 0, slots * sizeof(uint16_t));
            s->tt_ep = 1;
        }
        s->tt_count = 0;
        return 1;
    }
    tt_free(s);
    size_t bytes = slots * (2 * sizeof(uint64_t) + sizeof(uint16_t));
    if (!mem_take(bytes)) return 0;
    uint64_t *t = malloc(slots * 2 * sizeof(uint64_t));
    uint16_t *st = calloc(slots, sizeof(uint16_t));
    if (!t || !st) { free(t); free(st); mem_give(bytes); return 0; }
    s->tt = t;
    s->tt_st = st;
    s->tt_ep = 1;
    s->tt_mask = slots - 1;
    s->tt_bytes = bytes;
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
