/* The reserve schedule of the compiled core (schedule.h). */
#include "schedule.h"

/* Reserve schedule: 1 when the reserve cards cannot all reach the
 * foundations. With check 0 only a reserve card that no foundation can
 * ever reach counts as dead; *need (when not NULL) gets how many cards from
 * outside the reserve the schedule asks for (the beam hunter's score). */
/* one reserve card of height `height` in class cls, the class's foundation
 * heights h[0..n) sorted (13: done): 1 when no foundation can take it (or,
 * with check, when the cards it waits for cannot all come from outside the
 * reserve); else the highest foundation not above it takes it, and rises
 * to height + 1 in its place, which keeps h sorted (every later height was
 * above `height`). demand[j]: the class's cards of height j asked for so
 * far. */
static inline int place(const Core *s, int check, int cls, int height, uint8_t *h, int n, int *total,
                        int *demand, const int32_t *counts) {
    int best_i = -1;
    for (int i = 0; i < n && h[i] <= height; i++) best_i = i;
    if (best_i < 0) return 1;
    *total += height - h[best_i];
    for (int j = h[best_i]; check && j < height; j++) {
        int kj = s->chain[cls][j];
        if (++demand[j] > s->off[kj] - counts[kj]) return 1;
    }
    h[best_i] = (uint8_t)(height + 1);
    return 0;
}

/* Core.fh counted out of want and done (at the start, and where a hunter
 * sets a position whole) */
void fh_build(Core *s) {
    for (int cls = 0; cls < s->classes; cls++) {
        int started = s->done[cls], n = 0;
        for (int j = 1; j < 13; j++) started += s->want[s->chain[cls][j]];
        for (int i = 0; i < s->class_size - started; i++) s->fh[cls][n++] = 0;
        for (int j = 1; j < 13; j++)
            for (int i = 0; i < s->want[s->chain[cls][j]]; i++) s->fh[cls][n++] = (uint8_t)j;
        while (n < MAXFD) s->fh[cls][n++] = 13;
    }
}

int reserve_schedule(const Core *s, int check, int *need, int only) {
    const int32_t *counts = s->pref + (int64_t)s->nres * s->nslot;
    int total = 0, n = s->class_size;
    if (only >= 0) {
        /* one class: its reserve cards alone, from the list of them
         * (rheight), instead of every card passed over (the reserve
         * schedule was 7% of a solve's time on Admiral's Patience) */
        uint8_t h[MAXFD];
        int demand[13] = {0};
        memcpy(h, s->fh[only], sizeof h);
        const uint8_t *heights = s->rheight + (int64_t)only * s->nres0;
        for (int i = s->rbelow[(int64_t)only * (s->nres0 + 1) + s->nres] - 1; i >= 0; i--) {
            if (place(s, check, only, heights[i], h, n, &total, demand, counts)) return 1;
            if (need) *need = total;
        }
        return 0;
    }
    uint8_t hs[4][MAXFD];
    int demand[4][13] = {{0}};
    memcpy(hs, s->fh, sizeof hs);
    for (int p = s->nres - 1; p >= 0; p--) {
        int k = s->SK[s->res[p]];
        int cls = s->CLASS_OF[k];
        if (place(s, check, cls, s->HEIGHT[k], hs[cls], n, &total, demand[cls], counts)) return 1;
        if (need) *need = total;
    }
    return 0;
}
