/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * isprof.c - the input-sensitive profile model (see isprof.h).
 */
#include "isprof.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

enum { TUPLE_CHUNK = 4096 };

/* ---- a small open-addressing map from two 64-bit words to an index ---- */

static uint64_t key_hash(uint64_t a, uint64_t b)
{
    uint64_t w[2] = {a, b};
    return hash_words(w, 2);
}

/* The word stored for (a, b), 0 when there is none. */
static size_t pair_find(const struct isprof_index *ix, uint64_t a, uint64_t b)
{
    if (!ix->nslots) return 0;
    size_t mask = ix->nslots - 1;
    for (size_t i = key_hash(a, b) & mask;; i = (i + 1) & mask) {
        if (!ix->vals[i]) return 0;
        if (ix->keys[2 * i] == a && ix->keys[2 * i + 1] == b) return ix->vals[i];
    }
}

/*
 * Store word w (not 0) for (a, b); the key must not be present. The table
 * starts at `first` slots and doubles when half full.
 */
static void pair_put(struct isprof_index *ix, uint64_t a, uint64_t b, size_t w, size_t first)
{
    if (2 * (ix->n + 1) > ix->nslots) {
        struct isprof_index old = *ix;
        ix->nslots = old.nslots ? 2 * old.nslots : first;
        ix->keys = xcalloc(2 * ix->nslots, sizeof *ix->keys);
        ix->vals = xcalloc(ix->nslots, sizeof *ix->vals);
        ix->n = 0;
        for (size_t i = 0; i < old.nslots; i++)
            if (old.vals[i]) pair_put(ix, old.keys[2 * i], old.keys[2 * i + 1], old.vals[i], first);
        free(old.keys);
        free(old.vals);
    }
    size_t mask = ix->nslots - 1;
    size_t i = key_hash(a, b) & mask;
    while (ix->vals[i])
        i = (i + 1) & mask;
    ix->keys[2 * i] = a;
    ix->keys[2 * i + 1] = b;
    ix->vals[i] = w;
    ix->n++;
}

static size_t index_get(const struct isprof_index *ix, uint64_t a, uint64_t b)
{
    size_t w = pair_find(ix, a, b);
    return w ? w - 1 : ISPROF_NONE;
}

/* Insert (a, b) -> v; the key must not be present. */
static void index_put(struct isprof_index *ix, uint64_t a, uint64_t b, size_t v)
{
    pair_put(ix, a, b, v + 1, 64);
}

static void index_free(struct isprof_index *ix)
{
    free(ix->keys);
    free(ix->vals);
    memset(ix, 0, sizeof *ix);
}

/* ---- the tuple map: (owner, input) -> tuple (its address as the word) ---- */

static uint64_t owner_key(enum isprof_owner kind, size_t idx)
{
    return (uint64_t)idx << 1 | (kind == ISPROF_CONTEXT);
}

/* ---- init / release ---- */

void isprof_init(struct isprof *ip)
{
    memset(ip, 0, sizeof *ip);
    ip->cost = ISPROF_COST_BB;
    ip->input = ISPROF_INPUT_RMS;
    strtab_init(&ip->names);
}

void isprof_release(struct isprof *ip)
{
    free(ip->exe_mtime);
    free(ip->created);
    free(ip->cmdline);
    free(ip->app);
    strlist_release(&ip->comments);
    strlist_release(&ip->favourites);
    strtab_release(&ip->names);
    for (size_t i = 0; i < ip->nroutines; i++)
        free(ip->routines[i].tuples.items);
    for (size_t i = 0; i < ip->ncontexts; i++)
        free(ip->contexts[i].tuples.items);
    free(ip->routines);
    free(ip->contexts);
    index_free(&ip->by_id);
    index_free(&ip->by_name);
    index_free(&ip->ctx_by_id);
    index_free(&ip->ctx_by_path);
    index_free(&ip->tuple_map);
    for (size_t i = 0; i < ip->nchunks; i++)
        free(ip->chunks[i]);
    free(ip->chunks);
    memset(ip, 0, sizeof *ip);
}

static const char *const cost_names[] = {"bb-count", "vex-instr", "time-usec"};

const char *isprof_cost_name(enum isprof_cost c)
{
    return (unsigned)c < 3 ? cost_names[c] : "bb-count";
}

int isprof_cost_parse(const char *s, size_t len, enum isprof_cost *out)
{
    for (int i = 0; i < 3; i++)
        if (strlen(cost_names[i]) == len && !memcmp(s, cost_names[i], len)) {
            *out = (enum isprof_cost)i;
            return 0;
        }
    if (len == 8 && !memcmp(s, "bb_count", 8)) {
        *out = ISPROF_COST_BB;
        return 0;
    }
    return -1;
}

/* ---- routines ---- */

size_t isprof_add_routine(struct isprof *ip, uint32_t id, const char *name, const char *image,
                          struct tally_error *err)
{
    if (isprof_routine_by_id(ip, id) != ISPROF_NONE) {
        tally_error_set(err, NULL, 0, "routine id %u defined twice", (unsigned)id);
        return ISPROF_NONE;
    }
    if (!image) image = "NONE";
    size_t r = ip->nroutines;
    ip->routines = xgrow(ip->routines, &ip->routines_cap, r + 1, sizeof *ip->routines);
    struct isprof_routine *rt = &ip->routines[r];
    memset(rt, 0, sizeof *rt);
    rt->id = id;
    rt->name = strtab_intern(&ip->names, name, strlen(name));
    rt->image = strtab_intern(&ip->names, image, strlen(image));
    ip->nroutines++;
    index_put(&ip->by_id, id, 0, r);
    if (index_get(&ip->by_name, rt->name, rt->image) == ISPROF_NONE)
        index_put(&ip->by_name, rt->name, rt->image, r);
    return r;
}

size_t isprof_routine_by_id(const struct isprof *ip, uint32_t id)
{
    return index_get(&ip->by_id, id, 0);
}

size_t isprof_routine_by_name(const struct isprof *ip, const char *name, const char *image)
{
    if (!image) image = "NONE";
    uint32_t n = strtab_find(&ip->names, name, strlen(name));
    uint32_t i = strtab_find(&ip->names, image, strlen(image));
    if (n == UINT32_MAX || i == UINT32_MAX) return ISPROF_NONE;
    return index_get(&ip->by_name, n, i);
}

const char *isprof_routine_name(const struct isprof *ip, size_t r)
{
    return strtab_str(&ip->names, ip->routines[r].name);
}

const char *isprof_routine_image(const struct isprof *ip, size_t r)
{
    return strtab_str(&ip->names, ip->routines[r].image);
}

void isprof_set_mangled(struct isprof *ip, size_t r, const char *s, size_t len)
{
    ip->routines[r].mangled = strtab_intern(&ip->names, s, len);
}

void isprof_set_fullname(struct isprof *ip, size_t r, const char *s, size_t len)
{
    ip->routines[r].fullname = strtab_intern(&ip->names, s, len);
}

/* ---- contexts ---- */

static uint64_t parent_key(size_t parent)
{
    return parent == ISPROF_NONE ? UINT64_MAX : (uint64_t)parent;
}

size_t isprof_add_context(struct isprof *ip, uint32_t id, size_t routine, size_t parent,
                          struct tally_error *err)
{
    if (isprof_context_by_id(ip, id) != ISPROF_NONE) {
        tally_error_set(err, NULL, 0, "context id %u defined twice", (unsigned)id);
        return ISPROF_NONE;
    }
    if (routine >= ip->nroutines || (parent != ISPROF_NONE && parent >= ip->ncontexts)) {
        tally_error_set(err, NULL, 0, "context %u: no such routine or parent", (unsigned)id);
        return ISPROF_NONE;
    }
    size_t c = ip->ncontexts;
    ip->contexts = xgrow(ip->contexts, &ip->contexts_cap, c + 1, sizeof *ip->contexts);
    struct isprof_context *cx = &ip->contexts[c];
    memset(cx, 0, sizeof *cx);
    cx->id = id;
    cx->routine = routine;
    cx->parent = parent;
    ip->ncontexts++;
    index_put(&ip->ctx_by_id, id, 0, c);
    if (index_get(&ip->ctx_by_path, parent_key(parent), routine) == ISPROF_NONE)
        index_put(&ip->ctx_by_path, parent_key(parent), routine, c);
    return c;
}

size_t isprof_context_by_id(const struct isprof *ip, uint32_t id)
{
    return index_get(&ip->ctx_by_id, id, 0);
}

size_t isprof_context_child(const struct isprof *ip, size_t parent, size_t routine)
{
    return index_get(&ip->ctx_by_path, parent_key(parent), routine);
}

/* ---- tuples ---- */

static int add64(uint64_t *dst, uint64_t a, uint64_t b)
{
    return __builtin_add_overflow(a, b, dst) ? -1 : 0;
}

static int add128(isprof_u128 *dst, isprof_u128 a, isprof_u128 b)
{
    isprof_u128 s = a + b;
    if (s < a) return -1;
    *dst = s;
    return 0;
}

int isprof_tuple_fold(struct isprof_tuple *dst, const struct isprof_tuple *src)
{
    struct isprof_tuple t = *dst;
    if (add64(&t.calls, dst->calls, src->calls) || add64(&t.sum, dst->sum, src->sum) ||
        add128(&t.sqr, dst->sqr, src->sqr) || add64(&t.real_sum, dst->real_sum, src->real_sum) ||
        add64(&t.self_sum, dst->self_sum, src->self_sum) ||
        add128(&t.self_sqr, dst->self_sqr, src->self_sqr) ||
        add64(&t.rms_sum, dst->rms_sum, src->rms_sum) ||
        add128(&t.rms_sqr, dst->rms_sqr, src->rms_sqr) ||
        add64(&t.cumul_syscall, dst->cumul_syscall, src->cumul_syscall) ||
        add64(&t.cumul_thread, dst->cumul_thread, src->cumul_thread) ||
        add64(&t.self_syscall, dst->self_syscall, src->self_syscall) ||
        add64(&t.self_thread, dst->self_thread, src->self_thread))
        return -1;
    if (src->min < t.min) t.min = src->min;
    if (src->max > t.max) t.max = src->max;
    if (src->self_min < t.self_min) t.self_min = src->self_min;
    if (src->self_max > t.self_max) t.self_max = src->self_max;
    *dst = t;
    return 0;
}

struct isprof_tuple *isprof_find(const struct isprof *ip, enum isprof_owner kind, size_t idx,
                                 uint64_t input)
{
    return (struct isprof_tuple *)(uintptr_t)pair_find(&ip->tuple_map, owner_key(kind, idx), input);
}

static struct isprof_tuples *owner_list(struct isprof *ip, enum isprof_owner kind, size_t idx)
{
    return kind == ISPROF_ROUTINE ? &ip->routines[idx].tuples : &ip->contexts[idx].tuples;
}

struct isprof_tuple *isprof_add(struct isprof *ip, enum isprof_owner kind, size_t idx,
                                const struct isprof_tuple *t, struct tally_error *err)
{
    if (idx >= (kind == ISPROF_ROUTINE ? ip->nroutines : ip->ncontexts)) {
        tally_error_set(err, NULL, 0, "tuple for an unknown %s",
                        kind == ISPROF_ROUTINE ? "routine" : "context");
        return NULL;
    }
    if (!t->calls) {
        tally_error_set(err, NULL, 0, "tuple with 0 calls");
        return NULL;
    }
    struct isprof_tuple *old = isprof_find(ip, kind, idx, t->input);
    if (old) {
        if (isprof_tuple_fold(old, t)) {
            tally_error_set(err, NULL, t->line, "tuple sums overflow (input size %llu)",
                            (unsigned long long)t->input);
            return NULL;
        }
        return old;
    }
    if (!ip->nchunks || ip->chunk_used == TUPLE_CHUNK) {
        ip->chunks = xrealloc(ip->chunks, (ip->nchunks + 1) * sizeof *ip->chunks);
        ip->chunks[ip->nchunks++] = xmalloc(TUPLE_CHUNK * sizeof(struct isprof_tuple));
        ip->chunk_used = 0;
    }
    struct isprof_tuple *nt = &ip->chunks[ip->nchunks - 1][ip->chunk_used++];
    *nt = *t;
    pair_put(&ip->tuple_map, owner_key(kind, idx), t->input, (size_t)(uintptr_t)nt, 256);
    struct isprof_tuples *l = owner_list(ip, kind, idx);
    l->items = xgrow(l->items, &l->cap, l->n + 1, sizeof *l->items);
    if (l->n && l->items[l->n - 1]->input > t->input) l->sorted = 0;
    if (!l->n) l->sorted = 1;
    l->items[l->n++] = nt;
    return nt;
}

static int cmp_tuple(const void *a, const void *b)
{
    const struct isprof_tuple *x = *(struct isprof_tuple *const *)a;
    const struct isprof_tuple *y = *(struct isprof_tuple *const *)b;
    return (x->input > y->input) - (x->input < y->input);
}

static struct isprof_tuple *const *sorted(struct isprof_tuples *l, size_t *n)
{
    if (!l->sorted && l->n > 1) qsort(l->items, l->n, sizeof *l->items, cmp_tuple);
    l->sorted = 1;
    *n = l->n;
    return l->items;
}

struct isprof_tuple *const *isprof_routine_tuples(struct isprof *ip, size_t r, size_t *n)
{
    return sorted(&ip->routines[r].tuples, n);
}

struct isprof_tuple *const *isprof_context_tuples(struct isprof *ip, size_t c, size_t *n)
{
    return sorted(&ip->contexts[c].tuples, n);
}

size_t isprof_count_routine_tuples(const struct isprof *ip)
{
    size_t n = 0;
    for (size_t i = 0; i < ip->nroutines; i++)
        n += ip->routines[i].tuples.n;
    return n;
}

size_t isprof_count_context_tuples(const struct isprof *ip)
{
    size_t n = 0;
    for (size_t i = 0; i < ip->ncontexts; i++)
        n += ip->contexts[i].tuples.n;
    return n;
}

int isprof_aggregate_contexts(struct isprof *ip, struct tally_error *err)
{
    /* Routines that have tuples already (own or aggregated before) are left alone. */
    unsigned char *own = xcalloc(ip->nroutines ? ip->nroutines : 1, 1);
    for (size_t r = 0; r < ip->nroutines; r++)
        own[r] = ip->routines[r].tuples.n > 0 || ip->routines[r].from_contexts;
    for (size_t c = 0; c < ip->ncontexts; c++) {
        size_t r = ip->contexts[c].routine;
        if (own[r]) continue;
        ip->routines[r].from_contexts = 1;
        struct isprof_tuples *l = &ip->contexts[c].tuples;
        for (size_t i = 0; i < l->n; i++)
            if (!isprof_add(ip, ISPROF_ROUTINE, r, l->items[i], err)) {
                free(own);
                return -1;
            }
    }
    free(own);
    return 0;
}

/* ---- merge ---- */

static int same_str(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static const char *input_name(enum isprof_input in)
{
    return in == ISPROF_INPUT_DRMS ? "drms" : "rms";
}

/* Map a context of src to one of dst (creating it and its ancestors when needed). */
static size_t map_context(struct isprof *dst, const struct isprof *src, size_t c, size_t *cmap,
                          const size_t *rmap, uint64_t *next_id, struct tally_error *err)
{
    if (cmap[c] != ISPROF_NONE) return cmap[c];
    /* Walk up to the first mapped ancestor, then map downwards (no recursion). */
    size_t depth = 0;
    for (size_t a = c; a != ISPROF_NONE && cmap[a] == ISPROF_NONE; a = src->contexts[a].parent)
        depth++;
    size_t *chain = xmalloc(depth * sizeof *chain);
    size_t k = 0;
    for (size_t a = c; a != ISPROF_NONE && cmap[a] == ISPROF_NONE; a = src->contexts[a].parent)
        chain[k++] = a;
    while (k--) {
        size_t a = chain[k];
        size_t sp = src->contexts[a].parent;
        size_t dp = sp == ISPROF_NONE ? ISPROF_NONE : cmap[sp];
        size_t r = rmap[src->contexts[a].routine];
        size_t d = isprof_context_child(dst, dp, r);
        if (d == ISPROF_NONE) {
            /* a fresh id: one above the largest in use */
            if (*next_id > UINT32_MAX) {
                free(chain);
                tally_error_set(err, NULL, 0, "too many contexts");
                return ISPROF_NONE;
            }
            d = isprof_add_context(dst, (uint32_t)(*next_id)++, r, dp, err);
            if (d == ISPROF_NONE) {
                free(chain);
                return ISPROF_NONE;
            }
        }
        cmap[a] = d;
    }
    free(chain);
    return cmap[c];
}

static uint64_t next_routine_id(const struct isprof *ip)
{
    uint64_t id = 0;
    for (size_t i = 0; i < ip->nroutines; i++)
        if (ip->routines[i].id >= id) id = (uint64_t)ip->routines[i].id + 1;
    return id;
}

int isprof_merge(struct isprof *dst, const struct isprof *src, struct strlist *warnings,
                 struct tally_error *err)
{
    if (!same_str(dst->app, src->app))
        return tally_error_set(err, NULL, 0, "different programs (a line): '%s' and '%s'",
                               dst->app ? dst->app : "", src->app ? src->app : "");
    if (dst->input != src->input)
        return tally_error_set(err, NULL, 0, "different input metrics: %s and %s",
                               input_name(dst->input), input_name(src->input));
    if (dst->resolution != src->resolution)
        return tally_error_set(err, NULL, 0, "different memory resolutions: %u and %u",
                               dst->resolution, src->resolution);
    if (dst->cost != src->cost)
        return tally_error_set(err, NULL, 0, "different cost metrics: %s and %s",
                               isprof_cost_name(dst->cost), isprof_cost_name(src->cost));
    if (dst->has_total && src->has_total &&
        __builtin_add_overflow(dst->total, src->total, &(uint64_t){0}))
        return tally_error_set(err, NULL, src->total_line, "total cost (k) overflows");
    if (!same_str(dst->exe_mtime, src->exe_mtime) && warnings)
        strlist_pushf(warnings, "executable modification times differ (e line): %s and %s",
                      dst->exe_mtime ? dst->exe_mtime : "none",
                      src->exe_mtime ? src->exe_mtime : "none");

    size_t *rmap = xmalloc((src->nroutines ? src->nroutines : 1) * sizeof *rmap);
    size_t *cmap = xmalloc((src->ncontexts ? src->ncontexts : 1) * sizeof *cmap);
    int rc = -1;
    uint64_t next_id = next_routine_id(dst);
    for (size_t r = 0; r < src->nroutines; r++) {
        const char *name = isprof_routine_name(src, r), *image = isprof_routine_image(src, r);
        size_t d = isprof_routine_by_name(dst, name, image);
        if (d == ISPROF_NONE) {
            uint32_t id = src->routines[r].id;
            if (isprof_routine_by_id(dst, id) != ISPROF_NONE) {
                if (next_id > UINT32_MAX) {
                    tally_error_set(err, NULL, 0, "too many routines");
                    goto out;
                }
                id = (uint32_t)next_id;
            }
            d = isprof_add_routine(dst, id, name, image, err);
            if (d == ISPROF_NONE) goto out;
            if (id >= next_id) next_id = (uint64_t)id + 1;
        }
        const struct isprof_routine *sr = &src->routines[r];
        if (sr->mangled && !dst->routines[d].mangled) {
            const char *m = strtab_str(&src->names, sr->mangled);
            isprof_set_mangled(dst, d, m, strlen(m));
        }
        if (sr->fullname && !dst->routines[d].fullname) {
            const char *m = strtab_str(&src->names, sr->fullname);
            isprof_set_fullname(dst, d, m, strlen(m));
        }
        rmap[r] = d;
    }
    for (size_t c = 0; c < src->ncontexts; c++)
        cmap[c] = ISPROF_NONE;
    uint64_t next_ctx = 1;
    for (size_t i = 0; i < dst->ncontexts; i++)
        if (dst->contexts[i].id >= next_ctx) next_ctx = (uint64_t)dst->contexts[i].id + 1;
    for (size_t c = 0; c < src->ncontexts; c++)
        if (map_context(dst, src, c, cmap, rmap, &next_ctx, err) == ISPROF_NONE) goto out;
    for (size_t r = 0; r < src->nroutines; r++) {
        /*
         * Folding is associative, so the per-routine tuples of the merge
         * are the fold of both sides whether they were read from p lines or
         * aggregated from contexts. Only when exactly one side came from
         * contexts must the result keep its p lines (from_contexts = 0).
         */
        const struct isprof_routine *sr = &src->routines[r];
        struct isprof_routine *dr = &dst->routines[rmap[r]];
        if (!dr->tuples.n && !dr->from_contexts)
            dr->from_contexts = sr->from_contexts;
        else if (dr->from_contexts != sr->from_contexts && sr->tuples.n)
            dr->from_contexts = 0;
        for (size_t i = 0; i < sr->tuples.n; i++)
            if (!isprof_add(dst, ISPROF_ROUTINE, rmap[r], sr->tuples.items[i], err)) goto out;
    }
    for (size_t c = 0; c < src->ncontexts; c++) {
        const struct isprof_tuples *l = &src->contexts[c].tuples;
        for (size_t i = 0; i < l->n; i++)
            if (!isprof_add(dst, ISPROF_CONTEXT, cmap[c], l->items[i], err)) goto out;
    }
    if (src->has_total) {
        dst->total = dst->has_total ? dst->total + src->total : src->total;
        dst->has_total = 1;
    }
    dst->fields &= src->fields;
    if (dst->thread != src->thread) dst->thread = 0;
    rc = 0;
out:
    free(rmap);
    free(cmap);
    return rc;
}
