/* The reserve schedule of the compiled core (schedule.h). */
#include "schedule.h"

/* Reserve schedule: 1 when the reserve cards cannot all reach the
 * foundations. With check 0 only a reserve card that no foundation can
 * ever reach counts as dead; *need (when not NULL) gets how many cards from
 * outside the reserve the schedule asks for (the beam hunter's score). */
/* one reserve card of height `height` in class cls, the class's foundation
 * heights h[0..*hn) sorted: 1 when no foundation can take it (or, with
 * check, when the cards it waits for cannot all come from outside the
 * reserve); else the lowest foundation at most as high takes it. demand[j]:
 * the class's cards of height j asked for so far. */
static inline int place(const Core *s, int check, int cls, int height, int *h, int *hn, int *total,
                        int *demand, const int32_t *counts) {
    int best_i = -1;
    for (int i = 0; i < *hn && h[i] <= height; i++) best_i = i;
    if (best_i < 0) return 1;
    *total += height - h[best_i];
    for (int j = h[best_i]; check && j < height; j++) {
        int kj = s->chain[cls][j];
        if (++demand[j] > s->off[kj] - counts[kj]) return 1;
    }
    for (int i = best_i; i < *hn - 1; i++) h[i] = h[i + 1];
    (*hn)--;
    if (height < 12) {
        int v = height + 1, i = 0;
        while (i < *hn && h[i] < v) i++;
        for (int q = *hn; q > i; q--) h[q] = h[q - 1];
        h[i] = v;
        (*hn)++;
    }
    return 0;
}

int reserve_schedule(const Core *s, int check, int *need, int only) {
    const int32_t *counts = s->pref + (int64_t)s->nres * s->nslot;
    int hs[4][20], hn[4], total = 0;
    int demand[4][13];
    for (int cls = 0; cls < s->classes; cls++) {
        if (only >= 0 && cls != only) continue;
        int started = s->done[cls], n = 0;
        for (int j = 1; j < 13; j++) started += s->want[s->chain[cls][j]];
        for (int i = 0; i < s->class_size - started; i++) hs[cls][n++] = 0;
        for (int j = 1; j < 13; j++)
            for (int i = 0; i < s->want[s->chain[cls][j]]; i++) hs[cls][n++] = j;
        hn[cls] = n;
        memset(demand[cls], 0, sizeof demand[cls]);
    }
    if (only >= 0) {
        /* one class: its reserve cards alone, from the list of them
         * (rheight), instead of every card passed over (the reserve
         * schedule was 7% of a solve's time on Admiral's Patience) */
        const uint8_t *heights = s->rheight + (int64_t)only * s->nres0;
        for (int i = s->rbelow[(int64_t)only * (s->nres0 + 1) + s->nres] - 1; i >= 0; i--) {
            if (place(s, check, only, heights[i], hs[only], &hn[only], &total, demand[only], counts)) return 1;
            if (need) *need = total;
        }
        return 0;
    }
    for (int p = s->nres - 1; p >= 0; p--) {
        int k = s->SK[s->res[p]];
        int cls = s->CLASS_OF[k];
        if (place(s, check, cls, s->HEIGHT[k], hs[cls], &hn[cls], &total, demand[cls], counts)) return 1;
        if (need) *need = total;
    }
    return 0;
}
