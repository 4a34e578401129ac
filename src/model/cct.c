/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cct.h"
#include "profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cct *cct_new(size_t nevents)
{
    struct cct *t = xcalloc(1, sizeof(*t));
    t->nevents = nevents;
    t->cap = 64;
    t->nodes = xcalloc(t->cap, sizeof(*t->nodes));
    t->self = xcalloc(t->cap * (nevents ? nevents : 1), sizeof(uint64_t));
    t->n = 1;
    t->nodes[0].fn = CCT_NO_FN;
    rectab_init(&t->index, 1, 1);
    return t;
}

void cct_free(struct cct *t)
{
    if (!t) return;
    free(t->nodes);
    free(t->self);
    rectab_release(&t->index);
    free(t);
}

uint32_t cct_find(const struct cct *t, uint32_t parent, uint32_t fn)
{
    uint64_t key = (uint64_t)parent << 32 | fn;
    const uint64_t *v = rectab_find(&t->index, &key);
    return v ? (uint32_t)*v : 0;
}

uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t fn)
{
    uint64_t key = (uint64_t)parent << 32 | fn;
    int created = 0;
    uint64_t *v = rectab_get(&t->index, &key, &created);
    if (!created) return (uint32_t)*v;
    if (t->n >= UINT32_MAX - 1) return UINT32_MAX;
    if (t->n == t->cap) {
        size_t old = t->cap;
        t->cap *= 2;
        t->nodes = xrealloc(t->nodes, t->cap * sizeof(*t->nodes));
        size_t ne = t->nevents ? t->nevents : 1;
        t->self = xrealloc(t->self, t->cap * ne * sizeof(uint64_t));
        memset(t->self + old * ne, 0, (t->cap - old) * ne * sizeof(uint64_t));
    }
    uint32_t i = (uint32_t)t->n++;
    struct cct_node *nd = &t->nodes[i];
    memset(nd, 0, sizeof(*nd));
    nd->parent = parent;
    nd->fn = fn;
    nd->depth = t->nodes[parent].depth + 1;
    struct cct_node *pa = &t->nodes[parent];
    if (pa->last_child)
        t->nodes[pa->last_child].next_sibling = i;
    else
        pa->first_child = i;
    pa->last_child = i;
    *v = i;
    return i;
}

int cct_on_stack(const struct cct *t, uint32_t i, uint32_t fn)
{
    while (i != CCT_ROOT) {
        if (t->nodes[i].fn == fn) return 1;
        i = t->nodes[i].parent;
    }
    return 0;
}

int cct_inclusive(const struct cct *t, uint64_t *out, struct tally_error *err)
{
    size_t ne = t->nevents;
    memcpy(out, t->self, t->n * ne * sizeof(uint64_t));
    /* parents have smaller indices than their children */
    for (size_t i = t->n; i-- > 1;) {
        uint64_t *dst = out + (size_t)t->nodes[i].parent * ne;
        const uint64_t *src = out + i * ne;
        for (size_t e = 0; e < ne; e++) {
            if (dst[e] + src[e] < dst[e])
                return tally_error_set(err, "", 0, "cost overflow in the context tree");
            dst[e] += src[e];
        }
    }
    return 0;
}

int cct_outermost(const struct cct *t, size_t nfn, unsigned char *outer, struct tally_error *err)
{
    /* how many nodes of each function the path from the root to i holds */
    uint32_t *on_path = xcalloc(nfn ? nfn : 1, sizeof(*on_path));
    int rc = 0;
    outer[CCT_ROOT] = 0;
    uint32_t i = t->n > 1 ? t->nodes[CCT_ROOT].first_child : 0;
    while (i) {
        const struct cct_node *nd = &t->nodes[i];
        if (nd->fn >= nfn) {
            rc = tally_error_set(err, "", 0, "context %" PRIu32 " has no function of the profile",
                                 i);
            break;
        }
        outer[i] = on_path[nd->fn]++ == 0;
        if (nd->first_child) {
            i = nd->first_child;
            continue;
        }
        /* leave i, then its ancestors up to the first with a next sibling */
        for (;;) {
            on_path[t->nodes[i].fn]--;
            if (t->nodes[i].next_sibling) {
                i = t->nodes[i].next_sibling;
                break;
            }
            i = t->nodes[i].parent;
            if (i == CCT_ROOT) break;
        }
    }
    free(on_path);
    return rc;
}

int cct_on_stack_costs(const struct cct *t, size_t nfn, uint64_t *out, struct tally_error *err)
{
    size_t ne = t->nevents;
    memset(out, 0, nfn * ne * sizeof(uint64_t));
    uint64_t *incl = xmalloc((t->n ? t->n : 1) * (ne ? ne : 1) * sizeof(uint64_t));
    unsigned char *outer = xmalloc(t->n ? t->n : 1);
    int rc = cct_inclusive(t, incl, err);
    if (!rc) rc = cct_outermost(t, nfn, outer, err);
    for (size_t i = 1; !rc && i < t->n; i++) {
        if (!outer[i]) continue;
        uint64_t *dst = out + (size_t)t->nodes[i].fn * ne;
        const uint64_t *src = incl + i * ne;
        for (size_t e = 0; e < ne; e++)
            dst[e] += src[e]; /* disjoint subtrees: at most the root's inclusive cost */
    }
    free(outer);
    free(incl);
    return rc;
}

int cct_add_tree(struct cct *dst, struct profile *dp, const struct cct *src,
                 const struct profile *sp, const size_t *emap, struct tally_error *err)
{
    return cct_add_tree_mapped(dst, dp, src, sp, emap, NULL, err);
}

int cct_add_tree_mapped(struct cct *dst, struct profile *dp, const struct cct *src,
                        const struct profile *sp, const size_t *emap, const uint32_t *fnmap,
                        struct tally_error *err)
{
    uint32_t *map = xcalloc(src->n ? src->n : 1, sizeof(uint32_t));
    int rc = 0;
    for (size_t i = 1; i < src->n && !rc; i++) {
        const struct cct_node *sn = &src->nodes[i];
        uint32_t fn;
        if (fnmap) {
            fn = fnmap[sn->fn];
        } else {
            struct function f = profile_function_at(sp, sn->fn);
            const char *o = profile_str(sp, f.obj), *fl = profile_str(sp, f.file);
            const char *nm = profile_str(sp, f.name);
            fn = profile_function(dp, profile_intern(dp, o, strlen(o)),
                                  profile_intern(dp, fl, strlen(fl)),
                                  profile_intern(dp, nm, strlen(nm)));
        }
        uint32_t d = cct_child(dst, map[sn->parent], fn);
        if (d == UINT32_MAX) {
            rc = tally_error_set(err, sp->path, 0, "too many calling contexts");
            break;
        }
        map[i] = d;
        if (dst->nodes[d].calls + sn->calls < sn->calls) rc = -1;
        dst->nodes[d].calls += sn->calls;
        const uint64_t *sc = cct_self(src, (uint32_t)i);
        uint64_t *dc = cct_self(dst, d);
        for (size_t e = 0; e < src->nevents; e++) {
            if (dc[emap[e]] + sc[e] < sc[e]) rc = -1;
            dc[emap[e]] += sc[e];
        }
        if (rc) tally_error_set(err, sp->path, 0, "cost overflow while adding context trees");
    }
    if (!rc) {
        const uint64_t *sc = cct_self(src, 0);
        uint64_t *dc = cct_self(dst, 0);
        for (size_t e = 0; e < src->nevents; e++)
            dc[emap[e]] += sc[e];
    }
    free(map);
    return rc;
}
