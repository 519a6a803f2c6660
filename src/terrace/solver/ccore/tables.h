/* Card tables, Zobrist keys and the transposition table of the compiled
 * core (tables.c). */
#ifndef TERRACE_TABLES_H
#define TERRACE_TABLES_H

#include "core.h"
#include "keyset.h"

/* a transposition table of this many bytes or more has a mapping of its
 * own and grows in place (tables.c) */
#define TT_MAP_BYTES ((size_t)1 << 18)

zset *zobrist(uint64_t seed);
int tt_alloc(Core *s, uint64_t slots);
int tt_renew(Core *s, uint64_t slots);
void tt_free(Core *s);

/* The slot of key (a, b) in the search's table: where it is, or the free
 * slot it would take (mend_key first). A restarted search's table takes a
 * slot by its stamp (Core.tt_st), every other by its key. */
static inline uint64_t tt_slot(const Core *s, uint64_t a, uint64_t b) {
    const uint64_t *t = s->tt;
    uint64_t mask = s->tt_mask;
    if (!s->tt_st) return keys_slot(t, mask, a, b);
    const uint16_t *st = s->tt_st;
    uint16_t ep = s->tt_ep;
    uint64_t j = a & mask;
    while (st[j] == ep && !(t[2 * j] == a && t[2 * j + 1] == b)) j = (j + 1) & mask;
    return j;
}

/* 1 when slot j of the search's table is taken */
static inline int tt_used(const Core *s, uint64_t j) {
    return s->tt_st ? s->tt_st[j] == s->tt_ep : keys_used(s->tt, j);
}

/* key (a, b) into free slot j of the search's table */
static inline void tt_set(Core *s, uint64_t j, uint64_t a, uint64_t b) {
    s->tt[2 * j] = a;
    s->tt[2 * j + 1] = b;
    if (s->tt_st) s->tt_st[j] = s->tt_ep;
    s->tt_count++;
}
void build_tables(Core *s);

#endif
