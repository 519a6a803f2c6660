/* The Python type terrace.solver._core.Search: building a search from a
 * position and running it in slices without the GIL (search.py). */
#include "beam.h"
#include "hunt.h"
#include "keyset.h"
#include "lds.h"
#include "memory.h"
#include "nested.h"
#include "nrpa.h"
#include "reach.h"
#include "search.h"
#include "state.h"
#include "tables.h"

/* the search is one of the hunters that neither restart nor hunt() */
#define HUNTER(s) ((s)->beam || (s)->nest || (s)->nrpa || (s)->lds)

static int read_cards(PyObject *obj, uint8_t *out, int limit, int *n) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(obj, &buf, &len) < 0) return 0;
    if (len > limit) { PyErr_SetString(PyExc_ValueError, "too many cards"); return 0; }
    for (Py_ssize_t i = 0; i < len; i++) {
        if ((uint8_t)buf[i] >= 52) { PyErr_SetString(PyExc_ValueError, "bad card code"); return 0; }
        out[i] = (uint8_t)buf[i];
    }
    *n = (int)len;
    return 1;
}

/* 1 (RuntimeError set) while another thread runs the search: its arrays
 * change and move under it */
static int refused_while_running(const Core *s) {
    if (s->busy) PyErr_SetString(PyExc_RuntimeError, "this search is already running in another thread");
    return s->busy;
}

static void core_free_arrays(Core *s) {
    beam_free(s);
    nested_free(s);
    nrpa_free(s);
    lds_free(s);
    root_free(s);
    free(s->res); free(s->stk); free(s->wst);
    for (int j = 0; j < MAXP; j++) free(s->pile[j]);
    free(s->pref); free(s->rbelow); free(s->rheight); free(s->mv); free(s->fstart); free(s->fcount); free(s->fidx);
    free(s->path); free(s->undo); free(s->upc); free(s->best_path);
    tt_free(s);
}

static void Core_dealloc(Core *s) {
    core_free_arrays(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int Core_init(Core *s, PyObject *args, PyObject *kw) {
    int decks, piles, in_suit, spaces, redeals, ret, base, ru;
    PyObject *res, *stk, *wst, *tab, *fnd;
    int canon, safe, dead, order, dig, live_best, reserve_weight, one_lane, hunt_mix, look;
    unsigned long long shuffle, seed;
    long long max_entries;
    if (!PyArg_ParseTuple(args, "iipiipiSSSOOipppipKLKpipii", &decks, &piles, &in_suit, &spaces, &redeals, &ret,
                          &base, &res, &stk, &wst, &tab, &fnd, &ru, &canon, &safe, &dead, &order, &dig,
                          &shuffle, &max_entries, &seed, &live_best, &reserve_weight, &one_lane, &hunt_mix, &look))
        return -1;
    if (s->inited) {
        PyErr_SetString(PyExc_RuntimeError, "already initialised (a search is initialised once)");
        return -1;
    }
    s->inited = 1;
    if (decks < 1 || decks > 8 || piles < 1 || piles > MAXP || redeals < 0 || redeals > MAXRD - 2 ||
        base < 0 || base > 12 || spaces < 0 || spaces > 2 || ru < 0 || ru > redeals) {
        PyErr_SetString(PyExc_ValueError, "rules out of range");
        return -1;
    }
    if (order < 0 || order > ORDER_UNRANKED) {
        PyErr_SetString(PyExc_ValueError, "move order out of range");
        return -1;
    }
    if (reserve_weight < 1 || reserve_weight > 1 << 20) {  /* (a worth, at most 417 << 20, fits an int) */
        PyErr_SetString(PyExc_ValueError, "reserve weight out of range");
        return -1;
    }
    if (hunt_mix < 0 || hunt_mix > 3) {
        PyErr_SetString(PyExc_ValueError, "hunt mix out of range");
        return -1;
    }
    if (look < 0 || look > MAXSZ - 1) {
        PyErr_SetString(PyExc_ValueError, "stock lookahead out of range");
        return -1;
    }
    if (!PyList_Check(tab) || PyList_GET_SIZE(tab) != piles || !PyList_Check(fnd) ||
        PyList_GET_SIZE(fnd) != 4 * decks) {
        PyErr_SetString(PyExc_ValueError, "bad tableau or foundations");
        return -1;
    }
    s->piles_n = piles; s->in_suit = in_suit; s->redeals = redeals; s->ret = ret; s->base = base;
    s->total = 52 * decks; s->class_size = decks * (in_suit ? 1 : 2);
    s->autosp = spaces == 0; s->freesp = spaces == 1; s->wastesp = spaces == 2;
    s->canon = canon; s->safe = safe && !ret; s->dead_check = dead && !ret; s->order = order;
    s->dig_only = dig; s->rng = shuffle; s->shuffled = shuffle != 0; s->max_entries = max_entries; s->mixed = canon && in_suit;
    s->live_best = live_best; s->reserve_extra = reserve_weight - 1; s->one_lane = one_lane;
    s->hunt_mix = hunt_mix; s->look = look; s->fmode = foundation_mode(hunt_mix, shuffle);
    s->best_found = -1; s->best_first = -2;
    build_tables(s);
    int total = s->total;
    s->res = malloc(total + 1); s->stk = malloc(total + 1); s->wst = malloc(total + 1);
    for (int j = 0; j < piles; j++) s->pile[j] = malloc(total + 1);
    s->z = zobrist(seed);
    if (!s->res || !s->stk || !s->wst || !s->z) { PyErr_NoMemory(); return -1; }
    for (int j = 0; j < piles; j++) {
        if (!s->pile[j]) { PyErr_NoMemory(); return -1; }
        s->zp[j] = (const lane2(*)[52])s->z->zpp[canon ? 0 : j];
    }
    int nres, nstk, nwst;
    if (!read_cards(res, s->res, total, &nres) || !read_cards(stk, s->stk, total, &nstk) ||
        !read_cards(wst, s->wst, total, &nwst))
        return -1;
    int empties = 0, counted = nres + nstk + nwst;
    for (int f = 0; f < 4 * decks; f++) {
        uint8_t buf[16];
        int n;
        PyObject *item = PyList_GET_ITEM(fnd, f);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) > 13) {
            PyErr_SetString(PyExc_ValueError, "bad foundation");
            return -1;
        }
        if (!read_cards(item, buf, 13, &n)) return -1;
        counted += n;
        if (!n) { empties++; continue; }
        s->found += n;
        int top = s->SK[buf[n - 1]];
        s->ftop[top]++;
        if (n < 13) s->want[s->NEXT[top]]++;
        else s->done[s->CLASS_OF[top]]++;
    }
    for (int i = 0; i < s->nbasek; i++) s->want[s->BASEK[i]] = empties;
    fh_build(s);
    for (int j = 0; j < piles; j++) pile_share(s, 0, 0, s->pm[j]);  /* the empty piles' shares */
    for (int j = 0; j < piles; j++) {
        uint8_t *tmp = malloc(total + 1);
        int n;
        if (!tmp) { PyErr_NoMemory(); return -1; }
        PyObject *item = PyList_GET_ITEM(tab, j);
        if (!PyBytes_Check(item) || !read_cards(item, tmp, total, &n)) {
            free(tmp);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad pile");
            return -1;
        }
        counted += n;
        for (int i = 0; i < n; i++) pile_push(s, j, tmp[i]);
        free(tmp);
    }
    if (counted != total) { PyErr_SetString(PyExc_ValueError, "the position must hold every card"); return -1; }
    tops_build(s);
    s->nres = 0; s->nstk = 0; s->nwst = 0;
    s->h[0] = s->z->zr[0][0]; s->h[1] = s->z->zr[0][1];
    set_reserve_len(s, nres);
    s->h[0] += s->z->zd[0][0]; s->h[1] += s->z->zd[0][1];
    s->ru = 0;
    set_redeals(s, ru);
    { uint8_t tmp[MAXSZ]; memcpy(tmp, s->stk, nstk); for (int i = 0; i < nstk; i++) stock_push(s, tmp[i]); }
    { uint8_t tmp[MAXSZ]; memcpy(tmp, s->wst, nwst); for (int i = 0; i < nwst; i++) waste_push(s, tmp[i]); }
    for (int i = 0; i < nres; i++) s->off[s->SK[s->res[i]]]++;
    for (int i = 0; i < nstk; i++) s->off[s->SK[s->stk[i]]]++;
    for (int i = 0; i < nwst; i++) s->off[s->SK[s->wst[i]]]++;
    for (int j = 0; j < piles; j++)
        for (int i = 0; i < s->plen[j]; i++) s->off[s->SK[s->pile[j][i]]]++;
    s->pref = calloc((size_t)(nres + 1) * s->nslot, sizeof(int32_t));
    if (!s->pref) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < nres; i++) {
        memcpy(s->pref + (int64_t)(i + 1) * s->nslot, s->pref + (int64_t)i * s->nslot, s->nslot * sizeof(int32_t));
        s->pref[(int64_t)(i + 1) * s->nslot + s->SK[s->res[i]]]++;
    }
    s->nres0 = nres;
    s->rbelow = calloc((size_t)4 * (nres + 1), sizeof(int16_t));
    s->rheight = malloc((size_t)4 * nres + 1);
    if (!s->rbelow || !s->rheight) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < nres; i++) {
        int k = s->SK[s->res[i]], cls = s->CLASS_OF[k];
        for (int c = 0; c < 4; c++) s->rbelow[c * (nres + 1) + i + 1] = s->rbelow[c * (nres + 1) + i];
        s->rheight[cls * nres + s->rbelow[cls * (nres + 1) + i]] = s->HEIGHT[k];
        s->rbelow[cls * (nres + 1) + i + 1]++;
    }
    s->cap = 0;
    s->mv_cap = 0;
    if (!grow(s)) { PyErr_NoMemory(); return -1; }
    tt_alloc(s, 4096);  /* when it does not fit under the limit, the first step ends for want of memory (run) */
    return 0;
}

static PyObject *Core_step(Core *s, PyObject *args) {
    long long max_nodes;
    double seconds;
    if (!PyArg_ParseTuple(args, "Ld", &max_nodes, &seconds)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    if (refused_while_running(s)) return NULL;
    if (s->result) return PyLong_FromLong(s->result);
    s->busy = 1;
    double t0 = now();
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = s->beam   ? run_beam(s, max_nodes, seconds)
        : s->nest ? run_nested(s, max_nodes, seconds)
        : s->nrpa ? run_nrpa(s, max_nodes, seconds)
        : s->lds  ? run_lds(s, max_nodes, seconds)
                  : run(s, max_nodes, seconds);
    Py_END_ALLOW_THREADS
    s->last_seconds = now() - t0;
    s->busy = 0;
    s->result = r;
    return PyLong_FromLong(r);
}

static PyObject *Core_set_beam(Core *s, PyObject *args) {
    int width, closure, per_parent;
    PyObject *weights;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "iiiOK", &width, &closure, &per_parent, &weights, &seed)) return NULL;
    if (!s->mv || s->started || HUNTER(s) || s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the beam is set once, before the search starts");
        return NULL;
    }
    if (width < 1 || width > 1 << 16 || closure < 1 || closure > 1 << 16 || per_parent < 1 || per_parent > width) {
        PyErr_SetString(PyExc_ValueError, "beam sizes out of range");
        return NULL;
    }
    int64_t w[10] = {0};
    PyObject *seq = PySequence_Fast(weights, "weights must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && i < 10; i++) {
        w[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (w[i] == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
    }
    Py_DECREF(seq);
    if (!beam_setup(s, width, closure, per_parent, w, seed)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Core_set_nested(Core *s, PyObject *args) {
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "K", &seed)) return NULL;
    if (!s->mv || s->started || HUNTER(s) || s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the nested hunter is set once, before the search starts");
        return NULL;
    }
    if (!nested_setup(s, seed)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Core_set_lds(Core *s, PyObject *args) {
    int ranked;
    if (!PyArg_ParseTuple(args, "p", &ranked)) return NULL;
    if (!s->mv || s->started || HUNTER(s) || s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the discrepancy hunter is set once, before the search starts");
        return NULL;
    }
    if (!lds_setup(s, ranked)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Core_set_nrpa(Core *s, PyObject *args) {
    int level, iterations;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "iiK", &level, &iterations, &seed)) return NULL;
    if (!s->mv || s->started || HUNTER(s) || s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the policy-learning hunter is set once, before the search starts");
        return NULL;
    }
    if (level < 1 || level > NRPA_MAX_LEVEL || iterations < 1) {
        PyErr_SetString(PyExc_ValueError, "policy-learning hunter settings out of range");
        return NULL;
    }
    if (!nrpa_setup(s, level, iterations, seed)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* set_blocking(on): the complete search cuts where the reserve schedule
 * with blocking fails (Options.reserve_blocking; never with
 * foundation-return), set before the search starts */
static PyObject *Core_set_blocking(Core *s, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    if (!s->mv || s->started || HUNTER(s) || s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the blocking cut is set once, before the search starts");
        return NULL;
    }
    s->blocking = on && !s->ret;
    Py_RETURN_NONE;
}

/* _blocked(): a test hook, prune.reserve_blocked where the search stands */
static PyObject *Core_blocked(Core *s, PyObject *unused) {
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    return PyBool_FromLong(reserve_blocked(s));
}

/* _blocked_after(m) -> (kept, blocked): a test hook, move m (one of
 * _moves()) played where the search stands: whether the search would
 * leave the blocking cut unasked after it (blocking_kept), and whether it
 * cuts there; then taken back */
static PyObject *Core_blocked_after(Core *s, PyObject *args) {
    int m;
    if (!PyArg_ParseTuple(args, "i", &m)) return NULL;
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    int32_t legal[MAXGEN];
    int prev = s->npath ? s->path[s->npath - 1] : -2, prev_u = s->npath ? s->undo[s->npath - 1] : 0, found = 0;
    uint64_t rng = s->rng;
    int n = gen(s, prev, prev_u, legal);
    s->rng = rng;
    for (int i = 0; i < n; i++) found |= legal[i] == m;
    if (!found || !grow(s)) {
        PyErr_SetString(PyExc_ValueError, "not a move of the search there");
        return NULL;
    }
    int up_, u = apply(s, m, &up_);
    int kept = blocking_kept(s, m, u), blocked = reserve_blocked(s);
    undo(s, m, u);
    return Py_BuildValue("(OO)", kept ? Py_True : Py_False, blocked ? Py_True : Py_False);
}

static PyObject *Core_restart(Core *s, PyObject *args) {
    unsigned long long shuffle;
    PyObject *moves;
    int checked = 1;
    if (!PyArg_ParseTuple(args, "KO|p", &shuffle, &moves, &checked)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    if (refused_while_running(s)) return NULL;
    if (HUNTER(s)) { PyErr_SetString(PyExc_RuntimeError, "the beam, nested, policy-learning and discrepancy hunters do not restart"); return NULL; }
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence of internal moves");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int32_t *buf = malloc((n + 1) * sizeof(int32_t));
    if (!buf) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) { free(buf); Py_DECREF(seq); return NULL; }
        buf[i] = v < -1 || v >= 1 << 13 ? -2 : (int32_t)v;  /* -2: never a move */
    }
    Py_DECREF(seq);
    int64_t bad = -1;
    int r = restart(s, shuffle, buf, n, &bad, checked);
    free(buf);
    if (r == 0) return PyErr_NoMemory();
    if (r < 0) return PyErr_Format(PyExc_ValueError, "move %lld of the prefix is not a move of the search there",
                                   (long long)bad + 1);
    Py_RETURN_NONE;
}

static PyObject *moves_list(const int32_t *moves, int64_t n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int64_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(moves[i]);
        if (!v) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* hunt(max_nodes, seconds, limit, restarts, elite, elite_found, stale, rng,
 * shift, elite_every, stale_hunters, learn) -> (code, restarts, elite,
 * elite_found, stale, rng, spent, progress): api._Task's restarting
 * hunters on this search (hunt.c); max_nodes -1: no position budget */
static PyObject *Core_hunt(Core *s, PyObject *args) {
    long long max_nodes, limit, restarts;
    double seconds;
    PyObject *moves;
    int elite_found, stale, elite_every, stale_hunters, learn;
    unsigned long long rng, shift;
    if (!PyArg_ParseTuple(args, "LdLLOiiKKiip", &max_nodes, &seconds, &limit, &restarts, &moves, &elite_found,
                          &stale, &rng, &shift, &elite_every, &stale_hunters, &learn))
        return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    if (refused_while_running(s)) return NULL;
    if (HUNTER(s)) { PyErr_SetString(PyExc_RuntimeError, "the beam, nested, policy-learning and discrepancy hunters do not restart"); return NULL; }
    if (limit < 1 || elite_every < 1 || stale_hunters < 1 || restarts < 0) {
        PyErr_SetString(PyExc_ValueError, "hunting settings out of range");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(moves, "elite must be a sequence of internal moves");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    hunt_state h = {.limit = limit, .restarts = restarts, .elite_len = n, .elite_cap = n, .elite_found = elite_found,
                    .stale = stale, .stale_hunters = stale_hunters, .elite_every = elite_every, .learn = learn,
                    .rng = rng, .shift = shift, .spent = 0, .progress = -1};
    h.elite = malloc((n + 1) * sizeof(int32_t));
    if (!h.elite) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) { free(h.elite); Py_DECREF(seq); return NULL; }
        h.elite[i] = v < -1 || v >= 1 << 13 ? -2 : (int32_t)v;  /* -2: never a move */
    }
    Py_DECREF(seq);
    if (s->result) {  /* a hunter that has ended is followed by the next before hunt() starts */
        free(h.elite);
        PyErr_SetString(PyExc_RuntimeError, "the hunter has ended: restart it first");
        return NULL;
    }
    s->busy = 1;
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = hunt(s, &h, max_nodes < 0 ? -1 : max_nodes, seconds);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    PyObject *out = NULL;
    if (r == HUNT_MEMORY) PyErr_NoMemory();
    else if (r == HUNT_BAD_PREFIX) PyErr_SetString(PyExc_RuntimeError, "a best line did not replay");
    else {
        PyObject *elite = moves_list(h.elite, h.elite_len);
        if (elite)
            out = Py_BuildValue("(iLNiiKLi)", r, (long long)h.restarts, elite, h.elite_found, h.stale,
                                (unsigned long long)h.rng, (long long)h.spent, h.progress);
    }
    free(h.elite);
    return out;
}

static PyObject *Core_line(Core *s, PyObject *unused) {
    return refused_while_running(s) ? NULL : moves_list(s->path, s->npath);
}

static PyObject *Core_best_line(Core *s, PyObject *unused) {
    return refused_while_running(s) ? NULL : moves_list(s->best_path, s->best_len);
}

/* _heights_kept(): a test hook, True when the foundation heights that
 * up() and ret_card() keep (Core.fh) are those counted afresh from want
 * and done where the search stands */
static PyObject *Core_heights_kept(Core *s, PyObject *unused) {
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    uint8_t kept[4][MAXFD];
    memcpy(kept, s->fh, sizeof kept);
    fh_build(s);
    int same = !memcmp(kept, s->fh, sizeof kept);
    memcpy(s->fh, kept, sizeof kept);
    return PyBool_FromLong(same);
}

/* _tops_kept(): a test hook, True when the piles' tops that every change
 * of a pile keeps (Core.ptop, pr, pk, pd, under, crowd, taken) are those worked out
 * afresh from the piles where the search stands */
static PyObject *Core_tops_kept(Core *s, PyObject *unused) {
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    uint8_t ptop[MAXP], pd[MAXP], pr[MAXP], pk[MAXP];
    uint32_t under[27], crowd = s->crowd, taken = s->taken;
    memcpy(ptop, s->ptop, sizeof ptop);
    memcpy(pr, s->pr, sizeof pr);
    memcpy(pk, s->pk, sizeof pk);
    memcpy(pd, s->pd, sizeof pd);
    memcpy(under, s->under, sizeof under);
    tops_build(s);
    int same = !memcmp(pd, s->pd, s->piles_n) && !memcmp(under, s->under, sizeof under) && crowd == s->crowd &&
               taken == s->taken;
    for (int j = 0; j < s->piles_n; j++)
        same &= !s->plen[j] || (ptop[j] == s->ptop[j] && pr[j] == s->pr[j] && pk[j] == s->pk[j]);
    memcpy(s->ptop, ptop, sizeof ptop);
    memcpy(s->pr, pr, sizeof pr);
    memcpy(s->pk, pk, sizeof pk);
    memcpy(s->pd, pd, sizeof pd);
    memcpy(s->under, under, sizeof under);
    s->crowd = crowd;
    s->taken = taken;
    return PyBool_FromLong(same);
}

/* _keys_kept(): a test hook, True when the position's key as the moves
 * played and taken back keep it (Core.h, hpt, and each pile's ph and pm:
 * set from key_after's parts by apply_(), taken off and put on again by
 * undo(), state.h) is the key worked out afresh from the cards where the
 * search stands */
static PyObject *Core_keys_kept(Core *s, PyObject *unused) {
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    uint64_t h[2], t[2] = {0, 0};
    for (int l = 0; l < 2; l++) h[l] = s->z->zr[s->nres][l] + s->z->zd[s->ru][l];
    for (int i = 0; i < s->nstk; i++)
        for (int l = 0; l < 2; l++) h[l] += s->z->zs[i][s->HK[s->stk[i]]][l];
    for (int i = 0; i < s->nwst; i++)
        for (int l = 0; l < 2; l++) h[l] += s->z->zw[i][s->HK[s->wst[i]]][l];
    int same = h[0] == s->h[0] && h[1] == s->h[1];
    /* (hpt sums each pile's share less an empty pile's: it starts at 0
     * with every pile empty, module.c's __init__) */
    uint64_t e[2];
    pile_share(s, 0, 0, e);
    for (int j = 0; j < s->piles_n; j++) {
        uint64_t k[2] = {0, 0}, m[2];
        for (int i = 0; i < s->plen[j]; i++)
            for (int l = 0; l < 2; l++) k[l] += s->zp[j][i][s->HK[s->pile[j][i]]][l];
        pile_share(s, k[0], k[1], m);
        for (int l = 0; l < 2; l++) {
            same &= k[l] == s->ph[j][l] && m[l] == s->pm[j][l];
            t[l] += m[l] - e[l];
        }
    }
    same &= t[0] == s->hpt[0] && t[1] == s->hpt[1];
    return PyBool_FromLong(same);
}

/* _moves(): a test hook, the moves gen() lists where the search stands
 * (after the last move of its line), its random order left as it was */
static PyObject *Core_moves(Core *s, PyObject *unused) {
    if (refused_while_running(s)) return NULL;
    if (!s->mv) { PyErr_SetString(PyExc_RuntimeError, "not initialised"); return NULL; }
    int32_t out[MAXGEN];
    uint64_t rng = s->rng;
    int prev = s->npath ? s->path[s->npath - 1] : -2, prev_u = s->npath ? s->undo[s->npath - 1] : 0;
    int n = gen(s, prev, prev_u, out);
    s->rng = rng;
    return moves_list(out, n);
}

/* _table_epoch(epoch=-1): a test hook, the epoch of a restarted search's
 * stamped table (tables.c, tt_renew), -1 for a plain table; a given epoch
 * (1 to 65535) is set first, so that a test reaches the wrap-around of
 * the next restart without 65,535 of them */
static PyObject *Core_table_epoch(Core *s, PyObject *args) {
    int epoch = -1;
    if (!PyArg_ParseTuple(args, "|i", &epoch)) return NULL;
    if (refused_while_running(s)) return NULL;
    if (epoch != -1 && (epoch < 1 || epoch > 65535)) {
        PyErr_SetString(PyExc_ValueError, "epoch out of range");
        return NULL;
    }
    if (!s->tt_st) return PyLong_FromLong(-1);
    if (epoch != -1) s->tt_ep = (uint16_t)epoch;
    return PyLong_FromLong(s->tt_ep);
}

static PyObject *Core_get_nodes(Core *s, void *c) { return PyLong_FromLongLong(s->nodes); }
static PyObject *Core_get_best_found(Core *s, void *c) { return PyLong_FromLong(s->best_found); }
static PyObject *Core_get_best_first(Core *s, void *c) { return PyLong_FromLong(s->best_first); }
static PyObject *Core_get_last_seconds(Core *s, void *c) { return PyFloat_FromDouble(s->last_seconds); }
static PyObject *Core_get_entries(Core *s, void *c) { return PyLong_FromLongLong(s->tt_count); }
static PyObject *Core_get_table_bytes(Core *s, void *c) { return PyLong_FromSize_t(s->tt_bytes); }
static PyObject *Core_get_blocked_checks(Core *s, void *c) { return PyLong_FromLongLong(s->blocked_checks); }
static PyObject *Core_get_blocked_cuts(Core *s, void *c) { return PyLong_FromLongLong(s->blocked_cuts); }
static PyObject *Core_get_blocked_kept(Core *s, void *c) { return PyLong_FromLongLong(s->blocked_kept); }

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, NULL, "positions entered", NULL},
    {"best_found", (getter)Core_get_best_found, NULL, "most foundation cards reached", NULL},
    {"best_first", (getter)Core_get_best_first, NULL, "first move of that line (-2: none)", NULL},
    {"last_seconds", (getter)Core_get_last_seconds, NULL, "wall time of the last slice", NULL},
    {"entries", (getter)Core_get_entries, NULL, "positions in the transposition table", NULL},
    {"table_bytes", (getter)Core_get_table_bytes, NULL, "bytes of the transposition table", NULL},
    {"blocked_checks", (getter)Core_get_blocked_checks, NULL, "positions the blocking cut looked at", NULL},
    {"blocked_cuts", (getter)Core_get_blocked_cuts, NULL, "positions the blocking cut cut", NULL},
    {"blocked_kept", (getter)Core_get_blocked_kept, NULL,
     "new positions the blocking cut was not asked about (after a move that keeps its answer)", NULL},
    {NULL},
};

static PyMethodDef Core_methods[] = {
    {"step", (PyCFunction)Core_step, METH_VARARGS,
     "step(max_nodes, seconds) -> 0 running, 1 won, 2 lost, 3 memory"},
    {"line", (PyCFunction)Core_line, METH_NOARGS, "the internal moves of the current line"},
    {"_heights_kept", (PyCFunction)Core_heights_kept, METH_NOARGS,
     "_heights_kept(): a test hook, True when the kept foundation heights are those counted afresh"},
    {"_tops_kept", (PyCFunction)Core_tops_kept, METH_NOARGS,
     "_tops_kept(): a test hook, True when the kept tops of the piles are those worked out afresh"},
    {"_keys_kept", (PyCFunction)Core_keys_kept, METH_NOARGS,
     "_keys_kept(): a test hook, True when the position's key is the one worked out afresh from the cards"},
    {"_moves", (PyCFunction)Core_moves, METH_NOARGS,
     "_moves(): a test hook, the moves the search lists where it stands, its random order left as it was"},
    {"_table_epoch", (PyCFunction)Core_table_epoch, METH_VARARGS,
     "_table_epoch(epoch=-1): a test hook, the epoch of a restarted search's table (-1: not stamped), set first when given"},
    {"set_nrpa", (PyCFunction)Core_set_nrpa, METH_VARARGS,
     "set_nrpa(level, iterations, seed): make this search the policy-learning hunter"},
    {"set_blocking", (PyCFunction)Core_set_blocking, METH_VARARGS,
     "set_blocking(on): cut where the reserve schedule with blocking fails, set before the search starts"},
    {"_blocked_after", (PyCFunction)Core_blocked_after, METH_VARARGS,
     "_blocked_after(m) -> (kept, blocked): a test hook, whether the search asks the blocking cut after move m, "
     "and what it says"},
    {"_blocked", (PyCFunction)Core_blocked, METH_NOARGS,
     "_blocked(): a test hook, whether the reserve schedule with blocking fails where the search stands"},
    {"set_nested", (PyCFunction)Core_set_nested, METH_VARARGS, "set_nested(seed): make this search the nested hunter"},
    {"set_lds", (PyCFunction)Core_set_lds, METH_VARARGS,
     "set_lds(ranked): make this search the discrepancy hunter (ranked: the i-th live move costs i)"},
    {"set_beam", (PyCFunction)Core_set_beam, METH_VARARGS,
     "set_beam(width, closure, per_parent, weights, seed): make this search the beam hunter"},
    {"restart", (PyCFunction)Core_restart, METH_VARARGS,
     "restart(shuffle, moves, checked=True): start again from the first position, after the internal moves, in another order"},
    {"best_line", (PyCFunction)Core_best_line, METH_NOARGS, "the line that put most cards on the foundations"},
    {"hunt", (PyCFunction)Core_hunt, METH_VARARGS,
     "hunt(max_nodes, seconds, limit, restarts, elite, elite_found, stale, rng, shift, elite_every, "
     "stale_hunters, learn) -> (code, restarts, elite, elite_found, stale, rng, spent, progress): "
     "restarting win-hunters until the budget or the time is out (0) or one has won (1)"},
    {NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "terrace.solver._core.Search",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled search of one position (see search.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static PyObject *set_memory_limit(PyObject *self, PyObject *args) {
    PyObject *bytes;
    if (!PyArg_ParseTuple(args, "O!", &PyLong_Type, &bytes)) return NULL;
    size_t limit = PyLong_AsSize_t(bytes);  /* refused, never masked: -1 is no number of bytes */
    if (limit == (size_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return PyErr_Format(PyExc_ValueError, "the memory limit must be a number of bytes from 0 to %zu", SIZE_MAX);
    }
    return PyLong_FromSize_t(mem_set_limit(limit));
}

static PyObject *memory_in_use(PyObject *self, PyObject *unused) { return PyLong_FromSize_t(mem_in_use()); }

/* _grown_table(keys) -> (before, after): a test hook for the table that
 * grows in place (tables.c, tt_grow). The keys (pairs of little-endian
 * 64-bit words, fewer than three quarters of the slots) go into a table of
 * the smallest size that has a mapping of its own, as the search enters
 * them; its slots are returned as they are then and after one doubling. */
static PyObject *grown_table(PyObject *self, PyObject *args) {
    Py_buffer keys;
    if (!PyArg_ParseTuple(args, "y*", &keys)) return NULL;
    uint64_t slots = TT_MAP_BYTES / (2 * sizeof(uint64_t)), n = (uint64_t)keys.len / (2 * sizeof(uint64_t));
    PyObject *out = NULL;
    Core *c = calloc(1, sizeof(Core));
    if (keys.len % (2 * sizeof(uint64_t)) || n * 4 > slots * 3) {
        PyErr_SetString(PyExc_ValueError, "keys: pairs of 64-bit words, fewer than three quarters of the slots");
    } else if (!c || !tt_alloc(c, slots)) {
        PyErr_NoMemory();
    } else {
        const uint8_t *in = keys.buf;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t a, b;
            memcpy(&a, in + 16 * i, 8);
            memcpy(&b, in + 16 * i + 8, 8);
            mend_key(a, &b);
            uint64_t j = keys_slot(c->tt, c->tt_mask, a, b);
            if (!keys_used(c->tt, j)) { c->tt[2 * j] = a; c->tt[2 * j + 1] = b; c->tt_count++; }
        }
        PyObject *before = PyBytes_FromStringAndSize((const char *)c->tt, (Py_ssize_t)c->tt_bytes);
        if (before && !tt_alloc(c, 2 * slots)) PyErr_NoMemory();
        else if (before) out = Py_BuildValue("(Oy#)", before, (const char *)c->tt, (Py_ssize_t)c->tt_bytes);
        Py_XDECREF(before);
    }
    if (c) tt_free(c);
    free(c);
    PyBuffer_Release(&keys);
    return out;
}

/* _weaken_keys(seed, bits): a test hook that leaves `bits` bits in the
 * first lane of every Zobrist entry of `seed` (for the life of the
 * process), so that positions collide on that lane: a search of both lanes
 * is still told them apart by the second, a one-lane search (the
 * win-hunters') is not. Only for a seed no search has used. */
static PyObject *weaken_keys(PyObject *self, PyObject *args) {
    unsigned long long seed;
    int bits;
    if (!PyArg_ParseTuple(args, "Ki", &seed, &bits)) return NULL;
    if (bits < 0 || bits > 63) {
        PyErr_SetString(PyExc_ValueError, "bits out of range");
        return NULL;
    }
    zset *z = zobrist(seed);
    if (!z) return PyErr_NoMemory();
    uint64_t *all = &z->zr[0][0];
    size_t n = (offsetof(zset, next) - offsetof(zset, zr)) / sizeof(lane2);
    for (size_t i = 0; i < n; i++) all[2 * i] &= ((uint64_t)1 << bits) - 1;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"_weaken_keys", weaken_keys, METH_VARARGS,
     "_weaken_keys(seed, bits): a test hook, the first lane of the keys of seed cut to bits bits"},
    {"_grown_table", grown_table, METH_VARARGS,
     "_grown_table(keys) -> (before, after): a test hook, the slots of a table before and after it grows in place"},
    {"set_memory_limit", set_memory_limit, METH_VARARGS,
     "set_memory_limit(bytes) -> the old limit: all tables of the process together "
     "(transposition tables, hunters' sets, policy weights)"},
    {"memory_in_use", memory_in_use, METH_NOARGS, "bytes of the tables in use that set_memory_limit bounds"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "The compiled core of the Terrace solver.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    /* 1 when setup.py built the core guided by its training run's profile */
#ifndef TERRACE_PROFILED
#define TERRACE_PROFILED 0
#endif
    if (PyModule_AddIntConstant(m, "PROFILED", TERRACE_PROFILED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
