/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_load.c - the gprof pipeline shared by `tally gprof` and the
 * commands that take a program and its gmon.out files as an input
 * (gprof_load.h), and the analysis as a profile of the model.
 *
 * The profile has one event, "Time" (microseconds): a symbol's self cost
 * is its histogram credit converted to time, rounded to the nearest
 * microsecond (hist_time / hz * 1e6), so the flat profile's seconds come
 * back when divided by 1e6. Call arcs carry the call count and the time
 * gprof propagated along them (self + children shares, the "self" and
 * "children" columns of the call graph) as their inclusive cost. With -l
 * the self time is given per source line of each function and calls are
 * placed at their call-site lines.
 */
#include "gprof_load.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/callgrind_order.h"
#include "../symbols/demangle.h"

void gprof_exclude_mcount(struct symspec_set *specs)
{
    static const char *const mcount[] = {"_gprof_mcount",     "mcount",    "_mcount", "__mcount",
                                         "__mcount_internal", "__mcleanup"};
    for (size_t i = 0; i < sizeof(mcount) / sizeof(mcount[0]); i++) {
        symspec_set_add(specs, mcount[i], SYMSPEC_EXCL_TIME);
        symspec_set_add(specs, mcount[i], SYMSPEC_EXCL_GRAPH);
        symspec_set_add(specs, mcount[i], SYMSPEC_EXCL_FLAT);
    }
}

void gprof_load_init(struct gprof_load *L)
{
    memset(L, 0, sizeof(*L));
    gmon_init(&L->gm);
}

void gprof_load_release(struct gprof_load *L)
{
    if (L->have_g) gprof_release(&L->g);
    gprof_map_free(L->map, L->nmap);
    free(L->own_syms);
    free(L->info);
    gmon_release(&L->gm);
    line_table_close(&L->lt);
    elf_image_close(&L->img);
    gprof_load_init(L);
}

/*
 * The histograms gm->hists[from..] just read from `gmon` must cover some of
 * the text of the program `exe` (its symbols in img): one that lies outside
 * is a profile of another program. Returns 0, or -1 with err naming `gmon`.
 */
static int check_hists(const struct gmon *gm, size_t from, const struct elf_image *img,
                       const char *exe, const char *gmon, struct tally_error *err)
{
    if (!img->nsyms) return 0;
    uint64_t lo = img->syms[0].addr, hi = img->syms[img->nsyms - 1].end_addr;
    for (size_t h = from; h < gm->nhists; h++)
        if (gm->hists[h].high_pc <= lo || gm->hists[h].low_pc > hi)
            return tally_error_set(err, gmon, 0,
                                   "its histogram (0x%llx-0x%llx) lies outside the text of %s "
                                   "(0x%llx-0x%llx): a profile of another program?",
                                   (unsigned long long)gm->hists[h].low_pc,
                                   (unsigned long long)gm->hists[h].high_pc, exe,
                                   (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

/*
 * --file-ordering: each object file of the map keeps its first (lowest)
 * function, renamed to the file; its other functions merge into the
 * symbol before. Sets *syms, *nsyms and the mapped flags (malloc'd).
 */
static bool *map_symbols(struct gprof_load *L, struct elf_sym **syms, size_t *nsyms)
{
    const struct elf_image *img = &L->img;
    struct elf_sym *own = xmalloc((img->nsyms + 1) * sizeof(*own));
    bool *mapped = xcalloc(img->nsyms + 1, sizeof(*mapped));
    size_t n = 0;
    for (size_t i = 0; i < img->nsyms; i++) {
        const struct gprof_map_entry *m = gprof_map_find(L->map, L->nmap, img->syms[i].name);
        if (m) {
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen = mapped[k] && !strcmp(own[k].name, m->file);
            if (seen) {
                if (n) own[n - 1].end_addr = img->syms[i].end_addr;
                continue;
            }
        }
        own[n] = img->syms[i];
        if (m) {
            own[n].name = m->file;
            mapped[n] = true;
        }
        n++;
    }
    L->own_syms = own;
    *syms = own;
    *nsyms = n;
    return mapped;
}

int gprof_load(struct gprof_load *L, const struct gprof_load_options *o, struct tally_error *err)
{
    L->map = o->map; /* taken, even on failure: gprof_load_release() frees it */
    L->nmap = o->nmap;
    if (elf_image_open(&L->img, o->exe, &o->elf, err)) return -1;
    if (line_table_open(&L->lt, &L->img, err)) return -1;
    line_table_annotate(&L->lt, &L->img);
    if (o->line_mode) line_table_make_line_syms(&L->lt, &L->img);
    struct elf_sym *syms = L->img.syms;
    size_t nsyms = L->img.nsyms;
    bool *mapped = NULL;
    if (L->map) {
        mapped = map_symbols(L, &syms, &nsyms);
    }
    gprof_init(&L->g, syms, nsyms, o->line_mode);
    L->have_g = true;
    if (mapped)
        for (size_t i = 0; i < nsyms; i++)
            L->g.syms[i].mapped = mapped[i];
    free(mapped);
    {
        struct symspec_sym *ss = xmalloc((nsyms + 1) * sizeof(*ss));
        for (size_t i = 0; i < nsyms; i++) {
            ss[i].name = syms[i].name;
            ss[i].file = syms[i].file;
            ss[i].line = syms[i].line;
            ss[i].addr = syms[i].addr;
            ss[i].end_addr = syms[i].end_addr;
        }
        symspec_set_resolve(o->specs, ss, nsyms);
        free(ss);
    }
    L->ropts.flavour = o->flavour;
    L->ropts.max_records = o->max_records;
    L->ropts.layout.addr_size = L->img.elf_class == 32 ? 4 : 8;
    L->ropts.layout.big_endian = L->img.big_endian;
    long hz = sysconf(_SC_CLK_TCK);
    L->ropts.hertz = hz > 0 ? (unsigned)hz : 0;
    return 0;
}

int gprof_load_gmon(struct gprof_load *L, const struct gprof_load_options *o, struct input *in,
                    struct tally_error *err)
{
    struct gmon *gm = &L->gm;
    size_t hists_before = gm->nhists;
    if (gmon_read_input(gm, in, &L->ropts, err) ||
        check_hists(gm, hists_before, &L->img, o->exe, in->path, err))
        return -1;
    for (; L->arcs_done < gm->narcs; L->arcs_done++)
        gprof_tally(&L->g, gm->arcs[L->arcs_done].from_pc, gm->arcs[L->arcs_done].self_pc,
                    gm->arcs[L->arcs_done].count, o->specs);
    L->info = xgrow(L->info, &L->info_cap, L->ninfo + 1, sizeof(*L->info));
    L->info[L->ninfo++] = gm->last;
    return 0;
}

void gprof_load_finish(struct gprof_load *L, const struct symspec_set *specs, bool static_calls)
{
    gprof_assign_hist(&L->g, &L->gm, specs);
    if (L->gm.input & GMON_INPUT_BB) gprof_add_bbs(&L->g, &L->gm);
    if (L->gm.input & GMON_INPUT_ARCS) gprof_assemble(&L->g, specs, static_calls ? &L->img : NULL);
}

static uint64_t to_us(double ticks, unsigned hz)
{
    if (!hz || !(ticks > 0)) return 0;
    double v = ticks / (double)hz * 1e6;
    if (v >= 1.8e19) return UINT64_MAX;
    return (uint64_t)llround(v);
}

/* Intern name `id` of profile a into b. */
static uint32_t copy_name(struct profile *b, const struct profile *a, uint32_t id)
{
    const char *s = profile_str(a, id);
    return profile_intern(b, s, strlen(s));
}

/* Function fn of a in b: made on first use, as a reader makes it. */
static uint32_t copy_fn(struct profile *b, const struct profile *a, uint32_t *map, uint32_t fn)
{
    if (map[fn] == UINT32_MAX) {
        struct function f = profile_function_at(a, fn);
        map[fn] = profile_function(b, copy_name(b, a, f.obj), copy_name(b, a, f.file),
                                   copy_name(b, a, f.name));
    }
    return map[fn];
}

/*
 * A copy of the one-part, line-level profile `a` with its functions and
 * records in the order of its callgrind file, so that the profile is the
 * one `tally gprof --callgrind-out` writes and a reader of that file gets
 * (function ids, record order, the last `fn=` mention of each function).
 * The order is the writer's own (formats/callgrind_order.h).
 */
static struct profile *in_file_order(const struct profile *a, struct tally_error *err)
{
    const struct part *pa = a->parts[0];
    size_t nf = profile_nfunctions(a);
    size_t nev = pa->events.n;
    uint32_t *map = xmalloc((nf + 1) * sizeof(*map));
    for (size_t i = 0; i < nf; i++)
        map[i] = UINT32_MAX;
    struct callgrind_rec *items;
    size_t ni = callgrind_record_order(a, pa, &items);

    struct profile *b = profile_new();
    b->format = a->format;
    b->creator = a->creator ? xstrdup(a->creator) : NULL;
    struct part *pb = profile_add_part(b);
    pb->positions = pa->positions;
    pb->cmd = pa->cmd ? xstrdup(pa->cmd) : NULL;
    for (size_t i = 0; i < pa->desc.n; i++)
        strlist_pushf(&pb->desc, "%s", pa->desc.items[i]);
    eventset_copy(&pb->events, &pa->events);
    uint32_t last = UINT32_MAX;
    int rc = 0;
    for (size_t i = 0; i < ni && !rc; i++) {
        const struct callgrind_rec *it = &items[i];
        uint32_t fn;
        if (it->kind == 0) {
            struct cost_rec c;
            part_cost_get(pa, it->idx, &c);
            fn = copy_fn(b, a, map, c.fn);
            if (fn != last) profile_mention_function(b, fn);
            struct position pos = c.pos;
            pos.file = copy_name(b, a, c.pos.file);
            rc = part_add_cost(b, pb, fn, &pos, c.cost, nev);
        } else {
            struct call_rec c;
            part_call_get(pa, it->idx, &c);
            fn = copy_fn(b, a, map, c.caller);
            if (fn != last) profile_mention_function(b, fn);
            uint32_t callee = copy_fn(b, a, map, c.callee);
            struct position site = c.site, target = c.target;
            site.file = copy_name(b, a, c.site.file);
            target.file = copy_name(b, a, c.target.file);
            rc = part_add_call(b, pb, fn, &site, callee, &target, *c.count, c.cost, nev);
        }
        last = fn;
    }
    free(items);
    free(map);
    if (rc) {
        tally_error_set(err, NULL, 0, "a cost overflows a 64-bit counter");
        profile_free(b);
        return NULL;
    }
    return b;
}

struct profile *gprof_to_profile(const struct gprof *g, const struct elf_image *img,
                                 const char *cmd, struct tally_error *err)
{
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    int rc = -1;
    p->format = PROFILE_FORMAT_CALLGRIND;
    p->creator = xstrdup("tally"); /* what the callgrind writer says of a profile without one */
    pt->positions = POS_LINE;
    pt->cmd = xstrdup(cmd);
    strlist_pushf(&pt->desc, "Time: microseconds from gprof samples (%u per second)", g->hz);
    if (eventset_set_base(&pt->events, "Time", 4, err) || eventset_finish(&pt->events, err)) {
        err->file[0] = '\0';
        goto done;
    }
    uint32_t obj = profile_intern(p, img->path, strlen(img->path));
    uint32_t unknown = profile_intern(p, "???", 3);

    /* function id of every symbol: line symbols belong to the function
     * symbol before them */
    size_t n = g->nsyms;
    uint32_t *fn = xmalloc((n + 1) * sizeof(*fn));
    uint32_t *file = xmalloc((n + 1) * sizeof(*file));
    uint32_t cur = 0, cur_file = unknown;
    bool have_cur = false;
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        uint32_t f = s->file ? profile_intern(p, s->file, strlen(s->file)) : unknown;
        file[i] = f;
        if (s->is_func || !have_cur) {
            char *name = demangle_or_copy(s->name, DEMANGLE_AUTO, DEMANGLE_DEFAULT);
            cur = profile_function(p, obj, f, profile_intern(p, name, strlen(name)));
            free(name);
            cur_file = f;
            have_cur = true;
        }
        (void)cur_file;
        fn[i] = cur;
    }
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        uint64_t t = to_us(s->hist_time, g->hz);
        if (!t) continue;
        struct position pos = {file[i], s->line, 0, 0};
        if (part_add_cost(p, pt, fn[i], &pos, &t, 1)) {
            tally_error_set(err, NULL, 0, "time overflows a 64-bit counter");
            goto done2;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *s = &g->syms[i];
        for (const struct gprof_arc *a = s->children; a; a = a->next_child) {
            if (a->count == 0) continue;
            size_t ci = a->child->pos, pi = a->parent->pos;
            struct position site = {file[pi], a->parent->line, 0, 0};
            struct position target = {file[ci], a->child->line, 0, 0};
            uint64_t t = a->parent == a->child ? 0 : to_us(a->time + a->child_time, g->hz);
            if (part_add_call(p, pt, fn[pi], &site, fn[ci], &target, a->count, &t, 1)) {
                tally_error_set(err, NULL, 0, "a call count overflows a 64-bit counter");
                goto done2;
            }
        }
    }
    rc = 0;
done2:
    free(fn);
    free(file);
done:
    if (rc) {
        profile_free(p);
        return NULL;
    }
    struct profile *q = in_file_order(p, err);
    profile_free(p);
    return q;
}
