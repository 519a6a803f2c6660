/* The discrepancy hunter of the compiled core: limited discrepancy search
 * (Harvey and Ginsberg 1995), a win-finding search that never proves
 * anything (docs/winnability.md, "Discrepancy hunter"; measured, and not
 * used by solve).
 *
 * Round k is a depth-first search from the candidate's position in the
 * move order of the complete search (gen()) that follows only lines with at
 * most k discrepancies: at each position the first move that leads to a
 * position whose reserve schedule is not dead is free, every later one
 * costs one (ranked: the i-th such move costs i). A table keeps, for each
 * position entered in the round, the most discrepancies it had left; a
 * position entered again with no more left is not entered (what it would
 * find was looked for), which also keeps a line from going round in a
 * circle. Rounds 0, 1, 2, ... follow each other; a round that left out no
 * move for want of discrepancies searched everything, and the hunter then
 * ends as `exhausted` (it never says lost). */
#include "lds.h"
#include "keyset.h"
#include "memory.h"
#include "search.h"
#include "state.h"

typedef struct lds {
    /* the round's table: pairs of keys, (0, 0) a free slot, and each
     * position's discrepancies left when it was entered */
    uint64_t *keys;
    uint16_t *left_at;
    uint64_t mask;
    int64_t count;
    size_t bytes;
    /* per frame of the search (Core.fstart and the rest): discrepancies
     * left at its position, and the moves of it tried that were live */
    int32_t *left, *live;
    int64_t cap;
    int round, ranked, trimmed;
    int full;  /* the table does not double any more: it forgets (note()) */
} lds;

#define LDS_MOST_ROUNDS 65535                /* a round's count must fit left_at */
#define LDS_MOST_SLOTS ((uint64_t)1 << 24)   /* 16.8 million slots, 302 MB */
#define LDS_PROBES 16                        /* slots looked at in a full table */
#define LDS_DEEPEST 100000                   /* moves of a line, at most */

static size_t table_bytes(uint64_t slots) { return slots * (2 * sizeof(uint64_t) + sizeof(uint16_t)); }

static void table_free(lds *t) {
    free(t->keys);
    free(t->left_at);
    mem_give(t->bytes);
    t->keys = NULL;
    t->left_at = NULL;
    t->bytes = 0;
}

/* an empty table of `slots` (a power of two); 0 without memory */
static int table_alloc(uint64_t slots, uint64_t **keys, uint16_t **left_at) {
    if (!mem_take(table_bytes(slots))) return 0;
    *keys = calloc(slots * 2, sizeof(uint64_t));
    *left_at = malloc(slots * sizeof(uint16_t));
    if (!*keys || !*left_at) {
        free(*keys);
        free(*left_at);
        mem_give(table_bytes(slots));
        return 0;
    }
    return 1;
}

/* twice the slots, every entry kept; 0 without memory */
static int table_grow(lds *t) {
    uint64_t slots = (t->mask + 1) * 2, *keys;
    uint16_t *left_at;
    if (!table_alloc(slots, &keys, &left_at)) return 0;
    for (uint64_t i = 0; i <= t->mask; i++) {
        if (!keys_used(t->keys, i)) continue;
        uint64_t j = keys_slot(keys, slots - 1, t->keys[2 * i], t->keys[2 * i + 1]);
        keys[2 * j] = t->keys[2 * i];
        keys[2 * j + 1] = t->keys[2 * i + 1];
        left_at[j] = t->left_at[i];
    }
    table_free(t);
    t->keys = keys;
    t->left_at = left_at;
    t->mask = slots - 1;
    t->bytes = table_bytes(slots);
    return 1;
}

/* the slot of key (a, b): where it is, or the free slot it would take;
 * in a full table (t->full) the first of LDS_PROBES slots when none of
 * them is either: its position is forgotten */
static uint64_t slot_of(const lds *t, uint64_t a, uint64_t b) {
    if (!t->full) return keys_slot(t->keys, t->mask, a, b);
    uint64_t j = a & t->mask;
    for (int probe = 0; probe < LDS_PROBES; probe++, j = (j + 1) & t->mask)
        if (!keys_used(t->keys, j) || (t->keys[2 * j] == a && t->keys[2 * j + 1] == b)) return j;
    return a & t->mask;
}

/* 1 when the position, with `left` discrepancies, is to be entered (it is
 * then noted), 0 when it was entered with as many or more. A table that
 * cannot double (LDS_MOST_SLOTS, or the memory limit) forgets positions
 * from then on: such a position is searched again when met again, and a
 * line that goes round in a circle of forgotten positions ends at
 * LDS_DEEPEST moves. */
static int note(lds *t, uint64_t a, uint64_t b, int left) {
    mend_key(a, &b);
    if (!t->full && (uint64_t)(t->count + 1) * 2 > t->mask + 1)
        t->full = t->mask + 1 >= LDS_MOST_SLOTS || !table_grow(t);
    uint64_t j = slot_of(t, a, b);
    if (keys_used(t->keys, j) && t->keys[2 * j] == a && t->keys[2 * j + 1] == b) {
        if (t->left_at[j] >= left) return 0;
    } else {
        t->count += !keys_used(t->keys, j);
        t->keys[2 * j] = a;
        t->keys[2 * j + 1] = b;
    }
    t->left_at[j] = (uint16_t)left;
    return 1;
}

/* the frame of the position just entered, with `left` discrepancies (after
 * move m, refill code u); 0 without memory */
static int enter(Core *s, lds *t, int m, int u, int left) {
    if (!grow(s)) return 0;
    if (t->cap < s->cap) {
        int32_t *l = realloc(t->left, s->cap * sizeof(int32_t));
        if (l) t->left = l;
        int32_t *v = realloc(t->live, s->cap * sizeof(int32_t));
        if (v) t->live = v;
        if (!l || !v) return 0;
        t->cap = s->cap;
    }
    int64_t at = s->mv_len;
    int n = gen(s, m, u, s->mv + at);
    s->fstart[s->nfr] = at;
    s->fcount[s->nfr] = n;
    s->fidx[s->nfr] = 0;
    t->left[s->nfr] = left;
    t->live[s->nfr] = 0;
    s->nfr++;
    s->mv_len = at + n;
    return 1;
}

/* round t->round from the first position, the table emptied; 0 without memory */
static int new_round(Core *s, lds *t) {
    take_back_to(s, 0);
    s->nfr = 0;
    s->mv_len = 0;
    memset(t->keys, 0, (t->mask + 1) * 2 * sizeof(uint64_t));
    t->count = 0;
    t->trimmed = 0;
    uint64_t a, b;
    position_key(s, &a, &b);
    note(t, a, b, t->round);
    return enter(s, t, -2, 0, t->round);
}

/* what the move just played costs at a frame whose live moves so far are `live` */
static inline int cost(const lds *t, int live) { return t->ranked ? live : live > 0; }

int run_lds(Core *s, int64_t max_nodes, double seconds) {
    lds *t = s->lds;
    double deadline = now() + seconds;
    int64_t stop = s->nodes + max_nodes;
    if (!s->started) {
        if (hunter_starts(s)) return R_WON;
        if (!t->keys || !new_round(s, t)) return R_MEMORY;
    }
    int tick = 0;
    while (s->nodes < stop) {
        if (++tick >= 256) {
            tick = 0;
            if (now() >= deadline) break;
        }
        int64_t fr = s->nfr - 1;
        int left = t->left[fr];
        if (s->fidx[fr] < s->fcount[fr] && left < cost(t, t->live[fr])) {
            /* every move still to try costs more than is left */
            s->fidx[fr] = s->fcount[fr];
            t->trimmed = 1;
        }
        if (s->fidx[fr] < s->fcount[fr]) {
            int m = s->mv[s->fstart[fr] + s->fidx[fr]++], up_;
            int u = play(s, m, &up_, NULL);
            if (s->found > s->best_found) s->best_found = s->found;
            if (s->found == s->total) return R_WON;
            if (!reserve_cut(s, up_, -1)) {
                left -= cost(t, t->live[fr]++);
                uint64_t a, b;
                position_key(s, &a, &b);
                if (s->npath >= LDS_DEEPEST) {
                    t->trimmed = 1;
                } else if (note(t, a, b, left)) {
                    if (!enter(s, t, m, u, left)) return R_MEMORY;
                    continue;
                }
            }
        } else {
            s->nfr--;
            s->mv_len = s->fstart[s->nfr];
            if (s->npath == 0) {
                if (!t->trimmed || t->round >= LDS_MOST_ROUNDS) return R_SPENT;
                t->round++;
                if (!new_round(s, t)) return R_MEMORY;
                continue;
            }
        }
        take_back_to(s, s->npath - 1);
    }
    return 0;
}

void lds_free(Core *s) {
    lds *t = s->lds;
    if (!t) return;
    table_free(t);
    free(t->left);
    free(t->live);
    free(t);
    s->lds = NULL;
}

int lds_setup(Core *s, int ranked) {
    lds *t = calloc(1, sizeof(lds));
    if (!t) return 0;
    s->lds = t;
    t->ranked = ranked;
    /* a table that does not fit under the memory limit ends the first step
     * (run_lds) */
    uint64_t *keys;
    uint16_t *left_at;
    if (table_alloc(1 << 12, &keys, &left_at)) {
        t->keys = keys;
        t->left_at = left_at;
        t->mask = (1 << 12) - 1;
        t->bytes = table_bytes(1 << 12);
    }
    return 1;
}
