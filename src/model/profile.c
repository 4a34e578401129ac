/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile.h"
#include "cct.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Record layouts (64-bit words). A part that keeps call counts only has
 * call records of CALL_LEAN_KEY words (caller << 32 | callee, site file
 * << 32 | target file) and one value word (the count).
 */
enum { COST_KEY = 4, CALL_KEY = 5, CALL_HDR = 5, CALL_LEAN_KEY = 2, JUMP_KEY = 9, JUMP_VAL = 2 };

static uint64_t pack2(uint32_t hi, uint32_t lo)
{
    return (uint64_t)hi << 32 | lo;
}

struct profile *profile_new(void)
{
    struct profile *p = xcalloc(1, sizeof(*p));
    strtab_init(&p->names);
    rectab_init(&p->funcs, 2, 1);
    return p;
}

static void part_free(struct part *pt)
{
    free(pt->cmd);
    free(pt->timerange);
    strlist_release(&pt->desc);
    eventset_release(&pt->events);
    free(pt->summary);
    free(pt->totals);
    rectab_release(&pt->costs);
    rectab_release(&pt->calls);
    rectab_release(&pt->jumps);
    free(pt);
}

void profile_free(struct profile *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nparts; i++)
        part_free(p->parts[i]);
    free(p->parts);
    free(p->path);
    free(p->creator);
    strtab_release(&p->names);
    rectab_release(&p->funcs);
    strlist_release(&p->warnings);
    cct_free(p->cct);
    free(p);
}

uint32_t profile_function(struct profile *p, uint32_t obj, uint32_t file, uint32_t name)
{
    uint64_t key[2] = {pack2(obj, file), name};
    return (uint32_t)rectab_get_index(&p->funcs, key, NULL);
}

size_t profile_nfunctions(const struct profile *p)
{
    return p->funcs.count;
}

void profile_mention_function(struct profile *p, uint32_t fn)
{
    rectab_val(&p->funcs, fn)[0] = ++p->mentions;
}

void profile_raise_mention(struct profile *p, uint32_t fn, uint64_t ordinal)
{
    uint64_t *v = rectab_val(&p->funcs, fn);
    if (*v < ordinal) *v = ordinal;
}

uint64_t profile_function_mention(const struct profile *p, uint32_t fn)
{
    return rectab_val(&p->funcs, fn)[0];
}

struct function profile_function_at(const struct profile *p, uint32_t fn)
{
    const uint64_t *k = rectab_at(&p->funcs, fn);
    struct function f = {(uint32_t)(k[0] >> 32), (uint32_t)k[0], (uint32_t)k[1]};
    return f;
}

struct part *profile_add_part(struct profile *p)
{
    struct part *pt = xcalloc(1, sizeof(*pt));
    pt->positions = POS_LINE;
    eventset_init(&pt->events);
    rectab_init(&pt->costs, COST_KEY, 0);
    rectab_init(&pt->calls, CALL_KEY, CALL_HDR);
    rectab_init(&pt->jumps, JUMP_KEY, JUMP_VAL);
    p->parts = xgrow(p->parts, &p->parts_cap, p->nparts + 1, sizeof(*p->parts));
    p->parts[p->nparts++] = pt;
    return pt;
}

void profile_warn(struct profile *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    strlist_push(&p->warnings, buf);
}

int cost_add(uint64_t *dst, const uint64_t *src, size_t n, int is_signed)
{
    /* on overflow the element keeps its old value: a count never wraps */
    int bad = 0;
    if (is_signed) {
        for (size_t i = 0; i < n; i++) {
            int64_t r;
            int o = __builtin_add_overflow((int64_t)dst[i], (int64_t)src[i], &r);
            dst[i] = o ? dst[i] : (uint64_t)r;
            bad |= o;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t r;
            int o = __builtin_add_overflow(dst[i], src[i], &r);
            dst[i] = o ? dst[i] : r;
            bad |= o;
        }
    }
    return bad ? -1 : 0;
}

int cost_sub_signed(uint64_t *dst, const uint64_t *src, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t r;
        int o = __builtin_sub_overflow((int64_t)dst[i], (int64_t)src[i], &r);
        dst[i] = o ? dst[i] : (uint64_t)r;
        bad |= o;
    }
    return bad ? -1 : 0;
}

/* Value words depend on the event count, fixed once the first record exists. */
/* The value size of an empty table from the events (each function touches only its own
   table, so that two threads may fill the costs and the calls of one part). */
static void shape_costs(struct part *pt)
{
    if (!pt->costs.count) pt->costs.val_words = pt->events.n;
}

static void shape_calls(struct part *pt)
{
    if (!pt->calls.count && !pt->call_counts_only) pt->calls.val_words = CALL_HDR + pt->events.n;
}

int part_add_cost(struct profile *p, struct part *pt, uint32_t fn, const struct position *pos,
                  const uint64_t *cost, size_t n)
{
    shape_costs(pt);
    uint64_t key[COST_KEY] = {pack2(fn, pos->file), pos->line, pos->addr, pos->bb};
    uint64_t *v = rectab_get(&pt->costs, key, NULL);
    if (n > pt->costs.val_words) n = pt->costs.val_words;
    return cost_add(v, cost, n, p->signed_costs);
}

int part_add_call(struct profile *p, struct part *pt, uint32_t caller, const struct position *site,
                  uint32_t callee, const struct position *target, uint64_t count,
                  const uint64_t *cost, size_t n)
{
    shape_calls(pt);
    int lean = pt->call_counts_only;
    uint64_t key[CALL_KEY] = {pack2(caller, callee), site->file, site->line, site->addr, site->bb};
    if (lean) key[1] = pack2(site->file, target->file); /* CALL_LEAN_KEY words */
    int created;
    uint64_t *v = rectab_get(&pt->calls, key, &created);
    if (lean) return cost_add(v, &count, 1, p->signed_costs);
    if (created) {
        v[1] = target->file;
        v[2] = target->line;
        v[3] = target->addr;
        v[4] = target->bb;
    }
    int bad = cost_add(&v[0], &count, 1, p->signed_costs);
    if (n > pt->calls.val_words - CALL_HDR) n = pt->calls.val_words - CALL_HDR;
    if (cost) bad |= cost_add(v + CALL_HDR, cost, n, p->signed_costs);
    return bad;
}

int part_keep_call_counts_only(struct profile *p, struct part *pt)
{
    if (pt->call_counts_only) return 0;
    struct rectab full = pt->calls;
    rectab_init(&pt->calls, CALL_LEAN_KEY, 1);
    pt->call_counts_only = 1;
    int bad = 0;
    for (size_t i = 0; i < full.count; i++) {
        struct part old = {.calls = full};
        struct call_rec c;
        part_call_get(&old, i, &c);
        bad |= part_add_call(p, pt, c.caller, &c.site, c.callee, &c.target, *c.count, NULL, 0);
    }
    rectab_release(&full);
    return bad ? -1 : 0;
}

int part_add_jump(struct profile *p, struct part *pt, uint32_t fn, const struct position *src,
                  uint32_t target_fn, const struct position *target, int conditional,
                  uint64_t executed, uint64_t taken)
{
    uint64_t key[JUMP_KEY] = {
        pack2(fn, src->file),           src->line,    src->addr,    src->bb,
        pack2(target_fn, target->file), target->line, target->addr, target->bb,
        (uint64_t)(conditional != 0)};
    uint64_t *v = rectab_get(&pt->jumps, key, NULL);
    uint64_t add[2] = {executed, taken};
    return cost_add(v, add, 2, p->signed_costs);
}

void profile_drop_indexes(struct profile *p)
{
    rectab_drop_index(&p->funcs);
    for (size_t i = 0; i < p->nparts; i++) {
        rectab_drop_index(&p->parts[i]->costs);
        rectab_drop_index(&p->parts[i]->calls);
        rectab_drop_index(&p->parts[i]->jumps);
    }
}

void part_clear_records(struct part *pt)
{
    rectab_clear(&pt->costs);
    rectab_clear(&pt->calls);
    rectab_clear(&pt->jumps);
}

void part_cost_get(const struct part *pt, size_t i, struct cost_rec *out)
{
    uint64_t *r = rectab_at(&pt->costs, i);
    out->fn = (uint32_t)(r[0] >> 32);
    out->pos.file = (uint32_t)r[0];
    out->pos.line = r[1];
    out->pos.addr = r[2];
    out->pos.bb = r[3];
    out->cost = r + COST_KEY;
}

void part_call_get(const struct part *pt, size_t i, struct call_rec *out)
{
    uint64_t *r = rectab_at(&pt->calls, i);
    out->caller = (uint32_t)(r[0] >> 32);
    out->callee = (uint32_t)r[0];
    if (pt->call_counts_only) {
        out->site = (struct position){(uint32_t)(r[1] >> 32), 0, 0, 0};
        out->target = (struct position){(uint32_t)r[1], 0, 0, 0};
        out->count = &r[CALL_LEAN_KEY];
        out->cost = NULL;
        return;
    }
    out->site.file = (uint32_t)r[1];
    out->site.line = r[2];
    out->site.addr = r[3];
    out->site.bb = r[4];
    uint64_t *v = r + CALL_KEY;
    out->count = &v[0];
    out->target.file = (uint32_t)v[1];
    out->target.line = v[2];
    out->target.addr = v[3];
    out->target.bb = v[4];
    out->cost = v + CALL_HDR;
}

void part_jump_get(const struct part *pt, size_t i, struct jump_rec *out)
{
    uint64_t *r = rectab_at(&pt->jumps, i);
    out->fn = (uint32_t)(r[0] >> 32);
    out->src.file = (uint32_t)r[0];
    out->src.line = r[1];
    out->src.addr = r[2];
    out->src.bb = r[3];
    out->target_fn = (uint32_t)(r[4] >> 32);
    out->target.file = (uint32_t)r[4];
    out->target.line = r[5];
    out->target.addr = r[6];
    out->target.bb = r[7];
    out->conditional = (int)r[8];
    out->executed = &r[JUMP_KEY];
    out->taken = &r[JUMP_KEY + 1];
}

int part_self_total(const struct profile *p, const struct part *pt, uint64_t *out)
{
    size_t n = pt->events.n;
    memset(out, 0, n * sizeof(*out));
    int bad = 0;
    for (size_t i = 0; i < pt->costs.count; i++)
        bad |= cost_add(out, rectab_val(&pt->costs, i), n, p->signed_costs);
    return bad ? -1 : 0;
}

static void fmt_cost(char *buf, size_t size, uint64_t v, int is_signed)
{
    if (is_signed)
        snprintf(buf, size, "%" PRId64, (int64_t)v);
    else
        snprintf(buf, size, "%" PRIu64, v);
}

int part_check_totals(struct profile *p, struct part *pt)
{
    size_t n = pt->events.n;
    if (!n || (!pt->summary && !pt->totals)) return 0;
    uint64_t *sum = xcalloc(n, sizeof(*sum));
    if (part_self_total(p, pt, sum)) {
        profile_warn(p, "%s: the self costs overflow 64 bits; totals not checked",
                     p->path ? p->path : "(input)");
        free(sum);
        return 1;
    }
    int mismatches = part_check_totals_of(p, pt, sum);
    free(sum);
    return mismatches;
}

/* One of the events of Callgrind's --cacheuse=yes. */
static int is_cacheuse(const char *name)
{
    return !strcmp(name, "AcCost1") || !strcmp(name, "SpLoss1") || !strcmp(name, "AcCost2") ||
           !strcmp(name, "SpLoss2");
}

int part_check_totals_of(struct profile *p, struct part *pt, const uint64_t *sum)
{
    size_t n = pt->events.n;
    if (!n || (!pt->summary && !pt->totals)) return 0;
    int mismatches = 0;
    const char *file = p->path ? p->path : "(input)";
    const char *what[2] = {"summary", "totals"};
    const uint64_t *given[2] = {pt->summary, pt->totals};
    unsigned long where[2] = {pt->summary_line, pt->totals_line};
    for (int k = 0; k < 2; k++) {
        if (!given[k]) continue;
        for (size_t e = 0; e < n; e++) {
            if (given[k][e] == sum[e]) continue;
            /*
             * The callgrind format lets `summary:` exceed the sum of the
             * self costs (Callgrind itself writes a summary a few events
             * larger with --dump-instr=yes); only `totals:` must be exact.
             * Callgrind's summary is its running cost, which never holds
             * the events of --cacheuse=yes (charged to the lines when they
             * leave the cache): they are 0 there (tally record's too).
             */
            if (k == 0 && p->format == PROFILE_FORMAT_CALLGRIND && !p->signed_costs &&
                (given[k][e] > sum[e] || (given[k][e] == 0 && is_cacheuse(pt->events.names[e]))))
                continue;
            char a[32], b[32], loc[64] = "";
            fmt_cost(a, sizeof(a), given[k][e], p->signed_costs);
            fmt_cost(b, sizeof(b), sum[e], p->signed_costs);
            if (where[k]) snprintf(loc, sizeof(loc), ":%lu", where[k]);
            profile_warn(p, "%s%s: '%s:' line gives %s = %s, but the costs add up to %s", file, loc,
                         what[k], pt->events.names[e], a, b);
            mismatches++;
        }
    }
    return mismatches;
}

/*
 * Names and functions of profile sp as ids of profile dp, looked up once
 * each and remembered (0 = not yet; ids are stored + 1). The first lookup
 * of each happens where it did without the memory, so dp interns names
 * and numbers functions in the same order.
 */
struct idcache {
    uint32_t *name;        /* [sp's name count] */
    uint32_t *fn;          /* [sp's function count] */
    const uint32_t *given; /* sp's name id -> dp's, given by the caller (or NULL) */
};

static uint32_t map_name(struct profile *dp, const struct profile *sp, struct idcache *c,
                         uint32_t id)
{
    if (dp == sp) return id;
    if (c && c->given) return c->given[id];
    if (c && c->name[id]) return c->name[id] - 1;
    uint32_t r = strtab_intern(&dp->names, strtab_str(&sp->names, id), strtab_len(&sp->names, id));
    if (c) c->name[id] = r + 1;
    return r;
}

/* Map a function of profile sp into profile dp. */
static uint32_t map_fn(struct profile *dp, const struct profile *sp, struct idcache *c, uint32_t fn)
{
    if (dp == sp) return fn;
    if (c->fn[fn]) return c->fn[fn] - 1;
    struct function f = profile_function_at(sp, fn);
    /* one expression, as before the memory: the same order of interning */
    uint32_t r = profile_function(dp, map_name(dp, sp, c, f.obj), map_name(dp, sp, c, f.file),
                                  map_name(dp, sp, c, f.name));
    c->fn[fn] = r + 1;
    return r;
}

static struct position map_pos(struct profile *dp, const struct profile *sp, struct idcache *c,
                               const struct position *pos)
{
    struct position r = *pos;
    r.file = map_name(dp, sp, c, pos->file);
    return r;
}

static void permute(const uint64_t *src, const size_t *map, size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[map[i]] = src[i];
}

static int accumulate(struct profile *dp, struct part *dst, const struct profile *sp,
                      const struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                      unsigned what, struct tally_error *err);

int part_accumulate(struct profile *dp, struct part *dst, const struct profile *sp,
                    const struct part *src, struct tally_error *err)
{
    return part_accumulate_mapped(dp, dst, sp, src, NULL, err);
}

int part_accumulate_mapped(struct profile *dp, struct part *dst, const struct profile *sp,
                           const struct part *src, const uint32_t *fnmap, struct tally_error *err)
{
    return part_accumulate_maps(dp, dst, sp, src, fnmap, NULL, err);
}

int part_accumulate_maps(struct profile *dp, struct part *dst, const struct profile *sp,
                         const struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                         struct tally_error *err)
{
    return accumulate(dp, dst, sp, src, fnmap, namemap, PART_ACC_ALL, err);
}

int part_accumulate_consume(struct profile *dp, struct part *dst, const struct profile *sp,
                            struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                            struct tally_error *err)
{
    int rc = accumulate(dp, dst, sp, src, fnmap, namemap, PART_ACC_ALL | PART_ACC_EAT, err);
    part_clear_records(src);
    return rc;
}

int part_accumulate_some(struct profile *dp, struct part *dst, const struct profile *sp,
                         struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                         unsigned what, struct tally_error *err)
{
    return accumulate(dp, dst, sp, src, fnmap, namemap, what, err);
}

int part_calls_outermost(const struct part *pt)
{
    for (size_t i = 0; i < pt->desc.n; i++)
        if (strcmp(pt->desc.items[i], PART_DESC_OUTERMOST) == 0) return 1;
    return 0;
}

void part_set_calls_outermost(struct part *pt, int on)
{
    size_t k = 0;
    for (size_t i = 0; i < pt->desc.n; i++) {
        if (strcmp(pt->desc.items[i], PART_DESC_OUTERMOST) == 0)
            free(pt->desc.items[i]);
        else
            pt->desc.items[k++] = pt->desc.items[i];
    }
    pt->desc.n = k;
    if (on) strlist_push(&pt->desc, PART_DESC_OUTERMOST);
}

/* `what`: PART_ACC_* (with PART_ACC_EAT, src's records are freed as they are added). */
static int accumulate(struct profile *dp, struct part *dst, const struct profile *sp,
                      const struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                      unsigned what, struct tally_error *err)
{
    struct part *eat = what & PART_ACC_EAT ? (struct part *)src : NULL;
#define MAP_FN(f) (fnmap ? fnmap[f] : map_fn(dp, sp, &ids, (f)))
    size_t n = src->events.n;
    if ((what & PART_ACC_META) && dst->events.n == 0 && dst->costs.count == 0 &&
        dst->calls.count == 0) {
        eventset_release(&dst->events);
        eventset_copy(&dst->events, &src->events);
        dst->positions = src->positions;
    }
    if (dst->events.n != n) goto mismatch;
    size_t *map = xcalloc(n ? n : 1, sizeof(*map));
    for (size_t i = 0; i < n; i++) {
        int j = eventset_index(&dst->events, src->events.names[i]);
        if (j < 0) {
            free(map);
            goto mismatch;
        }
        map[i] = (size_t)j;
    }
    if (what & PART_ACC_META) {
        dst->positions |= src->positions;
        if (!dst->cmd && src->cmd) dst->cmd = xstrdup(src->cmd);
        /* the sum counts each recursion once only if every part it holds does */
        int dst_empty = (!dst->costs.count && !dst->calls.count) || (what & PART_ACC_DST_EMPTY);
        int outer =
            dst != src && (dst_empty ? part_calls_outermost(src)
                                     : part_calls_outermost(dst) && part_calls_outermost(src));
        if (!dst->desc.n)
            for (size_t i = 0; i < src->desc.n; i++)
                if (strcmp(src->desc.items[i], PART_DESC_OUTERMOST) != 0)
                    strlist_push(&dst->desc, src->desc.items[i]);
        if (dst != src) part_set_calls_outermost(dst, outer);
        if (dst != src)
            dst->counts_complete =
                dst_empty ? src->counts_complete : dst->counts_complete && src->counts_complete;
    }
    int bad = 0;
    struct idcache ids = {NULL, NULL, namemap};
    /* caches of the maps the caller did not give (two of a profile's size: not made for nothing) */
    if (dp != sp && !namemap) ids.name = xcalloc(sp->names.n + 1, sizeof(uint32_t));
    if (dp != sp && !fnmap) ids.fn = xcalloc(profile_nfunctions(sp) + 1, sizeof(uint32_t));
    uint64_t *tmp = xcalloc(n ? n : 1, sizeof(*tmp));
    const uint64_t *from[2] = {src->summary, src->totals};
    uint64_t **to[2] = {&dst->summary, &dst->totals};
    for (int k = 0; k < 2 && (what & PART_ACC_META); k++) {
        if (!from[k]) {
            /* a stated total that does not cover every part is dropped */
            free(*to[k]);
            *to[k] = NULL;
            continue;
        }
        permute(from[k], map, n, tmp);
        if (!*to[k] && dst != src) {
            /* only keep a stated total if every accumulated part had one */
            if ((dst->costs.count || dst->calls.count) && !(what & PART_ACC_DST_EMPTY)) continue;
            *to[k] = xcalloc(n ? n : 1, sizeof(uint64_t));
        }
        if (*to[k]) bad |= cost_add(*to[k], tmp, n, dp->signed_costs);
    }
    const size_t step = (size_t)1 << RECTAB_BLOCK_SHIFT;
    for (size_t i = 0; i < src->costs.count && !bad && (what & PART_ACC_COSTS); i++) {
        if (eat && i % step == 0) rectab_free_below(&eat->costs, i);
        struct cost_rec c;
        part_cost_get(src, i, &c);
        permute(c.cost, map, n, tmp);
        struct position pos = map_pos(dp, sp, &ids, &c.pos);
        bad |= part_add_cost(dp, dst, MAP_FN(c.fn), &pos, tmp, n);
    }
    if (eat && (what & PART_ACC_COSTS)) rectab_free_below(&eat->costs, SIZE_MAX);
    if (!(what & PART_ACC_ARCS)) goto done;
    if (!bad && src->call_counts_only) bad |= part_keep_call_counts_only(dp, dst);
    for (size_t i = 0; i < src->calls.count && !bad; i++) {
        if (eat && i % step == 0) rectab_free_below(&eat->calls, i);
        struct call_rec c;
        part_call_get(src, i, &c);
        if (c.cost) permute(c.cost, map, n, tmp);
        struct position site = map_pos(dp, sp, &ids, &c.site),
                        target = map_pos(dp, sp, &ids, &c.target);
        bad |= part_add_call(dp, dst, MAP_FN(c.caller), &site, MAP_FN(c.callee), &target, *c.count,
                             c.cost ? tmp : NULL, n);
    }
    for (size_t i = 0; i < src->jumps.count && !bad; i++) {
        struct jump_rec j;
        part_jump_get(src, i, &j);
        struct position s = map_pos(dp, sp, &ids, &j.src), t = map_pos(dp, sp, &ids, &j.target);
        bad |= part_add_jump(dp, dst, MAP_FN(j.fn), &s, MAP_FN(j.target_fn), &t, j.conditional,
                             *j.executed, *j.taken);
    }
done:
    if (!bad && dp != sp && !fnmap && (what & PART_ACC_META) && sp->mentions) {
        /* the functions sp's reader saw named (fn= lines), after those of
           dp, in sp's order: a sum labels shared rows as its last file does */
        uint64_t base = dp->mentions;
        size_t nfn = profile_nfunctions(sp);
        for (size_t f = 0; f < nfn; f++) {
            uint64_t m = profile_function_mention(sp, (uint32_t)f);
            if (m) profile_raise_mention(dp, MAP_FN((uint32_t)f), base + m);
        }
        dp->mentions = base + sp->mentions;
    }
    free(tmp);
    free(map);
    free(ids.name);
    free(ids.fn);
    if (bad) return tally_error_set(err, sp->path, 0, "costs overflow 64 bits when added together");
    return 0;
mismatch:;
    char *a = eventset_join_brief(&dst->events), *b = eventset_join_brief(&src->events);
    tally_error_set(err, sp->path, 0, "events differ: '%s' versus '%s'", a, b);
    free(a);
    free(b);
    return -1;
#undef MAP_FN
}

int profile_merge_parts(struct profile *p, struct tally_error *err)
{
    if (p->nparts <= 1) return 0;
    struct part *dst = p->parts[0];
    for (size_t i = 1; i < p->nparts; i++) {
        if (part_accumulate(p, dst, p, p->parts[i], err)) return -1;
    }
    for (size_t i = 1; i < p->nparts; i++)
        part_free(p->parts[i]);
    p->nparts = 1;
    return 0;
}

int profile_fold_last_part(struct profile *p, struct tally_error *err)
{
    return profile_fold_last_part_some(p, PART_ACC_ALL, err);
}

int profile_fold_last_part_some(struct profile *p, unsigned what, struct tally_error *err)
{
    if (p->nparts <= 1) return 0;
    struct part *last = p->parts[p->nparts - 1];
    if (part_accumulate_some(p, p->parts[0], p, last, NULL, NULL, what, err)) return -1;
    part_free(p->parts[--p->nparts]);
    return 0;
}

int profile_make_signed(struct profile *p, struct tally_error *err)
{
    if (p->signed_costs) return 0;
    for (size_t k = 0; k < p->nparts; k++) {
        struct part *pt = p->parts[k];
        struct rectab *tabs[3] = {&pt->costs, &pt->calls, &pt->jumps};
        for (int t = 0; t < 3; t++)
            for (size_t i = 0; i < tabs[t]->count; i++) {
                const uint64_t *v = rectab_val(tabs[t], i);
                for (size_t w = 0; w < tabs[t]->val_words; w++)
                    if (v[w] > INT64_MAX && !(t == 1 && w >= 1 && w < CALL_HDR))
                        return tally_error_set(err, p->path, 0,
                                               "a count above 2^63-1 cannot be mixed with "
                                               "negative counts");
            }
        size_t n = pt->events.n;
        for (size_t e = 0; e < n; e++)
            if ((pt->summary && pt->summary[e] > INT64_MAX) ||
                (pt->totals && pt->totals[e] > INT64_MAX))
                return tally_error_set(err, p->path, 0,
                                       "a total above 2^63-1 cannot be mixed with negative counts");
    }
    p->signed_costs = 1;
    return 0;
}
