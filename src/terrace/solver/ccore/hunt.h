/* The restarting win-hunters' loop of the compiled core (hunt.c). */
#ifndef TERRACE_HUNT_H
#define TERRACE_HUNT_H

#include "core.h"

#define HUNT_OUT 0         /* the budget or the time ran out */
#define HUNT_WON 1         /* the current hunter won (its path is the line) */
#define HUNT_MEMORY 2      /* no memory for a restart or the best line */
#define HUNT_BAD_PREFIX 3  /* a best line did not replay (a bug) */

/* What api._Task keeps of its hunters (the fields of the same names), in
 * and out of one call of hunt(). */
typedef struct {
    int64_t limit;         /* positions a hunter explores before it restarts */
    int64_t restarts;      /* hunters so far, the first (digging) one included */
    int32_t *elite;        /* the best line (malloc'd, elite_cap moves) */
    int64_t elite_len, elite_cap;
    int elite_found, stale, stale_hunters, elite_every, learn;
    uint64_t rng, shift;   /* SplitMix64 state of the restart points; the orders' shift */
    int64_t spent;         /* positions of the hunters that ended (added) */
    int progress;          /* most cards up of any hunter (raised) */
} hunt_state;

int hunt(Core *s, hunt_state *h, int64_t budget, double seconds);

#endif
