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
 * it back (0). The sets are asked with the key the move leads to, worked
 * out before it is played (key_after): a move they refuse (about half of
 * a rollout's) is counted as played but neither played nor taken back */
static inline int try_new(Core *s, const keyset *seen, stampset *roll, int m, int *u_out) {
    uint64_t key[2];
    keyed w;
    int known = key_after(s, m, key, &w);  /* (0: a redeal, whose key is read after it) */
    if (known && ((seen && keyset_has(seen, key[0], key[1])) || (roll && !stampset_insert(roll, key[0], key[1])))) {
        s->nodes++;
        return 0;
    }
    int up_;
    int u = play(s, m, &up_, known ? &w : NULL);
    int ok = 1;
    if (!known) {
        position_key(s, &key[0], &key[1]);
        ok = (!seen || !keyset_has(seen, key[0], key[1])) && (!roll || stampset_insert(roll, key[0], key[1]));
    }
    if (!ok || hunter_cut(s, up_)) {
        take_back_to(s, s->npath - 1);
        return 0;
    }
    *u_out = u;
    return 1;
}

/* the worth of a rollout's end: most cards up, then fewest in the waste */
static inline int64_t rollout_score(const Core *s) { return (int64_t)s->found * 1024 - s->nwst; }

#endif
