/* The reserve schedule with blocking of the compiled core (reach.c;
 * prune.py, reserve_blocked and Reach; docs/winnability.md, "Reserve
 * schedule with blocking"). */
#ifndef TERRACE_REACH_H
#define TERRACE_REACH_H

#include "core.h"

int reserve_blocked(const Core *s);

/* 1 when move m (refill code u), just played, leaves the reserve schedule
 * with blocking passing where it passed before the move, so that the
 * search need not ask again (docs/winnability.md, "Reserve schedule with
 * blocking", where the compiled core asks): a draw or a redeal while a
 * redeal is left (the waste and the stock then have no order for it, and
 * nothing else changes); a card moved between piles, or into a space, off
 * a card that holds it (the card can go back, so the card it now covers
 * stays free); or, with free spaces, a pile's only card moved (it can go
 * back into the space it left) */
static inline int blocking_kept(const Core *s, int m, int u) {
    if (m == DRAW) return u || s->ru < s->redeals;
    if (m < 0 || u) return 0;
    int src = m >> 6, dst = m & 63;
    if (src >= SRC_RESERVE || dst >= SRC_RESERVE) return 0;
    if (!s->plen[src]) return s->freesp;
    return s->DOWNRC[s->pile[src][s->plen[src] - 1]] == s->RC[s->pile[dst][s->plen[dst] - 1]];
}

#endif
