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
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "tl_global.h"

#include "sim_branch.h"
#include "sim_cache.h"

/* Data sizes of Dirty and CAS accesses are clamped to the smallest line. */
Int sim_min_line_size = 64;

Bool sim_parse_opt(const HChar *arg)
{
    return cachesim_parse_opt(arg, &clo_I1, &clo_D1, &clo_LL);
}

/* --cacheuse: the use of a line that leaves a cache (or is still cached at
 * the end) is charged to the instruction that brought it in, in its
 * thread's counters (--separate-threads), never to the running cost:
 * Callgrind's use events are not in its inclusive costs nor its summary. */
static void cu_charge(void *cc, UInt who, Int level, UInt accost, UInt sploss)
{
    instrcc *n = cc;
    Int e = EVS(level ? EV_AcCost2 : EV_AcCost1);
    ULong *c = icost(n);
    if (clo_separate && calls_cur_thread && who != calls_cur_thread->tid)
        c = thread_instr_counts(who, n);
    else
        touch_instr(n);
    c[e] += accost;
    c[e + 1] += sploss;
}

/* Auto-detection, LL tweak, warnings and command-line overrides, as
 * Cachegrind does them; a bad configuration has been reported. */
void sim_init(void)
{
    sim_I1 = clo_I1;
    sim_D1 = clo_D1;
    sim_LL = clo_LL;
    if (clo_cache_sim) {
        if (clo_cacheuse && (clo_simulate_wb || clo_simulate_hwpref)) {
            /* Callgrind warns and goes on without them */
            VG_(fmsg_bad_option)
            (clo_simulate_wb ? "--simulate-wb=yes" : "--simulate-hwpref=yes",
             "the cache-use model of --cacheuse=yes has no write-back and "
             "no prefetcher\n");
            VG_(exit)(1);
        }
        /* (without the simulation there is nothing to configure or warn about) */
        if (!cachesim_configure(&sim_I1, &sim_D1, &sim_LL)) VG_(exit)(1);
        cachesim_set_models(clo_simulate_wb, clo_simulate_hwpref);
        cachesim_set_cacheuse(clo_cacheuse, cu_charge, &parts_collecting);
        cachesim_init(&sim_I1, &sim_D1, &sim_LL);
        sim_min_line_size = cachesim_min_line_size;
    }
    if (clo_branch_sim) {
        branchsim_init();
    }
}

/* All cache lines empty again (Callgrind's instrumentation requests). */
void sim_reset_caches(void)
{
    if (clo_cache_sim) cachesim_init(&sim_I1, &sim_D1, &sim_LL);
}

void sim_finish(void)
{
    if (clo_cache_sim) cachesim_cu_finish();
}

/*
 * --cacheuse: Callgrind writes a basic block's costs (in one context) into
 * a part only when the block ran while collecting since the last dump, or
 * a call it makes returned having collected something, or is open at the
 * dump. The use charged to the instructions of any other block (the line
 * came in earlier, or while collection was off) stays in the block for a
 * later part, and is lost if the block is never written again. We do the
 * same with the blocks' clones (sim_note_block; with --calls=no, whose
 * blocks have none, per instruction): before each part's file is written,
 * the use events of instructions whose block did not run are held
 * (sim_hold_unrun) and given back to the counters once the part is zeroed
 * (sim_give_back); at the end they are dropped.
 */
typedef struct {
    instrcc *ins;
    UInt tid; /* whose store (--separate-threads) */
    ULong v[EV_SpLoss2 - EV_AcCost1 + 1];
} held_use;
static held_use *held;
static UInt n_held, cap_held;

/* Every translated block (with --calls=yes), for its clones. */
static dynblock **blocks;
static UInt n_blocks, cap_blocks;

void sim_note_block(dynblock *d)
{
    if (!clo_cache_sim || !clo_cacheuse) return;
    if (n_blocks == cap_blocks) {
        cap_blocks = cap_blocks ? 2 * cap_blocks : 1024;
        blocks = VG_(realloc)("tl.blocks", blocks, cap_blocks * sizeof *blocks);
    }
    blocks[n_blocks++] = d;
}

/* The four use counters of instr i (AcCost1 SpLoss1 AcCost2 SpLoss2: four
 * slots in a row, see choose_events); every instr has counters of its own
 * with a cache simulation (icost). */
static inline ULong *use_of(instrcc *i)
{
    return icost(i) + EVS(EV_AcCost1);
}

static inline Bool has_use(instrcc *i)
{
    const ULong *u = use_of(i);
    return (u[0] | u[1] | u[2] | u[3]) != 0;
}

/* Whether instr i ran in the part (counted another event), or is a call
 * site whose call was counted or collected something (its calls are in
 * its line's list). */
static Bool ran(instrcc *i)
{
    const ULong *c = icost(i);
    for (Int k = 0; k < n_out_ev; k++)
        if (c[k] && (out_ev[k] < EV_AcCost1 || out_ev[k] > EV_SpLoss2)) return True;
    for (const arc *a = i->line->arcs; a; a = a->snext)
        if (a->site == i && (a->calls || !all_zero(a->cost))) return True;
    return False;
}

/* A PLT block's run counts for the function it leads to: its counts move
 * from the clone it ran as to that function's (plt_name), but the lines it
 * brought in name the first; their use follows the counts (moved_to). */
typedef struct moved {
    struct moved *next;
    instrcc *from, *to;
} moved;
static htab moves;

static UWord moved_rehash(const void *p)
{
    return addr_hash((Addr)((const moved *)p)->from);
}

void sim_moved(instrcc *from, instrcc *to)
{
    if (!clo_cache_sim || !clo_cacheuse) return;
    if (!moves.slot) htab_init(&moves, 256);
    UWord h = addr_hash((Addr)from);
    for (moved *m = moves.slot[h & (moves.nslots - 1)]; m; m = m->next)
        if (m->from == from) {
            m->to = to;
            return;
        }
    moved *m = arena_alloc(sizeof *m);
    m->from = from;
    m->to = to;
    htab_add(&moves, m, h, moved_rehash);
}

static instrcc *moved_to(const instrcc *i)
{
    if (!moves.slot) return NULL;
    for (moved *m = moves.slot[addr_hash((Addr)i) & (moves.nslots - 1)]; m; m = m->next)
        if (m->from == i) return m->to;
    return NULL;
}

/* Blocks that end with a client request. Callgrind counts a run of a
 * block when the next block starts, and only while collecting then: the
 * run of a block that makes a request counts in the part open after the
 * request, by the collection state after it. So the block that requests a
 * dump ran in the part after the dump (the use charged to it there, its
 * lines leaving after the dump, is written with it), and the one that
 * switches collection on ran in the part it goes on with. Blocks that end
 * with a client request store their record here as they leave (IR made by
 * sim_request_exit); once tally has handled the request (the dump written,
 * the state switched), sim_request_done notes the block's instrs as run in
 * the part now open for its thread, if the thread collects. A part's list
 * starts empty (a dump or a zeroing: sim_requests_restart). A block's
 * instrs are its dynblock's cur[] (the function it ran for), or, with
 * --calls=no, the block's own. */
typedef struct {
    instrcc **ins;
    UInt n;
} reqblock;
static const reqblock *req_last; /* written by the IR */
typedef struct {
    UInt tid, n, at; /* its n instrs from req_ins[at] */
} reqrun;
static reqrun *req_runs;
static instrcc **req_ins;
static UInt n_req_runs, cap_req_runs, n_req_ins, cap_req_ins;

void sim_request_exit(IRSB *sb, instrcc **ins, UInt n)
{
    if (!clo_cache_sim || !clo_cacheuse) return;
    reqblock *r = NULL; /* (none: a block longer than any superblock) */
    if (n > 0 && n <= DYN_MAX_INSTRS) {
        r = arena_alloc(sizeof *r);
        r->ins = ins;
        r->n = n;
    }
    addStmtToIRSB(
        sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&req_last), mkIRExpr_HWord((HWord)r)));
}

void sim_request_done(void)
{
    const reqblock *r = req_last;
    req_last = NULL;
    if (!r || !parts_collecting || !instr_state()) return;
    UInt tid = VG_(get_running_tid)();
    for (UInt k = 0; k < n_req_runs; k++) /* (few blocks make requests) */
        if (req_runs[k].tid == tid && req_runs[k].n == r->n &&
            VG_(memcmp)(req_ins + req_runs[k].at, r->ins, r->n * sizeof *r->ins) == 0)
            return;
    if (n_req_runs == cap_req_runs) {
        cap_req_runs = cap_req_runs ? 2 * cap_req_runs : 16;
        req_runs = VG_(realloc)("tl.reqruns", req_runs, cap_req_runs * sizeof *req_runs);
    }
    while (n_req_ins + r->n > cap_req_ins) {
        cap_req_ins = cap_req_ins ? 2 * cap_req_ins : 256;
        req_ins = VG_(realloc)("tl.reqins", req_ins, cap_req_ins * sizeof *req_ins);
    }
    req_runs[n_req_runs++] = (reqrun){.tid = tid, .n = r->n, .at = n_req_ins};
    for (UInt k = 0; k < r->n; k++)
        req_ins[n_req_ins++] = r->ins[k];
}

void sim_requests_restart(void)
{
    n_req_runs = n_req_ins = 0;
}

/* The instrs of the blocks that ran: a set of pointers, open addressing. */
static const instrcc **ran_set;
static UWord ran_mask;

static void ran_add(const instrcc *i)
{
    UWord k = addr_hash((Addr)i) & ran_mask;
    while (ran_set[k] && ran_set[k] != i)
        k = (k + 1) & ran_mask;
    ran_set[k] = i;
}

static Bool in_ran(const instrcc *i)
{
    if (!ran_set) return False;
    for (UWord k = addr_hash((Addr)i) & ran_mask; ran_set[k]; k = (k + 1) & ran_mask)
        if (ran_set[k] == i) return True;
    return False;
}

static Bool clone_ran(instrcc *const *ins, UInt n)
{
    for (UInt k = 0; k < n; k++)
        if (ran(ins[k])) return True;
    return False;
}

/* Each instr set of the blocks that ran in the part, to `add` (NULL: only
 * counted); returns their instrs. A block's instrs are in cur[] alone
 * until it first runs for another function, then every set is a clone
 * (dyn_point). */
static UWord each_ran_clone(void (*add)(const instrcc *))
{
    UWord n = 0;
    for (UInt b = 0; b < n_blocks; b++) {
        dynblock *d = blocks[b];
        for (dynclone *c = d->clones; c || d->clones == NULL; c = c->next) {
            instrcc *const *ins = c ? c->ins : d->cur;
            if (clone_ran(ins, d->n)) {
                n += d->n;
                for (UInt k = 0; add && k < d->n; k++)
                    add(ins[k]);
            }
            if (!c) break;
        }
    }
    return n;
}

/* The set of the instrs of the blocks that ran in tid's part (0: all
 * threads'), the blocks whose requests count their runs there included. */
static void mark_ran_blocks(UInt tid)
{
    UWord n = each_ran_clone(NULL) + n_req_ins;
    UWord size = 64;
    while (size < 2 * n)
        size *= 2;
    ran_set = VG_(calloc)("tl.ranset", size, sizeof *ran_set);
    ran_mask = size - 1;
    each_ran_clone(ran_add);
    for (UInt k = 0; k < n_req_runs; k++)
        if (!clo_separate || req_runs[k].tid == tid)
            for (UInt j = 0; j < req_runs[k].n; j++)
                ran_add(req_ins[req_runs[k].at + j]);
}

void sim_hold_unrun(UInt tid)
{
    if (!clo_cache_sim || !clo_cacheuse) return;
    /* first the use of PLT runs goes where their counts went (at most a
     * few steps: the resolver's jump moves a run once more) */
    for (UWord k = 0; moves.slot && k < cc_instrs.nslots; k++)
        for (instrcc *i = cc_instrs.slot[k]; i; i = i->next) {
            if (!has_use(i) || ran(i)) continue;
            instrcc *to = moved_to(i);
            for (Int step = 0; step < 4 && to && !ran(to); step++)
                to = moved_to(to);
            if (!to || !ran(to)) continue;
            ULong *from = use_of(i), *into = use_of(to);
            for (Int e = 0; e < 4; e++) {
                into[e] += from[e];
                from[e] = 0;
            }
        }
    if (n_blocks || n_req_runs) mark_ran_blocks(tid);
    for (UWord k = 0; k < cc_instrs.nslots; k++)
        for (instrcc *i = cc_instrs.slot[k]; i; i = i->next) {
            if (!has_use(i) || ran(i) || in_ran(i)) continue;
            if (n_held == cap_held) {
                cap_held = cap_held ? 2 * cap_held : 256;
                held = VG_(realloc)("tl.held", held, cap_held * sizeof *held);
            }
            held_use *h = &held[n_held++];
            h->ins = i;
            h->tid = tid;
            ULong *u = use_of(i);
            for (Int e = 0; e < 4; e++) {
                h->v[e] = u[e];
                u[e] = 0;
            }
        }
    if (ran_set) VG_(free)(ran_set);
    ran_set = NULL;
}

void sim_give_back(void)
{
    for (UInt k = 0; k < n_held; k++) {
        held_use *h = &held[k];
        ULong *c = clo_separate ? thread_instr_counts(h->tid, h->ins) : icost(h->ins);
        for (Int e = 0; e < 4; e++)
            c[EVS(EV_AcCost1) + e] += h->v[e];
    }
    n_held = 0;
    sim_requests_restart();
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
    if (!parts_collecting) return;
    j->exe++;
    j->taken += j->inverted ? !guard : guard;
    touch_jrec(j);
}

VG_REGPARM(1) void h_jump(jrec *j)
{
    if (!parts_collecting) return;
    j->taken++;
    touch_jrec(j);
}

VG_REGPARM(2) void h_jump_dyn(instrcc *site, Addr to)
{
    if (!parts_collecting) return;
    UWord h = addr_hash(site->addr) ^ (addr_hash(to) * 31u);
    jrec *j;
    for (j = calls_djumps.slot[h & (calls_djumps.nslots - 1)]; j; j = j->next)
        if (j->site == site && j->to == to) break;
    if (!j) {
        j = get_jrec(site, to, False, False);
        if (++calls_djumps.nused > calls_djumps.nslots) htab_grow(&calls_djumps, jrec_rehash);
        UWord k = h & (calls_djumps.nslots - 1);
        j->next = calls_djumps.slot[k];
        calls_djumps.slot[k] = j;
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
    if (parts_collecting) {
        icost(n)[e1] += m1;
        icost(n)[eL] += mL;
        touch_instr(n);
    }
    calls_run[e1] += m1;
    calls_run[eL] += mL;
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
    if (parts_collecting) {
        icost(n)[e1]++;
        icost(n)[eL] += mL;
        touch_instr(n);
    }
    calls_run[e1]++;
    calls_run[eL] += mL;
    /* a dirty line only with --simulate-wb=yes, which collects eD */
    if (res == CACHESIM_LL_MISS_DIRTY) {
        if (parts_collecting) icost(n)[EVSC(eD)]++;
        calls_run[EVSC(eD)]++;
    }
}

#define SIM_MODELS (cachesim_wb || cachesim_hwpref || cachesim_cu)

/* The thread of an access, for --cacheuse's charges. */
static inline UInt cu_who(void)
{
    return calls_cur_thread ? calls_cur_thread->tid : 0;
}

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
        if (cachesim_cu) /* (no dirty evictions: EV_DLdmr is never counted) */
            count_res(n, cachesim_cu_D1(a, (UChar)size, n, cu_who()), e1, eL, EV_DLdmr);
        else if (e1 == EV_D1mw)
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
        Int r = cachesim_cu ? cachesim_cu_I1(n->addr, (UChar)n->len, n, cu_who())
                            : cachesim_I1_read(n->addr, (UChar)n->len);
        count_res(n, r, EV_I1mr, EV_ILmr, EV_ILdmr);
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
    if (parts_collecting) {
        icost(n)[EVSC(EV_Dr)]++;
        touch_instr(n);
    }
    calls_run[EVSC(EV_Dr)]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mr, EV_DLmr);
}

static VG_REGPARM(3) void h_guarded_dw(instrcc *n, Addr a, UWord size)
{
    if (parts_collecting) {
        icost(n)[EVSC(EV_Dw)]++;
        touch_instr(n);
    }
    calls_run[EVSC(EV_Dw)]++;
    if (clo_cache_sim) d_ref(n, a, size, EV_D1mw, EV_DLmw);
}

static VG_REGPARM(2) void h_bc(instrcc *n, UWord taken)
{
    ULong m = 0;
    branchsim_cond(n->addr, (Word)taken, &m);
    if (parts_collecting) {
        icost(n)[EVSC(EV_Bcm)] += m;
        touch_instr(n);
    }
    calls_run[EVSC(EV_Bcm)] += m;
}

static VG_REGPARM(2) void h_bi(instrcc *n, Addr dst)
{
    ULong m = 0;
    branchsim_ind(n->addr, dst, &m);
    if (parts_collecting) {
        icost(n)[EVSC(EV_Bim)] += m;
        touch_instr(n);
    }
    calls_run[EVSC(EV_Bim)] += m;
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

/* --cacheuse: instruction `ins` is a sure hit on the most recently used way
 * of the I1 line the previous fetch looked up last (see note_i1hit), which
 * changes no state but that line's use: one more access, and the bytes of
 * the instruction. Three IR loads and two stores instead of a call. */
static void cu_same_line(IRSB *sb, const instrcc *ins)
{
    UInt mask = cachesim_cu_mask(&cachesim_I1, ins->addr, ins->len);
    IRTemp p = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(p, IRExpr_Load(Iend_LE, Ity_I64,
                                                  mkIRExpr_HWord((HWord)&cachesim_I1.last))));
    static const struct {
        UWord off;
        IROp op;
    } f[2] = {{offsetof(cachesim_use, count), Iop_Add32}, {offsetof(cachesim_use, mask), Iop_Or32}};
    for (Int k = 0; k < 2; k++) {
        IRTemp a = newIRTemp(sb->tyenv, Ity_I64), v = newIRTemp(sb->tyenv, Ity_I32);
        IRTemp w = newIRTemp(sb->tyenv, Ity_I32);
        addStmtToIRSB(sb, IRStmt_WrTmp(a, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                                       IRExpr_Const(IRConst_U64(f[k].off)))));
        addStmtToIRSB(sb, IRStmt_WrTmp(v, IRExpr_Load(Iend_LE, Ity_I32, IRExpr_RdTmp(a))));
        addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Binop(f[k].op, IRExpr_RdTmp(v),
                                                       IRExpr_Const(IRConst_U32(k ? mask : 1)))));
        addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(a), IRExpr_RdTmp(w)));
    }
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
    if (parts_gated) {
        IRTemp b = newIRTemp(sb->tyenv, Ity_I8), g = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(
            sb, IRStmt_WrTmp(b, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&parts_collecting))));
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
            if (clo_cache_sim && e->i1hit && cachesim_cu) {
                cu_same_line(sb, e->ins);
                break;
            }
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
