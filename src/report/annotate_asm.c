/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_asm.c - `tally annotate --asm[=RE]`: the machine code of the
 * functions shown (or of those whose name RE matches), disassembled from
 * the object on disk (symbols/disasm.h), each instruction with its costs
 * in the report's columns, the source line where it changes, the calls
 * made from it and the jumps from it with their counts, the hottest
 * instructions marked. When the object is missing, changed since the run
 * or does not match the profile's addresses, the costs are listed by
 * address. The rest of the report is annotate.c; docs/internals/annotate.md
 * describes the layout.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include "../analysis/regex.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../symbols/demangle.h"
#include "../symbols/disasm.h"
#include "annotate_rep.h"
#include "srcfile.h"
#include "textfmt.h"

#define HOT_MAX 10 /* instructions marked at most per function */

/* The cost of one address of a function: the sum of its records. */
struct ains {
    uint64_t addr;
    tally_wide *cost; /* ncols */
    uint32_t ndef;
    uint32_t file; /* canonical file of the costliest record (UINT32_MAX: none) */
    uint64_t line;
    tally_wide best; /* that record's first sort column */
    int hot;
};

struct acall {
    uint64_t addr;
    uint32_t callee;
    uint64_t count;
    tally_wide *cost;
    uint32_t ndef;
};

struct ajump {
    uint64_t src, target;
    uint32_t target_fn;
    int cond;
    uint64_t executed, taken;
};

/* One function's section: what the profile says of it. */
struct asec {
    uint32_t fn;
    size_t *recs, nrecs, caprecs; /* cost records */
    size_t *calls, ncalls, capcalls;
    size_t *jumps, njumps, capjumps;
    tally_wide *self; /* ncols: the sum of its cost records */
    uint32_t self_ndef;
};

/* An object, opened once per report. */
struct aobj {
    uint32_t id;
    struct disasm_object *o; /* NULL: could not be opened (why) */
    char *why;               /* not NULL: the costs of its functions go by address, and why */
};

/* A source file, read once per report. */
struct asrc {
    char *name;
    int found;
    struct srcfile_text text;
};

struct asm_state {
    struct annrep *r;
    struct asec *secs;
    size_t nsecs;
    struct aobj *objs;
    size_t nobjs, capobjs;
    struct asrc *srcs;
    size_t nsrcs, capsrcs;
    int have_mtime;
    struct timespec prof_mtime; /* the oldest input's */
    const char *prof_name;
    /* the section being printed */
    struct ains *ins;
    size_t nins;
    struct acall *calls;
    size_t ncalls;
    struct ajump *jumps;
    size_t njumps;
    tally_wide *noaddr; /* cost records without an address */
    uint32_t noaddr_ndef;
    int have_noaddr;
    size_t *w;
    int addr_width;
    size_t cpos, jpos; /* the first call and jump not yet passed (print_arcs()) */
    const char *last_name;
    uint64_t last_line;
};

/* ------------------------------------------------------------- checks */

/* --asm=RE compiled, or NULL with err */
static pcre2_code *asm_regex(const char *re, struct tally_error *err)
{
    char msg[256];
    size_t eo;
    pcre2_code *code = regex_compile(re, 0, msg, sizeof(msg), &eo);
    if (!code) tally_error_set(err, NULL, 0, "--asm regex '%s': %s at offset %zu", re, msg, eo);
    return code;
}

int annotate_asm_regex_check(const char *re, struct tally_error *err)
{
    pcre2_code *code = asm_regex(re, err);
    if (!code) return -1;
    pcre2_code_free(code);
    return 0;
}

int annotate_asm_check_profile(const struct profile *p, struct tally_error *err)
{
    if (p->nparts && (p->parts[0]->positions & POS_INSTR)) return 0;
    return tally_error_set(err, p->path, 0,
                           "no instruction addresses in the profile, so no machine code: "
                           "record with --dump-instr=yes (valgrind --tool=callgrind or "
                           "tally record)");
}

/* ---------------------------------------------------------- gathering */

static void push(size_t **v, size_t *n, size_t *cap, size_t x)
{
    *v = xgrow(*v, cap, *n + 1, sizeof(**v));
    (*v)[(*n)++] = x;
}

/* The columns of a base cost vector (checked). */
static int eval_cols(const struct annrep *r, const uint64_t *base, tally_wide *out)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (event_expr_eval(&r->cols[c], base, r->p->signed_costs, &out[c])) return -1;
    return 0;
}

static int add_cols(const struct annrep *r, tally_wide *dst, const tally_wide *src)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (__builtin_add_overflow(dst[c], src[c], &dst[c])) return -1;
    return 0;
}

/* "file:name" of function f, as the table names its rows. */
static char *fn_display(struct annrep *r, uint32_t f)
{
    struct function fn = profile_function_at(r->p, f);
    return xasprintf("%s:%s", func_str(&r->ft, func_canon_file(&r->ft, fn.file)),
                     func_str(&r->ft, func_canon_name(&r->ft, fn.name)));
}

static const char *fn_name(struct annrep *r, uint32_t f)
{
    return func_str(&r->ft, func_canon_name(&r->ft, profile_function_at(r->p, f).name));
}

/*
 * Which functions get a section: those of the rows the table listed, or
 * those RE matches. Sets sel[f] to 1. Returns -1 with err on a bad RE.
 */
static int select_functions(struct annrep *r, unsigned char *sel, struct tally_error *err)
{
    size_t nfn = profile_nfunctions(r->p);
    if (r->o->asm_regex) {
        pcre2_code *code = asm_regex(r->o->asm_regex, err);
        if (!code) return -1;
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
        for (size_t f = 0; f < nfn; f++) {
            const char *s = fn_name(r, (uint32_t)f);
            sel[f] = pcre2_match(code, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL) >= 0;
        }
        pcre2_match_data_free(md);
        pcre2_code_free(code);
        return 0;
    }
    size_t nn = func_nnames(&r->ft);
    unsigned char *want = xcalloc(nn ? nn : 1, 1);
    for (size_t k = 0; k < r->nlisted; k++)
        if (!r->ent[k].is_cycle) want[func_row_name(&r->ft, r->ent[k].idx)] = 1;
    for (size_t f = 0; f < nfn; f++) {
        uint32_t nm = func_canon_name(&r->ft, profile_function_at(r->p, (uint32_t)f).name);
        sel[f] = nm < nn && want[nm];
    }
    free(want);
    return 0;
}

/* Sections in order: the costliest first (first sort column), then by name. */
static int cmp_secs(const void *pa, const void *pb, void *ctx)
{
    struct annrep *r = ctx;
    const struct asec *a = pa, *b = pb;
    size_t c = r->nsort ? r->sort[0] : 0;
    if (r->ncols && a->self[c] != b->self[c]) return a->self[c] > b->self[c] ? -1 : 1;
    char *x = fn_display(r, a->fn), *y = fn_display(r, b->fn);
    int d = strcmp(x, y);
    free(x);
    free(y);
    return d ? d : (a->fn > b->fn) - (a->fn < b->fn);
}

static int gather(struct asm_state *s, struct tally_error *err)
{
    struct annrep *r = s->r;
    const struct part *pt = r->pt;
    size_t nfn = profile_nfunctions(r->p);
    unsigned char *sel = xcalloc(nfn ? nfn : 1, 1);
    if (select_functions(r, sel, err)) {
        free(sel);
        return -1;
    }
    uint32_t *sec_of = xmalloc((nfn ? nfn : 1) * sizeof(uint32_t));
    for (size_t f = 0; f < nfn; f++)
        sec_of[f] = UINT32_MAX;
    size_t cap = 0;
    tally_wide *tmp = xmalloc((r->ncols ? r->ncols : 1) * sizeof(*tmp));
    int rc = 0;
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        if (!sel[cr.fn]) continue;
        if (sec_of[cr.fn] == UINT32_MAX) {
            s->secs = xgrow(s->secs, &cap, s->nsecs + 1, sizeof(*s->secs));
            struct asec *a = &s->secs[s->nsecs];
            memset(a, 0, sizeof(*a));
            a->fn = cr.fn;
            a->self = xcalloc(r->ncols ? r->ncols : 1, sizeof(tally_wide));
            sec_of[cr.fn] = (uint32_t)s->nsecs++;
        }
        struct asec *a = &s->secs[sec_of[cr.fn]];
        push(&a->recs, &a->nrecs, &a->caprecs, i);
        if (eval_cols(r, cr.cost, tmp) || add_cols(r, a->self, tmp)) rc = -1;
        a->self_ndef = func_ndef_join(&r->ft, a->self_ndef,
                                      func_record_ndef(&r->ft, cr.cost, r->fo->all_defined));
    }
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec cl;
        part_call_get(pt, i, &cl);
        if (sec_of[cl.caller] != UINT32_MAX) {
            struct asec *a = &s->secs[sec_of[cl.caller]];
            push(&a->calls, &a->ncalls, &a->capcalls, i);
        }
    }
    for (size_t i = 0; i < part_njumps(pt); i++) {
        struct jump_rec jr;
        part_jump_get(pt, i, &jr);
        if (sec_of[jr.fn] != UINT32_MAX) {
            struct asec *a = &s->secs[sec_of[jr.fn]];
            push(&a->jumps, &a->njumps, &a->capjumps, i);
        }
    }
    free(tmp);
    free(sec_of);
    free(sel);
    if (rc) return tally_error_set(err, r->p->path, 0, "a function's cost is too large");
    if (s->nsecs > 1) qsort_r(s->secs, s->nsecs, sizeof(*s->secs), cmp_secs, r);
    return 0;
}

/* ------------------------------------------------- one function's data */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static int cmp_recs_by_addr(const void *pa, const void *pb, void *ctx)
{
    const struct part *pt = ctx;
    struct cost_rec a, b;
    part_cost_get(pt, *(const size_t *)pa, &a);
    part_cost_get(pt, *(const size_t *)pb, &b);
    int c = cmp_u64(a.pos.addr, b.pos.addr);
    return c ? c : cmp_u64(*(const size_t *)pa, *(const size_t *)pb);
}

static int cmp_calls(const void *pa, const void *pb)
{
    const struct acall *a = pa, *b = pb;
    int c = cmp_u64(a->addr, b->addr);
    return c ? c : cmp_u64(a->callee, b->callee);
}

static int cmp_jumps(const void *pa, const void *pb)
{
    const struct ajump *a = pa, *b = pb;
    int c = cmp_u64(a->src, b->src);
    if (!c) c = cmp_u64(a->target, b->target);
    if (!c) c = cmp_u64(a->target_fn, b->target_fn);
    return c ? c : a->cond - b->cond;
}

static void free_section_data(struct asm_state *s)
{
    for (size_t i = 0; i < s->nins; i++)
        free(s->ins[i].cost);
    for (size_t i = 0; i < s->ncalls; i++)
        free(s->calls[i].cost);
    free(s->ins);
    free(s->calls);
    free(s->jumps);
    free(s->noaddr);
    s->ins = NULL;
    s->calls = NULL;
    s->jumps = NULL;
    s->noaddr = NULL;
    s->nins = s->ncalls = s->njumps = s->cpos = s->jpos = 0;
    s->have_noaddr = 0;
}

/* The instructions, calls and jumps of section a, summed by address. */
static int section_data(struct asm_state *s, struct asec *a)
{
    struct annrep *r = s->r;
    const struct part *pt = r->pt;
    size_t nc = r->ncols ? r->ncols : 1, c0 = r->nsort ? r->sort[0] : 0;
    qsort_r(a->recs, a->nrecs, sizeof(size_t), cmp_recs_by_addr, (void *)pt);
    s->ins = xmalloc((a->nrecs ? a->nrecs : 1) * sizeof(*s->ins));
    s->noaddr = xcalloc(nc, sizeof(tally_wide));
    tally_wide *tmp = xmalloc(nc * sizeof(tally_wide));
    int rc = 0;
    for (size_t k = 0; k < a->nrecs; k++) {
        struct cost_rec cr;
        part_cost_get(pt, a->recs[k], &cr);
        if (eval_cols(r, cr.cost, tmp)) rc = -1;
        uint32_t nd = func_record_ndef(&r->ft, cr.cost, r->fo->all_defined);
        if (!cr.pos.addr) {
            if (add_cols(r, s->noaddr, tmp)) rc = -1;
            s->noaddr_ndef = func_ndef_join(&r->ft, s->noaddr_ndef, nd);
            s->have_noaddr = 1;
            continue;
        }
        struct ains *in = s->nins ? &s->ins[s->nins - 1] : NULL;
        if (!in || in->addr != cr.pos.addr) {
            in = &s->ins[s->nins++];
            memset(in, 0, sizeof(*in));
            in->addr = cr.pos.addr;
            in->cost = xcalloc(nc, sizeof(tally_wide));
            in->file = UINT32_MAX;
        }
        if (add_cols(r, in->cost, tmp)) rc = -1;
        in->ndef = func_ndef_join(&r->ft, in->ndef, nd);
        const char *fname = profile_str(r->p, cr.pos.file);
        if (cr.pos.line && strcmp(fname, "???") != 0 &&
            (in->file == UINT32_MAX || (r->ncols && tmp[c0] > in->best))) {
            in->file = func_canon_file(&r->ft, cr.pos.file);
            in->line = cr.pos.line;
            in->best = r->ncols ? tmp[c0] : 0;
        }
    }
    free(tmp);
    s->calls = xmalloc((a->ncalls ? a->ncalls : 1) * sizeof(*s->calls));
    for (size_t k = 0; k < a->ncalls; k++) {
        struct call_rec cl;
        part_call_get(pt, a->calls[k], &cl);
        struct acall *x = &s->calls[s->ncalls++];
        x->addr = cl.site.addr;
        x->callee = cl.callee;
        x->count = *cl.count;
        x->cost = xcalloc(nc, sizeof(tally_wide));
        x->ndef = 0;
        if (cl.cost) {
            if (eval_cols(r, cl.cost, x->cost)) rc = -1;
            x->ndef = func_record_ndef(&r->ft, cl.cost, r->fo->all_defined);
        }
    }
    qsort(s->calls, s->ncalls, sizeof(*s->calls), cmp_calls);
    size_t m = 0; /* calls of one site to one callee, summed */
    for (size_t k = 0; k < s->ncalls; k++) {
        if (m && s->calls[m - 1].addr == s->calls[k].addr &&
            s->calls[m - 1].callee == s->calls[k].callee) {
            struct acall *d = &s->calls[m - 1];
            if (__builtin_add_overflow(d->count, s->calls[k].count, &d->count) ||
                add_cols(r, d->cost, s->calls[k].cost))
                rc = -1;
            d->ndef = func_ndef_join(&r->ft, d->ndef, s->calls[k].ndef);
            free(s->calls[k].cost);
        } else {
            s->calls[m++] = s->calls[k];
        }
    }
    s->ncalls = m;
    s->jumps = xmalloc((a->njumps ? a->njumps : 1) * sizeof(*s->jumps));
    for (size_t k = 0; k < a->njumps; k++) {
        struct jump_rec jr;
        part_jump_get(pt, a->jumps[k], &jr);
        s->jumps[s->njumps++] = (struct ajump){jr.src.addr,    jr.target.addr, jr.target_fn,
                                               jr.conditional, *jr.executed,   *jr.taken};
    }
    qsort(s->jumps, s->njumps, sizeof(*s->jumps), cmp_jumps);
    m = 0;
    for (size_t k = 0; k < s->njumps; k++) {
        struct ajump *d = m ? &s->jumps[m - 1] : NULL;
        if (d && !cmp_jumps(d, &s->jumps[k])) {
            if (__builtin_add_overflow(d->executed, s->jumps[k].executed, &d->executed) ||
                __builtin_add_overflow(d->taken, s->jumps[k].taken, &d->taken))
                rc = -1;
        } else {
            s->jumps[m++] = s->jumps[k];
        }
    }
    s->njumps = m;
    return rc;
}

static int cmp_hot(const void *pa, const void *pb, void *ctx)
{
    const struct asm_state *s = ctx;
    const struct ains *a = &s->ins[*(const size_t *)pa], *b = &s->ins[*(const size_t *)pb];
    size_t c = s->r->nsort ? s->r->sort[0] : 0;
    if (a->cost[c] != b->cost[c]) return a->cost[c] > b->cost[c] ? -1 : 1;
    return cmp_u64(a->addr, b->addr);
}

/* Mark the costliest instructions that together hold half the function's cost (at most
 * HOT_MAX of them), by the first sort event. */
static void mark_hot(struct asm_state *s, const struct asec *a)
{
    if (!s->r->ncols || !s->nins) return;
    size_t c = s->r->nsort ? s->r->sort[0] : 0;
    tally_wide total = a->self[c];
    if (total <= 0) return;
    size_t *ix = xmalloc(s->nins * sizeof(size_t));
    for (size_t i = 0; i < s->nins; i++)
        ix[i] = i;
    qsort_r(ix, s->nins, sizeof(size_t), cmp_hot, s);
    tally_wide sum = 0;
    for (size_t k = 0; k < s->nins && k < HOT_MAX && 2 * sum < total; k++) {
        struct ains *in = &s->ins[ix[k]];
        if (in->cost[c] <= 0) break;
        in->hot = 1;
        sum += in->cost[c]; /* far below 2^127 */
    }
    free(ix);
}

/* ------------------------------------------------------------ objects */

/*
 * The size and modification time the profile gives for object `path`: a
 * `desc: Option: object SIZE SEC.NSEC PATH` line, which tally record writes
 * with --dump-instr=yes. Returns 1 when there is one.
 */
static int recorded_object(const struct part *pt, const char *path, uint64_t *size, uint64_t *sec,
                           uint64_t *nsec)
{
    for (size_t i = 0; i < pt->desc.n; i++) {
        const char *d = pt->desc.items[i];
        unsigned long long a, b, c;
        int n = 0;
        if (strncmp(d, "Option: object ", 15) != 0 ||
            sscanf(d + 15, "%llu %llu.%llu %n", &a, &b, &c, &n) != 3 || !n ||
            strcmp(d + 15 + n, path) != 0)
            continue;
        *size = a;
        *sec = b;
        *nsec = c;
        return 1;
    }
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS.NNNNNNNNN UTC" into buf[64]. */
static const char *utc_time(uint64_t sec, uint64_t nsec, char *buf)
{
    time_t t = (time_t)sec;
    struct tm tm;
    size_t n = gmtime_r(&t, &tm) ? strftime(buf, 40, "%Y-%m-%d %H:%M:%S", &tm) : 0;
    snprintf(buf + n, 64 - n, ".%09llu UTC", (unsigned long long)nsec);
    return buf;
}

static struct aobj *object_of(struct asm_state *s, uint32_t id)
{
    for (size_t i = 0; i < s->nobjs; i++)
        if (s->objs[i].id == id) return &s->objs[i];
    s->objs = xgrow(s->objs, &s->capobjs, s->nobjs + 1, sizeof(*s->objs));
    struct aobj *ob = &s->objs[s->nobjs++];
    memset(ob, 0, sizeof(*ob));
    ob->id = id;
    const char *path = id ? profile_str(s->r->p, id) : "";
    if (!*path || !strcmp(path, "???")) {
        ob->why = xasprintf("the profile names no object for it");
        return ob;
    }
    struct tally_error e;
    if (disasm_object_open(&ob->o, path, s->r->o->asm_att ? DISASM_ATT : DISASM_INTEL, &e)) {
        ob->why = xasprintf("object %s cannot be read: %s", path, e.msg);
        return ob;
    }
    struct stat st;
    uint64_t size, sec, nsec;
    int recorded = recorded_object(s->r->pt, path, &size, &sec, &nsec);
    if (!disasm_object_decodes(ob->o)) {
        ob->why = xasprintf("no disassembler for the machine of %s", path);
    } else if (recorded) {
        if (stat(path, &st) == 0 &&
            ((uint64_t)st.st_size != size || (uint64_t)st.st_mtim.tv_sec != sec ||
             (uint64_t)st.st_mtim.tv_nsec != nsec)) {
            char then[64], now[64];
            ob->why =
                xasprintf("%s changed since the run (%llu bytes, modified %s then; %llu "
                          "bytes, modified %s now)",
                          path, (unsigned long long)size, utc_time(sec, nsec, then),
                          (unsigned long long)st.st_size,
                          utc_time((uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec, now));
        }
    } else if (s->have_mtime) {
        if (stat(path, &st) == 0 && (st.st_mtim.tv_sec > s->prof_mtime.tv_sec ||
                                     (st.st_mtim.tv_sec == s->prof_mtime.tv_sec &&
                                      st.st_mtim.tv_nsec > s->prof_mtime.tv_nsec)))
            ob->why = xasprintf("%s is newer than the profile '%s': it changed since the run", path,
                                s->prof_name);
    }
    return ob;
}

/* The oldest modification time of the inputs that are files. */
static void profile_mtime(struct asm_state *s)
{
    const struct strlist *in = &s->r->o->inputs;
    for (size_t i = 0; i < in->n; i++) {
        struct stat st;
        if (!strcmp(in->items[i], "-") || stat(in->items[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!s->have_mtime || st.st_mtim.tv_sec < s->prof_mtime.tv_sec ||
            (st.st_mtim.tv_sec == s->prof_mtime.tv_sec &&
             st.st_mtim.tv_nsec < s->prof_mtime.tv_nsec)) {
            s->prof_mtime = st.st_mtim;
            s->prof_name = in->items[i];
        }
        s->have_mtime = 1;
    }
}

/* ------------------------------------------------------------ listing */

/* A row of the listing: an instruction decoded, or an address of the profile. */
struct arow {
    uint64_t addr; /* in the object (the profile's, less the bias) */
    int decoded;
    struct disasm_insn insn;
    size_t ins;         /* index into s->ins, or SIZE_MAX */
    int range;          /* the first row of a range of code decoded (disassemble()) */
    const char *symbol; /* then the symbol of that range, or NULL */
};

struct alist {
    struct arow *rows;
    size_t n, cap;
    uint64_t bias;
    char *why; /* not NULL: costs by address, and why */
};

/* The sorted, distinct addresses the profile gives for the section (less bias). */
static uint64_t *profile_addrs(const struct asm_state *s, uint64_t bias, size_t *n)
{
    uint64_t *v = xmalloc((s->nins + s->ncalls + s->njumps + 1) * sizeof(uint64_t));
    size_t k = 0;
    for (size_t i = 0; i < s->nins; i++)
        v[k++] = s->ins[i].addr - bias;
    for (size_t i = 0; i < s->ncalls; i++)
        if (s->calls[i].addr) v[k++] = s->calls[i].addr - bias;
    for (size_t i = 0; i < s->njumps; i++)
        if (s->jumps[i].src) v[k++] = s->jumps[i].src - bias;
    for (size_t i = 1; i < k; i++) { /* insertion sort: nearly sorted already */
        uint64_t x = v[i];
        size_t j = i;
        while (j && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!m || v[m - 1] != v[i]) v[m++] = v[i];
    *n = m;
    return v;
}

/*
 * The load bias of a section whose addresses are not in the object's code:
 * code that Valgrind had no debug information for keeps its run-time
 * address, and tally record names such a function by its address in the
 * object (`0x...`). Returns 0 when the addresses need none or none fits.
 */
static uint64_t find_bias(struct asm_state *s, const struct asec *a, struct disasm_object *o)
{
    if (!s->nins || disasm_in_code(o, s->ins[0].addr, NULL, NULL) || !disasm_object_is_dyn(o))
        return 0;
    const char *nm = profile_str(s->r->p, profile_function_at(s->r->p, a->fn).name);
    char *end;
    if (strncmp(nm, "0x", 2) != 0) return 0;
    uint64_t entry = strtoull(nm + 2, &end, 16);
    if (*end || entry > s->ins[0].addr) return 0;
    uint64_t bias = s->ins[0].addr - entry;
    if (bias % 4096 || !disasm_in_code(o, entry, NULL, NULL)) return 0;
    return bias;
}

static void add_row(struct alist *l, uint64_t addr, const struct disasm_insn *insn)
{
    l->rows = xgrow(l->rows, &l->cap, l->n + 1, sizeof(*l->rows));
    struct arow *w = &l->rows[l->n++];
    memset(w, 0, sizeof(*w));
    w->addr = addr;
    w->ins = SIZE_MAX;
    if (insn) {
        w->decoded = 1;
        w->insn = *insn;
    }
}

/*
 * Disassemble what the section's addresses need: the function symbol of
 * each (its whole range), or, without one, from the address to the last
 * of the profile's addresses that follow it closely. Every address of the
 * profile must start an instruction; when one does not, l->why says so.
 */
static void disassemble(struct asm_state *s, struct disasm_object *o, struct alist *l)
{
    size_t na;
    uint64_t *addrs = profile_addrs(s, l->bias, &na);
    size_t j = 0; /* next profile address to meet */
    while (j < na && !l->why) {
        uint64_t lo, hi, seclo, sechi, last = addrs[j];
        if (!disasm_in_code(o, addrs[j], &seclo, &sechi)) {
            l->why = xasprintf("address 0x%llx is not in the code of the object",
                               (unsigned long long)addrs[j]);
            break;
        }
        const char *symname = NULL;
        int sym = disasm_function_at(o, addrs[j], &lo, &hi, &symname);
        if (!sym) { /* no symbol: the run of close addresses */
            lo = addrs[j];
            size_t k = j;
            while (k + 1 < na && addrs[k + 1] - addrs[k] < 64 && addrs[k + 1] < sechi)
                k++;
            last = addrs[k];
            hi = sechi;
        }
        if (l->n && lo < l->rows[l->n - 1].addr + l->rows[l->n - 1].insn.size)
            lo = addrs[j]; /* overlapping symbols: go on from the address */
        uint64_t pc = lo;
        size_t first = l->n;
        while (pc < hi && (sym || pc <= last)) {
            struct disasm_insn insn;
            if (j < na && addrs[j] < pc) break; /* skipped: inside the instruction before */
            if (disasm_decode(o, pc, hi - pc, &insn)) {
                if (j < na && addrs[j] == pc) {
                    l->why = xasprintf("no instruction decodes at the profile's address 0x%llx",
                                       (unsigned long long)pc);
                    break;
                }
                /* bytes Capstone does not know, up to the next address of the profile */
                uint64_t next = j < na && addrs[j] < hi ? addrs[j] : hi;
                memset(&insn, 0, sizeof(insn));
                insn.addr = pc;
                insn.size = (unsigned)(next - pc < 4096 ? next - pc : 4096);
                snprintf(insn.mnemonic, sizeof insn.mnemonic, "(bad)");
                snprintf(insn.operands, sizeof insn.operands, "%u bytes", insn.size);
            }
            add_row(l, pc, &insn);
            if (j < na && addrs[j] == pc) j++;
            pc += insn.size;
        }
        if (first < l->n) {
            l->rows[first].range = 1;
            l->rows[first].symbol = sym ? symname : NULL;
        }
        if (!l->why && j < na && addrs[j] < pc)
            l->why =
                xasprintf("the profile's address 0x%llx is inside an instruction of the object",
                          (unsigned long long)addrs[j]);
    }
    free(addrs);
}

/* The rows of the listing: the code, or the profile's addresses with l->why set. */
static void make_listing(struct asm_state *s, const struct asec *a, struct alist *l)
{
    memset(l, 0, sizeof(*l));
    struct aobj *ob = object_of(s, profile_function_at(s->r->p, a->fn).obj);
    if (ob->why) {
        l->why = xstrdup(ob->why);
    } else {
        l->bias = find_bias(s, a, ob->o);
        disassemble(s, ob->o, l);
    }
    if (l->why) { /* by address */
        l->n = 0;
        l->bias = 0;
        size_t na;
        uint64_t *addrs = profile_addrs(s, 0, &na);
        for (size_t i = 0; i < na; i++)
            add_row(l, addrs[i], NULL);
        free(addrs);
    }
    size_t k = 0; /* the costs of each row */
    for (size_t i = 0; i < l->n && k < s->nins; i++) {
        while (k < s->nins && s->ins[k].addr - l->bias < l->rows[i].addr)
            k++;
        if (k < s->nins && s->ins[k].addr - l->bias == l->rows[i].addr) l->rows[i].ins = k++;
    }
}

/* ----------------------------------------------------------- printing */

static const struct asrc *source_text(struct asm_state *s, const char *name)
{
    for (size_t i = 0; i < s->nsrcs; i++)
        if (!strcmp(s->srcs[i].name, name)) return &s->srcs[i];
    s->srcs = xgrow(s->srcs, &s->capsrcs, s->nsrcs + 1, sizeof(*s->srcs));
    struct asrc *t = &s->srcs[s->nsrcs++];
    memset(t, 0, sizeof(*t));
    t->name = xstrdup(name);
    struct srcfile_found found;
    if (srcfile_find(name, &s->r->o->include_dirs, SRCFILE_PREFIX, srcfile_opens, NULL, &found)) {
        t->found = srcfile_text_read(&t->text, found.path, 64u << 20) == 0;
        free(found.path);
    }
    return t;
}

/* "-- FILE:LINE: text" when the row's source line differs from the last one shown. */
static void print_source_line(struct asm_state *s, const struct arow *w, struct disasm_object *o)
{
    const char *name = NULL;
    uint64_t line = 0;
    if (w->ins != SIZE_MAX && s->ins[w->ins].file != UINT32_MAX) {
        name = func_str(&s->r->ft, s->ins[w->ins].file);
        line = s->ins[w->ins].line;
    } else if (o && w->decoded) {
        unsigned ln;
        if (disasm_source_line(o, w->addr, &name, &ln)) {
            line = ln;
            const char *cwd = s->r->o->cwd;
            if (cwd && !strncmp(name, cwd, strlen(cwd))) name += strlen(cwd);
        }
    }
    if (!name || (s->last_name && !strcmp(name, s->last_name) && line == s->last_line)) return;
    s->last_name = name;
    s->last_line = line;
    annrep_print_cc(s->r, NULL, 0, s->w);
    fprintf(s->r->out, " -- %s:%llu", name, (unsigned long long)line);
    const struct asrc *t = source_text(s, name);
    if (t->found && line >= 1 && line <= t->text.nlines) {
        const char *b = t->text.text + t->text.line_off[line - 1];
        const char *e = t->text.text + t->text.line_off[line];
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == '\n' || e[-1] == '\r'))
            e--;
        fputs(": ", s->r->out);
        fwrite(b, 1, (size_t)(e - b), s->r->out);
    }
    putc('\n', s->r->out);
}

/* The calls and jumps made at profile address `addr`, under its row. */
static void print_arcs(struct asm_state *s, uint64_t addr, uint64_t bias, uint32_t fn)
{
    FILE *out = s->r->out;
    char num[64], num2[64];
    int indent = s->addr_width + 5;
    /* rows come in address order, and calls and jumps are sorted by address */
    while (s->cpos < s->ncalls && s->calls[s->cpos].addr < addr)
        s->cpos++;
    while (s->jpos < s->njumps && s->jumps[s->jpos].src < addr)
        s->jpos++;
    for (size_t i = s->cpos; i < s->ncalls && s->calls[i].addr == addr; i++) {
        annrep_print_cc(s->r, s->calls[i].cost, s->calls[i].ndef, s->w);
        char *nm = fn_display(s->r, s->calls[i].callee);
        fprintf(out, " %*s=> %s (%sx)\n", indent, "", nm,
                textfmt_commify((tally_wide)s->calls[i].count, num));
        free(nm);
    }
    for (size_t i = s->jpos; i < s->njumps && s->jumps[i].src == addr; i++) {
        const struct ajump *j = &s->jumps[i];
        annrep_print_cc(s->r, NULL, 0, s->w);
        uint64_t t = j->target_fn == fn && j->target >= bias ? j->target - bias : j->target;
        fprintf(out, " %*s-> 0x%llx", indent, "", (unsigned long long)t);
        if (j->target_fn != fn) fprintf(out, " (%s)", fn_name(s->r, j->target_fn));
        if (j->cond) {
            fprintf(out, "  taken %s of %s", textfmt_commify((tally_wide)j->taken, num),
                    textfmt_commify((tally_wide)j->executed, num2));
            if (j->executed)
                fprintf(out, " (%.2f%%)", 100.0 * (double)j->taken / (double)j->executed);
            putc('\n', out);
        } else {
            fprintf(out, "  jumped %sx\n", textfmt_commify((tally_wide)j->taken, num));
        }
    }
}

static void print_section(struct asm_state *s, const struct asec *a)
{
    struct annrep *r = s->r;
    FILE *out = r->out;
    struct function fn = profile_function_at(r->p, a->fn);
    const char *obj = fn.obj ? profile_str(r->p, fn.obj) : "";
    struct alist l;
    make_listing(s, a, &l);
    struct aobj *ob = object_of(s, fn.obj);
    struct disasm_object *o = l.why ? NULL : ob->o;

    size_t nc = r->ncols ? r->ncols : 1;
    s->w = xmalloc(nc * sizeof(size_t));
    annrep_widths_init(r, s->w);
    annrep_widths_add(r, s->w, a->self, a->self_ndef);
    for (size_t i = 0; i < s->nins; i++)
        annrep_widths_add(r, s->w, s->ins[i].cost, s->ins[i].ndef);
    for (size_t i = 0; i < s->ncalls; i++)
        annrep_widths_add(r, s->w, s->calls[i].cost, s->calls[i].ndef);
    uint64_t maxaddr = l.n ? l.rows[l.n - 1].addr : 0;
    s->addr_width = 1;
    while (s->addr_width < 16 && (maxaddr >> (4 * s->addr_width)))
        s->addr_width++;

    char *disp = fn_display(r, a->fn);
    fputs(RULE, out);
    fprintf(out, "-- Machine code: %s%s%s%s\n", disp, *obj ? " [" : "", obj, *obj ? "]" : "");
    size_t ncode = 0;
    for (size_t i = 0; i < l.n; i++)
        ncode += l.rows[i].decoded;
    if (l.why) {
        fprintf(out, "-- %s: costs by address\n", l.why);
    } else if (l.n) {
        const struct arow *e = &l.rows[l.n - 1];
        fprintf(out, "-- %zu instructions, 0x%llx-0x%llx (%s syntax)", ncode,
                (unsigned long long)l.rows[0].addr, (unsigned long long)(e->addr + e->insn.size),
                r->o->asm_att ? "AT&T" : "Intel");
        if (l.bias) fprintf(out, ", run-time addresses less 0x%llx", (unsigned long long)l.bias);
        fprintf(out, "; * the hottest (half of %s)\n",
                r->ncols ? r->colnames[r->nsort ? r->sort[0] : 0] : "the cost");
    } else {
        fputs("-- no instruction address for this function in the profile\n", out);
    }
    fputs(RULE, out);
    annrep_print_events(r, s->w);
    fputs("\n\n", out);
    s->last_name = NULL;
    s->last_line = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct arow *w = &l.rows[i];
        if (w->range && i) { /* code of another symbol, or after a gap */
            annrep_print_cc(r, NULL, 0, s->w);
            if (w->symbol) {
                char *dm = demangle_or_copy(w->symbol, DEMANGLE_AUTO, DEMANGLE_DEFAULT);
                fprintf(out, " -- <%s>\n", dm);
                free(dm);
            } else
                fputs(" -- ...\n", out);
            s->last_name = NULL;
        }
        print_source_line(s, w, o);
        const struct ains *in = w->ins != SIZE_MAX ? &s->ins[w->ins] : NULL;
        annrep_print_cc(r, in ? in->cost : NULL, in ? in->ndef : 0, s->w);
        fprintf(out, " %c %*llx:", in && in->hot ? '*' : ' ', s->addr_width,
                (unsigned long long)w->addr);
        if (w->decoded && w->insn.operands[0])
            fprintf(out, "  %-7s %s", w->insn.mnemonic, w->insn.operands);
        else if (w->decoded)
            fprintf(out, "  %s", w->insn.mnemonic);
        putc('\n', out);
        print_arcs(s, w->addr + l.bias, l.bias, a->fn);
    }
    if (s->have_noaddr) {
        annrep_print_cc(r, s->noaddr, s->noaddr_ndef, s->w);
        fputs(" <costs without an instruction address>\n", out);
    }
    putc('\n', out);
    annrep_print_cc(r, a->self, a->self_ndef, s->w);
    fprintf(out, " total: the self cost of %s\n\n", fn_name(r, a->fn));
    free(disp);
    free(l.why);
    free(l.rows);
    free(s->w);
    s->w = NULL;
}

int annrep_asm(struct annrep *r, struct tally_error *err)
{
    struct asm_state s;
    memset(&s, 0, sizeof(s));
    s.r = r;
    profile_mtime(&s);
    int rc = gather(&s, err);
    if (!rc && !s.nsecs) {
        fputs(RULE, r->out);
        if (r->o->asm_regex)
            fprintf(r->out, "-- Machine code: no function with a cost matches '%s'\n",
                    r->o->asm_regex);
        else
            fputs("-- Machine code: no function listed\n", r->out);
        fputs(RULE "\n", r->out);
    }
    for (size_t i = 0; i < s.nsecs && !rc; i++) {
        if (section_data(&s, &s.secs[i])) {
            rc = tally_error_set(err, r->p->path, 0, "an instruction's cost is too large");
        } else {
            mark_hot(&s, &s.secs[i]);
            print_section(&s, &s.secs[i]);
        }
        free_section_data(&s);
    }
    for (size_t i = 0; i < s.nsecs; i++) {
        free(s.secs[i].recs);
        free(s.secs[i].calls);
        free(s.secs[i].jumps);
        free(s.secs[i].self);
    }
    free(s.secs);
    for (size_t i = 0; i < s.nobjs; i++) {
        disasm_object_close(s.objs[i].o);
        free(s.objs[i].why);
    }
    free(s.objs);
    for (size_t i = 0; i < s.nsrcs; i++) {
        free(s.srcs[i].name);
        if (s.srcs[i].found) srcfile_text_release(&s.srcs[i].text);
    }
    free(s.srcs);
    return rc;
}
