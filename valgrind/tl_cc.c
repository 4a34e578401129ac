/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_cc.c - the cost centres of tally's Valgrind tool as translation finds
 * them: interned strings, lines (file, function, object, line), instrs
 * (one guest instruction), the PLT test, the records of jumps, and the
 * folding of seg run counts into the instr counters.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "tl_arch.h"
#include "tl_global.h"

htab cc_strs, cc_lines, cc_instrs;
segblock *cc_seg_blocks;
static UInt n_jrecs;

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

/* "???": a file, function or object that is not known (code without line
 * info is common, so it is interned once) */
static istr *unknown(void)
{
    static istr *u;
    return u ? u : (u = intern("???"));
}

istr *intern(const HChar *s)
{
    UInt h = str_hash(s);
    for (istr *e = cc_strs.slot[h & (cc_strs.nslots - 1)]; e; e = e->next)
        if (e->hash == h && VG_(strcmp)(e->s, s) == 0) return e;
    SizeT len = VG_(strlen)(s);
    istr *e = arena_alloc(sizeof(istr) + len + 1);
    e->hash = h;
    VG_(memcpy)(e->s, s, len + 1);
    htab_add(&cc_strs, e, h, istr_rehash);
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

linecc *get_linecc(istr *file, istr *fn, istr *obj, istr *cgfn, UInt line)
{
    UWord h = line_hash(file, fn, obj, cgfn, line);
    for (linecc *l = cc_lines.slot[h & (cc_lines.nslots - 1)]; l; l = l->next)
        if (l->file == file && l->fn == fn && l->obj == obj && l->cgfn == cgfn && l->line == line)
            return l;
    if (!(fn->fnf & FNF_DECIDED)) {
        fnpat_decide(fn);
        fn->fnf |= sw_name_flags(fn->s);
    }
    linecc *l = arena_alloc(sizeof *l + EV_BYTES);
    l->file = file;
    l->fn = fn;
    l->obj = obj;
    l->cgfn = cgfn;
    l->line = line;
    htab_add(&cc_lines, l, h, linecc_rehash);
    return l;
}

/* The instrs' table: the instructions of a block, which translation looks
 * up one after the other, fall in neighbouring slots (the address's low
 * bits), while the 4 MiB regions of code are spread by their high bits. */
static UWord instr_hash(Addr a)
{
    return (a >> 2) + (a >> 22) * 0x9E3779B1u;
}

static UWord instrcc_rehash(const void *p)
{
    return instr_hash(((const instrcc *)p)->addr);
}

/*
 * Translation asks for the position of every instruction, and Valgrind's
 * lookups are dear: a search of the debug infos, and for a function name
 * the C++ demangler each time. Consecutive instructions almost always
 * share the object, the file and the function, so each lookup keeps its
 * answers and gives one again while Valgrind's answer points at the same
 * record. The debug info epoch changes whenever a debug info is read or
 * discarded, and the records pointed at (debug infos, their names) live
 * as long as their debug info, so a kept answer holds only for its epoch.
 */

/* Valgrind's lookup of the symbol holding a code address, without
 * demangling (libcoregrind's pub_core_debuginfo.h; the tool API has only
 * the demangling lookups). The name is the symbol table's own. */
extern Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar **buf);

/* The debug info whose text holds `a` (NULL: none), the last one kept. */
static DebugInfo *text_di(DiEpoch ep, Addr a)
{
    static DebugInfo *last;
    static UInt last_ep;
    if (last && ep.n == last_ep &&
        a - VG_(DebugInfo_get_text_avma)(last) < VG_(DebugInfo_get_text_size)(last))
        return last;
    DebugInfo *di = VG_(find_DebugInfo)(ep, a);
    if (di) {
        last = di;
        last_ep = ep.n;
    }
    return di;
}

/* The object file holding code at `a` ("???" when unknown) and its load
 * bias: the debug info's, else the mapping's (Valgrind marks only `.plt`
 * as a PLT section and keeps no text range for `.plt.sec`). */
istr *object_of(Addr a, Addr *bias)
{
    static const DebugInfo *last;
    static UInt last_ep;
    static istr *last_obj;
    DiEpoch ep = VG_(current_DiEpoch)();
    DebugInfo *di = text_di(ep, a);
    if (di && di == last && ep.n == last_ep) {
        if (bias) *bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
        return last_obj;
    }
    const HChar *name = di ? VG_(DebugInfo_get_filename)(di) : NULL;
    if (name && name[0]) {
        if (bias) *bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
        last = di;
        last_ep = ep.n;
        return last_obj = intern(name);
    }
    NSegment const *seg = VG_(am_find_nsegment)(a);
    name = seg ? VG_(am_get_filename)(seg) : NULL;
    if (bias) *bias = name ? seg->start - (Addr)seg->offset : 0;
    return intern(name && name[0] ? name : "???");
}

/* Answers kept by the address of a name in a debug info (see above): a
 * direct-mapped cache of the last few hundred, so that a block that
 * calls into a function named before does not hash the name again. */
#define NAME_CACHE 1024
typedef struct {
    const HChar *key, *key2;
    UInt ep;
    istr *s;
} name_memo;

static inline name_memo *name_slot(name_memo *m, const HChar *key, const HChar *key2)
{
    return &m[(((UWord)key >> 3) ^ ((UWord)key2 >> 7)) & (NAME_CACHE - 1)];
}

/* The function whose symbol holds `a`, named as VG_(get_fnname) names it
 * (demangled, `(below main)`), or NULL without a symbol. That name is a
 * function of the symbol's raw name alone, so the raw name's istr keeps
 * it (`dem`) and each name is demangled once. */
istr *fn_at(Addr a)
{
    static name_memo memo[NAME_CACHE];
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *raw;
    if (!VG_(get_fnname_raw)(ep, a, &raw)) return NULL;
    name_memo *m = name_slot(memo, raw, NULL);
    if (m->key == raw && m->ep == ep.n) return m->s;
    istr *r = intern(raw);
    if (!r->dem) {
        const HChar *fn;
        if (!VG_(get_fnname)(ep, a, &fn)) return NULL; /* (cannot happen) */
        r->dem = intern(fn);
    }
    m->key = raw;
    m->ep = ep.n;
    return m->s = r->dem;
}

/* "dir/file" (or "file" without a directory), from the names of a line
 * record of the debug info; the last one is kept. */
static istr *path_of(DiEpoch ep, const HChar *file, const HChar *dir)
{
    static name_memo memo[NAME_CACHE];
    name_memo *m = name_slot(memo, file, dir);
    if (m->key == file && m->key2 == dir && m->ep == ep.n) return m->s;
    istr *p;
    if (dir[0]) {
        SizeT dl = VG_(strlen)(dir), fl = VG_(strlen)(file);
        HChar *buf = VG_(malloc)("tl.path", dl + fl + 2);
        VG_(memcpy)(buf, dir, dl);
        buf[dl] = '/';
        VG_(memcpy)(buf + dl + 1, file, fl + 1);
        p = intern(buf);
        VG_(free)(buf);
    } else {
        p = intern(file);
    }
    m->key = file;
    m->key2 = dir;
    m->ep = ep.n;
    return m->s = p;
}

/* The load biases met so far (few: one per object), instrs keep an index. */
Addr *cc_obj_bias;
static UInt n_bias, cap_bias;

static Addr text_bias(Addr a)
{
    DebugInfo *di = text_di(VG_(current_DiEpoch)(), a);
    return di ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0;
}

static UInt bias_index(Addr bias)
{
    for (UInt k = 0; k < n_bias; k++)
        if (cc_obj_bias[k] == bias) return k;
    if (n_bias == cap_bias) {
        cap_bias = cap_bias ? 2 * cap_bias : 16;
        cc_obj_bias = cc_obj_bias ? VG_(realloc)("tl.bias", cc_obj_bias, cap_bias * sizeof *cc_obj_bias)
                            : VG_(malloc)("tl.bias", cap_bias * sizeof *cc_obj_bias);
    }
    cc_obj_bias[n_bias] = bias;
    tl_assert(n_bias < (1u << 24) - 1); /* instrcc.bias */
    return n_bias++;
}

Addr file_addr(Addr a)
{
    return a - text_bias(a);
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
linecc *lookup_position(Addr a, Addr entry, const linecc *owner, Bool follow)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *file, *dir;
    UInt line = 0;
    istr *ifile;

    if (VG_(get_filename_linenum)(ep, a, &file, &dir, &line)) {
        ifile = path_of(ep, file, dir);
    } else {
        ifile = unknown();
        line = 0;
    }
    istr *ifn = fn_at(a);
    if (ifn) {
        /* a block that runs on past its function's end is its first
         * instruction's function (`follow`), as in Callgrind */
        if (follow && owner && owner->fn != ifn)
            return get_linecc(ifile, owner->fn, owner->obj, ifn, line);
        return get_linecc(ifile, ifn, object_of(a, NULL), ifn, line);
    }
    istr *unk = unknown();
    if (owner) return get_linecc(ifile, owner->fn, owner->obj, unk, line);
    HChar buf[32];
    Addr bias;
    istr *iobj = object_of(entry, &bias);
    /* --skip-plt=no: a stub of `.plt` is a function of its own, named as
     * Callgrind names it (its run-time address, object ???); the stubs of
     * `.plt.sec` and `.plt.got` are code without a symbol for Callgrind */
    if (!clo_skip_plt && VG_(DebugInfo_sect_kind)(NULL, entry) == Vg_SectPLT) {
        VG_(sprintf)(buf, "0x%016lx [PLT]", (unsigned long)entry);
        return get_linecc(ifile, intern(buf), unk, unk, line);
    } else
        VG_(sprintf)(buf, "0x%016lx", (unsigned long)(entry - bias));
    return get_linecc(ifile, intern(buf), iobj, unk, line);
}

instrcc *new_instrcc(Addr a, UInt len, linecc *l)
{
    UWord h = instr_hash(a);
    /* own counters: written per instruction; counted into by the
     * simulators' helpers at every miss (one hop less, next to the
     * instr's address and length); PLT code (see icost) */
    Bool own = clo_dump_instr || clo_cache_sim || clo_branch_sim ||
               (clo_calls && clo_skip_plt && !l->pseudo && is_plt(a));
    instrcc *i = arena_alloc(sizeof *i + (own ? EV_BYTES : 0));
    i->has_own = own;
    i->addr = a;
    i->len = len;
    i->nox = clo_cache_sim && sim_ir_nox(a, len);
    i->line = l;
    i->bias = bias_index(l->pseudo ? 0 : text_bias(a));
    i->id = cc_instrs.nused;
    htab_add(&cc_instrs, i, h, instrcc_rehash);
    return i;
}

instrcc *get_instrcc(Addr a, UInt len, Addr entry, const linecc *owner, Bool follow)
{
    linecc *l = lookup_position(a, entry, owner, follow);
    UWord h = instr_hash(a);
    /* Several entries may share an address: code replaced by other code
     * (the newest is first), and code without a symbol run for several
     * functions (one entry each, see dynblock). */
    for (instrcc *i = cc_instrs.slot[h & (cc_instrs.nslots - 1)]; i; i = i->next)
        if (i->addr == a && i->line == l && i->len == len) return i;
    return new_instrcc(a, len, l);
}

/* Code of a PLT section or a PLT-style stub: transparent in the call graph. */
Bool is_plt(Addr a)
{
    /* (code in an object's .text is not in a .plt: sections do not
     * overlap; the test of every debug info's sections is the dear one) */
    DiEpoch ep = VG_(current_DiEpoch)();
    if (!text_di(ep, a) && VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT) return True;
    const HChar *name;
    return !VG_(get_fnname_raw)(ep, a, &name) && arch_plt_stub(a);
}

/* Add every seg's runs into its instr counters (before writing, and at a
 * thread switch with --separate-threads). */
void fold_segs(void)
{
    for (segblock *b = cc_seg_blocks; b; b = b->next)
        segs_fold(b->first, b->n);
}

/* The scratch buffer of the segs of the block being translated. */
static UChar *segbuf;
static UInt segbuf_cap;

typedef struct segref {
    IRConst *c;
    UInt off;
} segref;

IRConst *seg_count_addr(tlstate *st, UInt off)
{
    static segref *refs;
    static UInt cap;
    if (st->n_refs == cap) {
        cap = cap ? 2 * cap : 64;
        refs = refs ? VG_(realloc)("tl.segrefs", refs, cap * sizeof *refs)
                    : VG_(malloc)("tl.segrefs", cap * sizeof *refs);
    }
    st->refs = refs;
    IRConst *c = IRConst_U64(0);
    refs[st->n_refs].c = c;
    refs[st->n_refs].off = off + offsetof(seg, count);
    st->n_refs++;
    return c;
}

seg *seg_new(tlstate *st, UInt n)
{
    SizeT need = st->seg_bytes + seg_size(n);
    if (need > segbuf_cap) {
        segbuf_cap = need > 2 * segbuf_cap ? need : 2 * segbuf_cap;
        segbuf = segbuf ? VG_(realloc)("tl.segbuf", segbuf, segbuf_cap)
                        : VG_(malloc)("tl.segbuf", segbuf_cap);
    }
    st->segbuf = segbuf;
    seg *s = (seg *)(segbuf + st->seg_bytes);
    VG_(memset)(s, 0, seg_size(n));
    s->n = n;
    st->seg_bytes = need;
    st->nsegs++;
    return s;
}

void segs_finish(tlstate *st, sbinfo *sb)
{
    if (!st->nsegs) return;
    segblock *b = arena_alloc(sizeof *b + st->seg_bytes);
    VG_(memcpy)(b->first, st->segbuf, st->seg_bytes);
    b->n = st->nsegs;
    b->next = cc_seg_blocks;
    cc_seg_blocks = b;
    for (UInt k = 0; k < st->n_refs; k++)
        st->refs[k].c->Ico.U64 = (ULong)(HWord)((UChar *)b->first + st->refs[k].off);
    if (sb) {
        sb->segs = b->first;
        sb->nsegs = (UShort)st->nsegs;
    }
}

/* The record of a jump from `site` to `to`: the one an earlier translation
 * of the same code made, or a new one. */
jrec *get_jrec(instrcc *site, Addr to, Bool cond, Bool inverted)
{
    for (jrec *j = site->line->jumps; j; j = j->snext)
        if (j->site == site && j->to == to && j->cond == cond && j->inverted == inverted) return j;
    jrec *j = arena_alloc(sizeof *j);
    j->id = n_jrecs++;
    j->site = site;
    j->to = to;
    j->to_file = file_addr(to);
    j->cond = cond;
    j->inverted = inverted;
    /* code without a symbol in the same object is the jumping function's */
    j->target = lookup_position(
        to, to, object_of(to, NULL) == object_of(site->addr, NULL) ? site->line : NULL, False);
    const HChar *name;
    j->skip = VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), to, &name) || is_plt(to);
    j->snext = site->line->jumps;
    site->line->jumps = j;
    return j;
}

UWord jrec_rehash(const void *p)
{
    const jrec *j = p;
    return addr_hash(j->site->addr) ^ (addr_hash(j->to) * 31u);
}
