/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_sim.c - the simulators in tally's Valgrind tool: the queue of a
 * block's events, flushed into a seg (the run counter) and the helper
 * calls of the cache and branch simulators in program order; the helpers
 * themselves, and those of --collect-jumps. The simulators' state
 * (sim_cache.h, sim_branch.h) lives in this file only.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "tl_global.h"

#include "sim_branch.h"
#include "sim_cache.h"

/* Data sizes of Dirty and CAS accesses are clamped to the smallest line. */
Int min_line_size = 64;

Bool sim_parse_opt(const HChar *arg)
{
    return cachesim_parse_opt(arg, &clo_I1, &clo_D1, &clo_LL);
}

/* Auto-detection, LL tweak, warnings and command-line overrides, as
 * Cachegrind does them; a bad configuration has been reported. */
void sim_init(void)
{
    cfg_I1 = clo_I1;
    cfg_D1 = clo_D1;
    cfg_LL = clo_LL;
    if (clo_cache_sim) {
        /* (without the simulation there is nothing to configure or warn about) */
        if (!cachesim_configure(&cfg_I1, &cfg_D1, &cfg_LL)) VG_(exit)(1);
        cachesim_set_models(clo_simulate_wb, clo_simulate_hwpref);
        cachesim_init(&cfg_I1, &cfg_D1, &cfg_LL);
        min_line_size = cachesim_min_line_size;
    }
    if (clo_branch_sim) {
        branchsim_init();
    }
}

/* All cache lines empty again (Callgrind's instrumentation requests). */
void sim_reset_caches(void)
{
    if (clo_cache_sim) cachesim_init(&cfg_I1, &cfg_D1, &cfg_LL);
}

Bool sim_ir_nox(Addr a, UInt len)
{
    return cachesim_is_IrNoX(a, (UChar)len);
}

/*------------------------------------------------------------*/
/*--- Run-time helpers                                     ---*/
/*------------------------------------------------------------*/

VG_REGPARM(2) void h_jcnd(jrec *j, UWord guard)
{
    if (!collecting) return;
    j->exe++;
    j->taken += j->inverted ? !guard : guard;
    touch_jrec(j);
}

VG_REGPARM(1) void h_jump(jrec *j)
{
    if (!collecting) return;
    j->taken++;
    touch_jrec(j);
}

VG_REGPARM(2) void h_jump_dyn(instrcc *site, Addr to)
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

/* The simulators run whether or not collection is on (the caches and
 * predictors keep their state); they count into the instr only while it is
 * on, and always into the running cost. */
static inline void count2(instrcc *n, Int e1, Int eL, ULong m1, ULong mL)
{
    e1 = EVSC(e1);
    eL = EVSC(eL);
    if (collecting) {
        icost(n)[e1] += m1;
        icost(n)[eL] += mL;
        touch_instr(n);
    }
    cur_run[e1] += m1;
    cur_run[eL] += mL;
}

/* Callgrind's models (--simulate-wb, --simulate-hwpref): one result of
 * cachesim_I1_read/D1_read/D1_write, counted as Callgrind's inc_costs does
 * (an LL miss is an L1 miss too; a dirty eviction an LL miss too). */
static inline void count_res(instrcc *n, Int res, Int e1, Int eL, Int eD)
{
    if (res == CACHESIM_L1_HIT) return;
    ULong mL = res >= CACHESIM_LL_MISS;
    e1 = EVSC(e1);
    eL = EVSC(eL);
    if (collecting) {
        icost(n)[e1]++;
        icost(n)[eL] += mL;
        touch_instr(n);
    }
    cur_run[e1]++;
    cur_run[eL] += mL;
    /* a dirty line only with --simulate-wb=yes, which collects eD */
    if (res == CACHESIM_LL_MISS_DIRTY) {
        if (collecting) icost(n)[EVSC(eD)]++;
        cur_run[EVSC(eD)]++;
    }
}

#define SIM_MODELS (cachesim_wb || cachesim_hwpref)

/* (inlined into each caller: it runs for most instruction fetches) */
static CACHESIM_ALWAYS_INLINE void ir_nox(instrcc *n)
{
    ULong m1 = 0, mL = 0;
    cachesim_I1_doref_NoX(n->addr, (UChar)n->len, &m1, &mL);
    if (m1) count2(n, EV_I1mr, EV_ILmr, m1, mL);
}

static inline void d_ref(instrcc *n, Addr a, UWord size, Int e1, Int eL)
{
    if (SIM_MODELS) {
        if (e1 == EV_D1mw)
            count_res(n, cachesim_D1_write(a, (UChar)size), e1, eL, EV_DLdmw);
        else
            count_res(n, cachesim_D1_read(a, (UChar)size), e1, eL, EV_DLdmr);
        return;
    }
    ULong m1 = 0, mL = 0;
    cachesim_D1_doref(a, (UChar)size, &m1, &mL);
    if (m1) count2(n, e1, eL, m1, mL);
}

static VG_REGPARM(1) void h_ir(instrcc *n)
{
    if (SIM_MODELS) {
        count_res(n, cachesim_I1_read(n->addr, (UChar)n->len), EV_I1mr, EV_ILmr, EV_ILdmr);
        return;
    }
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

/* A modify (a read and a write of the same bytes) with --simulate-wb: it
 * counts as the read (as in Cachegrind) but is simulated as the write, as
 * Callgrind does, so that its LL line becomes dirty. */
static VG_REGPARM(3) void h_dm(instrcc *n, Addr a, UWord size)
{
    count_res(n, cachesim_D1_write(a, (UChar)size), EV_D1mr, EV_DLmr, EV_DLdmr);
}

/* Guarded accesses count themselves (the call runs only if the guard is
 * true). */
static VG_REGPARM(3) void h_guarded_dr(instrcc *n, Addr a, UWord size)
{
    if (collecting) {
        icost(n)[EVSC(EV_Dr)]++;
        touch_instr(n);
    }
    cur_run[EVSC(EV_Dr)]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mr, EV_DLmr);
}

static VG_REGPARM(3) void h_guarded_dw(instrcc *n, Addr a, UWord size)
{
    if (collecting) {
        icost(n)[EVSC(EV_Dw)]++;
        touch_instr(n);
    }
    cur_run[EVSC(EV_Dw)]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mw, EV_DLmw);
}

static VG_REGPARM(2) void h_bc(instrcc *n, UWord taken)
{
    ULong m = 0;
    branchsim_cond(n->addr, (Word)taken, &m);
    if (collecting) {
        icost(n)[EVSC(EV_Bcm)] += m;
        touch_instr(n);
    }
    cur_run[EVSC(EV_Bcm)] += m;
}

static VG_REGPARM(2) void h_bi(instrcc *n, Addr dst)
{
    ULong m = 0;
    branchsim_ind(n->addr, dst, &m);
    if (collecting) {
        icost(n)[EVSC(EV_Bim)] += m;
        touch_instr(n);
    }
    cur_run[EVSC(EV_Bim)] += m;
}

/*------------------------------------------------------------*/
/*--- The event queue of a block                           ---*/
/*------------------------------------------------------------*/

void emit_call(IRSB *sb, Int regparms, const HChar *name, void *fn, IRExpr **args, IRExpr *guard)
{
    IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
    if (guard) di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* The instr of an event as a helper's argument: a constant, or, in a block
 * of code without a symbol, the instr of the function it now runs for. */
IRExpr *ins_atom(tlstate *st, instrcc *ins, UInt idx)
{
    if (!st->dyn) return mkIRExpr_HWord((HWord)ins);
    IRTemp t = newIRTemp(st->sbOut->tyenv, Ity_I64);
    addStmtToIRSB(
        st->sbOut,
        IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&st->dyn->cur[idx]))));
    return IRExpr_RdTmp(t);
}

void flush_events(tlstate *st)
{
    if (st->nev == 0) return;
    IRSB *sb = st->sbOut;
    UInt off = st->seg_bytes; /* from the block's first seg (see seg) */
    seg *s = seg_new(st, st->nev);
    s->ins = st->ins;
    for (Int k = 0; k < st->nev; k++) {
        event *e = &st->ev[k];
        static const Int which[] = {EV_Ir, EV_Dr, EV_Dw, EV_Bc, EV_Bi, EV_Ge};
        s->e[k].idx = e->idx;
        s->e[k].which = (UShort)EVS(which[e->kind]);
    }

    /* count += 1 (or collecting) as plain IR: load, add, store (at an
     * address that segs_finish fills in) */
    IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
    IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64,
                                                   IRExpr_Const(seg_count_addr(st, off)))));
    IRExpr *inc = IRExpr_Const(IRConst_U64(1));
    if (gated) {
        IRTemp b = newIRTemp(sb->tyenv, Ity_I8), g = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(
            sb, IRStmt_WrTmp(b, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&collecting))));
        addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Unop(Iop_8Uto64, IRExpr_RdTmp(b))));
        inc = IRExpr_RdTmp(g);
    }
    addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1), inc)));
    addStmtToIRSB(sb,
                  IRStmt_Store(Iend_LE, IRExpr_Const(seg_count_addr(st, off)), IRExpr_RdTmp(t2)));

    /* The simulators, in program order. */
    for (Int k = 0; k < st->nev; k++) {
        event *e = &st->ev[k];
        /* (the instr argument only for a call: in a dynblock it is a load) */
        Bool call = e->kind == Ev_Bc || e->kind == Ev_Bi ||
                    (clo_cache_sim && (e->kind != Ev_Ir || !e->i1hit) && e->kind != Ev_Ge);
        IRExpr *ins = call ? ins_atom(st, e->ins, e->idx) : NULL;
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
            if (clo_cache_sim && e->modify && cachesim_wb)
                emit_call(sb, 3, "h_dm", h_dm, mkIRExprVec_3(ins, e->addr, mkIRExpr_HWord(e->size)),
                          NULL);
            else if (clo_cache_sim)
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
        case Ev_Ge: /* counted by the seg alone */
            break;
        }
    }
    st->nev = 0;
}

void add_event(tlstate *st, evkind kind, instrcc *ins, IRExpr *addr, Int size, IRExpr *extra)
{
    /* A write right after a read of the same instruction, size and
     * address is one modify, counted as that read. */
    if (kind == Ev_Dw && st->nev > 0) {
        event *p = &st->ev[st->nev - 1];
        if (p->kind == Ev_Dr && p->ins == ins && p->size == size && eqIRAtom(p->addr, addr)) {
            p->modify = True;
            return;
        }
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
    e->modify = False;
    e->idx = (UShort)st->idx;
}

/* Mark the Ir event just added as a sure I1 hit when its instruction (at
 * `a`, `len` bytes) lies wholly in `prev_line`, the I1 line where the
 * previous instruction of the block ended; returns the line where this one
 * ends (see tl_instrument). */
UWord note_i1hit(tlstate *st, Addr a, UInt len, UWord prev_line)
{
    if (!clo_cache_sim) return ~(UWord)0;
    UWord first = a >> cachesim_I1.line_bits, last = (a + len - 1) >> cachesim_I1.line_bits;
    if (first == last && first == prev_line) st->ev[st->nev - 1].i1hit = True;
    return last;
}

void add_guarded(tlstate *st, Bool write, instrcc *ins, IRExpr *addr, Int size, IRExpr *guard)
{
    flush_events(st);
    IRExpr **args = mkIRExprVec_3(ins_atom(st, ins, st->idx), addr, mkIRExpr_HWord(size));
    if (write)
        emit_call(st->sbOut, 3, "h_guarded_dw", h_guarded_dw, args, guard);
    else
        emit_call(st->sbOut, 3, "h_guarded_dr", h_guarded_dr, args, guard);
}
