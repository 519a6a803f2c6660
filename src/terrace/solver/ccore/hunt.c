/* The restarting win-hunters of one candidate (api._Task: _hunt, _learn,
 * _new_hunter), run in the core: one call runs hunters until a position
 * budget or a deadline, restarting the search for each (restart()) and
 * keeping the best line, so that Python is asked once a slice instead of
 * once a hunter (its loop was 6-8% of a solve's time on Admiral's and
 * General's Patience). Called without the GIL. The Python loop of api.py
 * is the reference: the tests require both to enter the same positions. */
#include "hunt.h"
#include "search.h"

/* SplitMix64's below() of terrace.deal: rejection sampling, no bias */
static uint64_t below(uint64_t *state, uint64_t bound) {
    uint64_t rest = (0 - bound) % bound;  /* 2^64 % bound */
    for (;;) {
        uint64_t v = splitmix(state);
        if (!rest || v < 0 - rest) return v % bound;  /* below 2^64 - rest */
    }
}

/* _Task._learn: keep the hunter's best line if it put at least as many
 * cards up as the best so far; forget the best after stale_hunters in a
 * row that did not put more up. 0: out of memory. */
static int learn(Core *s, hunt_state *h) {
    int better = s->best_found > h->elite_found;
    if (better || s->best_found == h->elite_found) {
        if (s->best_len > h->elite_cap) {
            int32_t *e = realloc(h->elite, s->best_len * sizeof(int32_t));
            if (!e) return 0;
            h->elite = e;
            h->elite_cap = s->best_len;
        }
        memcpy(h->elite, s->best_path, s->best_len * sizeof(int32_t));
        h->elite_len = s->best_len;
    }
    if (better) {
        h->elite_found = s->best_found;
        h->stale = 0;
        return 1;
    }
    if (++h->stale >= h->stale_hunters) {
        h->elite_len = 0;
        h->elite_found = -1;
        h->stale = 0;
    }
    return 1;
}

/* _Task._new_hunter after the second: the next order, every elite_every-th
 * hunter from a random point of the best line. 0: out of memory, -1: the
 * prefix did not play (a bug). */
static int next_hunter(Core *s, hunt_state *h) {
    h->restarts++;
    int64_t n = 0;
    if (h->elite_len && h->restarts % h->elite_every == 0) n = (int64_t)below(&h->rng, (uint64_t)h->elite_len);
    uint64_t order = (uint64_t)h->restarts + h->shift;
    int64_t bad = -1;
    return restart(s, order ? order : 1, h->elite, n, &bad, 0);
}

int hunt(Core *s, hunt_state *h, int64_t budget, double seconds) {
    double deadline = now() + seconds;
    for (;;) {
        int64_t cap = h->limit - s->nodes;
        if (cap < 1) cap = 1;
        if (budget >= 0 && budget < cap) cap = budget;
        int64_t before = s->nodes;
        double left = deadline - now();
        int r = run(s, cap, left > 0 ? left : 0);
        s->result = r;
        int64_t used = s->nodes - before;
        if (r == R_WON) return HUNT_WON;
        if (s->best_found > h->progress) h->progress = s->best_found;
        if (r || s->nodes >= h->limit) {
            h->spent += s->nodes;
            if (h->learn && !learn(s, h)) return HUNT_MEMORY;
            int k = next_hunter(s, h);
            if (k == 0) return HUNT_MEMORY;
            if (k < 0) return HUNT_BAD_PREFIX;
        }
        if (budget >= 0) {
            if (used <= 0) break;
            budget -= used;
            if (budget <= 0) break;
        }
        if (now() >= deadline) break;
    }
    return HUNT_OUT;
}
