/* What the nested hunters (nested.c, nrpa.c) share: a move tried in a
 * rollout, kept only when it leads to a new, live position. */
#ifndef TERRACE_ROLLOUT_H
#define TERRACE_ROLLOUT_H

#include "keyset.h"
#include "state.h"

#define MAXROLL 4000  /* moves of one rollout, at most */

/* plays move m and keeps it (1, its refill code in *u_out) when the
 * position after it is not in `seen` (when given), new to `roll` (when
 * given; it is then added) and not cut by the reserve schedule; else takes
 * it back (0) */
static inline int try_new(Core *s, const keyset *seen, stampset *roll, int m, int *u_out) {
    int up_;
    int u = play(s, m, &up_, NULL);
    uint64_t a, b;
    position_key(s, &a, &b);
    int ok = (!seen || !keyset_has(seen, a, b)) && (!roll || stampset_insert(roll, a, b)) &&
             !reserve_cut(s, up_, -1);
    if (!ok) {
        take_back_to(s, s->npath - 1);
        return 0;
    }
    *u_out = u;
    return 1;
}

/* the worth of a rollout's end: most cards up, then fewest in the waste */
static inline int64_t rollout_score(const Core *s) { return (int64_t)s->found * 1024 - s->nwst; }

#endif
