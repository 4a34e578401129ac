/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_write.c - the callgrind profile format: writer.
 *
 * See docs/internals/callgrind.md for the layout it writes.
 */
#include "callgrind_int.h"
#include "callgrind_order.h"
#include "format.h"
#include "../model/hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writer.                                                                  */

struct wr {
    const struct profile *p;
    const struct part *pt;
    FILE *fp;
    uint32_t *ids[NAME_KINDS]; /* name id -> compressed id (0 = not yet written) */
    uint32_t next_id[NAME_KINDS];
    uint32_t *fn_ids; /* function index -> compressed id: one per (object, file, name) */
    unsigned npos;
    unsigned char poskind[SP_KINDS];
    uint64_t last[SP_KINDS];
    uint32_t src; /* current source file */
};

static void put_name(struct wr *w, const char *key, int kind, uint32_t name)
{
    const char *s = profile_str(w->p, name);
    if (!s[0]) {
        fprintf(w->fp, "%s=\n", key);
        return;
    }
    uint32_t *id = &w->ids[kind][name];
    if (*id) {
        fprintf(w->fp, "%s=(%" PRIu32 ")\n", key, *id);
        return;
    }
    *id = ++w->next_id[kind];
    fprintf(w->fp, "%s=(%" PRIu32 ") %s\n", key, *id, s);
}

/*
 * fn=/cfn=/jfn= of function index fn. Compressed function ids belong to a
 * function, not to its name: two functions of one name in different
 * objects or files get two ids, as Callgrind writes them, since KCachegrind
 * takes an id to be one function.
 */
static void put_fn(struct wr *w, const char *key, uint32_t fn)
{
    const char *s = profile_str(w->p, profile_function_at(w->p, fn).name);
    if (!s[0]) {
        fprintf(w->fp, "%s=\n", key);
        return;
    }
    uint32_t *id = &w->fn_ids[fn];
    if (*id) {
        fprintf(w->fp, "%s=(%" PRIu32 ")\n", key, *id);
        return;
    }
    *id = ++w->next_id[NAME_FN];
    fprintf(w->fp, "%s=(%" PRIu32 ") %s\n", key, *id, s);
}

static void put_position(struct wr *w, const struct position *pos, int update)
{
    uint64_t v[SP_KINDS] = {pos->addr, pos->bb, pos->line};
    for (unsigned i = 0; i < w->npos; i++) {
        unsigned k = w->poskind[i];
        uint64_t cur = v[k], last = w->last[k];
        if (i) fputc(' ', w->fp);
        if (last && cur == last)
            fputc('*', w->fp);
        else if (last && cur > last && cur - last < 100)
            fprintf(w->fp, "+%" PRIu64, cur - last);
        else if (last && cur < last && last - cur < 100)
            fprintf(w->fp, "-%" PRIu64, last - cur);
        else if (k == SP_LINE)
            fprintf(w->fp, "%" PRIu64, cur);
        else
            fprintf(w->fp, "0x%" PRIx64, cur);
        if (update) w->last[k] = cur;
    }
}

/*
 * c NULL (calls of a part that keeps call counts only): no cost at all.
 * Trailing zeros are left out, unless the part's lines gave every count
 * (struct part: counts_complete), which reading the file back keeps.
 */
static void put_costs(struct wr *w, const uint64_t *c, size_t n)
{
    if (!c) n = 0;
    while (n > 1 && c[n - 1] == 0 && !w->pt->counts_complete)
        n--;
    for (size_t i = 0; i < n; i++) {
        if (w->p->signed_costs)
            fprintf(w->fp, " %" PRId64, (int64_t)c[i]);
        else
            fprintf(w->fp, " %" PRIu64, c[i]);
    }
    fputc('\n', w->fp);
}

static void put_cost_line(struct wr *w, const char *key, const uint64_t *c, size_t n)
{
    fputs(key, w->fp);
    put_costs(w, c, n);
}

/* Switch the current source file with fi=/fe= when needed. */
static void put_src(struct wr *w, uint32_t file, uint32_t fn_file)
{
    if (file == w->src) return;
    put_name(w, file == fn_file ? "fe" : "fi", NAME_FL, file);
    w->src = file;
}

/*
 * Output order: functions by rank (see write_part), records by position,
 * ties broken by names: nothing depends on name ids, so writing what was
 * read back from our own output gives the same text.
 */
struct item {
    uint32_t rank; /* of the function */
    uint32_t kind; /* 0 cost, 1 call, 2 jump */
    uint64_t addr, line, bb;
    uint32_t file;
    uint32_t other; /* rank of the callee or jump target function */
    uint64_t taddr, tline, tbb;
    uint32_t tfile, cond;
    size_t idx;
};

static int name_cmp(const struct profile *p, uint32_t a, uint32_t b)
{
    return a == b ? 0 : strcmp(profile_str(p, a), profile_str(p, b));
}

static int fn_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct profile *p = ctx;
    struct function a = profile_function_at(p, *(const uint32_t *)pa);
    struct function b = profile_function_at(p, *(const uint32_t *)pb);
    int c = name_cmp(p, a.obj, b.obj);
    if (!c) c = name_cmp(p, a.file, b.file);
    if (!c) c = name_cmp(p, a.name, b.name);
    return c;
}

#define CMP(x, y)                                                                                  \
    do {                                                                                           \
        if ((x) != (y)) return (x) < (y) ? -1 : 1;                                                 \
    } while (0)

static int item_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct profile *p = ctx;
    const struct item *a = pa, *b = pb;
    CMP(a->rank, b->rank);
    CMP(a->addr, b->addr);
    CMP(a->line, b->line);
    CMP(a->bb, b->bb);
    CMP(a->kind, b->kind);
    int c = name_cmp(p, a->file, b->file);
    if (c) return c;
    CMP(a->other, b->other);
    CMP(a->cond, b->cond);
    CMP(a->taddr, b->taddr);
    CMP(a->tline, b->tline);
    CMP(a->tbb, b->tbb);
    c = name_cmp(p, a->tfile, b->tfile);
    if (c) return c;
    CMP(a->idx, b->idx);
    return 0;
}

static void fill_item(struct item *it, const uint32_t *rank, uint32_t fn, uint32_t kind,
                      const struct position *pos, size_t idx)
{
    memset(it, 0, sizeof(*it));
    it->rank = rank[fn];
    it->kind = kind;
    it->addr = pos->addr;
    it->line = pos->line;
    it->bb = pos->bb;
    it->file = pos->file;
    it->idx = idx;
}

static void fill_target(struct item *it, const uint32_t *rank, uint32_t fn,
                        const struct position *t, int cond)
{
    it->other = rank[fn];
    it->taddr = t->addr;
    it->tline = t->line;
    it->tbb = t->bb;
    it->tfile = t->file;
    it->cond = (uint32_t)cond;
}

static uint32_t record_fn(const struct part *pt, const struct item *it)
{
    if (it->kind == 0) {
        struct cost_rec c;
        part_cost_get(pt, it->idx, &c);
        return c.fn;
    }
    if (it->kind == 1) {
        struct call_rec c;
        part_call_get(pt, it->idx, &c);
        return c.caller;
    }
    struct jump_rec j;
    part_jump_get(pt, it->idx, &j);
    return j.fn;
}

/*
 * The records of part pt in the order they are written: functions in the
 * order their first record was read (cost records, then calls, then
 * jumps), others by name after them; records by position (item_cmp).
 */
static struct item *order_records(const struct profile *p, const struct part *pt, size_t *nout)
{
    size_t nc = part_ncosts(pt), nk = part_ncalls(pt), nj = part_njumps(pt);
    /*
     * Functions in the order their first record was read (cost records, then
     * calls, then jumps), others by name after them. Reading our own output
     * creates records in that same order again, and a file from Callgrind
     * keeps its block order, which callgrind_annotate's results depend on.
     */
    size_t nf = profile_nfunctions(p);
    uint32_t *rank = xmalloc((nf + 1) * sizeof(*rank));
    for (size_t i = 0; i < nf; i++)
        rank[i] = UINT32_MAX;
    uint32_t next = 0;
    for (size_t i = 0; i < nc; i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        if (rank[c.fn] == UINT32_MAX) rank[c.fn] = next++;
    }
    for (size_t i = 0; i < nk; i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        if (rank[c.caller] == UINT32_MAX) rank[c.caller] = next++;
    }
    for (size_t i = 0; i < nj; i++) {
        struct jump_rec j;
        part_jump_get(pt, i, &j);
        if (rank[j.fn] == UINT32_MAX) rank[j.fn] = next++;
    }
    uint32_t *order = xmalloc((nf + 1) * sizeof(*order));
    size_t nrest = 0;
    for (size_t i = 0; i < nf; i++)
        if (rank[i] == UINT32_MAX) order[nrest++] = (uint32_t)i;
    qsort_r(order, nrest, sizeof(*order), fn_cmp, (void *)p);
    for (size_t i = 0; i < nrest; i++)
        rank[order[i]] = next++;
    free(order);

    struct item *items = xmalloc((nc + nk + nj + 1) * sizeof(*items));
    size_t ni = 0;
    for (size_t i = 0; i < nc; i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        fill_item(&items[ni++], rank, c.fn, 0, &c.pos, i);
    }
    for (size_t i = 0; i < nk; i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        fill_item(&items[ni], rank, c.caller, 1, &c.site, i);
        fill_target(&items[ni++], rank, c.callee, &c.target, 0);
    }
    for (size_t i = 0; i < nj; i++) {
        struct jump_rec j;
        part_jump_get(pt, i, &j);
        fill_item(&items[ni], rank, j.fn, 2, &j.src, i);
        fill_target(&items[ni++], rank, j.target_fn, &j.target, j.conditional);
    }
    qsort_r(items, ni, sizeof(*items), item_cmp, (void *)p);

    free(rank);
    *nout = ni;
    return items;
}

size_t callgrind_record_order(const struct profile *p, const struct part *pt,
                              struct callgrind_rec **out)
{
    size_t ni;
    struct item *items = order_records(p, pt, &ni);
    struct callgrind_rec *r = xmalloc((ni + 1) * sizeof(*r));
    for (size_t i = 0; i < ni; i++)
        r[i] = (struct callgrind_rec){items[i].kind, items[i].idx};
    free(items);
    *out = r;
    return ni;
}

static void write_event_lines(struct wr *w, const struct eventset *es)
{
    for (size_t i = 0; i < es->n; i++)
        if (es->long_names[i]) fprintf(w->fp, "event: %s : %s\n", es->names[i], es->long_names[i]);
    for (size_t i = 0; i < es->nderived; i++) {
        const struct derived_event *d = &es->derived[i];
        fprintf(w->fp, "event: %s = %s", d->name, d->formula ? d->formula : "0");
        if (d->long_name) fprintf(w->fp, " : %s", d->long_name);
        fputc('\n', w->fp);
    }
    char *names = eventset_join(es);
    fprintf(w->fp, "events: %s\n", names);
    free(names);
}

static int write_part(struct wr *w, const struct part *pt, struct tally_error *err)
{
    const struct profile *p = w->p;
    FILE *fp = w->fp;
    size_t nev = pt->events.n;
    if (!nev) return tally_error_set(err, NULL, 0, "cannot write a part without events");

    unsigned bits = pt->positions;
    size_t ni;
    struct item *items = order_records(p, pt, &ni);
    for (size_t i = 0; i < ni; i++) {
        const struct item *it = &items[i];
        bits |= (it->addr ? POS_INSTR : 0) | (it->bb ? POS_BB : 0) | (it->line ? POS_LINE : 0);
        if (it->kind) bits |= (it->taddr ? POS_INSTR : 0) | (it->tbb ? POS_BB : 0);
    }
    if (!bits) bits = POS_LINE;

    if (pt->has_pid) fprintf(fp, "pid: %" PRIu64 "\n", pt->pid);
    if (pt->cmd) fprintf(fp, "cmd: %s\n", pt->cmd);
    if (pt->has_part) fprintf(fp, "part: %" PRIu64 "\n", pt->part_no);
    if (pt->has_thread) fprintf(fp, "thread: %" PRIu64 "\n", pt->thread);
    for (size_t i = 0; i < pt->desc.n; i++)
        fprintf(fp, "desc: %s\n", pt->desc.items[i]);
    w->npos = 0;
    fputs("\npositions:", fp);
    if (bits & POS_INSTR) {
        fputs(" instr", fp);
        w->poskind[w->npos++] = SP_ADDR;
    }
    if (bits & POS_BB) {
        fputs(" bb", fp);
        w->poskind[w->npos++] = SP_BB;
    }
    if (bits & POS_LINE) {
        fputs(" line", fp);
        w->poskind[w->npos++] = SP_LINE;
    }
    fputc('\n', fp);
    write_event_lines(w, &pt->events);
    if (pt->summary) put_cost_line(w, "summary:", pt->summary, nev);
    fputc('\n', fp);

    memset(w->last, 0, sizeof(w->last));
    int have_fn = 0;
    uint32_t cur_fn = 0, cur_ob = 0, cur_fl = 0;
    for (size_t i = 0; i < ni; i++) {
        const struct item *it = &items[i];
        uint32_t fn = record_fn(pt, it);
        struct function f = profile_function_at(p, fn);
        if (!have_fn || fn != cur_fn) {
            fputc('\n', fp);
            /*
             * fl= again also after fi=/fe= of the previous function:
             * callgrind_annotate names a function after the current file.
             */
            if (!have_fn || f.obj != cur_ob) {
                put_name(w, "ob", NAME_OB, f.obj);
                put_name(w, "fl", NAME_FL, f.file);
            } else if (f.file != cur_fl || f.file != w->src) {
                put_name(w, "fl", NAME_FL, f.file);
            }
            put_fn(w, "fn", fn);
            have_fn = 1;
            cur_fn = fn;
            cur_ob = f.obj;
            cur_fl = f.file;
            w->src = f.file;
        }
        if (it->kind == 0) {
            struct cost_rec c;
            part_cost_get(pt, it->idx, &c);
            put_src(w, c.pos.file, f.file);
            put_position(w, &c.pos, 1);
            put_costs(w, c.cost, nev);
        } else if (it->kind == 1) {
            struct call_rec c;
            part_call_get(pt, it->idx, &c);
            put_src(w, c.site.file, f.file);
            struct function cf = profile_function_at(p, c.callee);
            if (cf.obj != f.obj) put_name(w, "cob", NAME_OB, cf.obj);
            if (cf.file != w->src) put_name(w, "cfi", NAME_FL, cf.file);
            put_fn(w, "cfn", c.callee);
            if (p->signed_costs)
                fprintf(fp, "calls=%" PRId64 " ", (int64_t)*c.count);
            else
                fprintf(fp, "calls=%" PRIu64 " ", *c.count);
            put_position(w, &c.target, 0);
            fputc('\n', fp);
            put_position(w, &c.site, 1);
            put_costs(w, c.cost, nev);
        } else {
            struct jump_rec j;
            part_jump_get(pt, it->idx, &j);
            put_src(w, j.src.file, f.file);
            int need_jfn = j.target_fn != fn;
            int need_jfi = j.target.file != w->src;
            if (need_jfn) {
                /* the reader takes the target function's file from jfi= (or fl=) */
                struct function tf = profile_function_at(p, j.target_fn);
                if (tf.file != f.file) need_jfi = 1;
            }
            if (need_jfi) put_name(w, "jfi", NAME_FL, j.target.file);
            if (need_jfn) put_fn(w, "jfn", j.target_fn);
            if (j.conditional)
                fprintf(fp, "jcnd=%" PRIu64 "/%" PRIu64 " ", *j.taken, *j.executed);
            else
                fprintf(fp, "jump=%" PRIu64 " ", *j.taken);
            put_position(w, &j.target, 0);
            fputc('\n', fp);
            put_position(w, &j.src, 1);
            fputc('\n', fp);
        }
    }
    free(items);

    fputc('\n', fp);
    if (pt->totals) {
        put_cost_line(w, "totals:", pt->totals, nev);
    } else {
        uint64_t *sum = xcalloc(nev, sizeof(*sum));
        if (part_self_total(p, pt, sum) == 0) put_cost_line(w, "totals:", sum, nev);
        free(sum);
    }
    return 0;
}

int callgrind_write(const struct profile *p, FILE *fp, struct tally_error *err)
{
    if (!p->nparts) return tally_error_set(err, NULL, 0, "the profile has no data to write");
    struct wr w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.fp = fp;
    size_t nnames = p->names.n ? p->names.n : 1;
    for (int k = 0; k < NAME_KINDS; k++)
        w.ids[k] = xcalloc(nnames, sizeof(uint32_t));
    size_t nfns = profile_nfunctions(p) ? profile_nfunctions(p) : 1;
    w.fn_ids = xcalloc(nfns, sizeof(uint32_t));
    fputs("# callgrind format\nversion: 1\n", fp);
    fprintf(fp, "creator: %s\n", p->creator ? p->creator : "tally");
    int rc = 0;
    for (size_t i = 0; i < p->nparts && !rc; i++) {
        if (i) fputc('\n', fp);
        /* name ids restart with every part, as KCachegrind forgets them there */
        for (int k = 0; k < NAME_KINDS; k++) {
            memset(w.ids[k], 0, nnames * sizeof(uint32_t));
            w.next_id[k] = 0;
        }
        memset(w.fn_ids, 0, nfns * sizeof(uint32_t));
        w.pt = p->parts[i];
        rc = write_part(&w, p->parts[i], err);
    }
    for (int k = 0; k < NAME_KINDS; k++)
        free(w.ids[k]);
    free(w.fn_ids);
    if (!rc && (fflush(fp) != 0 || ferror(fp)))
        rc = tally_error_set(err, NULL, 0, "write error while writing the callgrind profile");
    return rc;
}
