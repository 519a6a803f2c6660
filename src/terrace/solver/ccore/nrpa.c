/* The policy-learning hunter of the compiled core: Nested Rollout Policy
 * Adaptation (Rosin 2011), a win-finding search that never proves
 * anything (docs/winnability.md, "Nested hunter", "Policy-learning
 * hunter"; measured, and not used by solve: api.NRPA_LEVEL).
 *
 * A rollout plays from the candidate's position to the end: a foundation
 * move when one leads somewhere new, else a move drawn with probability
 * proportional to exp(weight of its code), where a move's code is its card
 * and what it goes on (a card, an empty pile or a foundation; the draw has
 * a code of its own), together with the number of cards left in the stock.
 * Like the nested hunter's rollouts it never enters a
 * position twice nor one whose reserve schedule is dead. Level 1 runs
 * `iterations` rollouts and after each moves its policy towards the best
 * sequence it has seen (most cards up, then fewest in the waste); level l
 * runs level l - 1 that many times, each from a copy of its own policy,
 * and learns from the best of their results. When the top level ends, the
 * hunter starts again with an empty policy. The recursion is kept as one
 * state per level, so that a slice can end after any rollout. */
#include <math.h>

#include "memory.h"
#include "nrpa.h"
#include "rollout.h"
#include "search.h"

#define CODE_ON_FOUNDATION 52
#define CODE_ON_SPACE 53
#define CODE_DRAW (52 * 54)
#define CODES_PER_STOCK (CODE_DRAW + 1)  /* codes for one number of cards in the stock */
#define ALPHA 1.0  /* the learning rate */

/* the choices of one sequence, for learning: per choice of the policy the
 * number n of moves it chose from, the chosen move's code, then the n codes */
typedef struct {
    uint32_t *codes;
    int64_t len, cap;
    int64_t score;
} seq;

typedef struct nrpa {
    stampset roll;                 /* keys of one rollout */
    int level, iterations;
    int64_t ncodes;                /* CODES_PER_STOCK for each size of the stock */
    double *delta;                 /* adapt()'s changes, one per code of a sequence */
    int64_t delta_cap;
    double *pol[NRPA_MAX_LEVEL + 1];  /* level l's policy (1 to level) */
    size_t pol_bytes;              /* the policies' share of the memory limit; 0: they did not fit */
    seq best[NRPA_MAX_LEVEL + 1];  /* level l's best sequence so far */
    int iter[NRPA_MAX_LEVEL + 1];  /* level l's iterations so far */
    seq cur;                       /* the rollout's */
} nrpa;

static int seq_reserve(seq *q, int64_t more) {
    if (q->len + more <= q->cap) return 1;
    int64_t cap = 2 * (q->len + more);
    uint32_t *c = realloc(q->codes, cap * sizeof(uint32_t));
    if (!c) return 0;
    q->codes = c;
    q->cap = cap;
    return 1;
}

static int seq_copy(seq *to, const seq *from) {
    to->len = 0;
    if (!seq_reserve(to, from->len)) return 0;
    memcpy(to->codes, from->codes, from->len * sizeof(uint32_t));
    to->len = from->len;
    to->score = from->score;
    return 1;
}

/* the code of move m where the search stands: its card and what it goes on,
 * or the draw, for the number of cards left in the stock (without the stock
 * as context, a one-pass game's policy learns nothing it can use: docs) */
static uint32_t code_of(const Core *s, int m) {
    uint32_t context = (uint32_t)s->nstk * CODES_PER_STOCK;
    if (m < 0) return context + CODE_DRAW;
    int src = m >> 6, dst = m & 63, c;
    if (src < SRC_RESERVE) c = s->pile[src][s->plen[src] - 1];
    else if (src == SRC_RESERVE) c = s->res[s->nres - 1];
    else if (src == SRC_WASTE) c = s->wst[s->nwst - 1];
    else c = s->REP[src - SRC_RETURN];
    int on = dst == DST_FOUNDATION ? CODE_ON_FOUNDATION
             : s->plen[dst]        ? s->pile[dst][s->plen[dst] - 1]
                                   : CODE_ON_SPACE;
    return context + (uint32_t)(c * 54 + on);
}

static inline int is_up(int m) { return m >= 0 && (m & 63) == DST_FOUNDATION; }

/* one rollout from the first position with policy pol: 1 when it wins
 * (the path is the winning line), 2 when no move could be played, -1 out
 * of memory, else 0 with the path taken back and t->cur its choices */
static int rollout(Core *s, nrpa *t, const double *pol) {
    seq *cur = &t->cur;
    cur->len = 0;
    stampset_renew(&t->roll);
    int prev = -2, prev_u = 0;
    int32_t moves[MAXGEN], mv[MAXGEN];
    uint32_t code[MAXGEN];
    double w[MAXGEN];
    while (s->found < s->total && s->npath < MAXROLL) {
        if (!grow(s)) return -1;
        int n = gen(s, prev, prev_u, moves), played = -2, u = 0, k = 0;
        for (int i = 0; i < n && played == -2; i++)
            if (is_up(moves[i]) && try_new(s, NULL, &t->roll, moves[i], &u)) played = moves[i];
        if (played == -2) {
            double z = 0;
            for (int i = 0; i < n; i++) {
                if (is_up(moves[i])) continue;
                mv[k] = moves[i];
                code[k] = code_of(s, moves[i]);
                w[k] = exp(pol[code[k]]);
                z += w[k++];
            }
            int64_t chosen = -1;
            for (int left = k; left > 0 && played == -2; left--) {
                double r = (double)(splitmix(&s->rng) >> 11) * 0x1p-53 * z;
                int j = 0;
                while (j < left - 1 && (r -= w[j]) >= 0) j++;
                if (try_new(s, NULL, &t->roll, mv[j], &u)) { played = mv[j]; chosen = code[j]; break; }
                /* not new or dead: drawn from the others (the codes stay, for learning) */
                z -= w[j];
                int32_t m = mv[j]; mv[j] = mv[left - 1]; mv[left - 1] = m;
                uint32_t c = code[j]; code[j] = code[left - 1]; code[left - 1] = c;
                double x = w[j]; w[j] = w[left - 1]; w[left - 1] = x;
            }
            if (chosen >= 0 && k > 1) {
                if (!seq_reserve(cur, k + 2)) return -1;
                cur->codes[cur->len++] = (uint32_t)k;
                cur->codes[cur->len++] = (uint32_t)chosen;
                memcpy(cur->codes + cur->len, code, k * sizeof(uint32_t));
                cur->len += k;
            }
        }
        if (played == -2) break;
        prev = played;
        prev_u = u;
    }
    if (s->found > s->best_found) s->best_found = s->found;
    if (s->found == s->total) return 1;
    if (s->npath == 0) return 2;
    cur->score = rollout_score(s);
    take_back_to(s, 0);
    return 0;
}

/* level l's policy moves towards its best sequence: every change is
 * worked out from the policy as it was, then all are made (only the codes
 * of the sequence change, so the policy is not copied); 0 out of memory */
static int adapt(nrpa *t, int l) {
    double *pol = t->pol[l];
    const seq *best = &t->best[l];
    if (best->len > t->delta_cap) {
        double *d = realloc(t->delta, best->len * sizeof(double));
        if (!d) return 0;
        t->delta = d;
        t->delta_cap = best->len;
    }
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *c = best->codes, *end = c + best->len;
        double *d = t->delta;
        while (c < end) {
            uint32_t k = c[0];
            const uint32_t *from = c + 2;
            if (pass == 0) {
                double z = 0;
                for (uint32_t i = 0; i < k; i++) z += d[i + 1] = exp(pol[from[i]]);
                d[0] = ALPHA;
                for (uint32_t i = 0; i < k; i++) d[i + 1] *= -ALPHA / z;
            } else {
                pol[c[1]] += d[0];
                for (uint32_t i = 0; i < k; i++) pol[from[i]] += d[i + 1];
            }
            c += 2 + k;
            d += 1 + k;
        }
    }
    return 1;
}

/* level l starts: its parent's policy (an empty one at the top), no best */
static void start_level(nrpa *t, int l) {
    if (l == t->level) memset(t->pol[l], 0, t->ncodes * sizeof(double));
    else memcpy(t->pol[l], t->pol[l + 1], t->ncodes * sizeof(double));
    t->best[l].len = 0;
    t->best[l].score = INT64_MIN;
    t->iter[l] = 0;
}

/* an iteration of level l ended with the sequence `got`; 0 out of memory */
static int finish(nrpa *t, int l, const seq *got) {
    for (;;) {
        if (got->score >= t->best[l].score && !seq_copy(&t->best[l], got)) return 0;
        if (!adapt(t, l)) return 0;
        if (++t->iter[l] < t->iterations || l == t->level) {
            if (t->iter[l] == t->iterations) start_level(t, l);  /* the top ended: start again */
            for (int below = l - 1; below >= 1; below--) start_level(t, below);
            return 1;
        }
        got = &t->best[l];
        l++;
    }
}

int run_nrpa(Core *s, int64_t max_nodes, double seconds) {
    nrpa *t = s->nrpa;
    double deadline = now() + seconds;
    int64_t stop = s->nodes + max_nodes;
    if (!s->started) {
        if (hunter_starts(s)) return R_WON;
        if (!t->pol_bytes || !t->roll.keys) return R_MEMORY;
        s->shuffled = 0;  /* the policy draws the moves */
        for (int l = t->level; l >= 1; l--) start_level(t, l);
    }
    while (s->nodes < stop && now() < deadline) {
        int r = rollout(s, t, t->pol[1]);
        if (r < 0) return R_MEMORY;
        if (r == 1) return R_WON;
        if (r == 2) return R_LOST;  /* nothing to play: every rollout would end here */
        if (!finish(t, 1, &t->cur)) return R_MEMORY;
    }
    return 0;
}

void nrpa_free(Core *s) {
    nrpa *t = s->nrpa;
    if (!t) return;
    stampset_free(&t->roll);
    for (int l = 0; l <= NRPA_MAX_LEVEL; l++) {
        free(t->pol[l]);
        free(t->best[l].codes);
    }
    mem_give(t->pol_bytes);
    free(t->delta);
    free(t->cur.codes);
    free(t);
    s->nrpa = NULL;
}

int nrpa_setup(Core *s, int level, int iterations, uint64_t seed) {
    nrpa *t = calloc(1, sizeof(nrpa));
    if (!t) return 0;
    s->nrpa = t;
    t->level = level;
    t->iterations = iterations;
    t->ncodes = (int64_t)(s->total + 1) * CODES_PER_STOCK;  /* never more cards in the stock than in the game */
    /* the rollout's set and the policies count against the memory limit;
     * when they do not fit, the hunter's first step ends for want of memory */
    int ok = 1;
    stampset_init(&t->roll, 1 << 14);
    size_t bytes = (size_t)level * t->ncodes * sizeof(double);
    if (mem_take(bytes)) {
        t->pol_bytes = bytes;
        for (int l = 1; l <= level && ok; l++) ok = (t->pol[l] = malloc(t->ncodes * sizeof(double))) != NULL;
    }
    s->rng = seed;
    return ok;
}
