/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_input.c - input-sensitive profiling in tally's Valgrind tool
 * (`tally record --input-sensitive=yes`): the RMS or DRMS and the cost of
 * every routine activation, aggregated into performance tuples and
 * written as an aprof report (docs/internals/aprof.md is the format,
 * docs/internals/rms.md this module).
 *
 * The algorithm is valgrind/rms.h. This file adds what needs the core:
 *  - options, and the checks after them;
 *  - the IR: one helper call per guest memory access (address and size;
 *    the helper turns them into the cell range), a basic-block counter
 *    incremented inline at the start of every block;
 *  - hooks called by tl_main.c's call tracker (push_call/pop_call: so
 *    calls, returns, longjmp and unwinding are classified once, by stack
 *    pointer, for both features) and thread switches;
 *  - syscall wrappers: bytes the kernel writes into memory (read, pread64,
 *    readv, preadv, recvfrom, recvmsg, msgrcv, file-backed mmap) are new
 *    input under --drms=yes; bytes the kernel reads from memory (write,
 *    pwrite64, writev, pwritev, sendto, sendmsg, msgsnd) are reads by the
 *    calling activation in both modes;
 *  - the report writer.
 *
 * The report follows docs/internals/aprof.md (the contract with the
 * library's reader). Beyond it: a tuple whose 64-bit sum saturated is
 * preceded by a `c tally overflow` line; `c tally warning` reports
 * activations whose RMS came out negative (none are expected).
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
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include "sim_types.h"

#include "rms.h"
#include "tl_out.h"
#include "tl_util.h"

/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

Bool rms_on = False;
static Bool clo_drms = False;
static Bool clo_cct = False;
static Bool clo_cost_instr = False;
static Long clo_resolution = 4;
static const HChar *clo_aprof_out = "tally.aprof.%p";
static Bool clo_is_separate = False;     /* --separate-threads (shared with tl_main.c) */
static Bool clo_cache_sim_given = False; /* --cache-sim was on the command line */

Bool rms_process_option(const HChar *arg)
{
    const HChar *v;
    if VG_BOOL_CLO (arg, "--input-sensitive", rms_on) {
    } else if VG_BOOL_CLO (arg, "--drms", clo_drms) {
    } else if VG_BOOL_CLO (arg, "--collect-cct", clo_cct) {
    } else if VG_INT_CLO (arg, "--memory-resolution", clo_resolution) {
        if (clo_resolution != 1 && clo_resolution != 2 && clo_resolution != 4 &&
            clo_resolution != 8 && clo_resolution != 16)
            VG_(fmsg_bad_option)(arg, "the memory resolution is 1, 2, 4, 8 or 16 (bytes)\n");
    } else if VG_STR_CLO (arg, "--cost", v) {
        if (VG_(strcmp)(v, "bb") == 0)
            clo_cost_instr = False;
        else if (VG_(strcmp)(v, "instr") == 0)
            clo_cost_instr = True;
        else
            VG_(fmsg_bad_option)(arg, "the cost is bb (basic blocks) or instr (instructions)\n");
    } else if VG_STR_CLO (arg, "--aprof-out-file", clo_aprof_out) {
        if (!*clo_aprof_out) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_BOOL_CLO (arg, "--separate-threads", clo_is_separate) {
        return False; /* tl_main.c takes it too */
    } else if (VG_(strncmp)(arg, "--cache-sim=", 12) == 0) {
        clo_cache_sim_given = True;
        return False;
    } else
        return False;
    return True;
}

void rms_print_usage(void)
{
    VG_(printf)
    ("    --input-sensitive=yes|no  RMS and cost of every activation, aprof report [no]\n"
     "    --drms=yes|no             input is DRMS: also what the kernel and other threads\n"
     "                              write during the activation [no]\n"
     "    --memory-resolution=1|2|4|8|16  bytes per memory cell [4]\n"
     "    --cost=bb|instr           cost of an activation: basic blocks or instructions [bb]\n"
     "    --collect-cct=yes|no      tuples per calling context (q/x lines) [no]\n"
     "    --aprof-out-file=<file>   the aprof report [tally.aprof.%%p]; with\n"
     "                              --separate-threads one per thread, <file>-<tid>\n");
}

/*------------------------------------------------------------*/
/*--- State                                                ---*/
/*------------------------------------------------------------*/

static rms_global G;

/* What the tool keeps per Valgrind thread around rms.h's thread. */
typedef struct {
    rms_thread r;
    Bool used;
    ULong bb_acc;     /* basic blocks run before the last switch to this thread */
    ULong bb_since;   /* rms_bbs when it last got the CPU */
    ULong last_instr; /* the instruction clock at the last hook */
} ithread;

static ithread **ithreads;
static UInt n_ithreads;
static ithread *cur; /* the running thread */
static ithread idle; /* until the first thread runs: depth 0, nothing counts */

/* What the inline check of the generated code reads (RMS mode): the
 * running thread's shadow table and the aid of its top activation, 0 when
 * nothing counts (no activation, or inside the resolver). */
static rms_shadow *fast_sh;
static ULong fast_aid;
static ULong zero_leaf[1u << RMS_LEAF_BITS]; /* read instead of a missing leaf */

/* Executed superblocks, all threads (incremented by the generated code). */
static ULong rms_bbs;

static ithread *get_ithread(UInt tid)
{
    ithreads = grow_by_tid(ithreads, &n_ithreads, tid, "rms.threads");
    if (!ithreads[tid]) {
        ithread *t = VG_(calloc)("rms.thread", 1, sizeof *t);
        rms_thread_init(&t->r);
        t->used = True;
        ithreads[tid] = t;
    }
    return ithreads[tid];
}

/* The cost clock of thread t now. */
static ULong clock_of(ithread *t, ULong instr)
{
    if (clo_cost_instr) return instr;
    return t == cur ? t->bb_acc + (rms_bbs - t->bb_since) : t->bb_acc;
}

/* Routines: (function name, object) as tl_main.c interned them, so the
 * keys compare by pointer; ids are dense, in first-call order. */
typedef struct rroutine {
    struct rroutine *next;
    const void *fnkey, *objkey;
    const HChar *name, *obj;
    UInt id;
} rroutine;

static htab rtab;
static rroutine **rbyid;
static UInt n_routines, rbyid_cap;

static UWord rhash(const void *a, const void *b)
{
    return (((UWord)a >> 3) * 0x9E3779B97F4A7C15ull ^ ((UWord)b >> 3)) >> 11;
}

static UWord rroutine_rehash(const void *p)
{
    const rroutine *r = p;
    return rhash(r->fnkey, r->objkey);
}

static UInt routine_id(const void *fnkey, const void *objkey, const HChar *name, const HChar *obj)
{
    UWord h = rhash(fnkey, objkey);
    for (rroutine *r = rtab.slot[h & (rtab.nslots - 1)]; r; r = r->next)
        if (r->fnkey == fnkey && r->objkey == objkey) return r->id;
    /* the table grows before the records are allocated (htab_add below
     * finds room) */
    if (rtab.nused + 1 > rtab.nslots) htab_grow(&rtab, rroutine_rehash);
    if (n_routines == rbyid_cap) {
        UInt n = rbyid_cap ? rbyid_cap * 2 : 1024;
        rroutine **v = VG_(malloc)("rms.routines", n * sizeof *v);
        for (UInt k = 0; k < n_routines; k++)
            v[k] = rbyid[k];
        if (rbyid) VG_(free)(rbyid);
        rbyid = v;
        rbyid_cap = n;
    }
    rroutine *r = VG_(malloc)("rms.routine", sizeof *r);
    r->fnkey = fnkey;
    r->objkey = objkey;
    r->name = name;
    r->obj = obj;
    r->id = n_routines++;
    rbyid[r->id] = r;
    htab_add(&rtab, r, h, rroutine_rehash);
    return r->id;
}

/*------------------------------------------------------------*/
/*--- Hooks of the call tracker (tl_main.c)                ---*/
/*------------------------------------------------------------*/

static void refresh_fast(void)
{
    rms_thread *r = &cur->r;
    fast_sh = &r->ts;
    fast_aid = r->depth && !r->skip ? r->stack[r->depth - 1].aid : 0;
}

void rms_on_call(UInt tid, const void *fnkey, const void *objkey, const HChar *name,
                 const HChar *obj, Bool resolver, ULong instr)
{
    ithread *t = get_ithread(tid);
    t->last_instr = instr;
    if (resolver) {
        /* the lazy-binding resolver: neither an activation nor input */
        t->r.skip++;
    } else {
        rms_call(&G, &t->r, routine_id(fnkey, objkey, name, obj), clock_of(t, instr));
    }
    if (t == cur) refresh_fast();
}

void rms_on_return(UInt tid, Bool resolver, ULong instr)
{
    ithread *t = get_ithread(tid);
    t->last_instr = instr;
    if (resolver) {
        if (t->r.skip) t->r.skip--;
    } else if (t->r.depth) {
        rms_return(&G, &t->r, clock_of(t, instr));
    }
    if (t == cur) refresh_fast();
}

/* Signals: the handler runs above a `<signal N>` barrier activation
 * (rms.h): its input and cost are its own, not the interrupted routine's. */
static HChar sig_names[65][16];

void rms_on_signal(UInt tid, Int sig, ULong instr)
{
    ithread *t = get_ithread(tid);
    UInt k = sig > 0 && sig < 65 ? (UInt)sig : 0;
    if (!sig_names[k][0]) VG_(sprintf)(sig_names[k], "<signal %d>", sig);
    t->last_instr = instr;
    rms_signal(&G, &t->r, routine_id(sig_names[k], NULL, sig_names[k], "???"), clock_of(t, instr));
    if (t == cur) refresh_fast();
}

void rms_on_signal_end(UInt tid, ULong instr)
{
    ithread *t = get_ithread(tid);
    t->last_instr = instr;
    if (t->r.depth && t->r.stack[t->r.depth - 1].barrier) rms_return(&G, &t->r, clock_of(t, instr));
    if (t == cur) refresh_fast();
}

void rms_on_switch(UInt tid)
{
    ithread *t = get_ithread(tid);
    if (t == cur) return;
    if (cur && cur != &idle) cur->bb_acc += rms_bbs - cur->bb_since;
    t->bb_since = rms_bbs;
    cur = t;
    rms_switch(&G);
    refresh_fast();
}

/*------------------------------------------------------------*/
/*--- Run-time helpers and instrumentation                 ---*/
/*------------------------------------------------------------*/

static VG_REGPARM(2) void h_rms_rd(Addr a, UWord size)
{
    rms_read(&G, &cur->r, a, size);
}

static VG_REGPARM(2) void h_rms_wr(Addr a, UWord size)
{
    rms_write(&G, &cur->r, a, size);
}

/* The unguarded accesses already instrumented in this block. Nothing that
 * moves the clocks (a call, a return, a thread switch, a syscall, a
 * signal) happens inside a block, and the IR is in SSA form, so a later
 * access to the same address atom with no larger size finds its cells
 * already stamped by the top activation: a read needs no call, nor does a
 * write in RMS mode (in DRMS mode a write after a read must still record
 * the write for the other threads). */
#define N_SEEN 32
static struct {
    IRExpr *addr;
    Int size;
    Bool wrote;
} seen[N_SEEN];
static Int n_seen;

void rms_ir_block(IRSB *sb)
{
    n_seen = 0;
    if (clo_cost_instr) return;
    IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
    IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb,
                  IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&rms_bbs))));
    addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
                                                    IRExpr_Const(IRConst_U64(1)))));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rms_bbs), IRExpr_RdTmp(t2)));
}

/* One guest access of `size` bytes at `addr` (an IR atom) by the
 * instruction at `cia`; `guard` (or NULL) makes it conditional. */
static IRExpr *ir_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(sb->tyenv, ty);
    addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

#define C64(x) IRExpr_Const(IRConst_U64((ULong)(x)))
#define C8(x) IRExpr_Const(IRConst_U8((UChar)(x)))
#define OP2(op, a, b) ir_tmp(sb, Ity_I64, IRExpr_Binop(op, (a), (b)))
#define LD64(a) ir_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, (a)))
#define B2W(e) ir_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64, ir_tmp(sb, Ity_I1, (e))))

/*
 * RMS mode, an access of at most two cells: the inline check that makes
 * the helper call unnecessary in the common case. The call is needed
 * unless the leaf of the last cell is in the running thread's leaf cache
 * at the slot of the first cell's leaf (so both cells are in that leaf:
 * adjacent leaves never share a slot) and both cells already carry a
 * timestamp >= the top activation's aid: then a read is not a first read
 * and a write changes nothing. Returns the guard of the call.
 */
static IRExpr *ir_stamped_check(IRSB *sb, IRExpr *addr, Int size)
{
    UInt sh = G.shift;
    const ULong m = (1u << RMS_LEAF_BITS) - 1;
    IRExpr *c0 = OP2(Iop_Shr64, addr, C8(sh));
    IRExpr *c1 = size == 1 ? c0 : OP2(Iop_Shr64, OP2(Iop_Add64, addr, C64(size - 1)), C8(sh));
    IRExpr *slot =
        OP2(Iop_And64, OP2(Iop_Shr64, c0, C8(RMS_LEAF_BITS - 3)), C64((RMS_TLB - 1) << 3));
    IRExpr *shp = LD64(C64((HWord)&fast_sh));
    IRExpr *base = OP2(Iop_Add64, shp, slot);
    IRExpr *tk = LD64(OP2(Iop_Add64, base, C64(offsetof(rms_shadow, tlb_key))));
    IRExpr *lf = LD64(OP2(Iop_Add64, base, C64(offsetof(rms_shadow, tlb_leaf))));
    IRExpr *key1 = OP2(Iop_Add64, OP2(Iop_Shr64, c1, C8(RMS_LEAF_BITS)), C64(1));
    IRExpr *hit = ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, tk, key1));
    IRExpr *leaf = ir_tmp(sb, Ity_I64, IRExpr_ITE(hit, lf, C64((HWord)zero_leaf)));
    IRExpr *aid = LD64(C64((HWord)&fast_aid));
    IRExpr *v0 = LD64(OP2(Iop_Add64, leaf, OP2(Iop_Shl64, OP2(Iop_And64, c0, C64(m)), C8(3))));
    IRExpr *need = ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, v0, aid));
    if (size > 1) {
        IRExpr *v1 = LD64(OP2(Iop_Add64, leaf, OP2(Iop_Shl64, OP2(Iop_And64, c1, C64(m)), C8(3))));
        need = ir_tmp(
            sb, Ity_I1,
            IRExpr_Binop(Iop_Or1, need, ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, v1, aid))));
    }
    if (size > (1 << sh)) /* more than one cell's worth: misaligned, it may span three */
        need = ir_tmp(
            sb, Ity_I1,
            IRExpr_Binop(
                Iop_Or1, need,
                ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, C64(1), OP2(Iop_Sub64, c1, c0)))));
    IRExpr *miss = ir_tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, hit));
    return ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, need, miss));
}

static void ir_access(IRSB *sb, Bool write, IRExpr *addr, Int size, IRExpr *guard)
{
    if (size <= 0) return;
    if (!guard) {
        for (Int k = 0; k < n_seen; k++)
            if (seen[k].size >= size && eqIRAtom(seen[k].addr, addr)) {
                if (!write || !clo_drms || seen[k].wrote) return;
                seen[k].wrote = True; /* the call below makes it a write */
                break;
            }
    }
    if (!guard && !clo_drms && size <= (2 << G.shift)) guard = ir_stamped_check(sb, addr, size);
    IRExpr **args = mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size));
    IRDirty *di = write ? unsafeIRDirty_0_N(2, "h_rms_wr", VG_(fnptr_to_fnentry)(h_rms_wr), args)
                        : unsafeIRDirty_0_N(2, "h_rms_rd", VG_(fnptr_to_fnentry)(h_rms_rd), args);
    if (guard) di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
    if (!guard && n_seen < N_SEEN) {
        seen[n_seen].addr = addr;
        seen[n_seen].size = size;
        seen[n_seen].wrote = write;
        n_seen++;
    }
}

/* The accesses of one statement, as Cachegrind's events are made (whole
 * sizes: no clamping to a cache line here). */
void rms_ir_stmt(IRSB *sb, IRTypeEnv *tyenv, IRStmt *s)
{
    switch (s->tag) {
    case Ist_WrTmp:
        if (s->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr *ld = s->Ist.WrTmp.data;
            ir_access(sb, False, ld->Iex.Load.addr, sizeofIRType(ld->Iex.Load.ty), NULL);
        }
        break;
    case Ist_Store:
        ir_access(sb, True, s->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, s->Ist.Store.data)),
                  NULL);
        break;
    case Ist_StoreG: {
        IRStoreG *sg = s->Ist.StoreG.details;
        ir_access(sb, True, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard);
        break;
    }
    case Ist_LoadG: {
        IRLoadG *lg = s->Ist.LoadG.details;
        IRType wide = Ity_INVALID, narrow = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
        ir_access(sb, False, lg->addr, sizeofIRType(narrow), lg->guard);
        break;
    }
    case Ist_Dirty: {
        IRDirty *d = s->Ist.Dirty.details;
        if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
            ir_access(sb, False, d->mAddr, d->mSize, NULL);
        if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
            ir_access(sb, True, d->mAddr, d->mSize, NULL);
        break;
    }
    case Ist_CAS: {
        IRCAS *cas = s->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
        ir_access(sb, False, cas->addr, size, NULL);
        ir_access(sb, True, cas->addr, size, NULL);
        break;
    }
    case Ist_LLSC:
        if (s->Ist.LLSC.storedata == NULL)
            ir_access(sb, False, s->Ist.LLSC.addr,
                      sizeofIRType(typeOfIRTemp(tyenv, s->Ist.LLSC.result)), NULL);
        else
            ir_access(sb, True, s->Ist.LLSC.addr,
                      sizeofIRType(typeOfIRExpr(tyenv, s->Ist.LLSC.storedata)), NULL);
        break;
    default:
        break;
    }
}

/*------------------------------------------------------------*/
/*--- Syscalls                                             ---*/
/*------------------------------------------------------------*/

/* Apply `fn` to up to `total` bytes of an iovec array. */
static void each_iov(rms_thread *t, const struct vki_iovec *iov, UWord n, UWord total, Bool kwrite)
{
    if (!iov) return;
    for (UWord i = 0; i < n && total > 0; i++) {
        UWord len = iov[i].iov_len < total ? iov[i].iov_len : total;
        if (kwrite)
            rms_kernel_write(&G, (Addr)iov[i].iov_base, len);
        else
            rms_read(&G, t, (Addr)iov[i].iov_base, len);
        total -= len;
    }
}

static void rms_pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
    (void)tid;
    (void)args;
    (void)nargs;
    tl_pre_syscall_note(no); /* the tool's own, registered here with RMS's */
}

static void rms_post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
    if (!rms_on || sr_isError(res)) return;
    UWord n = sr_Res(res);
    rms_thread *t = &get_ithread(tid)->r;
    const struct vki_msghdr *m;
    switch (no) {
    /* the kernel writes: new input (DRMS) */
    case __NR_read:
    case __NR_pread64:
    case __NR_recvfrom:
        if (clo_drms) rms_kernel_write(&G, args[1], n);
        break;
    case __NR_readv:
    case __NR_preadv:
        if (clo_drms) each_iov(t, (const struct vki_iovec *)args[1], args[2], n, True);
        break;
    case __NR_recvmsg:
        m = (const struct vki_msghdr *)args[1];
        if (clo_drms && m) each_iov(t, m->msg_iov, m->msg_iovlen, n, True);
        break;
    case __NR_msgrcv:
        if (clo_drms) rms_kernel_write(&G, args[1], n + sizeof(long));
        break;
    case __NR_mmap:
        /* file contents appear in memory; anonymous zero pages are not input */
        if (clo_drms && !(args[3] & VKI_MAP_ANONYMOUS)) rms_kernel_write(&G, n, args[1]);
        break;
    /* the kernel reads: input of the calling activation */
    case __NR_write:
    case __NR_pwrite64:
    case __NR_sendto:
        rms_read(&G, t, args[1], n);
        break;
    case __NR_writev:
    case __NR_pwritev:
        each_iov(t, (const struct vki_iovec *)args[1], args[2], n, False);
        break;
    case __NR_sendmsg:
        m = (const struct vki_msghdr *)args[1];
        if (m) each_iov(t, m->msg_iov, m->msg_iovlen, n, False);
        break;
    case __NR_msgsnd:
        rms_read(&G, t, args[1], args[2] + sizeof(long));
        break;
    default:
        break;
    }
}

void rms_pre_clo_init(void)
{
    VG_(needs_syscall_wrapper)(rms_pre_syscall, rms_post_syscall);
}

/* After the command line, VG_(fmsg_bad_option) reports but does not stop
 * the run: say it the same way and exit. */
static void bad_combination(const HChar *opt, const HChar *why)
{
    VG_(fmsg)("Bad option: %s\n", opt);
    VG_(fmsg)("%s\n", why);
    VG_(exit)(1);
}

/* After the options: `calls` is --calls (the tracker the hooks need).
 * Input-sensitive profiling runs without the cache simulation unless
 * --cache-sim=yes is given: it is then about twice as fast. */
void rms_out_check(void)
{
    if (rms_on) tl_out_check("--aprof-out-file", clo_aprof_out);
}

Bool rms_post_clo_init(Bool calls)
{
    if (!rms_on) {
        if (clo_drms || clo_cct)
            bad_combination(clo_drms ? "--drms=yes" : "--collect-cct=yes",
                            "it needs --input-sensitive=yes");
        return False;
    }
    if (!calls) bad_combination("--calls=no", "--input-sensitive=yes needs --calls=yes");
    /* one superblock = one basic block, as aprof counts them */
    VG_(clo_vex_control).iropt_unroll_thresh = 0;
    rms_global_init(&G, (UInt)clo_resolution, clo_drms, clo_cct);
    htab_init(&rtab, 1024);
    rms_thread_init(&idle.r);
    cur = &idle;
    refresh_fast();
    return !clo_cache_sim_given;
}

/*------------------------------------------------------------*/
/*--- The report                                           ---*/
/*------------------------------------------------------------*/

static void put_u128(VgFile *f, rms_u128 v)
{
    HChar buf[48];
    Int i = sizeof buf - 1;
    buf[i] = 0;
    do {
        buf[--i] = (HChar)('0' + (Int)(v % 10));
        v /= 10;
    } while (v);
    VG_(fprintf)(f, " %s", buf + i);
}

/* A quoted string, without escapes (docs/internals/aprof.md): a newline
 * becomes a space, a '"' a '\'' (the reader ends a name at '" '). */
static void put_quoted(VgFile *f, const HChar *s)
{
    VG_(fprintf)(f, " \"");
    for (; *s; s++)
        VG_(fprintf)(f, "%c", *s == '"' ? '\'' : *s == '\n' ? ' ' : *s);
    VG_(fprintf)(f, "\"");
}

/* Tuples are written grouped by routine (with a CCT, by the routine of
 * their context), then by owner and input. */
static UInt owner_routine(UInt owner)
{
    return clo_cct ? G.contexts.routine[owner] : owner;
}

static Int cmp_tuple(const void *a, const void *b)
{
    const rms_tuple *x = *(const rms_tuple *const *)a, *y = *(const rms_tuple *const *)b;
    UInt rx = owner_routine(x->owner), ry = owner_routine(y->owner);
    if (rx != ry) return rx < ry ? -1 : 1;
    if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
    return x->input < y->input ? -1 : x->input > y->input;
}

static void write_tuple(VgFile *f, const rms_tuple *t)
{
    if (t->overflow) VG_(fprintf)(f, "c tally overflow: a sum below saturated at 2^64-1\n");
    VG_(fprintf)
    (f, "%c %u %llu %llu %llu %llu", clo_cct ? 'q' : 'p', t->owner, t->input, t->min, t->max,
     t->sum);
    put_u128(f, t->sqr);
    VG_(fprintf)
    (f, " %llu %llu %llu %llu %llu", t->calls, t->real, t->self_sum, t->self_min, t->self_max);
    put_u128(f, t->self_sqr);
    if (clo_drms) VG_(fprintf)
    (f, " 0 0 %llu %llu %llu %llu", t->cumul_sys, t->cumul_thr, t->self_sys, t->self_thr);
    VG_(fprintf)(f, "\n");
}

/* The date in UTC, ISO 8601 (civil date from the day number). */
static Bool format_now(HChar *buf)
{
    struct vki_timeval tv;
    if (VG_(gettimeofday)(&tv, NULL) != 0 || tv.tv_sec < 0) return False;
    Long secs = tv.tv_sec, days = secs / 86400, rem = secs % 86400;
    Long z = days + 719468, era = z / 146097, doe = z - era * 146097;
    Long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    Long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    Long d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    Long y = yoe + era * 400 + (m <= 2);
    VG_(sprintf)
    (buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y, m, d, rem / 3600, rem / 60 % 60,
     rem % 60);
    return True;
}

/* Write the tuples of `ts` as one report (thread tid, 0 = all), in the
 * order of docs/internals/aprof.md, to a temporary file renamed at the
 * end; a name that is a device or a FIFO (/dev/null, a pipe) is written
 * in place: a rename would put a plain file where the device was. */
static void write_report(const HChar *name, rms_tuples *ts, UInt tid, ULong total)
{
    struct vg_stat st;
    Bool special = !sr_isError(VG_(stat)(name, &st)) && !VKI_S_ISREG(st.mode);
    HChar *tmp = NULL;
    if (!special) {
        tmp = VG_(malloc)("rms.name", VG_(strlen)(name) + 32);
        VG_(sprintf)(tmp, "%s.tmp%d", name, VG_(getpid)());
    }
    const HChar *to = special ? name : tmp;
    VgFile *f = VG_(fopen)(to, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    if (!f) {
        VG_(umsg)("error: cannot create the aprof report '%s'\n", to);
        tl_out_failed();
        if (tmp) VG_(free)(tmp);
        return;
    }
    rms_tuple **v = VG_(malloc)("rms.sort", (ts->n + 1) * sizeof *v);
    UWord n = 0;
    for (UWord i = 0; i < ts->nslots; i++)
        for (rms_tuple *t = ts->slot[i]; t; t = t->next)
            v[n++] = t;
    VG_(ssort)(v, n, sizeof *v, cmp_tuple);

    /* which routines (and contexts: with their ancestors) are written */
    UChar *rused = VG_(calloc)("rms.used", n_routines + 1, 1);
    UChar *cused = NULL;
    rms_cct *c = &G.contexts;
    if (clo_cct) {
        cused = VG_(calloc)("rms.used", c->n + 1, 1);
        for (UWord k = 0; k < n; k++)
            for (UInt x = v[k]->owner; x && !cused[x]; x = c->parent[x])
                cused[x] = 1;
        for (UInt x = 1; x <= c->n; x++)
            if (cused[x]) rused[c->routine[x]] = 1;
    } else {
        for (UWord k = 0; k < n; k++)
            rused[v[k]->owner] = 1;
    }

    HChar date[64];
    Bool have_date = format_now(date);
    VG_(fprintf)
    (f, "c -------------------------------------\n"
        "c report generated by tally\n"
        "c -------------------------------------\n");
    VG_(fprintf)(f, "c tally input %s\n", clo_drms ? "drms" : "rms");
    VG_(fprintf)(f, "c tally resolution %lld\n", clo_resolution);
    VG_(fprintf)(f, "c tally cost %s\n", clo_cost_instr ? "instr" : "bb");
    if (tid)
        VG_(fprintf)(f, "c tally thread %u\n", tid);
    else
        VG_(fprintf)(f, "c tally thread all\n");
    if (clo_drms && have_date) VG_(fprintf)(f, "c tally created %s\n", date);
    if (G.negative) VG_(fprintf)
    (f, "c tally warning: %llu activations had a negative RMS (counted as 0)\n", G.negative);
    VG_(fprintf)(f, "v %d\n", clo_drms ? 6 : 4);
    struct vg_stat est;
    if (!sr_isError(VG_(stat)(VG_(args_the_exename), &est))) VG_(fprintf)(f, "e %llu\n", est.mtime);
    if (clo_drms)
        VG_(fprintf)(f, "t %lld\n", clo_resolution);
    else if (have_date)
        VG_(fprintf)(f, "t %s\n", date);
    VG_(fprintf)(f, "f %s", VG_(args_the_exename));
    for (Word k = 0; k < VG_(sizeXA)(VG_(args_for_client)); k++)
        VG_(fprintf)(f, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), k));
    VG_(fprintf)(f, "\n");
    VG_(fprintf)(f, "a %s\n", VG_(args_the_exename));
    VG_(fprintf)(f, "m %s\n", clo_cost_instr ? "vex-instr" : "bb-count");
    if (clo_drms) VG_(fprintf)(f, "i drms\n");
    VG_(fprintf)(f, "k %llu\n", total);

    UWord k = 0;
    for (UInt r = 0; r < n_routines; r++) {
        if (!rused[r]) continue;
        VG_(fprintf)(f, "r");
        put_quoted(f, rbyid[r]->name);
        put_quoted(f,
                   rbyid[r]->obj[0] && VG_(strcmp)(rbyid[r]->obj, "???") ? rbyid[r]->obj : "NONE");
        VG_(fprintf)(f, " %u\n", r);
        for (; k < n && owner_routine(v[k]->owner) == r; k++)
            write_tuple(f, v[k]);
    }
    if (clo_cct) {
        for (UInt x = 1; x <= c->n; x++)
            if (cused[x]) {
                if (c->parent[x])
                    VG_(fprintf)(f, "x %u %u %u\n", c->routine[x], x, c->parent[x]);
                else
                    VG_(fprintf)(f, "x %u %u -1\n", c->routine[x], x);
            }
        VG_(free)(cused);
    }
    VG_(free)(rused);
    VG_(free)(v);
    VG_(fclose)(f);
    if (!tmp) return;
    if (VG_(rename)(tmp, name) != 0) VG_(umsg)("error: cannot rename '%s' to '%s'\n", tmp, name);
    VG_(free)(tmp);
}

/* At exit, after the call tracker has closed every open call. */
void rms_fini(void)
{
    if (!rms_on) return;
    if (cur && cur != &idle) {
        cur->bb_acc += rms_bbs - cur->bb_since;
        cur->bb_since = rms_bbs;
    }
    HChar *base = VG_(expand_file_name)("--aprof-out-file", clo_aprof_out);
    if (clo_is_separate) {
        for (UInt tid = 0; tid < n_ithreads; tid++) {
            ithread *t = ithreads[tid];
            if (!t) continue;
            HChar *name = VG_(malloc)("rms.name", VG_(strlen)(base) + 16);
            VG_(sprintf)(name, "%s-%u", base, tid);
            write_report(name, &t->r.tuples, tid, clo_cost_instr ? t->last_instr : t->bb_acc);
            VG_(free)(name);
        }
    } else {
        rms_tuples all;
        rms_tuples_init(&all);
        ULong total = 0;
        for (UInt tid = 0; tid < n_ithreads; tid++) {
            ithread *t = ithreads[tid];
            if (!t) continue;
            total += clo_cost_instr ? t->last_instr : t->bb_acc;
            rms_tuples *ts = &t->r.tuples;
            for (UWord i = 0; i < ts->nslots; i++)
                for (rms_tuple *p = ts->slot[i]; p; p = p->next) {
                    rms_tuple *q = rms_tuples_find(&all, p->owner, p->input);
                    if (q)
                        rms_tuple_merge(q, p);
                    else {
                        q = rms_tuples_get(&all, p->owner, p->input);
                        rms_tuple *nx = q->next;
                        *q = *p;
                        q->next = nx;
                    }
                }
        }
        write_report(base, &all, 0, total);
        rms_tuples_release(&all);
    }
    VG_(free)(base);
    if (VG_(clo_verbosity) > 1) {
        ULong bytes = G.wts.bytes;
        for (UInt tid = 0; tid < n_ithreads; tid++)
            if (ithreads[tid]) bytes += ithreads[tid]->r.ts.bytes;
        VG_(umsg)
        ("input-sensitive: %u routines, %llu basic blocks, shadow memory %llu KiB\n", n_routines,
         rms_bbs, bytes / 1024);
    }
}
