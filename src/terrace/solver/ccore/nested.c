/* The nested hunter of the compiled core: nested Monte Carlo search of
 * level 1 with the memory of the best sequence (Cazenave 2009), a
 * win-finding search that never proves anything (docs/winnability.md,
 * "Nested hunter"; measured, and not used by solve: api.NESTED_SHARE).
 *
 * From the position at the end of the main line, every move is tried and
 * followed by a rollout (foundation moves first, then a random move that
 * leads to a position new to the rollout and to the main line, as the
 * win-hunters' dive does); the main line then takes the first move of the
 * best sequence found so far (most cards up at its end). When the main line
 * has no move left, the run starts again from the top with other random
 * numbers. */
#include "nested.h"
#include "rollout.h"
#include "search.h"

typedef struct nest {
    stampset roll;    /* keys of one rollout */
    keyset main;      /* keys of the main line */
    int32_t *best;    /* the best sequence from the main line's end */
    int64_t nbest, cap_best;
    int64_t best_score;
    int prev, prev_u;
    /* the moves tried at the main line's end, the next one at tried[next]
     * (next -1: none being tried), kept across slices: a slice ends after
     * any rollout, not only when every move has had its own */
    int32_t tried[MAXGEN];
    int ntried, next;
} nest;

/* plays move m if it leads to a new, live position; 1 when played */
static int try_move(Core *s, nest *t, int m, int *u_out, int rolling) {
    return try_new(s, &t->main, rolling ? &t->roll : NULL, m, u_out);
}

/* a rollout from the position after the path, whose last move is prev
 * (refill code prev_u); 1 when it wins (the path is then the winning
 * line), else 0 with the path as it was and the best sequence kept */
static int rollout(Core *s, nest *t, int prev, int prev_u) {
    int first_move = prev;
    stampset_renew(&t->roll);
    int64_t start = s->npath;
    int32_t moves[MAXGEN];
    while (s->found < s->total && s->npath - start < MAXROLL) {
        if (!grow(s)) break;
        int n = gen(s, prev, prev_u, moves), played = 0;
        for (int i = 0; i < n && !played; i++) {
            int u;
            if (try_move(s, t, moves[i], &u, 1)) { played = 1; prev = moves[i]; prev_u = u; }
        }
        if (!played) break;
    }
    if (s->found > s->best_found) s->best_found = s->found;
    int64_t score = rollout_score(s);
    if (s->found == s->total) return 1;
    if (score > t->best_score) {
        int64_t len = s->npath - start + 1;
        if (len > t->cap_best) {
            int32_t *nb = realloc(t->best, (len + 64) * sizeof(int32_t));
            if (nb) { t->best = nb; t->cap_best = len + 64; }
        }
        if (len <= t->cap_best) {
            t->best[0] = first_move;
            memcpy(t->best + 1, s->path + start, (len - 1) * sizeof(int32_t));
            t->nbest = len;
            t->best_score = score;
        }
    }
    take_back_to(s, start);
    return 0;
}

static void new_run(Core *s, nest *t) {
    take_back_to(s, 0);
    keyset_clear(&t->main);
    uint64_t a, b;
    position_key(s, &a, &b);
    keyset_insert(&t->main, a, b);
    t->nbest = 0;
    t->best_score = -(1LL << 60);
    t->prev = -2; t->prev_u = 0;
    t->next = -1;
}

int run_nested(Core *s, int64_t max_nodes, double seconds) {
    nest *t = s->nest;
    double deadline = now() + seconds;
    int64_t stop = s->nodes + max_nodes;
    if (!s->started) {
        if (hunter_starts(s)) return R_WON;
        if (!t->main.keys || !t->roll.keys) return R_MEMORY;
        s->shuffled = 1;
        new_run(s, t);
    }
    while (s->nodes < stop && now() < deadline) {
        if (t->next < 0) {
            if (!grow(s)) return R_MEMORY;
            t->ntried = gen(s, t->prev, t->prev_u, t->tried);
            t->next = 0;
        }
        while (t->next < t->ntried) {
            if (s->nodes >= stop || now() >= deadline) return 0;
            int m = t->tried[t->next++], u;
            if (!try_move(s, t, m, &u, 0)) continue;
            if (!grow(s)) return R_MEMORY;
            if (rollout(s, t, m, u)) return R_WON;
            take_back_to(s, s->npath - 1);
        }
        t->next = -1;
        if (s->found > s->best_found) s->best_found = s->found;
        if (t->nbest == 0) {
            /* nothing to play from the first position: every run would end here */
            if (s->npath == 0) return R_LOST;
            new_run(s, t);
            continue;
        }
        /* the main line takes the best sequence's first move */
        int m = t->best[0], u;
        if (!try_move(s, t, m, &u, 0)) { new_run(s, t); continue; }
        uint64_t a, b;
        position_key(s, &a, &b);
        if (keyset_insert(&t->main, a, b) < 0) return R_MEMORY;
        t->prev = m; t->prev_u = u;
        memmove(t->best, t->best + 1, (t->nbest - 1) * sizeof(int32_t));
        t->nbest--;
        if (s->found == s->total) return R_WON;
    }
    return 0;
}

void nested_free(Core *s) {
    nest *t = s->nest;
    if (!t) return;
    stampset_free(&t->roll);
    keyset_free(&t->main);
    free(t->best);
    free(t);
    s->nest = NULL;
}

int nested_setup(Core *s, uint64_t seed) {
    nest *t = calloc(1, sizeof(nest));
    if (!t) return 0;
    s->nest = t;
    /* sets that do not fit under the memory limit end the first step
     * (run_nested) */
    stampset_init(&t->roll, 1 << 14);
    keyset_init(&t->main, 1024);
    s->rng = seed;
    return 1;
}
