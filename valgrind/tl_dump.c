/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_dump.c - the output of tally's Valgrind tool: the callgrind file(s)
 * with their name compression and parts, the cachegrind file, the checks
 * of output names before the run, and the end-of-run summary in
 * Cachegrind's layout.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include "tl_compat.h"
#include "tl_global.h"

#include "rms.h" /* --input-sensitive (tl_input.c) */
#include "tl_out.h"

const HChar *const ev_name[N_EV] = {
    "Ir",      "Dr",      "Dw",      "I1mr",    "D1mr", "D1mw",     "ILmr",    "DLmr",
    "DLmw",    "Bc",      "Bcm",     "Bi",      "Bim",  "ILdmr",    "DLdmr",   "DLdmw",
    "AcCost1", "SpLoss1", "AcCost2", "SpLoss2", "Ge",   "sysCount", "sysTime", "sysCpuTime"};

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

static ULong totals[N_EV];

/* Callgrind's options of the file's form */
static Bool clo_compress_strings = True; /* a name is "(N)" after its first use */
static Bool clo_compress_pos = True;     /* +n, -n, * for instruction positions */
static Bool clo_dump_line = True;        /* line numbers in positions */

Bool dump_process_option(const HChar *arg)
{
    if VG_BOOL_CLO (arg, "--compress-strings", clo_compress_strings) {
    } else if VG_BOOL_CLO (arg, "--compress-pos", clo_compress_pos) {
    } else if VG_BOOL_CLO (arg, "--dump-line", clo_dump_line) {
    } else
        return False;
    return True;
}

void dump_print_usage(void)
{
    VG_(printf)
    ("    --compress-strings=yes|no names as (N) after their first use in a file [yes]\n"
     "    --compress-pos=yes|no     instruction positions relative to the last [yes]\n"
     "    --dump-line=yes|no        line numbers in positions [yes]\n");
}

void dump_post_clo_init(void)
{
    /* as Callgrind: a position needs an address or a line */
    if (!clo_dump_line && !clo_dump_instr) {
        VG_(umsg)("Using source line as position.\n");
        clo_dump_line = True;
    }
}

/* A position written in full: "0xADDR LINE", "0xADDR" (--dump-line=no),
 * or "LINE" without --dump-instr. */
static void format_pos(HChar *buf, Addr addr, UInt line)
{
    if (!clo_dump_instr)
        VG_(sprintf)(buf, "%u", line);
    else if (clo_dump_line)
        VG_(sprintf)(buf, "0x%lx %u", addr, line);
    else
        VG_(sprintf)(buf, "0x%lx", addr);
}

/* The events of the run, in callgrind order: what is counted, stored
 * (slot k holds out_ev[k]) and written (see tl_global.h). */
Int out_ev[N_EV], n_out_ev;
Int ev_slot[N_EV];
/* The context tree's events: the slots of the run's events but the
 * cache-use ones, which are never in a running cost (so never in a
 * context); and the slots' names */
Int ctx_ev[N_EV], n_ctx_ev;
static const HChar *slot_name[N_EV];

void choose_events(void)
{
    n_out_ev = 0;
    out_ev[n_out_ev++] = EV_Ir;
    out_ev[n_out_ev++] = EV_Dr;
    out_ev[n_out_ev++] = EV_Dw;
    if (clo_cache_sim)
        for (Int e = EV_I1mr; e <= EV_DLmw; e++)
            out_ev[n_out_ev++] = e;
    if (clo_cache_sim && clo_simulate_wb)
        for (Int e = EV_ILdmr; e <= EV_DLdmw; e++)
            out_ev[n_out_ev++] = e;
    if (clo_branch_sim)
        for (Int e = EV_Bc; e <= EV_Bim; e++)
            out_ev[n_out_ev++] = e;
    if (clo_cache_sim && clo_cacheuse)
        for (Int e = EV_AcCost1; e <= EV_SpLoss2; e++)
            out_ev[n_out_ev++] = e;
    if (clo_collect_bus) out_ev[n_out_ev++] = EV_Ge;
    if (clo_systime) {
        out_ev[n_out_ev++] = EV_sysCount;
        out_ev[n_out_ev++] = EV_sysTime;
        if (clo_systime == SYSTIME_NSEC) out_ev[n_out_ev++] = EV_sysCpuTime;
    }
    for (Int e = 0; e < N_EV; e++)
        ev_slot[e] = -1;
    for (Int k = 0; k < n_out_ev && out_ev[k] <= EV_DLmw; k++)
        tl_assert(out_ev[k] == k); /* (EVSC) */
    for (Int k = 0; k < n_out_ev; k++) {
        ev_slot[out_ev[k]] = k;
        slot_name[k] = ev_name[out_ev[k]];
    }
    n_ctx_ev = 0;
    for (Int k = 0; k < n_out_ev; k++)
        if (out_ev[k] < EV_AcCost1 || out_ev[k] > EV_SpLoss2) ctx_ev[n_ctx_ev++] = k;
}

Bool all_zero(const ULong *ev)
{
    for (Int k = 0; k < n_out_ev; k++)
        if (ev[k]) return False;
    return True;
}

/* Cachegrind's order and identity: file, Cachegrind's function name, line. */
static Int cmp_linecc_cg(const void *a, const void *b)
{
    const linecc *x = *(const linecc *const *)a, *y = *(const linecc *const *)b;
    Int c = VG_(strcmp)(x->file->s, y->file->s);
    if (c) return c;
    c = VG_(strcmp)(x->cgfn->s, y->cgfn->s);
    if (c) return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

static Int cmp_linecc(const void *a, const void *b);
static Int cmp_instrcc(const void *a, const void *b);

/* Every linecc (sorted by `cmp`) with its instr costs summed: with
 * --dump-instr, the lines' costs are the sums of their instrs'; without,
 * most instrs count into their line's, and those that have their own (PLT
 * code) move their counts there now. */
static linecc **collect_lines(UWord *np, Int (*cmp)(const void *, const void *))
{
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next) {
            if (clo_dump_instr) VG_(memset)(l->ev, 0, EV_BYTES);
            l->frec = NULL;
        }
    for (UWord k = 0; k < cc_instrs.nslots; k++)
        for (instrcc *i = cc_instrs.slot[k]; i; i = i->next) {
            if (i->has_own) {
                for (Int e = 0; e < n_out_ev; e++)
                    i->line->ev[e] += i->own[e];
                if (!clo_dump_instr) VG_(memset)(i->own, 0, EV_BYTES);
            }
        }
    linecc **v = VG_(malloc)("tl.sort", (cc_lines.nused + 1) * sizeof *v);
    UWord n = 0;
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next)
            v[n++] = l;
    VG_(ssort)(v, n, sizeof *v, cmp);
    *np = n;
    return v;
}

static Bool out_failed;

void tl_out_failed(void)
{
    out_failed = True;
}

/* The last --trace-children= among Valgrind's arguments says yes. */
static Bool tracing_children(void)
{
    Bool on = False;
    for (Word k = 0; k < VG_(sizeXA)(VG_(args_for_valgrind)); k++) {
        const HChar *a = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), k);
        if (VG_(strcmp)(a, "--trace-children=yes") == 0) on = True;
        if (VG_(strcmp)(a, "--trace-children=no") == 0) on = False;
    }
    return on;
}

void tl_pre_syscall_note(UInt sysno)
{
    static Bool said;
    if ((sysno != __NR_execve && sysno != __NR_execveat) || said || tracing_children()) return;
    said = True;
    VG_(umsg)
    ("tally: the program runs another program (execve): without --trace-children=yes\n"
     "tally: that program is not recorded, and if it starts, this process writes no\n"
     "tally: profile (a shell wrapper or a shim: record with --trace-children=yes)\n");
}

void tl_out_check(const HChar *opt, const HChar *pattern)
{
    HChar *name = VG_(expand_file_name)(opt, pattern);
    struct vg_stat st;
    Bool existed = !sr_isError(VG_(stat)(name, &st));
    if (existed && VKI_S_ISDIR(st.mode)) {
        VG_(fmsg)("tally: %s: '%s' is a directory\n", opt, name);
        VG_(exit)(1);
    }
    if (existed && VKI_S_ISFIFO(st.mode)) {
        /* opened and closed now, a FIFO's reader would see its end before the profile */
        VG_(free)(name);
        return;
    }
    VgFile *f = VG_(fopen)(name, VKI_O_CREAT | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    if (!f) {
        VG_(fmsg)
        ("tally: %s: cannot create '%s' (does its directory exist, and may it be "
         "written?)\n",
         opt, name);
        VG_(exit)(1);
    }
    VG_(fclose)(f);
    if (!existed) VG_(unlink)(name);
    VG_(free)(name);
}

static VgFile *open_out(const HChar *opt, const HChar *pattern, HChar **namep)
{
    HChar *name = VG_(expand_file_name)(opt, pattern);
    VgFile *f =
        VG_(fopen)(name, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    if (!f) {
        VG_(umsg)("error: cannot create output file '%s'\n", name);
        tl_out_failed();
    }
    *namep = name;
    return f;
}

/* A word of the command line on the cmd: line: control characters (a
 * newline in an argument) as spaces, so the line stays one line. */
static void write_word(VgFile *f, const HChar *w)
{
    for (; *w; w++)
        VG_(fprintf)(f, "%c", (UChar)*w < 0x20 || *w == 0x7f ? ' ' : *w);
}

static void write_cmd(VgFile *f)
{
    VG_(fprintf)(f, "cmd: ");
    write_word(f, VG_(args_the_exename));
    for (Word k = 0; k < VG_(sizeXA)(VG_(args_for_client)); k++) {
        VG_(fprintf)(f, " ");
        write_word(f, *(HChar **)VG_(indexXA)(VG_(args_for_client), k));
    }
    VG_(fprintf)(f, "\n");
}

static Int cmp_istr_names(const void *a, const void *b)
{
    return VG_(strcmp)((*(const istr *const *)a)->s, (*(const istr *const *)b)->s);
}

/* With --dump-instr: "desc: Option: object SIZE MTIME PATH" for each object
 * whose code ran (SIZE in bytes, MTIME seconds.nanoseconds), as the file is
 * when its part is written: what tally annotate --asm checks the object on
 * disk against before it reads its code (the "Option:" prefix keeps
 * callgrind_annotate and tally annotate from printing the line). */
static void write_objects(VgFile *f)
{
    UWord n = 0, cap = 16;
    istr **v = VG_(malloc)("tl.objs", cap * sizeof *v);
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next) {
            UWord j = 0;
            while (j < n && v[j] != l->obj)
                j++;
            if (j < n || l->obj->s[0] != '/') continue; /* "???", "[vdso]" */
            if (n == cap) {
                cap *= 2;
                v = VG_(realloc)("tl.objs", v, cap * sizeof *v);
            }
            v[n++] = l->obj;
        }
    VG_(ssort)(v, n, sizeof *v, cmp_istr_names);
    for (UWord j = 0; j < n; j++) {
        struct vg_stat st;
        if (sr_isError(VG_(stat)(v[j]->s, &st))) continue;
        VG_(fprintf)(f, "desc: Option: object %lld %llu.%09llu %s\n", st.size, st.mtime,
                     st.mtime_nsec, v[j]->s);
    }
    VG_(free)(v);
}

static void write_desc(VgFile *f, const HChar *gap)
{
    const cache_cfg *c[3] = {&sim_I1, &sim_D1, &sim_LL};
    const HChar *name[3] = {"I1", "D1", "LL"};
    for (Int k = 0; k < 3; k++) {
        if (c[k]->assoc == 1) VG_(fprintf)
        (f, "desc: %s cache:%s%d B, %d B, direct-mapped\n", name[k], gap, c[k]->size,
         c[k]->line_size);
        else VG_(fprintf)(f, "desc: %s cache:%s%d B, %d B, %d-way associative\n", name[k], gap,
                          c[k]->size, c[k]->line_size, c[k]->assoc);
    }
}

static void write_costs(VgFile *f, const ULong *ev)
{
    Int last = n_out_ev;
    while (last > 1 && ev[last - 1] == 0)
        last--;
    for (Int k = 0; k < last; k++)
        VG_(fprintf)(f, " %llu", ev[k]);
    VG_(fprintf)(f, "\n");
}

/* "fl=(3) name" the first time, "fl=(3)" after. */
/*--- The callgrind file(s) ---*/

/*
 * A function of the file: object, name and its own source file (the file
 * of its entry, or of most of its cost when it was never called). Lines
 * of other files (inlined code) are written under it with fi=, so that
 * every function has one name-compression id, as Callgrind writes them.
 */
typedef struct fnrec {
    struct fnrec *next;
    istr *obj, *fn, *file;
    UWord hash;
} fnrec;

htab dump_fnrecs;
htab dump_entry_files; /* (obj, fn) -> file of the entry instr, see note_entry_file */

typedef struct efile {
    struct efile *next;
    istr *obj, *fn, *file;
    UWord hash;
} efile;

static UWord fnrec_rehash(const void *p)
{
    return ((const fnrec *)p)->hash;
}

static UWord efile_rehash(const void *p)
{
    return ((const efile *)p)->hash;
}

static UWord pair_hash(const istr *a, const istr *b)
{
    return (a->hash * 31u + b->hash) * 0x9E3779B97F4A7C15ull >> 16;
}

/* The function of a call's callee: its entry's file is its own. */
void note_entry_file(const linecc *l)
{
    UWord h = pair_hash(l->obj, l->fn);
    for (efile *e = dump_entry_files.slot[h & (dump_entry_files.nslots - 1)]; e; e = e->next)
        if (e->obj == l->obj && e->fn == l->fn) return;
    efile *e = arena_alloc(sizeof *e);
    e->obj = l->obj;
    e->fn = l->fn;
    e->file = l->file;
    e->hash = h;
    htab_add(&dump_entry_files, e, h, efile_rehash);
}

static istr *entry_file(const istr *obj, const istr *fn)
{
    UWord h = pair_hash(obj, fn);
    for (efile *e = dump_entry_files.slot[h & (dump_entry_files.nslots - 1)]; e; e = e->next)
        if (e->obj == obj && e->fn == fn) return e->file;
    return NULL;
}

static fnrec *get_fnrec(istr *obj, istr *fn, istr *file)
{
    UWord h = pair_hash(obj, fn) ^ file->hash;
    for (fnrec *r = dump_fnrecs.slot[h & (dump_fnrecs.nslots - 1)]; r; r = r->next)
        if (r->obj == obj && r->fn == fn && r->file == file) return r;
    fnrec *r = arena_alloc(sizeof *r);
    r->obj = obj;
    r->fn = fn;
    r->file = file;
    r->hash = h;
    htab_add(&dump_fnrecs, r, h, fnrec_rehash);
    return r;
}

/* One output file and its name compression: ids of files, objects and
 * functions (fnrec) hold for the whole file, over its parts. */
typedef struct idmap {
    struct idmap *next;
    const void *key;
    UInt kind; /* 0 file, 1 object, 2 function */
    UInt id;
} idmap;

typedef struct {
    HChar *name; /* expanded, once created */
    Int pid;     /* of the process that created it */
    UInt parts; /* the number of the last part written */
    Bool fresh; /* nothing written yet: the header comes first */
    UInt next[3];
    htab ids;
    VgFile *f;
} callgrind_file;

static callgrind_file main_out;     /* without --separate-threads */
static callgrind_file **thread_out; /* with it: one file per thread, by thread id */
static UInt n_thread_out;

static UWord idmap_rehash(const void *p)
{
    const idmap *m = p;
    return ((UWord)m->key >> 3) * 0x9E3779B97F4A7C15ull >> 20 ^ m->kind;
}

/* "KEY=(id)" for a name written before in this file, else "KEY=(id) NAME";
 * "KEY=NAME" every time with --compress-strings=no (the ids still count
 * the functions written). */
static void write_id(callgrind_file *o, const HChar *key, UInt kind, const void *ptr, const HChar *name)
{
    idmap probe = {.key = ptr, .kind = kind};
    UWord h = idmap_rehash(&probe);
    for (idmap *m = o->ids.slot[h & (o->ids.nslots - 1)]; m; m = m->next)
        if (m->key == ptr && m->kind == kind) {
            if (clo_compress_strings)
                VG_(fprintf)(o->f, "%s=(%u)\n", key, m->id);
            else
                VG_(fprintf)(o->f, "%s=%s\n", key, name);
            return;
        }
    idmap *m = arena_alloc(sizeof *m);
    m->key = ptr;
    m->kind = kind;
    m->id = ++o->next[kind];
    htab_add(&o->ids, m, h, idmap_rehash);
    if (clo_compress_strings)
        VG_(fprintf)(o->f, "%s=(%u) %s\n", key, m->id, name);
    else
        VG_(fprintf)(o->f, "%s=%s\n", key, name);
}

static void write_file_id(callgrind_file *o, const HChar *key, istr *file)
{
    write_id(o, key, 0, file, file->s);
}

static void write_fn_id(callgrind_file *o, const HChar *key, fnrec *r)
{
    write_id(o, key, 2, r, r->fn->s);
}

/* The function record of a line: its (obj, fn) with the function's file. */
static fnrec *fnrec_of(linecc *l)
{
    if (!l->frec) {
        istr *file = entry_file(l->obj, l->fn);
        l->frec = get_fnrec(l->obj, l->fn, file ? file : l->file);
    }
    return l->frec;
}

/* Does a line's list of arcs have one worth writing (of instr `site`
 * only, unless NULL)? A line without self cost is written for its calls. */
static Bool live_arcs(const arc *a, const instrcc *site)
{
    for (; a; a = a->snext)
        if ((!site || a->site == site) && (a->calls || !all_zero(a->cost))) return True;
    return False;
}

static Bool live_jumps(const jrec *j, const instrcc *site)
{
    for (; j; j = j->snext)
        if ((!site || j->site == site) && !j->skip && j->taken) return True;
    return False;
}

/* Where the writer is: the object, the function and the file that
 * positions refer to (fl=, or fi= for inlined code). */
typedef struct {
    callgrind_file *o;
    istr *ob, *fl, *fi; /* fi: the file positions refer to (fl after fl=) */
    fnrec *fn;
} cgpos;

/* jump=/jcnd= records, each followed by the source position alone; the
 * target's file and function are given (jfi=, jfn=) when they differ from
 * the current ones. */
static void write_jumps(cgpos *c, const jrec *j, const instrcc *site, const HChar *pos)
{
    VgFile *f = c->o->f;
    for (; j; j = j->snext) {
        if (site && j->site != site) continue;
        if (j->skip || !j->taken) continue; /* as Callgrind: only jumps that happened */
        linecc *t = j->target;
        if (t->file != c->fi) write_file_id(c->o, "jfi", t->file);
        if (fnrec_of(t) != c->fn) write_fn_id(c->o, "jfn", fnrec_of(t));
        HChar to[48];
        format_pos(to, j->to_file, t->line);
        if (j->cond)
            VG_(fprintf)(f, "jcnd=%llu/%llu %s\n%s\n", j->taken, j->exe, to, pos);
        else
            VG_(fprintf)(f, "jump=%llu %s\n%s\n", j->taken, to, pos);
    }
}

void clear_jumps(void)
{
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next)
            for (jrec *j = l->jumps; j; j = j->snext)
                j->exe = j->taken = 0;
}

/* One call: the callee's object and file when they differ from the
 * current ones, its function, count and position, then the inclusive cost
 * at the call site's position (`pos`, already formatted). */
static void write_arc(cgpos *c, const arc *a, const HChar *pos)
{
    if (all_zero(a->cost) && !a->calls) return;
    linecc *cl = a->callee->line;
    fnrec *r = fnrec_of(cl);
    if (r->obj != c->ob) write_id(c->o, "cob", 1, r->obj, r->obj->s);
    if (r->file != c->fi) write_file_id(c->o, "cfi", r->file);
    write_fn_id(c->o, "cfn", r);
    HChar to[48];
    format_pos(to, clo_dump_instr ? instr_file_addr(a->callee) : 0, cl->line);
    VG_(fprintf)(c->o->f, "calls=%llu %s\n%s", a->calls, to, pos);
    write_costs(c->o->f, a->cost);
}

/* Before the cost line of `l`: ob=, fl= and fn= when the function
 * changes, fi= when the line is in another file than the position's. */
static void write_place(cgpos *c, linecc *l)
{
    fnrec *r = fnrec_of(l);
    if (r->obj != c->ob) {
        c->ob = r->obj;
        c->fl = c->fi = NULL;
        c->fn = NULL;
        write_id(c->o, "ob", 1, r->obj, r->obj->s);
    }
    if (r != c->fn) {
        /* readers differ on whether fn= goes back to the fl= file after a
         * fi=: write fl= whenever either is another file */
        if (r->file != c->fl || r->file != c->fi) write_file_id(c->o, "fl", r->file);
        c->fl = c->fi = r->file;
        c->fn = r;
        write_fn_id(c->o, "fn", r);
    }
    if (l->file != c->fi) {
        c->fi = l->file;
        write_file_id(c->o, "fi", l->file);
    }
}

/* The callgrind order: object, function (with its file), the function's
 * own file first, then file and line (or address). */
static Int cmp_place(const linecc *x, const linecc *y)
{
    fnrec *a = fnrec_of((linecc *)x), *b = fnrec_of((linecc *)y);
    Int c = VG_(strcmp)(a->obj->s, b->obj->s);
    if (c) return c;
    if (a != b) {
        c = VG_(strcmp)(a->file->s, b->file->s);
        if (c) return c;
        c = VG_(strcmp)(a->fn->s, b->fn->s);
        if (c) return c;
    }
    Bool xo = x->file == a->file, yo = y->file == b->file;
    if (xo != yo) return xo ? -1 : 1;
    return VG_(strcmp)(x->file->s, y->file->s);
}

static Int cmp_linecc(const void *a, const void *b)
{
    const linecc *x = *(const linecc *const *)a, *y = *(const linecc *const *)b;
    Int c = cmp_place(x, y);
    if (c) return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

static Int cmp_instrcc(const void *a, const void *b)
{
    const instrcc *x = *(const instrcc *const *)a, *y = *(const instrcc *const *)b;
    Int c = cmp_place(x->line, y->line);
    if (c) return c;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static ULong grand[N_EV]; /* all parts, for the summary */

Bool dump_writing;
static const HChar *trigger;  /* why this part is written; NULL: the end */
static UInt n_dumps;          /* parts dumped before the end, in this process */
static Int dumps_pid;         /* ... whose pid is this */

/* The file a part of thread tid goes to (tid 0: all threads). It is
 * created at its first part, named by --out-file expanded then (so a
 * forked child writes its own), with "-TT" per thread; later parts are
 * appended. A forked child that finds its parent's file starts its own. */
static callgrind_file *part_file(UInt tid)
{
    callgrind_file *o = &main_out;
    if (tid) {
        thread_out = grow_by_tid(thread_out, &n_thread_out, tid, "tl.outs");
        if (!thread_out[tid]) thread_out[tid] = VG_(calloc)("tl.out", 1, sizeof(callgrind_file));
        o = thread_out[tid];
    }
    if (o->name && o->pid == VG_(getpid)() && clo_combine_dumps) {
        o->f = VG_(fopen)(o->name, VKI_O_WRONLY | VKI_O_APPEND, 0);
        if (!o->f) {
            VG_(umsg)("error: cannot append to output file '%s'\n", o->name);
            tl_out_failed();
        }
        return o->f ? o : NULL;
    }
    if (o->name) {
        /* a forked child: its file does not hold the parent's parts */
        if (clo_contexts && tid <= 1 && o->pid != VG_(getpid)()) cct_forget_dumped();
        VG_(free)(o->name);
        o->name = NULL;
    }
    /* --combine-dumps=no: a file per part, as Callgrind names them (the
     * parts dumped before the end get ".N") */
    HChar *base = VG_(expand_file_name)("--out-file", clo_out_file);
    o->name = VG_(malloc)("tl.outname", VG_(strlen)(base) + 32);
    Int len = VG_(sprintf)(o->name, "%s", base);
    if (!clo_combine_dumps && trigger) len += VG_(sprintf)(o->name + len, ".%u", n_dumps);
    if (tid) VG_(sprintf)(o->name + len, "-%02u", tid);
    VG_(free)(base);
    o->f = VG_(fopen)(o->name, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    o->pid = VG_(getpid)();
    /* each file of --combine-dumps=no has the part's number */
    o->parts = clo_combine_dumps ? 0 : trigger ? n_dumps - 1 : n_dumps;
    o->fresh = True;
    o->next[0] = o->next[1] = o->next[2] = 0;
    if (o->ids.slot) VG_(free)(o->ids.slot);
    htab_init(&o->ids, 1024);
    if (!o->f) {
        VG_(umsg)("error: cannot create output file '%s'\n", o->name);
        tl_out_failed();
        return NULL;
    }
    return o;
}

static void write_line_costs(cgpos *c, linecc *l)
{
    write_place(c, l);
    VG_(fprintf)(c->o->f, "%u", l->line);
    write_costs(c->o->f, l->ev);
    HChar pos[16];
    VG_(sprintf)(pos, "%u", l->line);
    for (arc *a = l->arcs; a; a = a->snext)
        write_arc(c, a, pos);
    if (l->jumps) write_jumps(c, l->jumps, NULL, pos);
}

/* Write the counters as the next part of thread tid's file (0: the one
 * file of all threads). */
static void write_callgrind(UInt tid)
{
    callgrind_file *o = part_file(tid);
    if (!o) return;
    VgFile *f = o->f;
    o->parts++;
    if (o->fresh) {
        o->fresh = False;
        VG_(fprintf)
        (f, "# callgrind format\nversion: 1\ncreator: tally-record (valgrind-3.19.0)\n");
        VG_(fprintf)(f, "pid: %d\n", VG_(getpid)());
        write_cmd(f);
    } else {
        VG_(fprintf)(f, "\n");
    }
    /* each part repeats its header (tally's reader wants events: per part) */
    VG_(fprintf)(f, "part: %u\n", o->parts);
    if (tid) VG_(fprintf)(f, "thread: %u\n", tid);
    if (clo_cache_sim) write_desc(f, " ");
    /* a call of a function already on its thread's stack adds no cost to
     * its arc (tl_main.c, push_call): the costs of the calls into a
     * function add up to its time on the stack, counted once */
    if (clo_calls) VG_(fprintf)(f, "desc: Option: call costs: outermost activations\n");
    VG_(fprintf)(f, "desc: Trigger: %s\n", trigger ? trigger : "Program termination");
    if (clo_dump_instr) write_objects(f);
    VG_(fprintf)(f, "positions: %s\nevents:",
                 !clo_dump_instr ? "line" : clo_dump_line ? "instr line" : "instr");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(fprintf)(f, " %s", ev_name[out_ev[k]]);
    VG_(fprintf)(f, "\n");

    VG_(memset)(totals, 0, sizeof totals);
    cgpos c = {.o = o};
    UWord n;
    if (clo_dump_instr) {
        /* each part finds the functions' files again (collect_lines does
         * it for the lines) */
        for (UWord k = 0; k < cc_lines.nslots; k++)
            for (linecc *l = cc_lines.slot[k]; l; l = l->next)
                l->frec = NULL;
        instrcc **v = VG_(malloc)("tl.sort", (cc_instrs.nused + 1) * sizeof *v);
        n = 0;
        for (UWord k = 0; k < cc_instrs.nslots; k++)
            for (instrcc *i = cc_instrs.slot[k]; i; i = i->next)
                if (!all_zero(i->own) || live_arcs(i->line->arcs, i) ||
                    live_jumps(i->line->jumps, i))
                    v[n++] = i;
        VG_(ssort)(v, n, sizeof *v, cmp_instrcc);
        Addr pa = 0;
        UInt pl = 0;
        for (UWord k = 0; k < n; k++) {
            instrcc *i = v[k];
            fnrec *before = c.fn;
            istr *fi_before = c.fi;
            write_place(&c, i->line);
            Addr fa = instr_file_addr(i);
            HChar pos[48];
            format_pos(pos, fa, i->line->line);
            if (!clo_compress_pos || c.fn != before || c.fi != fi_before)
                VG_(fprintf)(f, "%s", pos);
            else {
                if (fa == pa)
                    VG_(fprintf)(f, "*");
                else if (fa > pa)
                    VG_(fprintf)(f, "+%lu", fa - pa);
                else
                    VG_(fprintf)(f, "-%lu", pa - fa);
                if (clo_dump_line) {
                    if (i->line->line == pl)
                        VG_(fprintf)(f, " *");
                    else if (i->line->line > pl)
                        VG_(fprintf)(f, " +%u", i->line->line - pl);
                    else
                        VG_(fprintf)(f, " -%u", pl - i->line->line);
                }
            }
            pa = fa;
            pl = i->line->line;
            write_costs(f, i->own);
            for (arc *a = i->line->arcs; a; a = a->snext)
                if (a->site == i) write_arc(&c, a, pos);
            write_jumps(&c, i->line->jumps, i, pos);
            for (Int e = 0; e < n_out_ev; e++)
                totals[e] += i->own[e];
        }
        VG_(free)(v);
    } else {
        linecc **v = collect_lines(&n, cmp_linecc);
        for (UWord k = 0; k < n; k++) {
            linecc *l = v[k];
            if (all_zero(l->ev) && !live_arcs(l->arcs, NULL) && !live_jumps(l->jumps, NULL))
                continue;
            write_line_costs(&c, l);
            for (Int e = 0; e < n_out_ev; e++)
                totals[e] += l->ev[e];
        }
        VG_(free)(v);
    }
    /* Callgrind's summary is its running cost, which never holds the
     * cache-use events (charged to their lines when the lines leave) */
    VG_(fprintf)(f, "\nsummary:");
    for (Int k = 0; k < n_out_ev; k++) {
        Int e = out_ev[k];
        VG_(fprintf)(f, " %llu", e >= EV_AcCost1 && e <= EV_SpLoss2 ? 0 : totals[k]);
    }
    VG_(fprintf)(f, "\ntotals:");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(fprintf)(f, " %llu", totals[k]);
    VG_(fprintf)(f, "\n");
    for (Int e = 0; e < n_out_ev; e++)
        grand[e] += totals[e];
    VG_(fclose)(f);
    o->f = NULL;
}

/* What was collected since the last part, into the counters. */
static void gather_part(Bool final)
{
    fold_segs();
    if (clo_separate) {
        if (final) calls_last_exit = NULL;
        stash_all(final);
        return;
    }
    if (clo_calls) {
        if (final)
            calls_finish();
        else
            restart_frames(True);
    }
}

/* For each thread with --separate-threads (else once, tid 0): its
 * counts alone in the counters, then `part(tid)`; the counters hold the
 * sum again after. */
static void each_thread_part(void (*part)(UInt tid))
{
    if (!clo_separate) {
        part(0);
        return;
    }
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) {
            clear_counters();
            clear_jumps();
            unstash(calls_threads[k], False);
            part(calls_threads[k]->tid);
        }
    clear_counters();
    clear_jumps();
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) unstash(calls_threads[k], True);
}

/* Before a zeroing (--cacheuse): the use events of the instrs whose block
 * has not run since the last dump are held, as before a dump, and come
 * back after it (sim_give_back): Callgrind's zeroing spares the blocks
 * that have not run, and their held use with them. */
void dump_hold_for_zero(void)
{
    gather_part(False);
    each_thread_part(sim_hold_unrun);
}

/* One part's file (the use of blocks that did not run held back first). */
static void write_part(UInt tid)
{
    sim_hold_unrun(tid);
    write_callgrind(tid);
}

/* Write the gathered counts: one part, or with --separate-threads one
 * part per thread, each in its own file (then the counters hold the sum,
 * for the cachegrind file). */
static void write_parts(void)
{
    each_thread_part(write_part);
}

/* The cachegrind file has no parts, so it holds the whole run: before a
 * dump zeroes the counters, each line's costs of the part move aside. */
static void keep_for_cachegrind(void)
{
    UWord n;
    linecc **v = collect_lines(&n, cmp_linecc_cg);
    for (UWord k = 0; k < n; k++) {
        linecc *l = v[k];
        if (all_zero(l->ev)) continue;
        if (!l->cgkept) l->cgkept = arena_alloc(EV_BYTES);
        for (Int e = 0; e < n_out_ev; e++)
            l->cgkept[e] += l->ev[e];
    }
    VG_(free)(v);
}

/* A client request or an option: write a part now, with the trigger `why`
 * (Callgrind's texts), and start the next one. */
void dump_part(const HChar *why)
{
    if (dumps_pid != VG_(getpid)()) {
        dumps_pid = VG_(getpid)();
        n_dumps = 0;
    }
    n_dumps++;
    trigger = why;
    dump_writing = True;
    gather_part(False);
    write_parts();
    if (clo_cachegrind_out_file) keep_for_cachegrind();
    if (clo_contexts) {
        cct_restart(True); /* what ran up to the dump is in the part */
        cct_dumped();
    }
    zero_counts();
    sim_give_back();
    trigger = NULL;
    dump_writing = False;
}

UInt dump_count(void)
{
    return dumps_pid == VG_(getpid)() ? n_dumps : 0;
}

/* The cachegrind format: Cachegrind's event order and layout. */
static void write_cachegrind(void)
{
    /* (Cachegrind has no write-back events) */
    static const Int cg_order[] = {EV_Ir,   EV_I1mr, EV_ILmr, EV_Dr,  EV_D1mr, EV_DLmr, EV_Dw,
                                   EV_D1mw, EV_DLmw, EV_Bc,   EV_Bcm, EV_Bi,   EV_Bim};
    Int ev[N_EV], n = 0; /* the slots written */
    for (UInt k = 0; k < sizeof cg_order / sizeof cg_order[0]; k++)
        if (EVS(cg_order[k]) >= 0) ev[n++] = EVS(cg_order[k]);
    HChar *name;
    VgFile *f = open_out("--cachegrind-out-file", clo_cachegrind_out_file, &name);
    if (!f) return;
    write_desc(f, "         ");
    write_cmd(f);
    VG_(fprintf)(f, "events:");
    for (Int k = 0; k < n; k++)
        VG_(fprintf)(f, " %s", ev_name[out_ev[ev[k]]]);
    /* Cachegrind 3.19 ends this line with a space when it simulates the
     * caches and not the branches: the same bytes as its file */
    VG_(fprintf)(f, clo_cache_sim && !clo_branch_sim ? " \n" : "\n");
    UWord nl;
    linecc **v = collect_lines(&nl, cmp_linecc_cg);
    for (UWord k = 0; k < nl; k++)
        if (v[k]->cgkept)
            for (Int e = 0; e < n_out_ev; e++)
                v[k]->ev[e] += v[k]->cgkept[e];
    ULong sum[N_EV];
    VG_(memset)(sum, 0, sizeof sum);
    istr *cur_fl = NULL, *cur_fn = NULL;
    for (UWord k = 0; k < nl; k++) {
        linecc *l = v[k];
        if (l->pseudo) continue; /* `<signal N>` is no code */
        if (l->file != cur_fl) {
            cur_fl = l->file;
            cur_fn = NULL;
            VG_(fprintf)(f, "fl=%s\n", cur_fl->s);
        }
        if (l->cgfn != cur_fn) {
            cur_fn = l->cgfn;
            VG_(fprintf)(f, "fn=%s\n", cur_fn->s);
        }
        /* Lines that differ only in object or call-graph name are one line
         * for Cachegrind: sum them. */
        ULong c[N_EV];
        VG_(memcpy)(c, l->ev, EV_BYTES);
        while (k + 1 < nl && cmp_linecc_cg(&v[k], &v[k + 1]) == 0) {
            k++;
            for (Int e = 0; e < n_out_ev; e++)
                c[e] += v[k]->ev[e];
        }
        VG_(fprintf)(f, "%u", l->line);
        for (Int j = 0; j < n; j++) {
            VG_(fprintf)(f, " %llu", c[ev[j]]);
            sum[ev[j]] += c[ev[j]];
        }
        VG_(fprintf)(f, "\n");
    }
    VG_(fprintf)(f, "summary:");
    for (Int j = 0; j < n; j++)
        VG_(fprintf)(f, " %llu", sum[ev[j]]);
    VG_(fprintf)(f, "\n");
    VG_(free)(v);
    VG_(fclose)(f);
    if (VG_(clo_verbosity) > 0) VG_(umsg)("tally: wrote %s (cachegrind format)\n", name);
    VG_(free)(name);
}

/*------------------------------------------------------------*/
/*--- End-of-run summary (Cachegrind's layout)             ---*/
/*------------------------------------------------------------*/

/* Characters of n printed with thousands commas. */
static Int comma_width(ULong n)
{
    Int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d + (d - 1) / 3;
}

static double pct(ULong a, ULong b)
{
    return (double)a * 100.0 / (double)(b ? b : 1);
}

static void print_summary(void)
{
    if (VG_(clo_verbosity) == 0) return;
    ULong t[N_EV]; /* by event; 0 for those not collected */
    for (Int e = 0; e < N_EV; e++)
        t[e] = EVS(e) >= 0 ? totals[EVS(e)] : 0;
    ULong Dr = t[EV_Dr], Dw = t[EV_Dw], Bc = t[EV_Bc], Bi = t[EV_Bi];
    Int l1 = comma_width(t[EV_Ir]);
    Int l2 = comma_width(Dr > Bc ? Dr : Bc);
    Int l3 = comma_width(Dw > Bi ? Dw : Bi);

    VG_(umsg)("%-14s %'*llu\n", TL_SUMMARY_I_REFS, l1, t[EV_Ir]);
    if (clo_cache_sim) {
        ULong Ir = t[EV_Ir];
        VG_(umsg)("%-14s %'*llu\n", "I1  misses:", l1, t[EV_I1mr]);
        VG_(umsg)("%-14s %'*llu\n", "LLi misses:", l1, t[EV_ILmr]);
        VG_(umsg)("%-14s %*.2f%%\n", "I1  miss rate:", l1, pct(t[EV_I1mr], Ir));
        VG_(umsg)("%-14s %*.2f%%\n", "LLi miss rate:", l1, pct(t[EV_ILmr], Ir));
        VG_(umsg)("\n");
        ULong D1m = t[EV_D1mr] + t[EV_D1mw], DLm = t[EV_DLmr] + t[EV_DLmw];
        ULong Dr1 = Dr ? Dr : 1, Dw1 = Dw ? Dw : 1, D1 = Dr + Dw ? Dr + Dw : 1;
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", TL_SUMMARY_D_REFS, l1, Dr + Dw, l2, Dr, l3, Dw);
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", "D1  misses:", l1, D1m, l2, t[EV_D1mr], l3,
         t[EV_D1mw]);
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", "LLd misses:", l1, DLm, l2, t[EV_DLmr], l3,
         t[EV_DLmw]);
        VG_(umsg)
        ("%-14s %*.1f%% (%*.1f%%     + %*.1f%%  )\n", "D1  miss rate:", l1, pct(D1m, D1), l2,
         pct(t[EV_D1mr], Dr1), l3, pct(t[EV_D1mw], Dw1));
        VG_(umsg)
        ("%-14s %*.1f%% (%*.1f%%     + %*.1f%%  )\n", "LLd miss rate:", l1, pct(DLm, D1), l2,
         pct(t[EV_DLmr], Dr1), l3, pct(t[EV_DLmw], Dw1));
        VG_(umsg)("\n");
        ULong LLr = t[EV_I1mr] + t[EV_D1mr], LLw = t[EV_D1mw];
        ULong LLmr = t[EV_ILmr] + t[EV_DLmr], LLmw = t[EV_DLmw];
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", "LL refs:", l1, LLr + LLw, l2, LLr, l3, LLw);
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", "LL misses:", l1, LLmr + LLmw, l2, LLmr, l3,
         LLmw);
        VG_(umsg)
        ("%-14s %*.1f%% (%*.1f%%     + %*.1f%%  )\n", "LL miss rate:", l1,
         pct(LLmr + LLmw, (Ir ? Ir : 1) + Dr1 + Dw1), l2, pct(LLmr, (Ir ? Ir : 1) + Dr1), l3,
         pct(LLmw, Dw1));
    }
    if (clo_branch_sim) {
        /* As Cachegrind: zero branch counts become 1 before the totals. */
        ULong Bc1 = Bc ? Bc : 1, Bi1 = Bi ? Bi : 1;
        ULong Bm = t[EV_Bcm] + t[EV_Bim];
        VG_(umsg)("\n");
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu cond + %'*llu ind)\n", "Branches:", l1, Bc1 + Bi1, l2, Bc1, l3,
         Bi1);
        VG_(umsg)
        ("%-14s %'*llu  (%'*llu cond + %'*llu ind)\n", "Mispredicts:", l1, Bm, l2, t[EV_Bcm], l3,
         t[EV_Bim]);
        VG_(umsg)
        ("%-14s %*.1f%% (%*.1f%%     + %*.1f%%   )\n", "Mispred rate:", l1, pct(Bm, Bc1 + Bi1), l2,
         pct(t[EV_Bcm], Bc1), l3, pct(t[EV_Bim], Bi1));
    }
}

/* At exit, as perf record does: what was written (not with -q). */
static void say_written(void)
{
    if (VG_(clo_verbosity) == 0) return; /* -q */
    if (main_out.name && main_out.pid == VG_(getpid)())
        VG_(umsg)("tally: wrote %s (%u functions)\n", main_out.name, main_out.next[2]);
    for (UInt k = 0; k < n_thread_out; k++)
        if (thread_out[k] && thread_out[k]->name && thread_out[k]->pid == VG_(getpid)()) VG_(umsg)
    ("tally: wrote %s (%u functions)\n", thread_out[k]->name, thread_out[k]->next[2]);
}

void tl_fini(Int exitcode)
{
    if (calls_cur_thread) run_sync(calls_cur_thread);
    exit_sync();
    dump_writing = True; /* no more parts from --dump-after while the calls end */
    if (dumps_pid != VG_(getpid)()) n_dumps = 0;
    sim_finish(); /* first, as Callgrind (its use charges need no open call) */
    gather_part(True);
    if (clo_contexts)
        for (UInt k = 0; k < calls_n_threads; k++)
            if (calls_threads[k])
                cct_switch(&calls_threads[k]->cct, calls_threads[k]->cct.root, calls_threads[k]->run,
                           thread_collects(calls_threads[k]));
    rms_fini();
    write_parts(); /* fills grand */
    fnpat_report();
    sep_report();
    say_written();
    if (clo_cachegrind_out_file) write_cachegrind();
    if (clo_contexts) cct_write(clo_ctx_out_file, ctx_ev, n_ctx_ev, slot_name);
    VG_(memcpy)(totals, grand, sizeof totals);
    print_summary();
    if (out_failed) VG_(exit)(1); /* a profile is missing: say so by the status */
}
