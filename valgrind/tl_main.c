/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_main.c - tally's Valgrind tool: options, instrumentation, cost centres,
 * output files and the end-of-run summary.
 *
 * Started by `tally record` as `valgrind --tool=tally`. Links no libc: only
 * Valgrind's pub_tool_* API.
 *
 * Counting model (docs/internals/tool.md has the long version)
 * ------------------------------------------------------------
 * Events are made from the flattened, optimised IR exactly as Cachegrind
 * 3.19 makes them, with VEX guest chasing off (so every counted instruction
 * really ran). Each guest instruction gets an `instr` cost centre keyed by
 * its address; each instr belongs to a `line` cost centre (file, function,
 * line) looked up once, at translation time.
 *
 * Ir, Dr, Dw, Bc and Bi are not counted by helper calls. The events of one
 * superblock are collected in a queue that is flushed at the same places as
 * Cachegrind's (queue full, every side exit, after a load-linked, before a
 * guarded access, end of block). Every flush makes one `seg`: a counter
 * incremented by three inline IR statements each time that stretch of code
 * runs, plus the list of instr counters it stands for. Folding (count x
 * entries) into the instr counters happens only when a file is written. The
 * simulators (misses, mispredicts) are helper calls in program order.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include "tally.h"
#include "tl_cct.h"
#include "tl_out.h"
#include "tl_util.h"

#include "sim_types.h"

#include "sim_branch.h"
#include "sim_cache.h"

#include "rms.h" /* --input-sensitive (tl_input.c) */

/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

static Bool clo_cache_sim = False; /* as Callgrind, and Cachegrind since 3.21 */
static Bool clo_cache_sim_given;
static Bool clo_branch_sim = False;
static Bool clo_dump_instr = False;
static Bool clo_calls = True;
static const HChar *clo_out_file = "tally.out.%p";
static const HChar *clo_cg_out_file = NULL;
static Bool clo_collect_atstart = True;
static Bool clo_separate = False;
static Bool clo_jumps = False;
static const HChar *clo_toggle = NULL;
static Bool clo_contexts = False;
static Long clo_context_depth = 0;
static const HChar *clo_ctx_out_file = "tally.ctx.%p";
static cache_cfg clo_I1 = {-1, -1, -1};
static cache_cfg clo_D1 = {-1, -1, -1};
static cache_cfg clo_LL = {-1, -1, -1};
/* The caches really simulated (after defaults and checks). */
static cache_cfg cfg_I1, cfg_D1, cfg_LL;
/* Data sizes of Dirty and CAS accesses are clamped to the smallest line. */
static Int min_line_size = 64;

/*------------------------------------------------------------*/
/*--- Events and cost centres                              ---*/
/*------------------------------------------------------------*/

/* Callgrind's event order; the cachegrind writer reorders. */
enum {
    EV_Ir,
    EV_Dr,
    EV_Dw,
    EV_I1mr,
    EV_D1mr,
    EV_D1mw,
    EV_ILmr,
    EV_DLmr,
    EV_DLmw,
    EV_Bc,
    EV_Bcm,
    EV_Bi,
    EV_Bim,
    N_EV
};
static const HChar *const ev_name[N_EV] = {"Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
                                           "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};

/* An interned string. Equal strings share one pointer, so keys compare by
 * pointer; the ids are the callgrind-format compression numbers (0 = not
 * written yet), one namespace for files and one for functions. */
typedef struct istr {
    struct istr *next;
    UInt hash;
    UInt fl_id, fn_id, ob_id;
    HChar s[];
} istr;

/* One (file, function, line). */
typedef struct linecc {
    struct linecc *next;
    istr *file, *fn;
    istr *obj;  /* the object file ("???" when unknown) */
    istr *cgfn; /* Cachegrind's name: "???" without a symbol */
    UInt line;
    struct arc *arcs;   /* calls from this line, while writing */
    struct jrec *jumps; /* jumps from this line, while writing */
    struct fnrec *frec; /* its function in the callgrind file, while writing */
    Bool pseudo;        /* not code: a signal's caller (`<signal N>`) */
    void *cfn;          /* its function in the context tree (--contexts=yes) */
    ULong *cgkept;      /* costs of the parts already dumped, for the
                           cachegrind file (NULL until a dump has some) */
    ULong ev[N_EV];
} linecc;

/* One guest instruction. Several can share an address when the code at
 * that address changed its debug info (unmapped and mapped again). */
typedef struct instrcc {
    struct instrcc *next;
    Addr addr;
    UInt len;
    Bool nox;     /* in one I1 line, and I1 and LL lines are equal */
    Bool touched; /* on `touched_instrs` (--separate-threads) */
    linecc *line;
    struct arc *arcs;   /* calls made by this instruction (--calls=yes) */
    struct jrec *jumps; /* jumps from this instruction (--collect-jumps=yes) */
    UInt id;            /* index into the threads' stores (--separate-threads) */
    struct instrcc *tnext;
    ULong ev[N_EV];
} instrcc;

/* --separate-threads: the instrs (and arcs, jumps) counted into since the
 * counters last went into a thread's store, so that a thread switch moves
 * only those. */
static instrcc *touched_instrs;

static inline void touch_instr(instrcc *n)
{
    if (clo_separate && !n->touched) {
        n->touched = True;
        n->tnext = touched_instrs;
        touched_instrs = n;
    }
}

/* One flushed stretch of events: `*count` runs; it adds to ctr[k], the
 * counter of ins[k]. */
typedef struct seg {
    ULong *count;
    struct seg *dnext; /* the next seg of its block, for a block of code
                          without a symbol (see dynblock) */
    UInt n;
    struct {
        ULong *ctr;
        instrcc *ins;
        UShort idx;   /* the instruction's index in its block */
        UShort which; /* the event counted (EV_*) */
    } e[];
} seg;

/* The run counts of all segs, side by side in chunks (a fold reads them
 * in order); the instrumented code adds to them at fixed addresses. */
#define SEG_CHUNK 4096
typedef struct segchunk {
    struct segchunk *next;
    UInt n;
    ULong count[SEG_CHUNK];
    seg *seg[SEG_CHUNK];
} segchunk;

/* The running cost of the current thread (for inclusive costs); a dummy
 * when calls are not collected. Helpers add dynamic events (misses,
 * mispredicts, guarded accesses) here as well as into the instr. */
static ULong dummy_run[N_EV];
static ULong *cur_run = dummy_run;

/*--- Records never freed (lines, instrs, segs, arcs, ...) ---*/

static tl_arena cc_arena = {.chunk = 1024 * 1024, .cc = "tl.arena"};

static void *arena_alloc(SizeT n)
{
    return tl_arena_alloc(&cc_arena, n);
}

static htab strs, lines, instrs;
static segchunk *seg_chunks;

static UInt str_hash(const HChar *s)
{
    UInt h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (UChar)*s) * 16777619u;
    return h;
}

static UWord istr_rehash(const void *p)
{
    return ((const istr *)p)->hash;
}

static istr *intern(const HChar *s)
{
    UInt h = str_hash(s);
    for (istr *e = strs.slot[h & (strs.nslots - 1)]; e; e = e->next)
        if (e->hash == h && VG_(strcmp)(e->s, s) == 0) return e;
    SizeT len = VG_(strlen)(s);
    istr *e = arena_alloc(sizeof(istr) + len + 1);
    e->hash = h;
    VG_(memcpy)(e->s, s, len + 1);
    htab_add(&strs, e, h, istr_rehash);
    return e;
}

static UWord line_hash(const istr *file, const istr *fn, const istr *obj, const istr *cgfn,
                       UInt line)
{
    return (((file->hash * 31u + fn->hash) * 31u + obj->hash) * 31u + cgfn->hash) * 31u + line;
}

static UWord linecc_rehash(const void *p)
{
    const linecc *l = p;
    return line_hash(l->file, l->fn, l->obj, l->cgfn, l->line);
}

static linecc *get_linecc(istr *file, istr *fn, istr *obj, istr *cgfn, UInt line)
{
    UWord h = line_hash(file, fn, obj, cgfn, line);
    for (linecc *l = lines.slot[h & (lines.nslots - 1)]; l; l = l->next)
        if (l->file == file && l->fn == fn && l->obj == obj && l->cgfn == cgfn && l->line == line)
            return l;
    linecc *l = arena_alloc(sizeof *l);
    l->file = file;
    l->fn = fn;
    l->obj = obj;
    l->cgfn = cgfn;
    l->line = line;
    htab_add(&lines, l, h, linecc_rehash);
    return l;
}

static UWord addr_hash(Addr a)
{
    return (a ^ (a >> 13)) * 0x9E3779B97F4A7C15ull >> 20;
}

static UWord instrcc_rehash(const void *p)
{
    return addr_hash(((const instrcc *)p)->addr);
}

/* The object file holding code at `a` ("???" when unknown) and its load
 * bias: the debug info's, else the mapping's (Valgrind marks only `.plt`
 * as a PLT section and keeps no text range for `.plt.sec`). */
static istr *object_of(Addr a, Addr *bias)
{
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
    const HChar *name = di ? VG_(DebugInfo_get_filename)(di) : NULL;
    if (name && name[0]) {
        if (bias) *bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
        return intern(name);
    }
    NSegment const *seg = VG_(am_find_nsegment)(a);
    name = seg ? VG_(am_get_filename)(seg) : NULL;
    if (bias) *bias = name ? seg->start - (Addr)seg->offset : 0;
    return intern(name && name[0] ? name : "???");
}

/*
 * File, function, object and line of one instruction: "dir/file" (or
 * "file" without a directory), "???" and line 0 without line info. Code
 * without a symbol is "???" in the cachegrind format (as Cachegrind names
 * it). For the call graph and the callgrind format it belongs to `owner`'s
 * function (the function whose frame it runs in, see block_owner()), or,
 * without an owner, it is a function of its own named, as Callgrind names
 * such code, by the address `entry` where it was entered, relative to its
 * object's load bias.
 */
static linecc *lookup_position(Addr a, Addr entry, const linecc *owner, Bool follow)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *file, *dir, *fn;
    UInt line = 0;
    istr *ifile;

    if (VG_(get_filename_linenum)(ep, a, &file, &dir, &line)) {
        if (dir[0]) {
            SizeT dl = VG_(strlen)(dir), fl = VG_(strlen)(file);
            HChar *buf = VG_(malloc)("tl.path", dl + fl + 2);
            VG_(memcpy)(buf, dir, dl);
            buf[dl] = '/';
            VG_(memcpy)(buf + dl + 1, file, fl + 1);
            ifile = intern(buf);
            VG_(free)(buf);
        } else {
            ifile = intern(file);
        }
    } else {
        ifile = intern("???");
        line = 0;
    }
    if (VG_(get_fnname)(ep, a, &fn)) {
        istr *ifn = intern(fn);
        /* a block that runs on past its function's end is its first
         * instruction's function (`follow`), as in Callgrind */
        if (follow && owner && owner->fn != ifn)
            return get_linecc(ifile, owner->fn, owner->obj, ifn, line);
        return get_linecc(ifile, ifn, object_of(a, NULL), ifn, line);
    }
    istr *unk = intern("???");
    if (owner) return get_linecc(ifile, owner->fn, owner->obj, unk, line);
    HChar buf[32];
    Addr bias;
    istr *iobj = object_of(entry, &bias);
    VG_(sprintf)(buf, "0x%016lx", (unsigned long)(entry - bias));
    return get_linecc(ifile, intern(buf), iobj, unk, line);
}

static instrcc *new_instrcc(Addr a, UInt len, linecc *l)
{
    UWord h = addr_hash(a);
    instrcc *i = arena_alloc(sizeof *i);
    i->addr = a;
    i->len = len;
    i->nox = clo_cache_sim && cachesim_is_IrNoX(a, (UChar)len);
    i->line = l;
    i->id = instrs.nused;
    htab_add(&instrs, i, h, instrcc_rehash);
    return i;
}

static instrcc *get_instrcc(Addr a, UInt len, Addr entry, const linecc *owner, Bool follow)
{
    linecc *l = lookup_position(a, entry, owner, follow);
    UWord h = addr_hash(a);
    /* Several entries may share an address: code replaced by other code
     * (the newest is first), and code without a symbol run for several
     * functions (one entry each, see dynblock). */
    for (instrcc *i = instrs.slot[h & (instrs.nslots - 1)]; i; i = i->next)
        if (i->addr == a && i->line == l && i->len == len) return i;
    return new_instrcc(a, len, l);
}

/* A PLT entry by its code: [endbr64] [bnd] jmp *disp32(%rip), the shape of
 * the stubs of `.plt.sec` and `.plt.got`, which Valgrind does not mark as
 * PLT code (it knows only `.plt`). Only code without a symbol qualifies. */
static Bool stub_code(Addr a)
{
    if (!VG_(am_is_valid_for_client)(a, 8, VKI_PROT_READ | VKI_PROT_EXEC)) return False;
    const UChar *p = (const UChar *)a;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4;
    if (p[0] == 0xf2) p++;
    return p[0] == 0xff && p[1] == 0x25;
}

/* Code of a PLT section or a PLT-style stub: transparent in the call graph. */
static Bool is_plt(Addr a)
{
    if (VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT) return True;
    const HChar *name;
    return !VG_(get_fnname)(VG_(current_DiEpoch)(), a, &name) && stub_code(a);
}

/* Add every seg's runs into its instr counters (before writing, and at a
 * thread switch with --separate-threads). */
static void fold_segs(void)
{
    for (segchunk *ch = seg_chunks; ch; ch = ch->next)
        for (UInt x = 0; x < ch->n; x++) {
            ULong c = ch->count[x];
            if (!c) continue;
            seg *sg = ch->seg[x];
            for (UInt k = 0; k < sg->n; k++) {
                *sg->e[k].ctr += c;
                touch_instr(sg->e[k].ins);
            }
            ch->count[x] = 0;
        }
}

/*------------------------------------------------------------*/
/*--- Jumps (--collect-jumps=yes)                          ---*/
/*------------------------------------------------------------*/

/* A jump from an instruction to an address: a conditional one (jcnd:
 * executed, taken) or an unconditional one (jump: taken). */
typedef struct jrec {
    struct jrec *next;  /* the dynamic-target hash chain */
    struct jrec *snext; /* the site's list */
    struct jrec *lnext; /* a line's list, while writing */
    instrcc *site;
    Addr to;
    linecc *target;
    Bool cond;
    Bool inverted; /* the Exit goes to the next instruction: taken = !guard */
    Bool skip;     /* a jump into a function entry: a call, not a jump */
    Bool touched;  /* on `touched_jrecs` (--separate-threads) */
    UInt id;       /* its place in a thread's store (--separate-threads) */
    struct jrec *tnext;
    ULong exe, taken;
} jrec;

static jrec *touched_jrecs;

static inline void touch_jrec(jrec *j)
{
    if (clo_separate && !j->touched) {
        j->touched = True;
        j->tnext = touched_jrecs;
        touched_jrecs = j;
    }
}

/* Collection on or off (--toggle-collect, --collect-atstart, client
 * requests). Once `gated`, each run of a block adds this flag (0 or 1) to
 * its counters in the instrumented code; until collection first stops,
 * blocks add the constant 1, which saves a load per block. */
static Bool collecting = True;
static Bool gated;
static htab djumps; /* jumps with a computed target, by (site, target) */

static UInt n_jrecs;

/* The record of a jump from `site` to `to`: the one an earlier translation
 * of the same code made, or a new one. */
static jrec *get_jrec(instrcc *site, Addr to, Bool cond, Bool inverted)
{
    for (jrec *j = site->jumps; j; j = j->snext)
        if (j->to == to && j->cond == cond && j->inverted == inverted) return j;
    jrec *j = arena_alloc(sizeof *j);
    j->id = n_jrecs++;
    j->site = site;
    j->to = to;
    j->cond = cond;
    j->inverted = inverted;
    /* code without a symbol in the same object is the jumping function's */
    j->target = lookup_position(
        to, to, object_of(to, NULL) == object_of(site->addr, NULL) ? site->line : NULL, False);
    const HChar *name;
    j->skip = VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), to, &name) || is_plt(to);
    j->snext = site->jumps;
    site->jumps = j;
    return j;
}

static UWord jrec_rehash(const void *p)
{
    const jrec *j = p;
    return addr_hash(j->site->addr) ^ (addr_hash(j->to) * 31u);
}

static VG_REGPARM(2) void h_jcnd(jrec *j, UWord guard)
{
    if (!collecting) return;
    j->exe++;
    j->taken += j->inverted ? !guard : guard;
    touch_jrec(j);
}

static VG_REGPARM(1) void h_jump(jrec *j)
{
    if (!collecting) return;
    j->taken++;
    touch_jrec(j);
}

static VG_REGPARM(2) void h_jump_dyn(instrcc *site, Addr to)
{
    if (!collecting) return;
    UWord h = addr_hash(site->addr) ^ (addr_hash(to) * 31u);
    jrec *j;
    for (j = djumps.slot[h & (djumps.nslots - 1)]; j; j = j->next)
        if (j->site == site && j->to == to) break;
    if (!j) {
        j = get_jrec(site, to, False, False);
        if (++djumps.nused > djumps.nslots) htab_grow(&djumps, jrec_rehash);
        UWord k = h & (djumps.nslots - 1);
        j->next = djumps.slot[k];
        djumps.slot[k] = j;
    }
    j->taken++;
    touch_jrec(j);
}

/*------------------------------------------------------------*/
/*--- Run-time helpers (simulators only)                   ---*/
/*------------------------------------------------------------*/

/* The simulators run whether or not collection is on (the caches and
 * predictors keep their state); they count into the instr only while it is
 * on, and always into the running cost. */
static inline void count2(instrcc *n, Int e1, Int eL, ULong m1, ULong mL)
{
    if (collecting) {
        n->ev[e1] += m1;
        n->ev[eL] += mL;
        touch_instr(n);
    }
    cur_run[e1] += m1;
    cur_run[eL] += mL;
}

static inline void ir_nox(instrcc *n)
{
    ULong m1 = 0, mL = 0;
    cachesim_I1_doref_NoX(n->addr, (UChar)n->len, &m1, &mL);
    if (m1) count2(n, EV_I1mr, EV_ILmr, m1, mL);
}

static inline void d_ref(instrcc *n, Addr a, UWord size, Int e1, Int eL)
{
    ULong m1 = 0, mL = 0;
    cachesim_D1_doref(a, (UChar)size, &m1, &mL);
    if (m1) count2(n, e1, eL, m1, mL);
}

static VG_REGPARM(1) void h_ir(instrcc *n)
{
    ULong m1 = 0, mL = 0;
    cachesim_I1_doref(n->addr, (UChar)n->len, &m1, &mL);
    if (m1) count2(n, EV_I1mr, EV_ILmr, m1, mL);
}

/* Instructions that lie in one cache line (cachesim_is_IrNoX): one to three
 * per call, or one followed by its data access. Same results as the
 * general calls, fewer calls. Misses go to the running cost too (inclusive
 * costs, contexts). */
#define NOX(n) ir_nox(n)

static VG_REGPARM(1) void h_ir1x(instrcc *n)
{
    NOX(n);
}

static VG_REGPARM(2) void h_ir2x(instrcc *n, instrcc *m)
{
    NOX(n);
    NOX(m);
}

static VG_REGPARM(3) void h_ir3x(instrcc *n, instrcc *m, instrcc *o)
{
    NOX(n);
    NOX(m);
    NOX(o);
}

static VG_REGPARM(3) void h_irx_dr(instrcc *n, Addr a, UWord size)
{
    NOX(n);
    d_ref(n, a, size, EV_D1mr, EV_DLmr);
}

static VG_REGPARM(3) void h_irx_dw(instrcc *n, Addr a, UWord size)
{
    NOX(n);
    d_ref(n, a, size, EV_D1mw, EV_DLmw);
}

static VG_REGPARM(3) void h_dr(instrcc *n, Addr a, UWord size)
{
    d_ref(n, a, size, EV_D1mr, EV_DLmr);
}

static VG_REGPARM(3) void h_dw(instrcc *n, Addr a, UWord size)
{
    d_ref(n, a, size, EV_D1mw, EV_DLmw);
}

/* Guarded accesses count themselves (the call runs only if the guard is
 * true). */
static VG_REGPARM(3) void h_guarded_dr(instrcc *n, Addr a, UWord size)
{
    if (collecting) {
        n->ev[EV_Dr]++;
        touch_instr(n);
    }
    cur_run[EV_Dr]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mr, EV_DLmr);
}

static VG_REGPARM(3) void h_guarded_dw(instrcc *n, Addr a, UWord size)
{
    if (collecting) {
        n->ev[EV_Dw]++;
        touch_instr(n);
    }
    cur_run[EV_Dw]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mw, EV_DLmw);
}

static VG_REGPARM(2) void h_bc(instrcc *n, UWord taken)
{
    ULong m = 0;
    branchsim_cond(n->addr, (Word)taken, &m);
    if (collecting) {
        n->ev[EV_Bcm] += m;
        touch_instr(n);
    }
    cur_run[EV_Bcm] += m;
}

static VG_REGPARM(2) void h_bi(instrcc *n, Addr dst)
{
    ULong m = 0;
    branchsim_ind(n->addr, dst, &m);
    if (collecting) {
        n->ev[EV_Bim] += m;
        touch_instr(n);
    }
    cur_run[EV_Bim] += m;
}

/*------------------------------------------------------------*/
/*--- Call graph (--calls=yes)                             ---*/
/*------------------------------------------------------------*/

/* Static events of a block up to one of its exits: what runs when the
 * block is left through that exit (all queued events are flushed before
 * each Exit, so this is exact). */
enum { SX_Ir, SX_Dr, SX_Dw, SX_Bc, SX_Bi, N_SX };
static const Int sx_ev[N_SX] = {EV_Ir, EV_Dr, EV_Dw, EV_Bc, EV_Bi};

/* K_SIG: a signal handler is entered (set by the delivery, not by code);
 * K_START: a thread's first block (--contexts=yes). */
typedef enum { K_JUMP, K_CALL, K_RET, K_SIG, K_START } exitkind;

typedef struct {
    UChar kind;           /* exitkind */
    Bool from_resolver;   /* the block is in _dl_runtime_resolve* */
    Bool from_plt;        /* the block is PLT code */
    instrcc *site;        /* the instruction holding the exit */
    struct dynblock *dyn; /* code without a symbol: the site is dyn->cur[idx] */
    UInt idx;
    istr *obj; /* the object file of the block */
    UInt cost[N_SX];
} exitinfo;

#define PLT_MAX_INSTRS 4

/* A block of code without a symbol: it belongs to the function whose frame
 * runs it, decided each time it runs (as Callgrind does), so its
 * instructions have one instr per function they ran for (a clone), and
 * its segs, helpers and exits use the current one. */
typedef struct dynclone {
    struct dynclone *next;
    const struct linecc *owner;
    struct instrcc *ins[];
} dynclone;

typedef struct dynblock {
    const struct linecc *owner; /* the function it runs for now (read by the IR) */
    UInt n;                     /* instructions */
    Addr entry;                 /* its first instruction */
    struct seg *segs;
    dynclone *clones;
    struct sbinfo *sb;
    struct instrcc *cur[]; /* the current clone's instrs (read by the IR) */
} dynblock;

/* Instructions of a block that can have clones; longer blocks keep the
 * function they were first run for. */
#define DYN_MAX_INSTRS 128

typedef struct sbinfo {
    instrcc *first; /* the block's first instruction: the callee position */
    istr *obj;      /* its object file */
    Bool is_entry;  /* starts at a function symbol */
    Bool in_plt;
    Bool is_resolver;
    cct_fn *cfn;             /* the block's function in the context tree (--contexts=yes) */
    cct_node *cbase, *cnode; /* the last frame context it ran under, and its own */
    /* PLT code: its instrs, named after the function it leads to once
     * that is known (plt_owner) */
    linecc *plt_owner;
    UInt n_ins;
    instrcc *ins[PLT_MAX_INSTRS];
    dynblock *dyn; /* code without a symbol (see dynblock) */
} sbinfo;

/* One call site -> callee entry: count and inclusive cost. */
typedef struct arc {
    struct arc *next;  /* hash chain */
    struct arc *snext; /* the site's list */
    struct arc *lnext; /* a line's list, while writing */
    instrcc *site, *callee;
    ULong calls;
    ULong cost[N_EV];
    struct cct_node *cparent, *cchild; /* --contexts: the last call's contexts */
    UInt id;                           /* index into the threads' stores (--separate-threads) */
    Bool touched;                      /* on `touched_arcs` (--separate-threads) */
    struct arc *tnext;
} arc;

static arc *touched_arcs;

static inline void touch_arc(arc *a)
{
    if (clo_separate && !a->touched) {
        a->touched = True;
        a->tnext = touched_arcs;
        touched_arcs = a;
    }
}

/* A call, or (sig) the mark of a signal delivery: the handler's frames are
 * above it; its sp is the interrupted stack pointer, its `enter` the
 * running cost at delivery, and it keeps the interrupted thread's state. */
typedef struct {
    arc *a;          /* NULL for a signal mark */
    linecc *sigline; /* mark: `<signal N>` */
    Addr sp;
    Bool resolver;
    Bool toggle; /* the callee is --toggle-collect's function */
    Bool sig;
    /* mark of a handler on an alternate stack above the interrupted one:
     * the stack pointers the handler's code was seen at */
    Bool alt;
    Addr alt_lo, alt_hi;
    exitinfo *saved;      /* mark: the transition the delivery interrupted */
    instrcc *saved_plt;   /* mark: an unresolved call into a PLT stub */
    cct_node *node;       /* --contexts: the callee's context (mark: the root) */
    cct_node *saved_node; /* mark: the interrupted context */
    ULong enter[N_EV];
} frame;

/* PLT blocks run since the call into a stub; their costs are split among
 * them for the context tree (--contexts=yes) */
#define PLT_CHAIN 6

typedef struct {
    frame *stack;
    UInt depth, cap;
    exitinfo *pending; /* last exit before the thread was switched away */
    linecc *base;      /* the function of code without a symbol run at depth 0 */
    instrcc *plt_site; /* a call into a PLT stub, not yet resolved */
    Addr plt_sp;
    ULong plt_enter[N_EV]; /* running cost at that call (the stub is the callee's) */
    UInt n_plt;            /* PLT blocks run since then, and when each began */
    sbinfo *plt_sb[PLT_CHAIN];
    ULong plt_at[PLT_CHAIN][N_EV];
    ULong plt_snap[PLT_CHAIN][PLT_MAX_INSTRS][N_EV]; /* their instrs' counts then */
    Bool plt_wait;       /* they wait for the lazy-binding resolver's target */
    ULong plt_end[N_EV]; /* where the last of them ended (the resolver began) */
    UInt n_alt;          /* marks of handlers on an alternate stack above */
    cct_node *plt_node;  /* --contexts: the caller's node */
    ULong run[N_EV];
    UInt tid;
    /* --separate-threads: this thread's counts, by instr id (N_EV each),
     * by arc id (calls, then N_EV costs) and by jump id (executed, taken) */
    ULong *istore, *astore, *jstore;
    UInt n_istore, n_astore, n_jstore;
    cct_thread cct; /* --contexts=yes: where in the tree this thread runs */
} thread;

static exitinfo *last_exit; /* written by the instrumented code */
static thread **threads;
static UInt n_threads;
static thread *cur_thread;
static htab arcs;

static UWord arc_hash(const instrcc *site, const instrcc *callee)
{
    return addr_hash(site->addr) ^ (addr_hash(callee->addr) * 31u);
}

static UWord arc_rehash(const void *p)
{
    const arc *a = p;
    return arc_hash(a->site, a->callee);
}

static void note_entry_file(const linecc *l);

static arc *get_arc(instrcc *site, instrcc *callee)
{
    UWord h = arc_hash(site, callee);
    for (arc *a = arcs.slot[h & (arcs.nslots - 1)]; a; a = a->next)
        if (a->site == site && a->callee == callee) return a;
    arc *a = arena_alloc(sizeof *a);
    a->site = site;
    a->callee = callee;
    note_entry_file(callee->line);
    a->id = arcs.nused;
    a->snext = site->arcs;
    site->arcs = a;
    htab_add(&arcs, a, h, arc_rehash);
    return a;
}

static exitinfo start_exit = {.kind = K_START};

static thread *get_thread(ThreadId tid)
{
    threads = grow_by_tid(threads, &n_threads, tid, "tl.threads");
    if (!threads[tid]) {
        thread *t = VG_(calloc)("tl.thread", 1, sizeof(thread));
        t->tid = tid;
        if (clo_contexts) {
            /* the first block places the thread in the tree */
            cct_thread_init(&t->cct, tid, t->run);
            t->pending = &start_exit;
        }
        threads[tid] = t;
    }
    return threads[tid];
}

/*--- Contexts (--contexts=yes; the tree is in tl_cct.c) ---*/

/* The tree's cost vectors are the tool's. */
typedef char cct_ev_check[CCT_N_EV == N_EV ? 1 : -1];

static cct_fn *fn_of(linecc *l)
{
    if (!l->cfn) l->cfn = cct_fn_get(l->obj->s, l->file->s, l->fn->s);
    return l->cfn;
}

/* The context of the innermost frame (a mark's is the root). */
static cct_node *frame_node(thread *t)
{
    return t->depth ? t->stack[t->depth - 1].node : t->cct.root;
}

/* A block starts: code of another function than the frame's (reached by a
 * jump, a PLT stub, code before the first call) runs in a child context of
 * the frame's, so that every cost is in a context of its own function. */
static const linecc *frame_owner(const thread *t);

static void cct_block(thread *t, sbinfo *sb)
{
    cct_node *base = frame_node(t);
    const linecc *o = sb->dyn ? frame_owner(t) : NULL;
    if (o) {
        /* code without a symbol runs for the frame's function (h_dyn
         * switches the block to it right after this) */
        cct_fn *fn = fn_of((linecc *)o);
        cct_node *n = cct_node_fn(base) == fn ? base : cct_child(base, fn);
        if (n != t->cct.cur) cct_switch(&t->cct, n, t->run, collecting);
        return;
    }
    if (sb->cbase != base) {
        sb->cbase = base;
        sb->cnode = cct_node_fn(base) == sb->cfn ? base : cct_child(base, sb->cfn);
    }
    if (sb->cnode != t->cct.cur) cct_switch(&t->cct, sb->cnode, t->run, collecting);
}

/* Charge every thread's current context (charge) or forget what ran since
 * the last charge. */
static void cct_restart(Bool charge)
{
    if (!clo_contexts) return;
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k]) cct_switch(&threads[k]->cct, threads[k]->cct.cur, threads[k]->run, charge);
}

static istr *toggle_fn;
static UInt toggle_depth;
static void collect_start(void);
static void collect_stop(void);

static frame *new_frame(thread *t)
{
    if (t->depth == t->cap) {
        UInt n = t->cap ? t->cap * 2 : 64;
        frame *f = VG_(malloc)("tl.stack", n * sizeof *f);
        if (t->depth) VG_(memcpy)(f, t->stack, t->depth * sizeof *f);
        if (t->stack) VG_(free)(t->stack);
        t->stack = f;
        t->cap = n;
    }
    frame *f = &t->stack[t->depth++];
    VG_(memset)(f, 0, sizeof *f - sizeof f->enter);
    VG_(memcpy)(f->enter, t->run, sizeof f->enter);
    return f;
}

static void push_call(thread *t, instrcc *site, instrcc *callee, Addr sp, Bool resolver)
{
    Bool toggle = toggle_fn && callee->line->fn == toggle_fn;
    if (toggle && toggle_depth++ == 0) collect_start();
    frame *f = new_frame(t);
    f->a = get_arc(site, callee);
    if (collecting) {
        f->a->calls++;
        touch_arc(f->a);
    }
    f->sp = sp;
    f->resolver = resolver;
    f->toggle = toggle;
    if (clo_contexts) {
        cct_fn *fn = fn_of(callee->line);
        if (f->a->cparent != t->cct.cur) {
            f->a->cparent = t->cct.cur;
            f->a->cchild = cct_child(t->cct.cur, fn);
        }
        f->node = f->a->cchild;
        cct_called(f->node, fn);
        cct_switch(&t->cct, f->node, t->run, collecting);
    }
    if (rms_on)
        rms_on_call(t->tid, callee->line->fn, callee->line->obj, callee->line->fn->s,
                    callee->line->obj->s, resolver, t->run[EV_Ir]);
}

/* A signal mark is gone (the handler returned, or longjmp left it): what
 * the handler ran is not the interrupted frames' cost. */
static void end_signal(thread *t, const frame *m)
{
    for (Int e = 0; e < N_EV; e++) {
        ULong h = t->run[e] - m->enter[e];
        for (UInt d = 0; d < t->depth; d++)
            t->stack[d].enter[e] += h;
        t->plt_enter[e] += h;
    }
}

static frame *pop_call(thread *t)
{
    frame *f = &t->stack[--t->depth];
    if (clo_contexts)
        cct_switch(&t->cct, f->sig ? f->saved_node : frame_node(t), t->run, collecting);
    if (f->sig) {
        if (f->alt) t->n_alt--;
        end_signal(t, f);
        if (rms_on) rms_on_signal_end(t->tid, t->run[EV_Ir]);
        return f;
    }
    if (collecting) {
        for (Int e = 0; e < N_EV; e++)
            f->a->cost[e] += t->run[e] - f->enter[e];
        touch_arc(f->a);
    }
    if (rms_on) rms_on_return(t->tid, f->resolver, t->run[EV_Ir]);
    if (f->toggle && --toggle_depth == 0) collect_stop();
    return f;
}

/*--- PLT code ---*/

/*
 * PLT stubs are transparent: a call (or a tail jump) into PLT code is
 * recorded from its site to the function the stub leads to, and the code
 * of a stub is the code of that function (its instrs are named after it,
 * file ??? line 0; the cachegrind file still has them as ???). The lazy
 * binding resolver is called from the same site; the block that jumped to
 * it is its code, the stub before it waits for the function the resolver
 * hands over to.
 */
static void plt_flush(thread *t);

static void plt_begin(thread *t, instrcc *site, Addr sp)
{
    if (clo_contexts) {
        plt_flush(t); /* blocks still waiting keep their names */
        /* what ran before the stub is the caller's */
        cct_switch(&t->cct, t->cct.cur, t->run, collecting);
        t->plt_node = t->cct.cur;
    }
    t->n_plt = 0;
    t->plt_wait = False;
    t->plt_site = site;
    t->plt_sp = sp;
    VG_(memcpy)(t->plt_enter, t->run, sizeof t->plt_enter);
}

/* A PLT block runs for the pending call. */
static void dyn_fold(dynblock *d);
static void dyn_point(dynblock *d, const linecc *o);

static void plt_note(thread *t, sbinfo *sb)
{
    /* what it ran before is its earlier targets' (see plt_name) */
    if (sb->dyn) dyn_fold(sb->dyn);
    if (t->n_plt == PLT_CHAIN) return; /* the last one takes the rest */
    if (sb->dyn)
        for (UInt i = 0; i < sb->dyn->n && i < PLT_MAX_INSTRS; i++)
            VG_(memcpy)(t->plt_snap[t->n_plt][i], sb->dyn->cur[i]->ev, sizeof(ULong) * N_EV);
    t->plt_sb[t->n_plt] = sb;
    VG_(memcpy)(t->plt_at[t->n_plt], t->run, sizeof t->plt_at[0]);
    t->n_plt++;
}

/* Chain block k leads to owner's function: its code counts for it. */
static void plt_name(thread *t, UInt k, const linecc *owner)
{
    sbinfo *sb = t->plt_sb[k];
    dynblock *d = sb->dyn;
    if (d) {
        if (d->owner == owner) return;
        /* this run counts for owner: its seg counts since plt_note
         * folded, and what the helpers added since (misses) */
        instrcc *old[PLT_MAX_INSTRS];
        UInt n = d->n < PLT_MAX_INSTRS ? d->n : PLT_MAX_INSTRS;
        for (UInt i = 0; i < n; i++)
            old[i] = d->cur[i];
        dyn_point(d, owner);
        for (UInt i = 0; i < n; i++) {
            if (old[i] == d->cur[i]) continue;
            for (Int e = 0; e < N_EV; e++) {
                ULong moved = old[i]->ev[e] - t->plt_snap[k][i][e];
                if (old[i]->ev[e] < t->plt_snap[k][i][e] || !moved) continue;
                old[i]->ev[e] -= moved;
                d->cur[i]->ev[e] += moved;
            }
            touch_instr(old[i]);
            touch_instr(d->cur[i]);
        }
        return;
    }
    if (sb->plt_owner) return;
    istr *unk = intern("???");
    linecc *l = get_linecc(unk, owner->fn, owner->obj, unk, 0);
    sb->plt_owner = l;
    for (UInt k = 0; k < sb->n_ins; k++)
        sb->ins[k]->line = l;
    if (clo_contexts) {
        sb->cfn = fn_of(l);
        sb->cbase = NULL;
    }
}

/* The end of the cost of chain block k: the start of the next, or (the
 * last) the resolver's start while the chain waits for it, or now. */
static const ULong *plt_end_of(const thread *t, UInt k)
{
    return k + 1 < t->n_plt ? t->plt_at[k + 1] : t->plt_wait ? t->plt_end : t->run;
}

/* Empty the chain; with --contexts, charge each block to the node of its
 * function under the caller's node (the caller is charged up to now). */
static void plt_flush(thread *t)
{
    if (clo_contexts && t->n_plt) {
        if (collecting)
            for (UInt k = 0; k < t->n_plt; k++)
                cct_add(cct_child(t->plt_node, t->plt_sb[k]->cfn), plt_end_of(t, k), t->plt_at[k]);
        cct_skip(t->run, t->cct.mark);
    }
    t->n_plt = 0;
    t->plt_wait = False;
}

/* The pending PLT call reaches the block `sb`: name the PLT blocks that
 * ran for it. When sb is the lazy-binding resolver, only the last block
 * (the one that jumped to it) is the resolver's; the others wait for the
 * function it resolves (plt_resolved). */
static void plt_settle(thread *t, sbinfo *sb)
{
    if (t->n_plt == 0) return;
    if (!sb->is_resolver) {
        for (UInt k = 0; k < t->n_plt; k++)
            plt_name(t, k, sb->first->line);
        plt_flush(t);
        return;
    }
    UInt last = t->n_plt - 1;
    plt_name(t, last, sb->first->line);
    if (clo_contexts) {
        VG_(memcpy)(t->plt_end, t->plt_at[last], sizeof t->plt_end);
        if (collecting)
            cct_add(cct_child(t->plt_node, t->plt_sb[last]->cfn), t->run, t->plt_at[last]);
        cct_skip(t->run, t->cct.mark);
    }
    t->n_plt = last;
    t->plt_wait = True;
}

/* The resolver hands over to `sb`: the blocks that waited are its code. */
static void plt_resolved(thread *t, sbinfo *sb)
{
    if (!t->plt_wait) return;
    for (UInt k = 0; k < t->n_plt; k++)
        plt_name(t, k, sb->first->line);
    plt_flush(t);
}

/*
 * The function that a block starting at `start` without a symbol belongs
 * to (NULL: a function of its own). Decided when the block is translated,
 * right before it first runs: code entered by a call, a signal delivery or
 * a jump that counts as a call is a function of its own, named by its
 * address; code reached by a jump, a fall-through or a return belongs to
 * the function whose frame it runs in, as Callgrind charges it.
 */
/* The innermost alternate-stack mark (see below), or NULL. */
static frame *alt_mark(thread *t)
{
    for (UInt d = t->depth; d > 0; d--)
        if (t->stack[d - 1].alt) return &t->stack[d - 1];
    return NULL;
}

/* A call inside a handler on an alternate stack widens the range of
 * stack pointers known to be the handler's. */
static void note_alt_sp(thread *t, const exitinfo *x, Addr sp)
{
    frame *m = alt_mark(t);
    if (m && x->kind == K_CALL) {
        if (sp < m->alt_lo) m->alt_lo = sp;
        if (sp > m->alt_hi) m->alt_hi = sp;
    }
}

/* True when the top frame is the mark of a handler that runs on an
 * alternate stack above the interrupted stack, and control is still on
 * that stack: the interrupted frames below it have lower stack pointers
 * but are not returned from. Control has left it when a jump or return
 * (siglongjmp) lands outside the stack pointers seen in the handler. */
static Bool alt_shields(const frame *m, const exitinfo *x, Addr sp)
{
    if (!m->alt) return False;
    return x->kind == K_CALL || (sp >= m->alt_lo && sp <= m->alt_hi + 4096);
}

/*--- Code without a symbol: the function it runs for ---*/

/* The function that code without a symbol runs for now: the running
 * thread's innermost frame's (a mark's `<signal N>`, at depth 0 the
 * thread's base). The IR of a dynblock compares it with the block's. */
static const linecc *cur_owner;

static const linecc *frame_owner(const thread *t)
{
    if (t->depth == 0) return t->base;
    const frame *f = &t->stack[t->depth - 1];
    return f->sig ? f->sigline : f->a->callee->line;
}

static inline void note_owner(const thread *t)
{
    if (t == cur_thread) cur_owner = frame_owner(t);
}

/* The site of an exit: in a dynblock, the instr of the function the block
 * runs for now. */
static inline instrcc *exit_site(const exitinfo *x)
{
    return x->dyn ? x->dyn->cur[x->idx] : x->site;
}

/* The block now runs for `o`: what its segs counted goes to the instrs of
 * the function it ran for, and they count into o's from now on. */
/* What the block's segs counted goes to the instrs they count for. */
static void dyn_fold(dynblock *d)
{
    for (seg *sg = d->segs; sg; sg = sg->dnext) {
        ULong c = *sg->count;
        if (!c) continue;
        for (UInt k = 0; k < sg->n; k++) {
            *sg->e[k].ctr += c;
            touch_instr(sg->e[k].ins);
        }
        *sg->count = 0;
    }
}

/* From now on (counts not yet folded included) the block counts for o. */
static void dyn_point(dynblock *d, const linecc *o)
{
    dynclone *c = d->clones;
    while (c && c->owner != o)
        c = c->next;
    if (!c) {
        c = arena_alloc(sizeof *c + d->n * sizeof c->ins[0]);
        c->owner = o;
        for (UInt k = 0; k < d->n; k++)
            c->ins[k] = get_instrcc(d->cur[k]->addr, d->cur[k]->len, d->entry, o, True);
        c->next = d->clones;
        d->clones = c;
    }
    for (seg *sg = d->segs; sg; sg = sg->dnext)
        for (UInt k = 0; k < sg->n; k++) {
            instrcc *i = c->ins[sg->e[k].idx];
            sg->e[k].ins = i;
            sg->e[k].ctr = &i->ev[sg->e[k].which];
        }
    for (UInt k = 0; k < d->n; k++)
        d->cur[k] = c->ins[k];
    d->owner = o;
    if (clo_contexts && d->sb) {
        d->sb->cfn = fn_of(c->ins[0]->line);
        d->sb->cbase = NULL;
    }
}

static void dyn_switch(dynblock *d, const linecc *o)
{
    dyn_fold(d);
    dyn_point(d, o);
}

static thread *running_thread(void)
{
    return cur_thread ? cur_thread : get_thread(VG_(get_running_tid)());
}

static linecc *block_owner(Addr start)
{
    thread *t = running_thread();
    if (!clo_calls || !t) return NULL;
    exitinfo *x = last_exit;
    if (x) {
        if (x->kind == K_CALL || x->kind == K_SIG || x->kind == K_START) return NULL;
        if (x->kind == K_JUMP &&
            (x->from_plt || x->from_resolver || x->obj != object_of(start, NULL)))
            return NULL;
    }
    UInt d = t->depth;
    if (x) {
        Addr sp = VG_(get_SP)(t->tid);
        while (d > 0 && t->stack[d - 1].sp < sp && !alt_shields(&t->stack[d - 1], x, sp))
            d--;
        if (x->kind == K_RET && d == t->depth && d > 0 && !t->stack[d - 1].sig)
            return NULL; /* a stack switch calls it (enter_block) */
    }
    if (d == 0) return t->base;
    /* the signal return trampoline runs under the delivery's mark */
    frame *f = &t->stack[d - 1];
    return f->sig ? f->sigline : f->a->callee->line;
}

/*
 * How control came into this block (research §5.3, simplified): frames
 * whose stack pointer is below the current one have returned (a return,
 * longjmp or unwinding); a call pushes; a jump to a function's first
 * instruction, or into another object, is a tail call and pushes with the
 * caller's stack pointer, so one return pops both. PLT code is
 * transparent (see plt_begin). A jump out of the lazy-binding resolver
 * replaces the resolver's frame by the resolved function's.
 */
static void enter_block(thread *t, exitinfo *x, sbinfo *sb, UWord sp)
{
    if (x->kind == K_START) return;
    if (x->kind == K_SIG) {
        /* the handler is called by `<signal N>`, a root of the graph */
        if (clo_contexts) {
            cct_fn *sf = fn_of(exit_site(x)->line);
            cct_node *sn = cct_child(t->cct.root, sf);
            cct_called(sn, sf);
            cct_switch(&t->cct, sn, t->run, collecting);
        }
        if (t->depth > 0 && t->stack[t->depth - 1].sig && t->stack[t->depth - 1].sp < sp) {
            /* an alternate stack above the interrupted one: its frames
             * must not close the interrupted ones (see alt_shields) */
            frame *m = &t->stack[t->depth - 1];
            m->alt = True;
            m->alt_lo = m->alt_hi = sp;
            t->n_alt++;
        }
        push_call(t, exit_site(x), sb->first, sp, sb->is_resolver);
        return;
    }
    if (t->n_alt) note_alt_sp(t, x, sp);
    Bool popped = False;
    while (t->depth > 0 && t->stack[t->depth - 1].sp < sp &&
           !alt_shields(&t->stack[t->depth - 1], x, sp)) {
        pop_call(t);
        popped = True;
    }
    if (popped) {
        t->plt_site = NULL;
        return;
    }
    Addr tail_sp = t->depth > 0 ? t->stack[t->depth - 1].sp : sp;
    if (sb->in_plt) {
        if (x->kind == K_CALL)
            plt_begin(t, exit_site(x), sp);
        else if (x->kind == K_JUMP && !x->from_plt)
            plt_begin(t, exit_site(x), tail_sp); /* a tail call through the PLT */
        if (t->plt_site) plt_note(t, sb);
        return;
    }
    if (x->kind == K_CALL) {
        push_call(t, exit_site(x), sb->first, sp, sb->is_resolver);
        return;
    }
    if (x->kind == K_RET) {
        /* A return that leaves no frame switches stacks (swapcontext to a
         * coroutine): it calls the code it lands in, as in Callgrind, and
         * the switch back, a return above that frame, ends the call. */
        if (t->depth > 0 && !t->stack[t->depth - 1].sig)
            push_call(t, exit_site(x), sb->first, tail_sp, False);
        return;
    }
    if (t->plt_site) {
        plt_settle(t, sb);
        push_call(t, t->plt_site, sb->first, t->plt_sp, sb->is_resolver);
        VG_(memcpy)(t->stack[t->depth - 1].enter, t->plt_enter, sizeof t->plt_enter);
        t->plt_site = NULL;
        return;
    }
    if (x->from_resolver && t->depth > 0 && t->stack[t->depth - 1].resolver) {
        frame *f = pop_call(t);
        plt_resolved(t, sb);
        push_call(t, f->a->site, sb->first, f->sp, False);
        return;
    }
    /* A tail-called piece (main.cold, entered by a jump from the unwinder
     * or from main) that jumps back into the code of the function below
     * it, on the same stack pointer, has returned to it. */
    if (t->depth > 1 && !sb->is_entry && sb->obj == x->obj) {
        frame *top = &t->stack[t->depth - 1], *below = top - 1;
        if (!top->sig && !below->sig && top->sp == below->sp &&
            below->a->callee->line->fn == sb->first->line->fn &&
            top->a->callee->line->fn != sb->first->line->fn) {
            pop_call(t);
            return;
        }
    }
    if (sb->is_entry || sb->obj != x->obj) {
        push_call(t, exit_site(x), sb->first, tail_sp, sb->is_resolver);
        return;
    }
}

static VG_REGPARM(2) void h_enter(sbinfo *sb, UWord sp)
{
    thread *t = cur_thread;
    exitinfo *x = last_exit;
    last_exit = NULL;
    if (x && t) {
        enter_block(t, x, sb, sp);
        note_owner(t);
        /* PLT code of a pending call is charged when the call is recorded */
        if (clo_contexts && !(sb->in_plt && t->plt_site)) cct_block(t, sb);
    }
    /* the block runs for another function than last time */
    if (sb->dyn && !sb->in_plt && cur_owner && cur_owner != sb->dyn->owner)
        dyn_switch(sb->dyn, cur_owner);
}

/*--- Signals ---*/

/* `<signal N>`: a pseudo function (file and object ???) whose one pseudo
 * instruction, at address N, is the call site of N's handlers. */
static exitinfo *sig_exits[65];

static exitinfo *signal_exit(Int sig)
{
    UInt k = sig > 0 && sig < 65 ? (UInt)sig : 0;
    if (!sig_exits[k]) {
        HChar name[32];
        VG_(sprintf)(name, "<signal %d>", sig);
        istr *unk = intern("???"), *nm = intern(name);
        linecc *l = get_linecc(unk, nm, unk, nm, 0);
        l->pseudo = True;
        exitinfo *x = arena_alloc(sizeof *x);
        x->kind = K_SIG;
        x->site = new_instrcc(k, 1, l);
        sig_exits[k] = x;
    }
    return sig_exits[k];
}

/* Delivery: a mark on the thread's stack keeps the interrupted state; the
 * handler's first block pushes `<signal N>` -> handler above it. */
static void tl_pre_deliver_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
    if (!clo_calls) return;
    thread *t = get_thread(tid);
    exitinfo **pend = t == cur_thread ? &last_exit : &t->pending;
    frame *m = new_frame(t);
    m->sig = True;
    if (rms_on) rms_on_signal(tid, sigNo, t->run[EV_Ir]);
    m->sp = VG_(get_SP)(tid);
    m->saved = *pend;
    m->saved_plt = t->plt_site;
    m->sigline = signal_exit(sigNo)->site->line;
    m->node = t->cct.root;
    m->saved_node = t->cct.cur;
    t->plt_site = NULL;
    *pend = signal_exit(sigNo);
    note_owner(t);
}

/* The handler returned (sigreturn): close what it left open, drop the mark
 * and resume the interrupted transition. Not called when the handler
 * longjmps; then the mark is popped with the frames it jumps over. */
static void tl_post_deliver_signal(ThreadId tid, Int sigNo)
{
    if (!clo_calls) return;
    thread *t = get_thread(tid);
    UInt d = t->depth;
    while (d > 0 && !t->stack[d - 1].sig)
        d--;
    if (d == 0) return;
    while (t->depth > d)
        pop_call(t);
    frame *m = pop_call(t);
    *(t == cur_thread ? &last_exit : &t->pending) = m->saved;
    t->plt_site = m->saved_plt;
    note_owner(t);
}

/* The scheduler gives the CPU to `tid`: costs now run into its vector, and
 * the transition the previous thread was in the middle of waits for it. */
static void stash(thread *t);
static Bool counted = True; /* the counters may hold counts of cur_thread */

static void tl_start_client_code(ThreadId tid, ULong bbs_done)
{
    thread *t = get_thread(tid);
    if (t == cur_thread) return;
    if (clo_separate && cur_thread && counted) {
        /* what ran since the last switch was the old thread's */
        fold_segs();
        stash(cur_thread);
        counted = collecting;
    }
    if (cur_thread) cur_thread->pending = last_exit;
    last_exit = t->pending;
    t->pending = NULL;
    cur_thread = t;
    cur_run = t->run;
    note_owner(t);
    if (rms_on) rms_on_switch(tid);
}

/* A thread ends: its open calls (start_thread, clone, and whatever
 * pthread_exit left) end with it, and the next thread given its id starts
 * afresh. */
static void tl_thread_exit(ThreadId tid)
{
    if (!clo_calls || tid >= n_threads || !threads[tid]) return;
    thread *t = threads[tid];
    /* what the closing calls charge is this thread's (--separate-threads) */
    if (t != cur_thread) tl_start_client_code(tid, 0);
    exitinfo **pend = &last_exit;
    *pend = NULL;
    while (t->depth > 0)
        pop_call(t);
    t->plt_site = NULL;
    t->n_plt = 0;
    t->plt_wait = False;
    t->base = NULL;
    note_owner(t);
    if (clo_contexts) {
        cct_switch(&t->cct, t->cct.root, t->run, collecting);
        *pend = &start_exit;
    }
}

/* At exit: close every open call. */
static void calls_finish(void)
{
    last_exit = NULL;
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k])
            while (threads[k]->depth > 0)
                pop_call(threads[k]);
}

/*------------------------------------------------------------*/
/*--- Collection on and off, zeroing, parts                ---*/
/*------------------------------------------------------------*/

/*
 * While collection is off, nothing is counted: each run of a block adds
 * `collecting` (0) to its counters instead of 1, the helpers and the call
 * tracking test `collecting`. The running cost of each thread always
 * advances (it is the clock of the input-sensitive profile), so open calls
 * are charged up to the moment collection stops, and their entry cost is
 * moved to the moment it starts again. Starting and stopping cost a walk of
 * the call stacks, not of the counters. Blocks are instrumented with the
 * gate from the start when collection may stop (--toggle-collect,
 * --collect-atstart=no); otherwise the first stop (a client request) folds
 * the counts and has every block translated again, with the gate.
 */
static Bool all_zero(const ULong *ev);

/* --separate-threads: move the counters into t's store (stash) or put the
 * store back into the counters (unstash, emptying it if `clear`). */
static ULong *grow_store(ULong *v, UInt *n, UInt need, UInt width)
{
    if (need <= *n) return v;
    UInt m = need + need / 2 + 64;
    ULong *w = VG_(calloc)("tl.store", (SizeT)m * width, sizeof(ULong));
    if (v) {
        VG_(memcpy)(w, v, (SizeT)*n * width * sizeof(ULong));
        VG_(free)(v);
    }
    *n = m;
    return w;
}

/* Charge (or, with add False, only restart) every open call at the
 * current running cost. With --separate-threads, a thread that is not
 * running is charged in its own store. */
static void restart_thread_frames(thread *t, Bool add)
{
    /* frames below a signal mark are charged up to the delivery */
    ULong upto[N_EV];
    VG_(memcpy)(upto, t->run, sizeof upto);
    for (UInt d = t->depth; d-- > 0;) {
        frame *f = &t->stack[d];
        if (f->sig)
            VG_(memcpy)(upto, f->enter, sizeof upto);
        else if (add) {
            ULong *c = f->a->cost;
            if (clo_separate && t != cur_thread) {
                t->astore = grow_store(t->astore, &t->n_astore, f->a->id + 1, N_EV + 1);
                c = &t->astore[(SizeT)f->a->id * (N_EV + 1) + 1];
            } else {
                touch_arc(f->a);
            }
            for (Int e = 0; e < N_EV; e++)
                c[e] += upto[e] - f->enter[e];
        }
        VG_(memcpy)(f->enter, t->run, sizeof f->enter);
    }
    VG_(memcpy)(t->plt_enter, t->run, sizeof t->plt_enter);
}

static void restart_frames(Bool add)
{
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k]) restart_thread_frames(threads[k], add);
}

/* The counters (folded) into t's store: only what was counted into since
 * the last stash, which the touched lists hold. */
static void stash(thread *t)
{
    for (instrcc *i = touched_instrs; i; i = i->tnext) {
        i->touched = False;
        if (all_zero(i->ev)) continue;
        t->istore = grow_store(t->istore, &t->n_istore, i->id + 1, N_EV);
        for (Int e = 0; e < N_EV; e++) {
            t->istore[(SizeT)i->id * N_EV + e] += i->ev[e];
            i->ev[e] = 0;
        }
    }
    touched_instrs = NULL;
    for (arc *a = touched_arcs; a; a = a->tnext) {
        a->touched = False;
        if (!a->calls && all_zero(a->cost)) continue;
        t->astore = grow_store(t->astore, &t->n_astore, a->id + 1, N_EV + 1);
        ULong *c = &t->astore[(SizeT)a->id * (N_EV + 1)];
        c[0] += a->calls;
        a->calls = 0;
        for (Int e = 0; e < N_EV; e++) {
            c[e + 1] += a->cost[e];
            a->cost[e] = 0;
        }
    }
    touched_arcs = NULL;
    for (jrec *j = touched_jrecs; j; j = j->tnext) {
        j->touched = False;
        if (!j->exe && !j->taken) continue;
        t->jstore = grow_store(t->jstore, &t->n_jstore, j->id + 1, 2);
        t->jstore[(SizeT)j->id * 2] += j->exe;
        t->jstore[(SizeT)j->id * 2 + 1] += j->taken;
        j->exe = j->taken = 0;
    }
    touched_jrecs = NULL;
}

static void unstash(thread *t, Bool clear)
{
    for (UWord k = 0; k < instrs.nslots; k++)
        for (instrcc *i = instrs.slot[k]; i; i = i->next) {
            if (i->id >= t->n_istore) continue;
            ULong *c = &t->istore[(SizeT)i->id * N_EV];
            for (Int e = 0; e < N_EV; e++)
                i->ev[e] += c[e];
            if (clear) VG_(memset)(c, 0, N_EV * sizeof(ULong));
        }
    for (UWord k = 0; k < arcs.nslots; k++)
        for (arc *a = arcs.slot[k]; a; a = a->next) {
            if (a->id >= t->n_astore) continue;
            ULong *c = &t->astore[(SizeT)a->id * (N_EV + 1)];
            a->calls += c[0];
            for (Int e = 0; e < N_EV; e++)
                a->cost[e] += c[e + 1];
            if (clear) VG_(memset)(c, 0, (N_EV + 1) * sizeof(ULong));
        }
    if (!clo_jumps) return;
    for (UWord k = 0; k < instrs.nslots; k++)
        for (instrcc *i = instrs.slot[k]; i; i = i->next)
            for (jrec *j = i->jumps; j; j = j->snext) {
                if (j->id >= t->n_jstore) continue;
                ULong *c = &t->jstore[(SizeT)j->id * 2];
                j->exe += c[0];
                j->taken += c[1];
                if (clear) c[0] = c[1] = 0;
            }
}

/* Everything counted so far into the threads' stores: the current
 * counters are the running thread's; each thread's open calls are charged
 * into its own store. With `final`, the open calls are closed. */
static void stash_all(Bool final)
{
    fold_segs();
    if (cur_thread) stash(cur_thread);
    for (UInt k = 0; k < n_threads; k++) {
        thread *t = threads[k];
        if (!t) continue;
        if (clo_calls) {
            if (final)
                while (t->depth > 0)
                    pop_call(t);
            else if (collecting)
                restart_thread_frames(t, True);
        }
        stash(t);
    }
}

/* Every counter to zero. */
static void clear_counters(void)
{
    for (UWord k = 0; k < instrs.nslots; k++)
        for (instrcc *i = instrs.slot[k]; i; i = i->next)
            VG_(memset)(i->ev, 0, sizeof i->ev);
    for (UWord k = 0; k < arcs.nslots; k++)
        for (arc *a = arcs.slot[k]; a; a = a->next) {
            a->calls = 0;
            VG_(memset)(a->cost, 0, sizeof a->cost);
        }
}

static void set_collecting(Bool on)
{
    collecting = on;
    if (on) counted = True;
}

/* Rare (kept out of line, so that push_call and pop_call stay small) */
static __attribute__((noinline)) void collect_start(void)
{
    if (collecting) return;
    if (clo_calls) restart_frames(False);
    cct_restart(False);
    set_collecting(True);
}

static __attribute__((noinline)) void collect_stop(void)
{
    if (!collecting) return;
    cct_restart(True);
    if (clo_calls) restart_frames(True);
    if (!gated) {
        /* every block counts 1 per run: fold them all and translate anew
         * (the rest of the running block counts into a dropped segment) */
        fold_segs();
        seg_chunks = NULL;
        gated = True;
        VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "tally");
    }
    set_collecting(False);
}

static void clear_jumps(void);
static void zero_counts(void)
{
    fold_segs();
    clear_jumps();
    if (clo_calls) restart_frames(False);
    clear_counters();
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k]) {
            thread *t = threads[k];
            if (t->istore) VG_(memset)(t->istore, 0, (SizeT)t->n_istore * N_EV * sizeof(ULong));
            if (t->astore)
                VG_(memset)(t->astore, 0, (SizeT)t->n_astore * (N_EV + 1) * sizeof(ULong));
            if (t->jstore) VG_(memset)(t->jstore, 0, (SizeT)t->n_jstore * 2 * sizeof(ULong));
        }
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

typedef enum { Ev_Ir, Ev_Dr, Ev_Dw, Ev_Bc, Ev_Bi } evkind;

typedef struct {
    evkind kind;
    instrcc *ins;
    IRExpr *addr;  /* Dr, Dw: the address */
    Int size;      /* Dr, Dw: bytes */
    IRExpr *extra; /* Bc: taken (word); Bi: the target */
    Bool i1hit;    /* Ir: a sure I1 hit on the most recently used line */
    UShort idx;    /* the instruction's index in the block */
} event;

#define N_EVENTS 16

typedef struct {
    IRSB *sbOut;
    event ev[N_EVENTS];
    Int nev;
    UInt cnt[N_SX];       /* events of the block so far, by evkind (= SX_ order) */
    UInt charged[N_SX];   /* of which already added to the running cost */
    UInt idx;             /* the current instruction's index in the block */
    struct dynblock *dyn; /* a block of code without a symbol, or NULL */
} tlstate;

static void emit_call(IRSB *sb, Int regparms, const HChar *name, void *fn, IRExpr **args,
                      IRExpr *guard)
{
    IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
    if (guard) di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* The instr of an event as a helper's argument: a constant, or, in a block
 * of code without a symbol, the instr of the function it now runs for. */
static IRExpr *ins_atom(tlstate *st, instrcc *ins, UInt idx)
{
    if (!st->dyn) return mkIRExpr_HWord((HWord)ins);
    IRTemp t = newIRTemp(st->sbOut->tyenv, Ity_I64);
    addStmtToIRSB(
        st->sbOut,
        IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&st->dyn->cur[idx]))));
    return IRExpr_RdTmp(t);
}

static void flush_events(tlstate *st)
{
    if (st->nev == 0) return;
    IRSB *sb = st->sbOut;
    seg *s = arena_alloc(sizeof(seg) + st->nev * sizeof(s->e[0]));
    s->n = st->nev;
    for (Int k = 0; k < st->nev; k++) {
        event *e = &st->ev[k];
        static const Int which[] = {EV_Ir, EV_Dr, EV_Dw, EV_Bc, EV_Bi};
        s->e[k].ctr = &e->ins->ev[which[e->kind]];
        s->e[k].ins = e->ins;
        s->e[k].idx = e->idx;
        s->e[k].which = (UShort)which[e->kind];
    }
    if (st->dyn) {
        s->dnext = st->dyn->segs;
        st->dyn->segs = s;
    }
    if (!seg_chunks || seg_chunks->n == SEG_CHUNK) {
        segchunk *ch = VG_(calloc)("tl.segs", 1, sizeof *ch);
        ch->next = seg_chunks;
        seg_chunks = ch;
    }
    s->count = &seg_chunks->count[seg_chunks->n];
    seg_chunks->seg[seg_chunks->n++] = s;

    /* count += 1 (or collecting) as plain IR: load, add, store. */
    IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
    IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)s->count))));
    IRExpr *inc = IRExpr_Const(IRConst_U64(1));
    if (gated) {
        IRTemp b = newIRTemp(sb->tyenv, Ity_I8), g = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(
            sb, IRStmt_WrTmp(b, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&collecting))));
        addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Unop(Iop_8Uto64, IRExpr_RdTmp(b))));
        inc = IRExpr_RdTmp(g);
    }
    addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1), inc)));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)s->count), IRExpr_RdTmp(t2)));

    /* The simulators, in program order. */
    for (Int k = 0; k < st->nev; k++) {
        event *e = &st->ev[k];
        IRExpr *ins = ins_atom(st, e->ins, e->idx);
        switch (e->kind) {
        case Ev_Ir:
            if (!clo_cache_sim || e->i1hit) break;
            if (!e->ins->nox) {
                emit_call(sb, 1, "h_ir", h_ir, mkIRExprVec_1(ins), NULL);
                break;
            }
            /* Merge with the following events where possible. */
            if (k + 1 < st->nev && (st->ev[k + 1].kind == Ev_Dr || st->ev[k + 1].kind == Ev_Dw) &&
                st->ev[k + 1].ins == e->ins) {
                event *d = &st->ev[k + 1];
                IRExpr **args = mkIRExprVec_3(ins, d->addr, mkIRExpr_HWord(d->size));
                if (d->kind == Ev_Dr)
                    emit_call(sb, 3, "h_irx_dr", h_irx_dr, args, NULL);
                else
                    emit_call(sb, 3, "h_irx_dw", h_irx_dw, args, NULL);
                k++;
                break;
            }
            Int run = 1;
            while (run < 3 && k + run < st->nev && st->ev[k + run].kind == Ev_Ir &&
                   st->ev[k + run].ins->nox && !st->ev[k + run].i1hit)
                run++;
            if (run == 3)
                emit_call(sb, 3, "h_ir3x", h_ir3x,
                          mkIRExprVec_3(ins, ins_atom(st, st->ev[k + 1].ins, st->ev[k + 1].idx),
                                        ins_atom(st, st->ev[k + 2].ins, st->ev[k + 2].idx)),
                          NULL);
            else if (run == 2)
                emit_call(sb, 2, "h_ir2x", h_ir2x,
                          mkIRExprVec_2(ins, ins_atom(st, st->ev[k + 1].ins, st->ev[k + 1].idx)),
                          NULL);
            else
                emit_call(sb, 1, "h_ir1x", h_ir1x, mkIRExprVec_1(ins), NULL);
            k += run - 1;
            break;
        case Ev_Dr:
            if (clo_cache_sim)
                emit_call(sb, 3, "h_dr", h_dr, mkIRExprVec_3(ins, e->addr, mkIRExpr_HWord(e->size)),
                          NULL);
            break;
        case Ev_Dw:
            if (clo_cache_sim)
                emit_call(sb, 3, "h_dw", h_dw, mkIRExprVec_3(ins, e->addr, mkIRExpr_HWord(e->size)),
                          NULL);
            break;
        case Ev_Bc:
            emit_call(sb, 2, "h_bc", h_bc, mkIRExprVec_2(ins, e->extra), NULL);
            break;
        case Ev_Bi:
            emit_call(sb, 2, "h_bi", h_bi, mkIRExprVec_2(ins, e->extra), NULL);
            break;
        }
    }
    st->nev = 0;
}

static void add_event(tlstate *st, evkind kind, instrcc *ins, IRExpr *addr, Int size, IRExpr *extra)
{
    /* A write right after a read of the same instruction, size and
     * address is one modify, counted as that read. */
    if (kind == Ev_Dw && st->nev > 0) {
        event *p = &st->ev[st->nev - 1];
        if (p->kind == Ev_Dr && p->ins == ins && p->size == size && eqIRAtom(p->addr, addr)) return;
    }
    if (st->nev == N_EVENTS) flush_events(st);
    st->cnt[kind]++;
    event *e = &st->ev[st->nev++];
    e->kind = kind;
    e->ins = ins;
    e->addr = addr;
    e->size = size;
    e->extra = extra;
    e->i1hit = False;
    e->idx = (UShort)st->idx;
}

/* Mark the Ir event just added as a sure I1 hit when its instruction (at
 * `a`, `len` bytes) lies wholly in `prev_line`, the I1 line where the
 * previous instruction of the block ended; returns the line where this one
 * ends (see tl_instrument). */
static UWord note_i1hit(tlstate *st, Addr a, UInt len, UWord prev_line)
{
    if (!clo_cache_sim) return ~(UWord)0;
    UWord first = a >> cachesim_I1.line_bits, last = (a + len - 1) >> cachesim_I1.line_bits;
    if (first == last && first == prev_line) st->ev[st->nev - 1].i1hit = True;
    return last;
}

static void add_guarded(tlstate *st, Bool write, instrcc *ins, IRExpr *addr, Int size,
                        IRExpr *guard)
{
    flush_events(st);
    IRExpr **args = mkIRExprVec_3(ins_atom(st, ins, st->idx), addr, mkIRExpr_HWord(size));
    if (write)
        emit_call(st->sbOut, 3, "h_guarded_dw", h_guarded_dw, args, guard);
    else
        emit_call(st->sbOut, 3, "h_guarded_dr", h_guarded_dr, args, guard);
}

/* Where the block is left (for --calls=yes). The static events up to this
 * exit are added to the running cost right here, in IR (*cur_run += n).
 * Then, unless the exit is a plain jump to a known address inside a
 * function (most are), last_exit = x tells the next block's h_enter how
 * control got there. */
static void note_exit(tlstate *st, IRJumpKind jk, instrcc *site, const sbinfo *sbi,
                      const IRExpr *dst)
{
    IRSB *sb = st->sbOut;
    IRTemp p = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(p, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&cur_run))));
    for (Int k = 0; k < N_SX; k++) {
        UInt n = st->cnt[k] - st->charged[k];
        if (!n) continue;
        st->charged[k] = st->cnt[k];
        IRTemp a = newIRTemp(sb->tyenv, Ity_I64);
        IRTemp v = newIRTemp(sb->tyenv, Ity_I64);
        IRTemp w = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(
            sb, IRStmt_WrTmp(a, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                             IRExpr_Const(IRConst_U64(sx_ev[k] * sizeof(ULong))))));
        addStmtToIRSB(sb, IRStmt_WrTmp(v, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(a))));
        addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(v),
                                                       IRExpr_Const(IRConst_U64(n)))));
        addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(a), IRExpr_RdTmp(w)));
    }

    exitkind kind = jk == Ijk_Call ? K_CALL : jk == Ijk_Ret ? K_RET : K_JUMP;
    if (kind == K_JUMP && dst && dst->tag == Iex_Const && dst->Iex.Const.con->tag == Ico_U64) {
        Addr to = (Addr)dst->Iex.Const.con->Ico.U64;
        DiEpoch ep = VG_(current_DiEpoch)();
        const HChar *name;
        if (!sbi->is_resolver && !sbi->in_plt && !VG_(get_fnname_if_entry)(ep, to, &name) &&
            !is_plt(to) && object_of(to, NULL) == sbi->obj) {
            /* a jump into another function's code may return from a
             * tail-called piece (enter_block) and, with --contexts,
             * changes context; code without a symbol is the frame's */
            if (!VG_(get_fnname)(ep, to, &name)) return;
            if (intern(name) == site->line->fn && site->line->obj == sbi->obj) return;
        }
    }
    exitinfo *x = arena_alloc(sizeof *x);
    x->kind = kind;
    x->from_resolver = sbi->is_resolver;
    x->from_plt = sbi->in_plt;
    x->obj = sbi->obj;
    x->site = site;
    x->dyn = st->dyn;
    x->idx = st->idx;
    addStmtToIRSB(
        sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&last_exit), mkIRExpr_HWord((HWord)x)));
}

static sbinfo *make_sbinfo(instrcc *first)
{
    sbinfo *sb = arena_alloc(sizeof *sb);
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *name;
    sb->first = first;
    sb->obj = object_of(first->addr, NULL);
    sb->is_entry = VG_(get_fnname_if_entry)(ep, first->addr, &name);
    sb->in_plt = is_plt(first->addr);
    sb->is_resolver = VG_(strncmp)(first->line->fn->s, "_dl_runtime_resolve", 19) == 0;
    if (clo_contexts) sb->cfn = fn_of(first->line);
    return sb;
}

/* The owner of a block starting at `a` (see block_owner): none for code
 * with a symbol or PLT code. The first such block a thread runs outside any
 * frame is the function of the code it runs outside frames later. */
static const linecc *first_owner(Addr a)
{
    const HChar *name;
    DiEpoch ep = VG_(current_DiEpoch)();
    if (is_plt(a)) return NULL;
    if (VG_(get_fnname)(ep, a, &name))
        /* named code is its function's when it is entered as that
         * function; reached by a jump from another function's frame it is
         * that function's (corrected while it runs, see dynblock) */
        return VG_(get_fnname_if_entry)(ep, a, &name) ? NULL : block_owner(a);
    const linecc *o = block_owner(a);
    thread *t = clo_calls ? running_thread() : NULL;
    if (!o && t && t->depth == 0 && !t->base && (!last_exit || last_exit->kind == K_START)) {
        t->base = lookup_position(a, a, NULL, False);
        note_owner(t);
        return t->base;
    }
    return o;
}

/* A dynblock for a block starting at `a` when the call graph is on, else
 * NULL. PLT code counts for the function it leads to (plt_name), other
 * code for the function whose frame runs it. */
static dynblock *new_dynblock(const IRSB *sbIn, Addr a, const linecc *owner)
{
    if (!clo_calls) return NULL;
    UInt n = 0;
    for (Int k = 0; k < sbIn->stmts_used; k++)
        if (sbIn->stmts[k] && sbIn->stmts[k]->tag == Ist_IMark) n++;
    if (n == 0 || n > DYN_MAX_INSTRS) return NULL;
    dynblock *d = arena_alloc(sizeof *d + n * sizeof d->cur[0]);
    d->n = n;
    d->entry = a;
    d->owner = owner;
    return d;
}

static IRSB *tl_instrument(VgCallbackClosure *closure, IRSB *sbIn, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
    if (gWordTy != hWordTy || hWordTy != Ity_I64)
        VG_(tool_panic)("tally: only 64-bit hosts and guests are supported");

    tlstate st;
    st.sbOut = deepCopyIRSBExceptStmts(sbIn);
    st.nev = 0;
    VG_(memset)(st.cnt, 0, sizeof st.cnt);
    VG_(memset)(st.charged, 0, sizeof st.charged);
    st.idx = 0;
    st.dyn = NULL;
    UInt n_im = 0;
    sbinfo *sbi = NULL;
    IRTypeEnv *tyenv = sbIn->tyenv;
    Addr sb_start = 0;   /* names code without a symbol (its first IMark) */
    const linecc *owner; /* the function of the block's code without a symbol */
    Int i = 0;
    instrcc *cur = NULL;
    Addr cia = 0;
    Addr inv_to = 0; /* the target of an inverted jcc in this block */
    UInt isize = 0;
    /* The I1 line of the last byte of the previous instruction of this
     * block (~0: none yet). An instruction that lies wholly in that line is
     * a sure I1 hit: the previous fetch left the line most recently used in
     * its set, and nothing but instruction fetches touches I1 (the block
     * runs its instructions in order; any thread switch or signal comes
     * between blocks, or restarts at an instruction that begins a block).
     * A hit on the most recently used line changes no cache state and
     * reaches no LL, so its simulation is left out: same counts, fewer
     * calls (Cachegrind simulates every fetch). */
    UWord prev_iline = ~(UWord)0;

    /* The self-check preamble, before the first IMark, makes no events. */
    while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark) {
        addStmtToIRSB(st.sbOut, sbIn->stmts[i]);
        i++;
    }

    if (rms_on) rms_ir_block(st.sbOut);
    for (; i < sbIn->stmts_used; i++) {
        IRStmt *s = sbIn->stmts[i];
        if (!s || s->tag == Ist_NoOp) continue;
        if (rms_on) rms_ir_stmt(st.sbOut, tyenv, s);
        switch (s->tag) {
        case Ist_IMark:
            cia = (Addr)s->Ist.IMark.addr;
            isize = s->Ist.IMark.len ? s->Ist.IMark.len : VG_MIN_INSTR_SZB;
            st.idx = n_im++;
            if (!sb_start) {
                sb_start = cia;
                owner = first_owner(cia);
                cur = get_instrcc(cia, isize, sb_start, owner, True);
                st.dyn = new_dynblock(sbIn, cia, owner ? owner : cur->line);
                /* code without a symbol after the first instruction is its
                 * function's (or its owner's) */
                if (!owner) owner = cur->line;
            } else {
                cur = get_instrcc(cia, isize, sb_start, owner, True);
            }
            if (st.dyn) st.dyn->cur[st.idx] = cur;
            if (sbi && sbi->in_plt && sbi->n_ins < PLT_MAX_INSTRS) sbi->ins[sbi->n_ins++] = cur;
            if (clo_calls && !sbi) {
                /* called, a block of code without a symbol is a function of
                 * its own, whatever it runs for when reached otherwise */
                sbi = make_sbinfo(st.dyn ? get_instrcc(cia, isize, cia, NULL, False) : cur);
                if (st.dyn) {
                    sbi->dyn = st.dyn;
                    st.dyn->sb = sbi;
                    if (clo_contexts) sbi->cfn = fn_of(cur->line);
                }
                if (sbi->in_plt) sbi->ins[sbi->n_ins++] = cur;
                addStmtToIRSB(st.sbOut, s);
                IRTemp spt = newIRTemp(st.sbOut->tyenv, Ity_I64);
                addStmtToIRSB(st.sbOut, IRStmt_WrTmp(spt, IRExpr_Get(layout->offset_SP, Ity_I64)));
                /* Only when the last block left through an exit that matters,
                 * or (a dynblock) it runs for another function than last
                 * time: one test of (last_exit | (cur_owner ^ owner)). */
                IRTemp le = newIRTemp(st.sbOut->tyenv, Ity_I64);
                IRTemp g = newIRTemp(st.sbOut->tyenv, Ity_I1);
                addStmtToIRSB(st.sbOut,
                              IRStmt_WrTmp(le, IRExpr_Load(Iend_LE, Ity_I64,
                                                           mkIRExpr_HWord((HWord)&last_exit))));
                IRExpr *any = IRExpr_RdTmp(le);
                if (st.dyn && !sbi->in_plt) {
                    IRTemp o1 = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    IRTemp o2 = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    IRTemp x1 = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    IRTemp x2 = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    addStmtToIRSB(st.sbOut,
                                  IRStmt_WrTmp(o1, IRExpr_Load(Iend_LE, Ity_I64,
                                                               mkIRExpr_HWord((HWord)&cur_owner))));
                    addStmtToIRSB(
                        st.sbOut,
                        IRStmt_WrTmp(o2, IRExpr_Load(Iend_LE, Ity_I64,
                                                     mkIRExpr_HWord((HWord)&st.dyn->owner))));
                    addStmtToIRSB(st.sbOut,
                                  IRStmt_WrTmp(x1, IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(o1),
                                                                IRExpr_RdTmp(o2))));
                    addStmtToIRSB(st.sbOut,
                                  IRStmt_WrTmp(x2, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(x1),
                                                                IRExpr_RdTmp(le))));
                    any = IRExpr_RdTmp(x2);
                }
                addStmtToIRSB(
                    st.sbOut,
                    IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE64, any, IRExpr_Const(IRConst_U64(0)))));
                emit_call(st.sbOut, 2, "h_enter", h_enter,
                          mkIRExprVec_2(mkIRExpr_HWord((HWord)sbi), IRExpr_RdTmp(spt)),
                          IRExpr_RdTmp(g));
                add_event(&st, Ev_Ir, cur, NULL, 0, NULL);
                prev_iline = note_i1hit(&st, cia, isize, prev_iline);
                continue;
            }
            add_event(&st, Ev_Ir, cur, NULL, 0, NULL);
            prev_iline = note_i1hit(&st, cia, isize, prev_iline);
            break;
        case Ist_WrTmp:
            if (s->Ist.WrTmp.data->tag == Iex_Load) {
                IRExpr *ld = s->Ist.WrTmp.data;
                add_event(&st, Ev_Dr, cur, ld->Iex.Load.addr, sizeofIRType(ld->Iex.Load.ty), NULL);
            }
            break;
        case Ist_Store:
            add_event(&st, Ev_Dw, cur, s->Ist.Store.addr,
                      sizeofIRType(typeOfIRExpr(tyenv, s->Ist.Store.data)), NULL);
            break;
        case Ist_StoreG: {
            IRStoreG *sg = s->Ist.StoreG.details;
            add_guarded(&st, True, cur, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)),
                        sg->guard);
            break;
        }
        case Ist_LoadG: {
            IRLoadG *lg = s->Ist.LoadG.details;
            IRType wide = Ity_INVALID, narrow = Ity_INVALID;
            typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
            add_guarded(&st, False, cur, lg->addr, sizeofIRType(narrow), lg->guard);
            break;
        }
        case Ist_Dirty: {
            IRDirty *d = s->Ist.Dirty.details;
            if (d->mFx != Ifx_None) {
                Int size = d->mSize;
                if (size > min_line_size) size = min_line_size;
                if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
                    add_event(&st, Ev_Dr, cur, d->mAddr, size, NULL);
                if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
                    add_event(&st, Ev_Dw, cur, d->mAddr, size, NULL);
            }
            break;
        }
        case Ist_CAS: {
            IRCAS *cas = s->Ist.CAS.details;
            Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
            if (cas->dataHi) size *= 2;
            if (size > min_line_size) size = min_line_size;
            add_event(&st, Ev_Dr, cur, cas->addr, size, NULL);
            add_event(&st, Ev_Dw, cur, cas->addr, size, NULL);
            break;
        }
        case Ist_LLSC:
            if (s->Ist.LLSC.storedata == NULL) {
                add_event(&st, Ev_Dr, cur, s->Ist.LLSC.addr,
                          sizeofIRType(typeOfIRTemp(tyenv, s->Ist.LLSC.result)), NULL);
                flush_events(&st);
            } else {
                add_event(&st, Ev_Dw, cur, s->Ist.LLSC.addr,
                          sizeofIRType(typeOfIRExpr(tyenv, s->Ist.LLSC.storedata)), NULL);
            }
            break;
        case Ist_Exit: {
            IRJumpKind jk = s->Ist.Exit.jk;
            if (clo_branch_sim && (jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret)) {
                /* taken = went to the target that is not the next
                 * instruction. */
                IRTemp g = newIRTemp(st.sbOut->tyenv, Ity_I64);
                addStmtToIRSB(st.sbOut,
                              IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64, s->Ist.Exit.guard)));
                IRConst *dst = s->Ist.Exit.dst;
                IRExpr *taken = IRExpr_RdTmp(g);
                if (dst->tag == Ico_U64 && dst->Ico.U64 == (ULong)cia + isize) {
                    IRTemp t = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    addStmtToIRSB(st.sbOut,
                                  IRStmt_WrTmp(t, IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(g),
                                                               IRExpr_Const(IRConst_U64(1)))));
                    taken = IRExpr_RdTmp(t);
                }
                add_event(&st, Ev_Bc, cur, NULL, 0, taken);
            }
            flush_events(&st);
            if (clo_jumps && jk == Ijk_Boring && s->Ist.Exit.dst->tag == Ico_U64) {
                Addr to = (Addr)s->Ist.Exit.dst->Ico.U64;
                Bool inv = to == cia + isize;
                if (inv && sbIn->next->tag == Iex_Const &&
                    sbIn->next->Iex.Const.con->tag == Ico_U64) {
                    to = (Addr)sbIn->next->Iex.Const.con->Ico.U64;
                    inv_to = to;
                } else if (inv) {
                    to = 0;
                }
                if (to) {
                    jrec *j = get_jrec(cur, to, True, inv);
                    IRTemp g = newIRTemp(st.sbOut->tyenv, Ity_I64);
                    addStmtToIRSB(st.sbOut,
                                  IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64, s->Ist.Exit.guard)));
                    emit_call(st.sbOut, 2, "h_jcnd", h_jcnd,
                              mkIRExprVec_2(mkIRExpr_HWord((HWord)j), IRExpr_RdTmp(g)), NULL);
                }
            }
            if (clo_calls) note_exit(&st, jk, cur, sbi, IRExpr_Const(s->Ist.Exit.dst));
            break;
        }
        default:
            break;
        }
        addStmtToIRSB(st.sbOut, s);
    }

    /* An indirect jump or call ends the block. */
    if (clo_branch_sim && cur && (sbIn->jumpkind == Ijk_Boring || sbIn->jumpkind == Ijk_Call) &&
        sbIn->next->tag == Iex_RdTmp)
        add_event(&st, Ev_Bi, cur, NULL, 0, sbIn->next);
    flush_events(&st);
    if (clo_jumps && cur && sbIn->jumpkind == Ijk_Boring) {
        IRExpr *nx = sbIn->next;
        if (nx->tag == Iex_Const && nx->Iex.Const.con->tag == Ico_U64) {
            Addr to = (Addr)nx->Iex.Const.con->Ico.U64;
            /* a fall-through is no jump; an inverted jcc's target is counted by its jcnd */
            if (to != cia + isize && to != inv_to) {
                jrec *j = get_jrec(cur, to, False, False);
                if (!j->skip)
                    emit_call(st.sbOut, 1, "h_jump", h_jump,
                              mkIRExprVec_1(mkIRExpr_HWord((HWord)j)), NULL);
            }
        } else {
            emit_call(st.sbOut, 2, "h_jump_dyn", h_jump_dyn,
                      mkIRExprVec_2(mkIRExpr_HWord((HWord)cur), nx), NULL);
        }
    }
    if (clo_calls && sbi) note_exit(&st, sbIn->jumpkind, cur, sbi, sbIn->next);
    if (st.dyn) {
        /* its first clone: the instrs it was translated with */
        dynclone *c = arena_alloc(sizeof *c + st.dyn->n * sizeof c->ins[0]);
        c->owner = st.dyn->owner;
        for (UInt k = 0; k < st.dyn->n; k++)
            c->ins[k] = st.dyn->cur[k];
        st.dyn->clones = c;
    }
    return st.sbOut;
}

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

static ULong totals[N_EV];

/* Which events are written, in callgrind order. */
static Int out_ev[N_EV], n_out_ev;

static void choose_events(void)
{
    n_out_ev = 0;
    out_ev[n_out_ev++] = EV_Ir;
    out_ev[n_out_ev++] = EV_Dr;
    out_ev[n_out_ev++] = EV_Dw;
    if (clo_cache_sim)
        for (Int e = EV_I1mr; e <= EV_DLmw; e++)
            out_ev[n_out_ev++] = e;
    if (clo_branch_sim)
        for (Int e = EV_Bc; e <= EV_Bim; e++)
            out_ev[n_out_ev++] = e;
}

static Bool all_zero(const ULong *ev)
{
    for (Int k = 0; k < n_out_ev; k++)
        if (ev[out_ev[k]]) return False;
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

/* Every linecc (sorted by `cmp`) with its instr costs summed. */
static linecc **collect_lines(UWord *np, Int (*cmp)(const void *, const void *))
{
    for (UWord k = 0; k < lines.nslots; k++)
        for (linecc *l = lines.slot[k]; l; l = l->next) {
            VG_(memset)(l->ev, 0, sizeof l->ev);
            l->arcs = NULL;
            l->jumps = NULL;
            l->frec = NULL;
        }
    for (UWord k = 0; k < instrs.nslots; k++)
        for (instrcc *i = instrs.slot[k]; i; i = i->next) {
            for (Int e = 0; e < N_EV; e++)
                i->line->ev[e] += i->ev[e];
            for (arc *a = i->arcs; a; a = a->snext) {
                a->lnext = i->line->arcs;
                i->line->arcs = a;
            }
            for (jrec *j = i->jumps; j; j = j->snext) {
                j->lnext = i->line->jumps;
                i->line->jumps = j;
            }
        }
    linecc **v = VG_(malloc)("tl.sort", (lines.nused + 1) * sizeof *v);
    UWord n = 0;
    for (UWord k = 0; k < lines.nslots; k++)
        for (linecc *l = lines.slot[k]; l; l = l->next)
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

static void write_desc(VgFile *f, const HChar *gap)
{
    const cache_cfg *c[3] = {&cfg_I1, &cfg_D1, &cfg_LL};
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
    while (last > 1 && ev[out_ev[last - 1]] == 0)
        last--;
    for (Int k = 0; k < last; k++)
        VG_(fprintf)(f, " %llu", ev[out_ev[k]]);
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

static htab fnrecs;
static htab entry_files; /* (obj, fn) -> file of the entry instr, see note_entry_file */

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
static void note_entry_file(const linecc *l)
{
    UWord h = pair_hash(l->obj, l->fn);
    for (efile *e = entry_files.slot[h & (entry_files.nslots - 1)]; e; e = e->next)
        if (e->obj == l->obj && e->fn == l->fn) return;
    efile *e = arena_alloc(sizeof *e);
    e->obj = l->obj;
    e->fn = l->fn;
    e->file = l->file;
    e->hash = h;
    htab_add(&entry_files, e, h, efile_rehash);
}

static istr *entry_file(const istr *obj, const istr *fn)
{
    UWord h = pair_hash(obj, fn);
    for (efile *e = entry_files.slot[h & (entry_files.nslots - 1)]; e; e = e->next)
        if (e->obj == obj && e->fn == fn) return e->file;
    return NULL;
}

static fnrec *get_fnrec(istr *obj, istr *fn, istr *file)
{
    UWord h = pair_hash(obj, fn) ^ file->hash;
    for (fnrec *r = fnrecs.slot[h & (fnrecs.nslots - 1)]; r; r = r->next)
        if (r->obj == obj && r->fn == fn && r->file == file) return r;
    fnrec *r = arena_alloc(sizeof *r);
    r->obj = obj;
    r->fn = fn;
    r->file = file;
    r->hash = h;
    htab_add(&fnrecs, r, h, fnrec_rehash);
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
    UInt parts;
    UInt next[3];
    htab ids;
    VgFile *f;
} cgfile;

static cgfile main_out;     /* without --separate-threads */
static cgfile **thread_out; /* with it: one file per thread, by thread id */
static UInt n_thread_out;

static UWord idmap_rehash(const void *p)
{
    const idmap *m = p;
    return ((UWord)m->key >> 3) * 0x9E3779B97F4A7C15ull >> 20 ^ m->kind;
}

/* "KEY=(id)" for a name written before in this file, else "KEY=(id) NAME". */
static void write_id(cgfile *o, const HChar *key, UInt kind, const void *ptr, const HChar *name)
{
    idmap probe = {.key = ptr, .kind = kind};
    UWord h = idmap_rehash(&probe);
    for (idmap *m = o->ids.slot[h & (o->ids.nslots - 1)]; m; m = m->next)
        if (m->key == ptr && m->kind == kind) {
            VG_(fprintf)(o->f, "%s=(%u)\n", key, m->id);
            return;
        }
    idmap *m = arena_alloc(sizeof *m);
    m->key = ptr;
    m->kind = kind;
    m->id = ++o->next[kind];
    htab_add(&o->ids, m, h, idmap_rehash);
    VG_(fprintf)(o->f, "%s=(%u) %s\n", key, m->id, name);
}

static void write_file_id(cgfile *o, const HChar *key, istr *file)
{
    write_id(o, key, 0, file, file->s);
}

static void write_fn_id(cgfile *o, const HChar *key, fnrec *r)
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

/* Does a list of arcs (by lnext for a line, snext for an instr) have one
 * worth writing? A line without self cost is written for its calls. */
static Bool live_arcs(const arc *a, Bool by_line)
{
    for (; a; a = by_line ? a->lnext : a->snext)
        if (a->calls || !all_zero(a->cost)) return True;
    return False;
}

static Bool live_jumps(const jrec *j, Bool by_line)
{
    for (; j; j = by_line ? j->lnext : j->snext)
        if (!j->skip && j->taken) return True;
    return False;
}

/* Where the writer is: the object, the function and the file that
 * positions refer to (fl=, or fi= for inlined code). */
typedef struct {
    cgfile *o;
    istr *ob, *fl, *fi; /* fi: the file positions refer to (fl after fl=) */
    fnrec *fn;
} cgpos;

/* jump=/jcnd= records, each followed by the source position alone; the
 * target's file and function are given (jfi=, jfn=) when they differ from
 * the current ones. */
static void write_jumps(cgpos *c, const jrec *j, Bool by_line, const HChar *pos)
{
    VgFile *f = c->o->f;
    for (; j; j = by_line ? j->lnext : j->snext) {
        if (j->skip || !j->taken) continue; /* as Callgrind: only jumps that happened */
        linecc *t = j->target;
        if (t->file != c->fi) write_file_id(c->o, "jfi", t->file);
        if (fnrec_of(t) != c->fn) write_fn_id(c->o, "jfn", fnrec_of(t));
        if (j->cond)
            VG_(fprintf)(f, "jcnd=%llu/%llu", j->taken, j->exe);
        else
            VG_(fprintf)(f, "jump=%llu", j->taken);
        if (clo_dump_instr)
            VG_(fprintf)(f, " 0x%lx %u\n%s\n", j->to, t->line, pos);
        else
            VG_(fprintf)(f, " %u\n%s\n", t->line, pos);
    }
}

static void clear_jumps(void)
{
    for (UWord k = 0; k < instrs.nslots; k++)
        for (instrcc *i = instrs.slot[k]; i; i = i->next)
            for (jrec *j = i->jumps; j; j = j->snext)
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
    if (clo_dump_instr)
        VG_(fprintf)(c->o->f, "calls=%llu 0x%lx %u\n", a->calls, a->callee->addr, cl->line);
    else
        VG_(fprintf)(c->o->f, "calls=%llu %u\n", a->calls, cl->line);
    VG_(fprintf)(c->o->f, "%s", pos);
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

/* The file a part of thread tid goes to (tid 0: all threads). It is
 * created at its first part, named by --out-file expanded then (so a
 * forked child writes its own), with "-TT" per thread; later parts are
 * appended. A forked child that finds its parent's file starts its own. */
static cgfile *part_file(UInt tid)
{
    cgfile *o = &main_out;
    if (tid) {
        thread_out = grow_by_tid(thread_out, &n_thread_out, tid, "tl.outs");
        if (!thread_out[tid]) thread_out[tid] = VG_(calloc)("tl.out", 1, sizeof(cgfile));
        o = thread_out[tid];
    }
    if (o->name && o->pid == VG_(getpid)()) {
        o->f = VG_(fopen)(o->name, VKI_O_WRONLY | VKI_O_APPEND, 0);
        if (!o->f) {
            VG_(umsg)("error: cannot append to output file '%s'\n", o->name);
            tl_out_failed();
        }
        return o->f ? o : NULL;
    }
    if (o->name) {
        /* a forked child: its file does not hold the parent's parts */
        VG_(free)(o->name);
        if (clo_contexts && tid <= 1) cct_forget_dumped();
        o->name = NULL;
    }
    HChar *base = VG_(expand_file_name)("--out-file", clo_out_file);
    if (tid) {
        o->name = VG_(malloc)("tl.outname", VG_(strlen)(base) + 16);
        VG_(sprintf)(o->name, "%s-%02u", base, tid);
        VG_(free)(base);
    } else {
        o->name = base;
    }
    o->f = VG_(fopen)(o->name, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    o->pid = VG_(getpid)();
    o->parts = 0;
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
    for (arc *a = l->arcs; a; a = a->lnext)
        write_arc(c, a, pos);
    if (l->jumps) write_jumps(c, l->jumps, True, pos);
}

/* Write the counters as the next part of thread tid's file (0: the one
 * file of all threads). */
static void write_callgrind(UInt tid)
{
    cgfile *o = part_file(tid);
    if (!o) return;
    VgFile *f = o->f;
    if (o->parts++ == 0) {
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
    VG_(fprintf)(f, "positions: %s\nevents:", clo_dump_instr ? "instr line" : "line");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(fprintf)(f, " %s", ev_name[out_ev[k]]);
    VG_(fprintf)(f, "\n");

    VG_(memset)(totals, 0, sizeof totals);
    cgpos c = {.o = o};
    UWord n;
    linecc **lv = collect_lines(&n, cmp_linecc_cg); /* also clears the frecs */
    VG_(free)(lv);
    if (clo_dump_instr) {
        instrcc **v = VG_(malloc)("tl.sort", (instrs.nused + 1) * sizeof *v);
        n = 0;
        for (UWord k = 0; k < instrs.nslots; k++)
            for (instrcc *i = instrs.slot[k]; i; i = i->next)
                if (!all_zero(i->ev) || live_arcs(i->arcs, False) || live_jumps(i->jumps, False))
                    v[n++] = i;
        VG_(ssort)(v, n, sizeof *v, cmp_instrcc);
        Addr pa = 0;
        UInt pl = 0;
        for (UWord k = 0; k < n; k++) {
            instrcc *i = v[k];
            fnrec *before = c.fn;
            istr *fi_before = c.fi;
            write_place(&c, i->line);
            if (c.fn != before || c.fi != fi_before)
                VG_(fprintf)(f, "0x%lx %u", i->addr, i->line->line);
            else {
                if (i->addr == pa)
                    VG_(fprintf)(f, "*");
                else if (i->addr > pa)
                    VG_(fprintf)(f, "+%lu", i->addr - pa);
                else
                    VG_(fprintf)(f, "-%lu", pa - i->addr);
                if (i->line->line == pl)
                    VG_(fprintf)(f, " *");
                else if (i->line->line > pl)
                    VG_(fprintf)(f, " +%u", i->line->line - pl);
                else
                    VG_(fprintf)(f, " -%u", pl - i->line->line);
            }
            pa = i->addr;
            pl = i->line->line;
            write_costs(f, i->ev);
            HChar pos[48];
            VG_(sprintf)(pos, "0x%lx %u", i->addr, i->line->line);
            for (arc *a = i->arcs; a; a = a->snext)
                write_arc(&c, a, pos);
            if (i->jumps) write_jumps(&c, i->jumps, False, pos);
            for (Int e = 0; e < N_EV; e++)
                totals[e] += i->ev[e];
        }
        VG_(free)(v);
    } else {
        linecc **v = collect_lines(&n, cmp_linecc);
        for (UWord k = 0; k < n; k++) {
            linecc *l = v[k];
            if (all_zero(l->ev) && !live_arcs(l->arcs, True) && !live_jumps(l->jumps, True))
                continue;
            write_line_costs(&c, l);
            for (Int e = 0; e < N_EV; e++)
                totals[e] += l->ev[e];
        }
        VG_(free)(v);
    }
    VG_(fprintf)(f, "\nsummary:");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(fprintf)(f, " %llu", totals[out_ev[k]]);
    VG_(fprintf)(f, "\ntotals:");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(fprintf)(f, " %llu", totals[out_ev[k]]);
    VG_(fprintf)(f, "\n");
    for (Int e = 0; e < N_EV; e++)
        grand[e] += totals[e];
    VG_(fclose)(f);
    o->f = NULL;
}

/* What was collected since the last part, into the counters. */
static void gather_part(Bool final)
{
    fold_segs();
    if (clo_separate) {
        if (final) last_exit = NULL;
        stash_all(final);
        return;
    }
    if (clo_calls) {
        if (final)
            calls_finish();
        else if (collecting)
            restart_frames(True);
    }
}

/* Write the gathered counts: one part, or with --separate-threads one
 * part per thread, each in its own file (then the counters hold the sum,
 * for the cachegrind file). */
static void write_parts(void)
{
    if (!clo_separate) {
        write_callgrind(0);
        return;
    }
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k]) {
            clear_counters();
            clear_jumps();
            unstash(threads[k], False);
            write_callgrind(threads[k]->tid);
        }
    clear_counters();
    clear_jumps();
    for (UInt k = 0; k < n_threads; k++)
        if (threads[k]) unstash(threads[k], True);
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
        if (!l->cgkept) l->cgkept = arena_alloc(N_EV * sizeof(ULong));
        for (Int e = 0; e < N_EV; e++)
            l->cgkept[e] += l->ev[e];
    }
    VG_(free)(v);
}

/* A client request: write a part now and start the next one. */
static void dump_part(void)
{
    gather_part(False);
    write_parts();
    if (clo_cg_out_file) keep_for_cachegrind();
    if (clo_contexts) {
        cct_restart(collecting); /* what ran up to the dump is in the part */
        cct_dumped();
    }
    zero_counts();
}

/* The cachegrind format: Cachegrind's event order and layout. */
static void write_cachegrind(void)
{
    static const Int cg_order[N_EV] = {EV_Ir,   EV_I1mr, EV_ILmr, EV_Dr,  EV_D1mr, EV_DLmr, EV_Dw,
                                       EV_D1mw, EV_DLmw, EV_Bc,   EV_Bcm, EV_Bi,   EV_Bim};
    Int ev[N_EV], n = 0;
    for (Int k = 0; k < N_EV; k++) {
        Int e = cg_order[k];
        Bool on = e <= EV_Dw || (e <= EV_DLmw && clo_cache_sim) || (e >= EV_Bc && clo_branch_sim);
        if (on) ev[n++] = e;
    }
    HChar *name;
    VgFile *f = open_out("--cachegrind-out-file", clo_cg_out_file, &name);
    if (!f) return;
    write_desc(f, "         ");
    write_cmd(f);
    VG_(fprintf)(f, "events:");
    for (Int k = 0; k < n; k++)
        VG_(fprintf)(f, " %s", ev_name[ev[k]]);
    VG_(fprintf)(f, "\n");
    UWord nl;
    linecc **v = collect_lines(&nl, cmp_linecc_cg);
    for (UWord k = 0; k < nl; k++)
        if (v[k]->cgkept)
            for (Int e = 0; e < N_EV; e++)
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
        VG_(memcpy)(c, l->ev, sizeof c);
        while (k + 1 < nl && cmp_linecc_cg(&v[k], &v[k + 1]) == 0) {
            k++;
            for (Int e = 0; e < N_EV; e++)
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
    VG_(umsg)("tally: wrote %s (cachegrind format)\n", name);
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
    const ULong *t = totals;
    ULong Dr = t[EV_Dr], Dw = t[EV_Dw], Bc = t[EV_Bc], Bi = t[EV_Bi];
    Int l1 = comma_width(t[EV_Ir]);
    Int l2 = comma_width(Dr > Bc ? Dr : Bc);
    Int l3 = comma_width(Dw > Bi ? Dw : Bi);

    VG_(umsg)("%-14s %'*llu\n", "I   refs:", l1, t[EV_Ir]);
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
        ("%-14s %'*llu  (%'*llu rd   + %'*llu wr)\n", "D   refs:", l1, Dr + Dw, l2, Dr, l3, Dw);
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

/*------------------------------------------------------------*/
/*--- Setup and teardown                                   ---*/
/*------------------------------------------------------------*/

/* At exit, as perf record does: what was written (not with -q). */
static void say_written(void)
{
    if (main_out.name && main_out.pid == VG_(getpid)())
        VG_(umsg)("tally: wrote %s (%u functions)\n", main_out.name, main_out.next[2]);
    for (UInt k = 0; k < n_thread_out; k++)
        if (thread_out[k] && thread_out[k]->name && thread_out[k]->pid == VG_(getpid)()) VG_(umsg)
    ("tally: wrote %s (%u functions)\n", thread_out[k]->name, thread_out[k]->next[2]);
}

static void tl_fini(Int exitcode)
{
    gather_part(True);
    if (clo_contexts)
        for (UInt k = 0; k < n_threads; k++)
            if (threads[k])
                cct_switch(&threads[k]->cct, threads[k]->cct.root, threads[k]->run, collecting);
    rms_fini();
    write_parts(); /* fills grand */
    say_written();
    if (clo_cg_out_file) write_cachegrind();
    if (clo_contexts) cct_write(clo_ctx_out_file, out_ev, n_out_ev, ev_name);
    VG_(memcpy)(totals, grand, sizeof totals);
    print_summary();
    if (out_failed) VG_(exit)(1); /* a profile is missing: say so by the status */
}

static Bool tl_process_cmd_line_option(const HChar *arg)
{
    if (rms_process_option(arg)) return True;
    if VG_BOOL_CLO (arg, "--cache-sim", clo_cache_sim) {
        clo_cache_sim_given = True;
    } else if VG_BOOL_CLO (arg, "--branch-sim", clo_branch_sim) {
    } else if VG_BOOL_CLO (arg, "--dump-instr", clo_dump_instr) {
    } else if VG_BOOL_CLO (arg, "--calls", clo_calls) {
    } else if VG_STR_CLO (arg, "--out-file", clo_out_file) {
        if (!*clo_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_STR_CLO (arg, "--cachegrind-out-file", clo_cg_out_file) {
        if (!*clo_cg_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_BOOL_CLO (arg, "--collect-atstart", clo_collect_atstart) {
    } else if VG_BOOL_CLO (arg, "--separate-threads", clo_separate) {
    } else if VG_BOOL_CLO (arg, "--collect-jumps", clo_jumps) {
    } else if VG_BOOL_CLO (arg, "--contexts", clo_contexts) {
    } else if VG_BINT_CLO (arg, "--context-depth", clo_context_depth, 0, 1000000) {
    } else if VG_STR_CLO (arg, "--contexts-out-file", clo_ctx_out_file) {
        if (!*clo_ctx_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_STR_CLO (arg, "--toggle-collect", clo_toggle) {
        if (!*clo_toggle) VG_(fmsg_bad_option)(arg, "it needs a function name\n");
        clo_collect_atstart = False;
    } else if (cachesim_parse_opt(arg, &clo_I1, &clo_D1, &clo_LL)) {
    } else
        return False;
    return True;
}

static void tl_print_usage(void)
{
    VG_(printf)
    ("    --cache-sim=yes|no        simulate I1, D1 and LL caches [%s]\n"
     "    --I1=<size>,<assoc>,<line_size>  set I1 cache manually\n"
     "    --D1=<size>,<assoc>,<line_size>  set D1 cache manually\n"
     "    --LL=<size>,<assoc>,<line_size>  set LL cache manually\n"
     "    --branch-sim=yes|no       simulate branch prediction [no]\n"
     "    --calls=yes|no            the call graph with inclusive costs [yes]\n"
     "    --dump-instr=yes|no       costs per instruction as well as per line [no]\n"
     "    --out-file=<file>         callgrind-format output [tally.out.%%p]\n"
     "    --cachegrind-out-file=<file>  also write the cachegrind format\n"
     "    --collect-atstart=yes|no  collect from the start [yes; no with --toggle-collect]\n"
     "    --toggle-collect=<fn>     collect only while inside function <fn> (needs --calls=yes)\n"
     "    --separate-threads=yes|no one part per thread [no: threads summed]\n"
     "    --collect-jumps=yes|no    jump=/jcnd= records of jumps and conditional jumps [no]\n"
     "    --contexts=yes|no         also write the calling-context tree [no]\n"
     "    --context-depth=<n>       keep stacks at most <n> frames deep [0: no limit]\n"
     "    --contexts-out-file=<file>  the context tree's file [tally.ctx.%%p]\n",
     "yes");
    rms_print_usage();
}

static void tl_print_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

static void tl_post_clo_init(void)
{
    if (rms_post_clo_init(clo_calls)) clo_cache_sim = False;
    /* a cache given by hand asks for the simulation; with it turned off
     * explicitly, it would be ignored */
    if (clo_I1.size != -1 || clo_D1.size != -1 || clo_LL.size != -1) {
        if (clo_cache_sim_given && !clo_cache_sim) {
            VG_(fmsg_bad_option)("--I1/--D1/--LL", "a cache is set while --cache-sim=no\n");
            VG_(exit)(1);
        }
        clo_cache_sim = True;
    }
    if (VG_(clo_vex_control).guest_chase) {
        if (VG_(clo_verbosity) > 1)
            VG_(umsg)("tally counts only instructions that run: --vex-guest-chase is set to no\n");
        VG_(clo_vex_control).guest_chase = False;
    }
    /* Auto-detection, LL tweak, warnings and command-line overrides, as
     * Cachegrind does them; a bad configuration has been reported. */
    cfg_I1 = clo_I1;
    cfg_D1 = clo_D1;
    cfg_LL = clo_LL;
    if (clo_cache_sim) {
        /* (without the simulation there is nothing to configure or warn about) */
        if (!cachesim_configure(&cfg_I1, &cfg_D1, &cfg_LL)) VG_(exit)(1);
        cachesim_init(&cfg_I1, &cfg_D1, &cfg_LL);
        min_line_size = cachesim_min_line_size;
    }
    if (clo_branch_sim) {
        branchsim_init();
    }
    choose_events();
    htab_init(&strs, 4096);
    htab_init(&lines, 16384);
    htab_init(&instrs, 65536);
    htab_init(&arcs, 4096);
    htab_init(&fnrecs, 4096);
    htab_init(&entry_files, 4096);
    htab_init(&djumps, 1024);
    if (clo_toggle) {
        if (!clo_calls) {
            /* after option parsing this only prints */
            VG_(fmsg_bad_option)("--toggle-collect", "it needs --calls=yes\n");
            VG_(exit)(1);
        }
        toggle_fn = intern(clo_toggle);
    }
    if (clo_contexts) {
        if (!clo_calls) {
            VG_(fmsg_bad_option)("--contexts=yes", "it needs --calls=yes\n");
            VG_(exit)(1);
        }
        cct_init((UInt)clo_context_depth, clo_separate, out_ev, n_out_ev);
    }
    gated = clo_toggle != NULL || !clo_collect_atstart;
    set_collecting(clo_collect_atstart);
    /* the files are written at exit: find out now if they cannot be */
    tl_out_check("--out-file", clo_out_file);
    if (clo_cg_out_file) tl_out_check("--cachegrind-out-file", clo_cg_out_file);
    if (clo_contexts) tl_out_check("--contexts-out-file", clo_ctx_out_file);
    rms_out_check();
}

static Bool tl_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    (void)tid;
    if (!VG_IS_TOOL_USERREQ('T', 'L', args[0])) return False;
    switch (args[0]) {
    case TALLY_REQ_START:
        collect_start();
        break;
    case TALLY_REQ_STOP:
        collect_stop();
        break;
    case TALLY_REQ_ZERO:
        zero_counts();
        if (clo_contexts) {
            cct_restart(False);
            cct_zero();
        }
        break;
    case TALLY_REQ_DUMP:
        dump_part();
        break;
    default:
        return False;
    }
    *ret = 0;
    return True;
}

static void tl_pre_clo_init(void)
{
    VG_(details_name)("tally");
    VG_(details_version)("0.1");
    VG_(details_description)("tally's profiler (instructions, caches, branches)");
    VG_(details_copyright_author)("Copyright (C) 2026 the tally authors.");
    VG_(details_bug_reports_to)("the tally project");
    VG_(details_avg_translation_sizeB)(500);

    VG_(clo_vex_control).iropt_register_updates_default = VG_(clo_px_file_backed) =
        VexRegUpdSpAtMemAccess;
    VG_(clo_vex_control).guest_chase = False;

    VG_(basic_tool_funcs)(tl_post_clo_init, tl_instrument, tl_fini);
    VG_(track_start_client_code)(tl_start_client_code);
    VG_(track_pre_thread_ll_exit)(tl_thread_exit);
    VG_(track_pre_deliver_signal)(tl_pre_deliver_signal);
    VG_(track_post_deliver_signal)(tl_post_deliver_signal);
    VG_(needs_client_requests)(tl_client_request);
    rms_pre_clo_init();
    VG_(needs_command_line_options)
    (tl_process_cmd_line_option, tl_print_usage, tl_print_debug_usage);
}

VG_DETERMINE_INTERFACE_VERSION(tl_pre_clo_init)
