/* Tables of 128-bit position keys: the probing and rehashing that the
 * transposition table (tables.c, loop.h) and the hunters' sets share
 * (the probing also the discrepancy hunter's table, lds.c),
 * and the hunters' sets (beam.c, nested.c, nrpa.c): a growing set, and a
 * fixed set that is emptied at once by a new stamp, both of whose memory
 * counts against the core's limit. */
#ifndef TERRACE_KEYSET_H
#define TERRACE_KEYSET_H

#include "core.h"
#include "memory.h"

/* Open addressing with linear probing over pairs; (0, 0) marks a free
 * slot, so the all-zero key is stored as (0, 1) (mend_key). */
static inline void mend_key(uint64_t a, uint64_t *b) {
    if (!(a | *b)) *b = 1;
}

/* the slot of key (a, b) in table t: where it is, or the free slot it
 * would take */
static inline uint64_t keys_slot(const uint64_t *t, uint64_t mask, uint64_t a, uint64_t b) {
    uint64_t j = a & mask;
    while ((t[2 * j] | t[2 * j + 1]) && !(t[2 * j] == a && t[2 * j + 1] == b)) j = (j + 1) & mask;
    return j;
}

static inline int keys_used(const uint64_t *t, uint64_t j) { return (t[2 * j] | t[2 * j + 1]) != 0; }

/* every key of `old` (old_slots slots) into the empty table t */
static inline void keys_rehash(const uint64_t *old, uint64_t old_slots, uint64_t *t, uint64_t mask) {
    for (uint64_t i = 0; i < old_slots; i++) {
        if (!keys_used(old, i)) continue;
        uint64_t j = keys_slot(t, mask, old[2 * i], old[2 * i + 1]);
        t[2 * j] = old[2 * i];
        t[2 * j + 1] = old[2 * i + 1];
    }
}

typedef struct {
    uint64_t *keys;  /* pairs; (0, 0) marks a free slot */
    uint64_t mask;
    int64_t count;
    size_t bytes;
} keyset;

/* 1 when allocated with `slots` (a power of two) */
static inline int keyset_init(keyset *k, uint64_t slots) {
    k->mask = slots - 1;
    k->count = 0;
    k->bytes = slots * 2 * sizeof(uint64_t);
    k->keys = NULL;
    if (!mem_take(k->bytes)) { k->bytes = 0; return 0; }
    k->keys = calloc(slots * 2, sizeof(uint64_t));
    if (!k->keys) { mem_give(k->bytes); k->bytes = 0; return 0; }
    return 1;
}

static inline void keyset_free(keyset *k) {
    if (k->keys) { free(k->keys); mem_give(k->bytes); }
    k->keys = NULL;
    k->bytes = 0;
}

static inline void keyset_clear(keyset *k) {
    memset(k->keys, 0, (k->mask + 1) * 2 * sizeof(uint64_t));
    k->count = 0;
}

static inline int keyset_has(const keyset *k, uint64_t a, uint64_t b) {
    mend_key(a, &b);
    return keys_used(k->keys, keys_slot(k->keys, k->mask, a, b));
}

/* 1 when the key is new (and inserted), 0 when seen, -1 without memory;
 * the set doubles when it is half full */
static inline int keyset_insert(keyset *k, uint64_t a, uint64_t b) {
    mend_key(a, &b);
    if ((uint64_t)(k->count + 1) * 2 > k->mask + 1) {
        uint64_t slots = (k->mask + 1) * 2;
        size_t bytes = slots * 2 * sizeof(uint64_t);
        if (!mem_take(bytes)) return -1;
        uint64_t *t = calloc(slots * 2, sizeof(uint64_t));
        if (!t) { mem_give(bytes); return -1; }
        keys_rehash(k->keys, k->mask + 1, t, slots - 1);
        keyset_free(k);
        k->keys = t;
        k->mask = slots - 1;
        k->bytes = bytes;
    }
    uint64_t j = keys_slot(k->keys, k->mask, a, b);
    if (keys_used(k->keys, j)) return 0;
    k->keys[2 * j] = a; k->keys[2 * j + 1] = b;
    k->count++;
    return 1;
}

/* a fixed set emptied by taking a new stamp (stampset_renew), whose memory
 * counts against the core's limit too */
typedef struct {
    uint64_t *keys;
    uint32_t *stamps;
    uint64_t mask;
    uint32_t stamp;
    size_t bytes;
} stampset;

static inline void stampset_free(stampset *k) {
    free(k->keys); free(k->stamps);
    mem_give(k->bytes);
    k->keys = NULL; k->stamps = NULL; k->bytes = 0;
}

/* 1 when allocated; 0 (keys NULL) when it does not fit under the limit */
static inline int stampset_init(stampset *k, uint64_t slots) {
    k->mask = slots - 1;
    k->stamp = 0;
    k->keys = NULL; k->stamps = NULL;
    k->bytes = slots * (2 * sizeof(uint64_t) + sizeof(uint32_t));
    if (!mem_take(k->bytes)) { k->bytes = 0; return 0; }
    k->keys = malloc(slots * 2 * sizeof(uint64_t));
    k->stamps = calloc(slots, sizeof(uint32_t));
    if (!k->keys || !k->stamps) { stampset_free(k); return 0; }
    return 1;
}

static inline void stampset_renew(stampset *k) {
    if (++k->stamp == 0) {
        memset(k->stamps, 0, (k->mask + 1) * sizeof(uint32_t));
        k->stamp = 1;
    }
}

/* 1 when new (and inserted); a full set says "seen" */
static inline int stampset_insert(stampset *k, uint64_t a, uint64_t b) {
    uint64_t j = a & k->mask;
    for (uint64_t probes = 0; probes <= k->mask; probes++) {
        if (k->stamps[j] != k->stamp) {
            k->stamps[j] = k->stamp;
            k->keys[2 * j] = a; k->keys[2 * j + 1] = b;
            return 1;
        }
        if (k->keys[2 * j] == a && k->keys[2 * j + 1] == b) return 0;
        j = (j + 1) & k->mask;
    }
    return 0;
}

#endif
