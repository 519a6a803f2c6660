/* The reserve schedule of the compiled core (schedule.h). */
#include "schedule.h"

/* Reserve schedule: 1 when the reserve cards cannot all reach the
 * foundations. With check 0 only a reserve card that no foundation can
 * ever reach counts as dead; *need (when not NULL) gets how many cards from
 * outside the reserve the schedule asks for (the beam hunter's score). */
int reserve_schedule(const Core *s, int check, int *need, int only) {
    const int32_t *counts = s->pref + (int64_t)s->nres * s->nslot;
    int hs[4][20], hn[4], total = 0;
    int demand[52];
    memset(demand, 0, sizeof demand);
    for (int cls = 0; cls < s->classes; cls++) {
        if (only >= 0 && cls != only) continue;
        int started = s->done[cls], n = 0;
        for (int j = 1; j < 13; j++) started += s->want[s->chain[cls][j]];
        for (int i = 0; i < s->class_size - started; i++) hs[cls][n++] = 0;
        for (int j = 1; j < 13; j++)
            for (int i = 0; i < s->want[s->chain[cls][j]]; i++) hs[cls][n++] = j;
        hn[cls] = n;
    }
    for (int p = s->nres - 1; p >= 0; p--) {
        int k = s->SK[s->res[p]];
        int height = s->HEIGHT[k], cls = s->CLASS_OF[k];
        if (only >= 0 && cls != only) continue;
        int *h = hs[cls];
        int best_i = -1;
        for (int i = 0; i < hn[cls] && h[i] <= height; i++) best_i = i;
        if (best_i < 0) return 1;
        total += height - h[best_i];
        if (need) *need = total;
        for (int j = h[best_i]; check && j < height; j++) {
            int kj = s->chain[cls][j];
            if (++demand[kj] > s->off[kj] - counts[kj]) return 1;
        }
        for (int i = best_i; i < hn[cls] - 1; i++) h[i] = h[i + 1];
        hn[cls]--;
        if (height < 12) {
            int v = height + 1, i = 0;
            while (i < hn[cls] && h[i] < v) i++;
            for (int q = hn[cls]; q > i; q--) h[q] = h[q - 1];
            h[i] = v;
            hn[cls]++;
        }
    }
    return 0;
}
