/* The beam hunter of the compiled core: a win-finding search that never
 * proves anything (docs/winnability.md, "Beam hunter").
 *
 * The stock is the game's clock: every position of a layer has drawn the
 * same cards from it. From each of the `width` positions of a layer, a
 * small depth-first search over the moves that leave the stock alone (at
 * most `closure` positions, with its own table) reaches the positions
 * before the next card leaves the stock; each of them, with the next card
 * drawn, is a candidate for the next layer. The candidates are scored by
 * what lies where (eval below), at most `per_parent` of one position's
 * candidates are kept, and the best `width` of all, each position once,
 * form the next layer. Positions in which the reserve can no longer be
 * played out (the reserve schedule) are dropped. When the stock is empty
 * the small search is given `closure * ENDGAME` positions; the beam ends
 * when a layer is empty. Winning lines are kept as a tree of move
 * segments, so the line of a win is its node's chain of segments. */
#include "beam.h"
#include "keyset.h"
#include "memory.h"
#include "search.h"
#include "state.h"

#define ENDGAME 16
#define MAXDEPTH 255
#define NW 10

typedef struct {
    int32_t parent;
    int32_t mlen;
    int64_t mstart;
} bnode;

/* a stored position: a candidate or an entry of the layer being expanded */
typedef struct {
    int64_t score;
    int32_t node;  /* tree node of the position (entries) or of its parent (candidates) */
    int16_t nres, nstk, nwst, ru, mlen;
    int16_t plen[MAXP];  /* (a pile of eight decks can hold 415 cards) */
    /* then: cards (waste, piles, stock when redeals), then mlen moves (int32) */
} bslot;

/* a min-heap of slot ids by score */
typedef struct {
    int32_t *ids;
    int n, cap;
} bheap;

typedef struct beam {
    int width, closure, per_parent, res0;
    int64_t w[NW];
    uint64_t seed;
    size_t slot_size;
    uint8_t *slots;
    int32_t *free_ids;
    int nfree, nslots;
    bheap layer_heap, local;
    int32_t *layer;   /* the entries being expanded */
    int nlayer, next;
    bnode *nodes;
    int64_t nnodes, cap_nodes;
    int32_t *moves;
    int64_t nmoves, cap_moves;
    size_t taken;     /* the slots' and the tree's bytes, counted against the memory limit */
    keyset seen;      /* keys of the next layer's candidates (this layer) */
    stampset small;   /* keys of one small search */
    int32_t entry_node;  /* tree node of the entry being expanded */
} beam;

static inline bslot *slot_at(beam *b, int id) { return (bslot *)(b->slots + (size_t)id * b->slot_size); }
static inline uint8_t *slot_cards(bslot *x) { return (uint8_t *)(x + 1); }

static int32_t *slot_moves(beam *b, bslot *x) {
    return (int32_t *)((uint8_t *)x + b->slot_size - (MAXDEPTH + 2) * sizeof(int32_t));
}

/* ------------------------------------------------------------------ */
/* Storing and restoring positions. */

static void store(Core *s, bslot *x) {
    x->nres = (int16_t)s->nres; x->nstk = (int16_t)s->nstk; x->nwst = (int16_t)s->nwst; x->ru = (int16_t)s->ru;
    uint8_t *c = slot_cards(x);
    memcpy(c, s->wst, s->nwst);
    c += s->nwst;
    for (int j = 0; j < s->piles_n; j++) {
        x->plen[j] = (int16_t)s->plen[j];
        memcpy(c, s->pile[j], s->plen[j]);
        c += s->plen[j];
    }
    if (s->redeals) memcpy(c, s->stk, s->nstk);
}

/* Sets the position from a stored one and recomputes everything derived
 * from the cards: the foundations follow from the cards outside them
 * (docs/winnability.md, "Keys": the counts fix the foundations). */
static void restore(Core *s, bslot *x) {
    const uint8_t *c = slot_cards(x);
    s->nres = x->nres; s->nstk = x->nstk; s->nwst = x->nwst; s->ru = x->ru;
    memcpy(s->wst, c, s->nwst);
    c += s->nwst;
    for (int j = 0; j < s->piles_n; j++) {
        s->plen[j] = x->plen[j];
        memcpy(s->pile[j], c, s->plen[j]);
        c += s->plen[j];
    }
    if (s->redeals) memcpy(s->stk, c, s->nstk);
    tops_build(s);
    memset(s->off, 0, sizeof s->off);
    memset(s->want, 0, sizeof s->want);
    memset(s->ftop, 0, sizeof s->ftop);
    memset(s->done, 0, sizeof s->done);
    int outside = s->nres + s->nstk + s->nwst;
    for (int i = 0; i < s->nres; i++) s->off[s->SK[s->res[i]]]++;
    for (int i = 0; i < s->nstk; i++) s->off[s->SK[s->stk[i]]]++;
    for (int i = 0; i < s->nwst; i++) s->off[s->SK[s->wst[i]]]++;
    for (int j = 0; j < s->piles_n; j++) {
        outside += s->plen[j];
        for (int i = 0; i < s->plen[j]; i++) s->off[s->SK[s->pile[j][i]]]++;
    }
    s->found = s->total - outside;
    int started = 0;
    for (int cls = 0; cls < s->classes; cls++) {
        int onf[14];
        for (int j = 0; j < 13; j++) onf[j] = s->class_size - s->off[s->chain[cls][j]];
        onf[13] = 0;
        started += onf[0];
        s->done[cls] = onf[12];
        for (int h = 1; h < 13; h++) s->want[s->chain[cls][h]] = onf[h - 1] - onf[h];
        if (s->ret)
            for (int h = 1; h <= 13; h++) s->ftop[s->chain[cls][h - 1]] += onf[h - 1] - onf[h];
    }
    for (int i = 0; i < s->nbasek; i++) s->want[s->BASEK[i]] = s->total / 13 - started;
    fh_build(s);
    const zset *z = s->z;
    uint64_t h0 = z->zr[s->nres][0] + z->zd[s->ru][0], h1 = z->zr[s->nres][1] + z->zd[s->ru][1];
    for (int d = 0; d < s->nstk; d++) { h0 += z->zs[d][s->HK[s->stk[d]]][0]; h1 += z->zs[d][s->HK[s->stk[d]]][1]; }
    for (int d = 0; d < s->nwst; d++) { h0 += z->zw[d][s->HK[s->wst[d]]][0]; h1 += z->zw[d][s->HK[s->wst[d]]][1]; }
    s->h[0] = h0; s->h[1] = h1;
    /* as Core_init keys them: every pile's key counted from the empty pile's */
    s->hpt[0] = s->hpt[1] = 0;
    for (int j = 0; j < s->piles_n; j++) {
        uint64_t a = 0, bb = 0;
        for (int d = 0; d < s->plen[j]; d++) {
            a += s->zp[j][d][s->HK[s->pile[j][d]]][0];
            bb += s->zp[j][d][s->HK[s->pile[j][d]]][1];
        }
        s->ph[j][0] = a;
        s->ph[j][1] = bb;
        pile_share(s, a, bb, s->pm[j]);
        uint64_t empty[2];
        pile_share(s, 0, 0, empty);
        s->hpt[0] += s->pm[j][0] - empty[0];
        s->hpt[1] += s->pm[j][1] - empty[1];
    }
    s->npath = 0;
}

/* ------------------------------------------------------------------ */
/* The score of a position (higher is better), from weights w:
 * w0 cards up, w1 reserve cards played, w2 waste cards, w3 cards wanted
 * now but buried in the waste, w4 the same in the piles, w5 cards lying in
 * a pile above a lower card of their own foundation class, w6 the same in
 * the waste, w7 cards the reserve still needs from outside it (its
 * schedule's demand), w8 piles whose top card can take the waste card or
 * another pile's top card. */

static int reserve_demand(const Core *s) {
    int need = 0;
    return reserve_schedule(s, 0, &need, -1) ? 999 : need;
}

static int64_t eval(const Core *s, const beam *b) {
    const int64_t *w = b->w;
    int64_t f[NW];
    memset(f, 0, sizeof f);
    f[0] = s->found;
    f[1] = b->res0 - s->nres;
    f[2] = s->nwst;
    for (int d = 0; d + 1 < s->nwst; d++) {
        uint8_t c = s->wst[d];
        int k = s->SK[c];
        if (s->want[k] > 0) f[3]++;
        if (w[6]) {
            for (int e = d + 1; e < s->nwst; e++) {
                int ke = s->SK[s->wst[e]];
                if (s->CLASS_OF[ke] == s->CLASS_OF[k] && s->HEIGHT[ke] > s->HEIGHT[k]) { f[6]++; break; }
            }
        }
    }
    int tops[26];
    memset(tops, 0, sizeof tops);
    for (int j = 0; j < s->piles_n; j++) {
        int n = s->plen[j];
        const uint8_t *p = s->pile[j];
        if (n) tops[s->DOWNRC[p[n - 1]]]++;
        for (int d = 0; d + 1 < n; d++) {
            int k = s->SK[p[d]];
            if (s->want[k] > 0) f[4]++;
            for (int e = d + 1; e < n; e++) {
                int ke = s->SK[p[e]];
                if (s->CLASS_OF[ke] == s->CLASS_OF[k] && s->HEIGHT[ke] > s->HEIGHT[k]) { f[5]++; break; }
            }
        }
    }
    if (w[7]) f[7] = reserve_demand(s);
    if (w[8]) {
        if (s->nwst && tops[s->RC[s->wst[s->nwst - 1]]]) f[8]++;
        for (int j = 0; j < s->piles_n; j++)
            if (s->plen[j] && tops[s->RC[s->pile[j][s->plen[j] - 1]]]) f[8]++;
    }
    return w[0] * f[0] + w[1] * f[1] - w[2] * f[2] - w[3] * f[3] - w[4] * f[4] - w[5] * f[5] - w[6] * f[6]
        - w[7] * f[7] + w[8] * f[8];
}

/* ------------------------------------------------------------------ */
/* Slots, heaps and key sets. */

static inline int64_t score_of(beam *b, int id) { return slot_at(b, id)->score; }

static void heap_sift_down(beam *b, bheap *h, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && score_of(b, h->ids[l]) < score_of(b, h->ids[m])) m = l;
        if (r < h->n && score_of(b, h->ids[r]) < score_of(b, h->ids[m])) m = r;
        if (m == i) return;
        int32_t t = h->ids[i]; h->ids[i] = h->ids[m]; h->ids[m] = t;
        i = m;
    }
}

static inline int heap_accepts(beam *b, bheap *h, int64_t score) {
    return h->n < h->cap || score > score_of(b, h->ids[0]);
}

/* adds slot id; returns the id that no longer fits (id itself or the evicted one), or -1 */
static int heap_push(beam *b, bheap *h, int id) {
    if (h->n < h->cap) {
        int i = h->n++;
        h->ids[i] = id;
        while (i > 0) {
            int p = (i - 1) / 2;
            if (score_of(b, h->ids[p]) <= score_of(b, h->ids[i])) break;
            int32_t t = h->ids[i]; h->ids[i] = h->ids[p]; h->ids[p] = t;
            i = p;
        }
        return -1;
    }
    if (score_of(b, id) <= score_of(b, h->ids[0])) return id;
    int out = h->ids[0];
    h->ids[0] = id;
    heap_sift_down(b, h, 0);
    return out;
}

static inline void slot_free(beam *b, int id) { b->free_ids[b->nfree++] = id; }

/* *array (of *cap items of `size` bytes) grown to cap items, the bytes
 * added taken from the memory limit; 0 when they do not fit */
static int tree_grow(beam *b, void **array, int64_t *cap_now, int64_t cap, size_t size) {
    size_t more = (size_t)(cap - *cap_now) * size;
    if (!mem_take(more)) return 0;
    void *grown = realloc(*array, (size_t)cap * size);
    if (!grown) { mem_give(more); return 0; }
    *array = grown;
    *cap_now = cap;
    b->taken += more;
    return 1;
}

static int add_node(beam *b, int32_t parent, const int32_t *moves, int n) {
    if (b->nnodes + 1 > b->cap_nodes &&
        !tree_grow(b, (void **)&b->nodes, &b->cap_nodes, b->cap_nodes * 2 + 1024, sizeof(bnode)))
        return -1;
    if (b->nmoves + n > b->cap_moves &&
        !tree_grow(b, (void **)&b->moves, &b->cap_moves, b->cap_moves * 2 + n + 4096, sizeof(int32_t)))
        return -1;
    bnode *x = &b->nodes[b->nnodes];
    x->parent = parent;
    x->mlen = n;
    x->mstart = b->nmoves;
    memcpy(b->moves + b->nmoves, moves, n * sizeof(int32_t));
    b->nmoves += n;
    return (int)b->nnodes++;
}

/* ------------------------------------------------------------------ */
/* The small search from one entry. */

/* the position just reached (after s->path[0..depth)) as a candidate */
static void consider(Core *s, beam *b, int depth) {
    uint64_t a, c;
    position_key(s, &a, &c);
    if (s->found > s->best_found) s->best_found = s->found;
    if (keyset_insert(&b->seen, a, c) <= 0) return;
    if (s->dead_check && s->nres && reserve_dead(s)) return;  /* Reserve schedule */
    int64_t score = eval(s, b) * 256 + (int64_t)(mix64(a ^ b->seed) & 255);
    if (!heap_accepts(b, &b->local, score)) return;
    int id = b->free_ids[--b->nfree];
    bslot *x = slot_at(b, id);
    store(s, x);
    x->score = score;
    x->node = b->entry_node;
    x->mlen = (int16_t)depth;
    memcpy(slot_moves(b, x), s->path, depth * sizeof(int32_t));
    int out = heap_push(b, &b->local, id);
    if (out >= 0) slot_free(b, out);
}

/* the position after s->path[0..depth): its successor by a draw is a candidate */
static void visit(Core *s, beam *b, int depth) {
    if (!can_draw(s)) return;
    int up_;
    int u = apply(s, DRAW, &up_);
    s->nodes++;
    s->path[depth] = DRAW;
    consider(s, b, depth + 1);
    undo(s, DRAW, u);
}

static int win_line(Core *s, beam *b, int depth) {
    int64_t total = depth;
    for (int32_t v = b->entry_node; v >= 0; v = b->nodes[v].parent) total += b->nodes[v].mlen;
    int32_t tail[MAXDEPTH + 2];
    memcpy(tail, s->path, depth * sizeof(int32_t));
    while (s->cap < total + 2) {
        s->npath = s->cap;  /* grow() doubles the arrays when the path reaches their end */
        if (!grow(s)) return 0;
    }
    int64_t at = total - depth;
    memcpy(s->path + at, tail, depth * sizeof(int32_t));
    for (int32_t v = b->entry_node; v >= 0; v = b->nodes[v].parent) {
        at -= b->nodes[v].mlen;
        memcpy(s->path + at, b->moves + b->nodes[v].mstart, b->nodes[v].mlen * sizeof(int32_t));
    }
    s->npath = total;
    return 1;
}

/* 1 when the position is new to the small search (and now recorded) */
static inline int small_new(const Core *s, beam *b) {
    uint64_t a, c;
    position_key(s, &a, &c);
    return stampset_insert(&b->small, a, c);
}

/* 1: won (s->path holds the line), 0: done, -1: no memory */
static int small_search(Core *s, beam *b, int limit) {
    stampset_renew(&b->small);
    small_new(s, b);
    s->nfr = 0;
    s->mv_len = 0;
    s->npath = 0;
    visit(s, b, 0);
    int32_t tmp[MAXGEN];
    int n = gen(s, -2, 0, tmp), count = 1;
    if (!grow(s)) return -1;
    s->fstart[0] = 0; s->fidx[0] = 0; s->fcount[0] = 0;
    for (int i = 0; i < n; i++) if (tmp[i] != DRAW) s->mv[s->fcount[0]++] = tmp[i];
    s->mv_len = s->fcount[0];
    s->nfr = 1;
    for (;;) {
        int64_t fr = s->nfr - 1;
        if (s->fidx[fr] < s->fcount[fr] && count < limit) {
            int m = s->mv[s->fstart[fr] + s->fidx[fr]++];
            int up_;
            int u = play(s, m, &up_, NULL);
            count++;
            if (s->found == s->total) return win_line(s, b, (int)s->npath) ? 1 : -1;
            if (u == 2) {
                consider(s, b, (int)s->npath);  /* a card left the stock: next layer */
            } else if (small_new(s, b) && !reserve_cut(s, up_, -1)) {
                visit(s, b, (int)s->npath);
                if (s->npath < MAXDEPTH) {
                    if (!grow(s)) return -1;
                    int64_t at = s->mv_len;
                    n = gen(s, m, u, tmp);
                    int k = 0;
                    for (int i = 0; i < n; i++) if (tmp[i] != DRAW) s->mv[at + k++] = tmp[i];
                    s->fstart[s->nfr] = at; s->fcount[s->nfr] = k; s->fidx[s->nfr] = 0;
                    s->nfr++;
                    s->mv_len = at + k;
                    continue;
                }
            }
        } else {
            s->nfr--;
            s->mv_len = s->fstart[s->nfr];
            if (!s->npath) return 0;
        }
        s->npath--;
        undo(s, s->path[s->npath], s->undo[s->npath]);
    }
}

/* ------------------------------------------------------------------ */
/* Layers. */

/* the best candidates become the next layer; 0 when there are none */
static int next_layer(beam *b) {
    for (int i = 0; i < b->nlayer; i++) slot_free(b, b->layer[i]);
    bheap *h = &b->layer_heap;
    /* best first: pop the min-heap from the back */
    int n = h->n;
    for (int i = n - 1; i >= 0; i--) {
        int id = h->ids[0];
        h->ids[0] = h->ids[--h->n];
        heap_sift_down(b, h, 0);
        b->layer[i] = id;
    }
    for (int i = 0; i < n; i++) {
        bslot *x = slot_at(b, b->layer[i]);
        int node = add_node(b, x->node, slot_moves(b, x), x->mlen);
        if (node < 0) return -1;
        x->node = node;
    }
    b->nlayer = n;
    b->next = 0;
    keyset_clear(&b->seen);
    return n > 0;
}

void beam_free(Core *s) {
    beam *b = s->beam;
    if (!b) return;
    free(b->slots); free(b->free_ids); free(b->layer_heap.ids); free(b->local.ids); free(b->layer);
    free(b->nodes); free(b->moves);
    mem_give(b->taken);
    stampset_free(&b->small);
    keyset_free(&b->seen);
    free(b);
    s->beam = NULL;
}

int beam_setup(Core *s, int width, int closure, int per_parent, const int64_t *w, uint64_t seed) {
    beam *b = calloc(1, sizeof(beam));
    if (!b) return 0;
    s->beam = b;
    b->width = width; b->closure = closure; b->per_parent = per_parent; b->seed = seed;
    b->res0 = s->nres;
    memcpy(b->w, w, sizeof b->w);
    b->slot_size = (sizeof(bslot) + s->total + 7) / 8 * 8 + (MAXDEPTH + 2) * sizeof(int32_t);
    b->nslots = 2 * width + per_parent + 2;
    /* the slots count against the memory limit; when they do not fit,
     * the first step ends for want of memory (run_beam) */
    size_t slot_bytes = (size_t)b->nslots * b->slot_size;
    if (mem_take(slot_bytes)) {
        b->taken = slot_bytes;
        b->slots = malloc(slot_bytes);
        if (!b->slots) return 0;
    }
    b->free_ids = malloc(b->nslots * sizeof(int32_t));
    b->layer_heap.ids = malloc(width * sizeof(int32_t));
    b->layer_heap.cap = width;
    b->local.ids = malloc(per_parent * sizeof(int32_t));
    b->local.cap = per_parent;
    b->layer = malloc(width * sizeof(int32_t));
    uint64_t lslots = 64;
    while (lslots < (uint64_t)closure * ENDGAME * 2) lslots *= 2;
    /* sets that do not fit under the memory limit end the first step
     * (run_beam) */
    stampset_init(&b->small, lslots);
    keyset_init(&b->seen, 4096);
    if (!b->free_ids || !b->layer_heap.ids || !b->local.ids || !b->layer) return 0;
    for (int i = 0; i < b->nslots; i++) b->free_ids[i] = b->nslots - 1 - i;
    b->nfree = b->nslots;
    return 1;
}

int run_beam(Core *s, int64_t max_nodes, double seconds) {
    beam *b = s->beam;
    double deadline = now() + seconds;
    int64_t stop = s->nodes + max_nodes;
    if (!s->started) {
        if (hunter_starts(s)) return R_WON;
        if (!b->seen.keys || !b->slots || !b->small.keys) return R_MEMORY;
        int id = b->free_ids[--b->nfree];
        bslot *x = slot_at(b, id);
        store(s, x);
        x->score = 0;
        x->node = add_node(b, -1, NULL, 0);
        if (x->node < 0) return R_MEMORY;
        b->layer[0] = id;
        b->nlayer = 1;
        b->next = 0;
    }
    while (s->nodes < stop && now() < deadline) {
        if (b->next >= b->nlayer) {
            int r = next_layer(b);
            if (r < 0) return R_MEMORY;
            if (!r) return R_LOST;  /* the beam has died out: this proves nothing */
            continue;
        }
        bslot *x = slot_at(b, b->layer[b->next++]);
        restore(s, x);
        b->entry_node = x->node;
        int r = small_search(s, b, can_draw(s) ? b->closure : b->closure * ENDGAME);
        if (r > 0) return R_WON;
        if (r < 0) return R_MEMORY;
        for (int i = 0; i < b->local.n; i++) {
            int out = heap_push(b, &b->layer_heap, b->local.ids[i]);
            if (out >= 0) slot_free(b, out);
        }
        b->local.n = 0;
    }
    return 0;
}
