/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runpair.c - a contexts file and the callgrind file of the same run as one profile (runpair.h). */
#include "runpair.h"

#include <stdlib.h>
#include <string.h>

#include "../model/cct.h"
#include "../model/rectab.h"

int runpair_match(const struct profile *ctx, const struct profile *callgrind)
{
    if (!ctx->cct || callgrind->cct || ctx->format != PROFILE_FORMAT_CONTEXTS ||
        callgrind->format != PROFILE_FORMAT_CALLGRIND)
        return 0;
    if (ctx->nparts != 1 || callgrind->nparts != 1) return 0;
    const struct part *a = ctx->parts[0], *b = callgrind->parts[0];
    if (!a->cmd || !b->cmd || strcmp(a->cmd, b->cmd) != 0) return 0;
    if (!a->has_pid || !b->has_pid || a->pid != b->pid) return 0;
    for (size_t e = 0; e < ctx->cct->nevents; e++)
        if (e >= a->events.n || eventset_index(&b->events, a->events.names[e]) < 0) return 0;
    return 1;
}

/* Name id in dp of the string s of sp, "???" for an empty one. */
static uint32_t known_name(struct profile *dp, const struct profile *sp, uint32_t id)
{
    const char *s = profile_str(sp, id);
    if (!*s) s = "???";
    return profile_intern(dp, s, strlen(s));
}

/* The function of sp as a function of dp with its object and file known. */
static uint32_t copy_function(struct profile *dp, const struct profile *sp, uint32_t fn)
{
    struct function f = profile_function_at(sp, fn);
    return profile_function(dp, known_name(dp, sp, f.obj), known_name(dp, sp, f.file),
                            known_name(dp, sp, f.name));
}

/* Key of the (object, name) group of function fn of p. */
static void group_key(const struct profile *p, uint32_t fn, uint64_t key[1])
{
    struct function f = profile_function_at(p, fn);
    key[0] = (uint64_t)f.obj << 32 | f.name;
}

/*
 * Check that every (object, name) group has the same self cost in the
 * joined part as in the tree. Returns 0, or -1 with err.
 */
/*
 * Do the file's own costs add up to its `totals:` (or `summary:`) line?
 * 1 when they do or when it has neither; the file that fails this is the
 * one to blame for a mismatch between the two files of a run.
 */
static int totals_agree(const struct profile *p)
{
    const struct part *pt = p->parts[0];
    const uint64_t *given = pt->totals ? pt->totals : pt->summary;
    size_t n = pt->events.n;
    if (!given || !n) return 1;
    uint64_t *sum = xcalloc(n, sizeof(*sum));
    int ok = part_self_total(p, pt, sum) == 0;
    for (size_t e = 0; e < n && ok; e++)
        ok = pt->totals ? given[e] == sum[e] : given[e] >= sum[e];
    free(sum);
    return ok;
}

static int check_costs(const struct profile *j, const size_t *emap, const struct profile *ctx,
                       const struct profile *callgrind, struct tally_error *err)
{
    const struct cct *t = j->cct;
    const struct part *pt = j->parts[0];
    size_t ne = ctx->cct->nevents; /* the tree's events, emap[e] in the joined part */
    struct rectab groups;          /* (obj, name) -> ne sums of the part, ne sums of the tree */
    rectab_init(&groups, 1, 2 * ne);
    int over = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        uint64_t key[1];
        group_key(j, r.fn, key);
        uint64_t *v = rectab_get(&groups, key, NULL);
        for (size_t e = 0; e < ne; e++) {
            uint64_t x = r.cost[emap[e]];
            over |= v[e] + x < x;
            v[e] += x;
        }
    }
    for (uint32_t i = 1; i < t->n; i++) {
        uint64_t key[1];
        group_key(j, t->nodes[i].fn, key);
        uint64_t *v = rectab_get(&groups, key, NULL);
        const uint64_t *s = cct_self(t, i);
        for (size_t e = 0; e < ne; e++) {
            over |= v[ne + e] + s[emap[e]] < s[emap[e]];
            v[ne + e] += s[emap[e]];
        }
    }
    int rc = 0;
    /* blame the callgrind file, unless only the contexts file disagrees with its totals */
    int blame_ctx = !totals_agree(ctx) && totals_agree(callgrind);
    const struct profile *here = blame_ctx ? ctx : callgrind, *there = blame_ctx ? callgrind : ctx;
    for (size_t g = 0; g < groups.count && !rc && !over; g++) {
        const uint64_t *k = rectab_at(&groups, g), *v = rectab_val(&groups, g);
        const struct part *cp = ctx->parts[0];
        for (size_t e = 0; e < ne && !rc; e++)
            if (v[e] != v[ne + e])
                rc = tally_error_set(
                    err, here->path, 0,
                    "%s has the same command and pid as this file, but %s costs %llu %s there "
                    "and %llu here: they are not the contexts and callgrind files of one run%s",
                    there->path ? there->path : "the other file", profile_str(j, (uint32_t)k[0]),
                    (unsigned long long)v[blame_ctx ? e : ne + e], pt->events.names[emap[e]],
                    (unsigned long long)v[blame_ctx ? ne + e : e],
                    cp->has_thread ? " (the contexts file holds one thread: add the contexts files "
                                     "of every thread first, with tally merge --format=contexts)"
                                   : "");
    }
    if (over) rc = tally_error_set(err, here->path, 0, "a cost sum overflows 64 bits");
    rectab_release(&groups);
    return rc;
}

struct profile *runpair_join(const struct profile *ctx, const struct profile *callgrind,
                             struct tally_error *err)
{
    struct profile *j = profile_new();
    j->path = callgrind->path ? xstrdup(callgrind->path) : NULL;
    j->format = callgrind->format;
    j->creator = callgrind->creator ? xstrdup(callgrind->creator) : NULL;
    j->version = callgrind->version;
    struct part *pt = profile_add_part(j);
    const struct part *src = callgrind->parts[0];
    pt->has_pid = src->has_pid;
    pt->pid = src->pid;
    pt->has_thread = src->has_thread;
    pt->thread = src->thread;

    /* the functions of the contexts file first; (object, name) -> one of them (0: several) */
    size_t nc = profile_nfunctions(ctx), ng = profile_nfunctions(callgrind);
    uint32_t *cmap = xcalloc(nc ? nc : 1, sizeof(*cmap));
    uint32_t *gmap = xcalloc(ng ? ng : 1, sizeof(*gmap));
    struct rectab byname; /* obj << 32 | name -> function + 1, or 0 when ambiguous */
    rectab_init(&byname, 1, 1);
    for (uint32_t f = 0; f < nc; f++) {
        cmap[f] = copy_function(j, ctx, f);
        uint64_t key[1];
        group_key(j, cmap[f], key);
        int created = 0;
        uint64_t *v = rectab_get(&byname, key, &created);
        *v = created ? (uint64_t)cmap[f] + 1 : v[0] == (uint64_t)cmap[f] + 1 ? v[0] : 0;
    }
    for (uint32_t f = 0; f < ng; f++) {
        struct function g = profile_function_at(callgrind, f);
        uint64_t fkey[2] = {(uint64_t)known_name(j, callgrind, g.obj) << 32 |
                                known_name(j, callgrind, g.file),
                            known_name(j, callgrind, g.name)};
        if (rectab_find(&j->funcs, fkey)) {
            gmap[f] = copy_function(j, callgrind, f); /* the same object, file and name */
            continue;
        }
        /* no function of the contexts file has this file: match by name */
        uint64_t key[1] = {fkey[0] >> 32 << 32 | fkey[1]};
        const uint64_t *v = rectab_find(&byname, key);
        gmap[f] = v && v[0] ? (uint32_t)(v[0] - 1) : copy_function(j, callgrind, f);
    }
    rectab_release(&byname);

    int rc = part_accumulate_mapped(j, pt, callgrind, src, gmap, err);
    size_t *emap = NULL;
    if (rc == 0) {
        const struct part *cp = ctx->parts[0];
        size_t ne = ctx->cct->nevents;
        emap = xcalloc(ne ? ne : 1, sizeof(*emap));
        for (size_t e = 0; e < ne; e++)
            emap[e] = (size_t)eventset_index(&pt->events, cp->events.names[e]);
        j->cct = cct_new(pt->events.n);
        rc = cct_add_tree_mapped(j->cct, j, ctx->cct, ctx, emap, cmap, err);
    }
    if (rc == 0) rc = check_costs(j, emap, ctx, callgrind, err);
    free(emap);
    free(cmap);
    free(gmap);
    if (rc) {
        profile_free(j);
        return NULL;
    }
    return j;
}
