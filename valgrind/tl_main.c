/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_main.c - tally's Valgrind tool: run-time call tracking (call stacks,
 * PLT stubs, code without a symbol, signals) and instrumentation; the
 * options and the set-up are in tl_setup.c. The other files are listed in
 * tl_global.h.
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
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include "tally.h"
#include "tl_arch.h"
#include "tl_global.h"
#include "tl_out.h"

#include "rms.h" /* --input-sensitive (tl_input.c) */

/*------------------------------------------------------------*/
/*--- Shared state (tl_global.h)                           ---*/
/*------------------------------------------------------------*/

tl_arena cc_arena = {.chunk = 1024 * 1024, .cc = "tl.arena"};
static ULong dummy_run[N_EV + 3];
instrcc **parts_touched_instrs;
UInt parts_n_touched;
ULong *calls_run = dummy_run;
jrec *parts_touched_jrecs;
Bool parts_collecting = True;
Bool parts_gated;
htab calls_djumps; /* jumps with a computed target, by (site, target) */
arc *parts_touched_arcs;
exitinfo *calls_last_exit; /* the instrumented code writes `gate` (see exit_sync) */
thread **calls_threads;
UInt calls_n_threads;
thread *calls_cur_thread;
htab calls_arcs;
exitinfo calls_start_exit = {.kind = K_START};

/*------------------------------------------------------------*/
/*--- Call graph (--calls=yes)                             ---*/
/*------------------------------------------------------------*/

/* The events of each SX_ kind (the static events of a block's exits). */
static const Int sx_ev[N_SX] = {EV_Ir, EV_Dr, EV_Dw, EV_Bc, EV_Bi, EV_Ge};

static UWord arc_hash(const instrcc *site, const instrcc *callee)
{
    return addr_hash(site->addr) ^ (addr_hash(callee->addr) * 31u);
}

static UWord arc_rehash(const void *p)
{
    const arc *a = p;
    return arc_hash(a->site, a->callee);
}

/* The arcs of the last calls, by (site, callee): most calls repeat one
 * seen shortly before, and this 32 KiB stays in the caches. */
#define ARC_CACHE 4096
static arc *arc_cache[ARC_CACHE];

static arc *get_arc(instrcc *site, instrcc *callee)
{
    UWord c = (((UWord)site >> 4) ^ ((UWord)callee >> 3)) & (ARC_CACHE - 1);
    arc *hit = arc_cache[c];
    if (hit && hit->site == site && hit->callee == callee) return hit;
    /* the arcs of the site's line: few, and near the site (the table's
     * slots are a cache miss at every call); a line with many calls (a
     * virtual call) turns to the table */
    UInt n = 0;
    for (arc *a = site->line->arcs; a && n < 8; a = a->snext, n++)
        if (a->site == site && a->callee == callee) return arc_cache[c] = a;
    UWord h = arc_hash(site, callee);
    if (n == 8)
        for (arc *a = calls_arcs.slot[h & (calls_arcs.nslots - 1)]; a; a = a->next)
            if (a->site == site && a->callee == callee) return arc_cache[c] = a;
    arc *a = arena_alloc(sizeof *a + EV_BYTES);
    arc_cache[c] = a;
    a->site = site;
    a->callee = callee;
    note_entry_file(callee->line);
    a->id = calls_arcs.nused;
    a->snext = site->line->arcs;
    site->line->arcs = a;
    htab_add(&calls_arcs, a, h, arc_rehash);
    return a;
}

/*--- Functions on the stack: each recursion charges its outermost call ---*/

/*
 * The cost of a call goes to its arc only when the callee's function was
 * not on the thread's stack already; a call into a function that is (a
 * recursion, direct or through others) counts as a call but adds nothing.
 * So the costs of the arcs into a function add up to the cost spent while
 * it is on the stack, counted once, and the callgrind file says so (its
 * `desc: Option: call costs: outermost activations` line). Callgrind adds
 * every call's cost, so its arcs nest under recursion.
 */
static htab fnacts;

static UWord fnact_rehash(const void *p)
{
    return ((const fnact *)p)->hash;
}

static fnact *act_of(linecc *l)
{
    if (l->act) return l->act;
    UWord h = ((UWord)l->obj->hash * 0x9E3779B1u) ^ l->fn->hash;
    fnact *a = NULL;
    if (!fnacts.nslots) htab_init(&fnacts, 1024);
    for (fnact *x = fnacts.slot[h & (fnacts.nslots - 1)]; x; x = x->next)
        if (x->obj == l->obj && x->fn == l->fn) {
            a = x;
            break;
        }
    if (!a) {
        a = arena_alloc(sizeof *a);
        VG_(memset)(a, 0, sizeof *a);
        a->obj = l->obj;
        a->fn = l->fn;
        a->hash = h;
        a->hooks = fn_hooks(l->fn);
        htab_add(&fnacts, a, h, fnact_rehash);
    }
    l->act = a;
    return a;
}

UInt n_functions(void)
{
    return (UInt)fnacts.nused;
}

/* The function's depth on thread tid's stack. The one slot serves the
 * thread that has the function on its stack (almost always one); a second
 * thread at the same time gets the table of every thread's depth. */
static UInt *act_depth(fnact *a, UInt tid)
{
    if (LIKELY(a->tid == tid)) return &a->depth;
    if (a->depth == 0) {
        a->tid = tid;
        if (a->more) {
            a->depth = a->more[tid];
            a->more[tid] = 0;
        }
        return &a->depth;
    }
    if (!a->more) a->more = VG_(calloc)("tl.fnact", VG_N_THREADS, sizeof *a->more);
    return &a->more[tid];
}

thread *get_thread(ThreadId tid)
{
    calls_threads = grow_by_tid(calls_threads, &calls_n_threads, tid, "tl.threads");
    if (!calls_threads[tid]) {
        thread *t = VG_(calloc)("tl.thread", 1, sizeof(thread));
        t->tid = tid;
        thread_collect_init(t);
        if (clo_contexts) {
            /* the first block places the thread in the tree */
            cct_thread_init(&t->cct, tid, t->run);
            t->pending = &calls_start_exit;
        }
        calls_threads[tid] = t;
    }
    return calls_threads[tid];
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
const linecc *frame_owner(const thread *t);

static void cct_block(thread *t, sbinfo *sb)
{
    cct_node *base = frame_node(t);
    const linecc *o = sb->is_dyn ? frame_owner(t) : NULL;
    if (o) {
        /* code without a symbol runs for the frame's function (h_dyn
         * switches the block to it right after this) */
        cct_fn *fn = fn_of((linecc *)o);
        cct_node *n = cct_node_fn(base) == fn ? base : cct_child(base, fn);
        if (n != t->cct.cur) cct_switch(&t->cct, n, t->run, parts_collecting);
        return;
    }
    sbctx *cx = sb->cx;
    if (cx->cbase != base) {
        cx->cbase = base;
        cx->cnode = cct_node_fn(base) == cx->cfn ? base : cct_child(base, cx->cfn);
    }
    if (cx->cnode != t->cct.cur) cct_switch(&t->cct, cx->cnode, t->run, parts_collecting);
}

/* --toggle-collect: entering or leaving a matching function flips the
 * state of the thread that runs it (tl_parts.c) */
static void toggle_flip(thread *t)
{
    thread_collect_set(t, !t->collect);
}

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
    /* (at every call: plain stores, not VG_(memset)'s byte-wise start) */
    ULong *w = (ULong *)f;
    for (UInt k = 0; k < offsetof(frame, enter) / sizeof(ULong); k++)
        w[k] = 0;
    for (Int e = 0; e < n_out_ev; e++)
        f->enter[e] = t->run[e];
    return f;
}

frame *push_frame(thread *t)
{
    return new_frame(t);
}

/* Frames parked when their stack was left (tl_switch.c) go back on t's
 * stack, v[0] first: their functions are on the stack again and their
 * costs run from now; their calls were counted when they were made. */
void resume_frames(thread *t, const frame *v, UInt n)
{
    for (UInt k = 0; k < n; k++) {
        frame *f = new_frame(t);
        VG_(memcpy)(f, &v[k], offsetof(frame, enter));
        f->outer = (*act_depth(f->base, t->tid))++ == 0;
        if (f->act != f->base) f->outer = (*act_depth(f->act, t->tid))++ == 0;
    }
    if (clo_contexts) cct_switch(&t->cct, frame_node(t), t->run, parts_collecting);
}

/* --fn-skip: the call is not recorded; the skipped function's code runs
 * for the caller's function (its frame only keeps the stack in shape). */
static void push_skip(thread *t, instrcc *site, fnact *base, Addr sp, Bool resolver)
{
    linecc *o = (linecc *)frame_owner(t);
    frame *f = new_frame(t);
    f->skip = True;
    f->base = base;
    f->owner = o;
    f->site = site;
    f->sp = sp;
    f->resolver = resolver;
    if (clo_contexts) f->node = t->depth > 1 ? f[-1].node : t->cct.root;
}

/* Whether the function of the frame just pushed has another activation
 * above the innermost signal mark. A handler's calls are charged
 * when their function is only on the stack below the mark (`top`, the
 * frame just pushed, names the function as its `outer` does): end_signal
 * takes the handler's time out of the frames it interrupted, so a
 * handler's activation is an outermost one. */
static Bool active_above_mark(const thread *t, const frame *top)
{
    for (UInt d = t->depth - 1; d-- > 0;) {
        const frame *f = &t->stack[d];
        if (f->sig) return False;
        if (f->skip) continue;
        if (top->act != top->base ? f->act == top->act : f->base == top->base) return True;
    }
    return True;
}

static void push_call(thread *t, instrcc *site, instrcc *callee, Addr sp, Bool resolver)
{
    fnact *base = act_of(callee->line);
    if (UNLIKELY(sep_skip_given) && (callee->line->fn->fnf & FNF(FNP_SKIP))) {
        push_skip(t, site, base, sp, resolver);
        return;
    }
    if (base->hooks) hooks_enter(base);
    UInt *bd = act_depth(base, t->tid);
    UInt level = 1;
    instrcc *named = callee;
    if (UNLIKELY(sep_on)) named = sep_callee(t, callee, base, *bd, &level);
    frame *f = new_frame(t);
    f->base = base;
    f->level = level;
    f->site = site;
    f->a = get_arc(site, named);
    f->owner = named->line;
    f->act = named == callee ? base : act_of(named->line);
    f->outer = (*bd)++ == 0;
    if (f->act != base) f->outer = (*act_depth(f->act, t->tid))++ == 0;
    if (!f->outer && t->n_sig) f->outer = !active_above_mark(t, f);
    /* as Callgrind: entering a matching function flips the thread's state,
     * recursive calls do nothing */
    Bool toggle = clo_toggle && *bd == 1 && (callee->line->fn->fnf & FNF(FNP_TOGGLE));
    if (toggle) toggle_flip(t);
    if (parts_collecting) {
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
        cct_switch(&t->cct, f->node, t->run, parts_collecting);
    }
    if (rms_on)
        rms_on_call(t->tid, callee->line->fn, callee->line->obj, callee->line->fn->s,
                    callee->line->obj->s, resolver, t->run[EVS(EV_Ir)]);
}

/* A signal mark is gone (the handler returned, or longjmp left it): what
 * the handler ran is not the interrupted frames' cost. */
static void end_signal(thread *t, const frame *m)
{
    for (Int e = 0; e < n_out_ev; e++) {
        ULong h = t->run[e] - m->enter[e];
        for (UInt d = 0; d < t->depth; d++)
            t->stack[d].enter[e] += h;
        t->plt_enter[e] += h;
    }
}

frame *pop_call(thread *t)
{
    frame *f = &t->stack[--t->depth];
    if (clo_contexts)
        cct_switch(&t->cct, f->sig ? f->saved_node : frame_node(t), t->run, parts_collecting);
    if (f->sig) {
        t->n_sig--;
        if (f->alt) t->n_alt--;
        end_signal(t, f);
        if (rms_on) rms_on_signal_end(t->tid, t->run[EVS(EV_Ir)]);
        if (t->collect != f->saved_collect) thread_collect_set(t, f->saved_collect);
        return f;
    }
    if (f->skip) {
        if (f->sw) sw_popped(t, f);
        return f;
    }
    (*act_depth(f->base, t->tid))--;
    if (f->act != f->base) (*act_depth(f->act, t->tid))--;
    if (parts_collecting && f->outer) {
        for (Int e = 0; e < n_out_ev; e++)
            f->a->cost[e] += t->run[e] - f->enter[e];
        touch_arc(f->a);
    }
    if (rms_on) rms_on_return(t->tid, f->resolver, t->run[EVS(EV_Ir)]);
    if (f->toggle) toggle_flip(t);
    if (f->base->hooks) hooks_leave(f->base);
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
        cct_switch(&t->cct, t->cct.cur, t->run, parts_collecting);
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
    if (sb->is_dyn) dyn_fold(sb);
    if (t->n_plt == PLT_CHAIN) return; /* the last one takes the rest */
    if (sb->is_dyn)
        for (UInt i = 0; i < sb->n && i < PLT_MAX_INSTRS; i++)
            VG_(memcpy)(t->plt_snap[t->n_plt][i], icost(sb->cur[i]), EV_BYTES);
    t->plt_sb[t->n_plt] = sb;
    VG_(memcpy)(t->plt_at[t->n_plt], t->run, sizeof t->plt_at[0]);
    t->n_plt++;
}

/* Chain block k leads to owner's function: its code counts for it. With
 * --calls=yes every block is a dynblock (a superblock has at most 100
 * instructions, --vex-guest-max-insns, fewer than DYN_MAX_INSTRS), so the
 * block's instrs move to owner's clone. */
static void plt_name(thread *t, UInt k, const linecc *owner)
{
    dynblock *d = t->plt_sb[k];
    if (d->owner == owner) return;
    /* this run counts for owner: its seg counts since plt_note folded, and
     * what the helpers added since (misses) */
    instrcc *old[PLT_MAX_INSTRS];
    UInt n = d->n < PLT_MAX_INSTRS ? d->n : PLT_MAX_INSTRS;
    for (UInt i = 0; i < n; i++)
        old[i] = d->cur[i];
    dyn_point(d, owner);
    for (UInt i = 0; i < n; i++) {
        if (old[i] == d->cur[i]) continue;
        ULong *from = icost(old[i]), *to = icost(d->cur[i]);
        for (Int e = 0; e < n_out_ev; e++) {
            ULong moved = from[e] - t->plt_snap[k][i][e];
            if (from[e] < t->plt_snap[k][i][e] || !moved) continue;
            from[e] -= moved;
            to[e] += moved;
        }
        touch_instr(old[i]);
        touch_instr(d->cur[i]);
        sim_moved(old[i], d->cur[i]);
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
        if (parts_collecting)
            for (UInt k = 0; k < t->n_plt; k++)
                cct_add(cct_child(t->plt_node, t->plt_sb[k]->cx->cfn), plt_end_of(t, k),
                        t->plt_at[k]);
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
        if (parts_collecting)
            cct_add(cct_child(t->plt_node, t->plt_sb[last]->cx->cfn), t->run, t->plt_at[last]);
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
 * thread's base). */
static const linecc *cur_owner;

/* The gate, calls_run[RUN_GATE] (next to the running cost, which the IR
 * reaches through the one load of calls_run at the block's start), is what
 * the IR of a block compares with the block's owner (never NULL) to call
 * h_enter: cur_owner, or the pending exit (an exitinfo, never equal to an
 * owner), so that one comparison covers both. The IR of an exit that
 * matters stores its exitinfo there and nothing else; C code takes it into
 * calls_last_exit with exit_sync() before it reads calls_last_exit, and calls
 * gate_update() when it changes calls_last_exit, cur_owner or calls_run. */
static inline void gate_update(void)
{
    calls_run[RUN_GATE] = calls_last_exit ? (UWord)calls_last_exit : (UWord)cur_owner;
}

void exit_sync(void)
{
    if (calls_run[RUN_GATE] != (UWord)cur_owner) calls_last_exit = (exitinfo *)calls_run[RUN_GATE];
}

/* The address of the gate from the block's calls_run (st->runp). */
static IRExpr *gate_addr(tlstate *st)
{
    IRTemp a = newIRTemp(st->sbOut->tyenv, Ity_I64);
    addStmtToIRSB(st->sbOut, IRStmt_WrTmp(a, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(st->runp),
                                                          IRExpr_Const(IRConst_U64(
                                                              RUN_GATE * sizeof(ULong))))));
    return IRExpr_RdTmp(a);
}

const linecc *frame_owner(const thread *t)
{
    if (t->depth == 0) return t->base;
    const frame *f = &t->stack[t->depth - 1];
    return f->sig ? f->sigline : f->owner;
}

void note_owner(const thread *t)
{
    if (t == calls_cur_thread) cur_owner = frame_owner(t);
    gate_update();
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
    if (d->segs) segs_fold(d->segs, d->nsegs);
}

/* The instrs of d for function o: a copy of cur[] (o its owner now), or
 * those named after o. */
static dynclone *dyn_new_clone(dynblock *d, const linecc *o)
{
    dynclone *c = arena_alloc(sizeof *c + d->n * sizeof c->ins[0]);
    c->owner = o;
    for (UInt k = 0; k < d->n; k++)
        c->ins[k] = o == d->owner ? d->cur[k]
                                  : get_instrcc(d->cur[k]->addr, d->cur[k]->len, d->first->addr,
                                                o, True);
    c->next = d->clones;
    d->clones = c;
    return c;
}

static dynclone *dyn_clone(const dynblock *d, const linecc *o)
{
    dynclone *c = d->clones;
    while (c && c->owner != o)
        c = c->next;
    return c;
}

/* From now on (counts not yet folded included) the block counts for o:
 * its segs count into cur[], which takes o's instrs. The instrs a block
 * was translated with are in cur[] alone until it first runs for another
 * function (most blocks never do); then they are kept as a clone. */
static void dyn_point(dynblock *d, const linecc *o)
{
    if (!dyn_clone(d, d->owner)) dyn_new_clone(d, d->owner);
    dynclone *c = dyn_clone(d, o);
    if (!c) c = dyn_new_clone(d, o);
    for (UInt k = 0; k < d->n; k++)
        d->cur[k] = c->ins[k];
    d->owner = o;
    if (clo_contexts) {
        d->cx->cfn = fn_of(c->ins[0]->line);
        d->cx->cbase = NULL;
    }
}

static void dyn_switch(dynblock *d, const linecc *o)
{
    dyn_fold(d);
    dyn_point(d, o);
}

static thread *running_thread(void)
{
    return calls_cur_thread ? calls_cur_thread : get_thread(VG_(get_running_tid)());
}

static linecc *block_owner(Addr start)
{
    thread *t = running_thread();
    if (!clo_calls || !t) return NULL;
    exitinfo *x = calls_last_exit;
    if (x) {
        if (x->kind == K_CALL || x->kind == K_SIG || x->kind == K_START) return NULL;
        if (x->kind == K_JUMP &&
            (x->from_plt || x->from_resolver || x->obj != object_of(start, NULL)))
            return NULL;
    }
    UInt d = t->depth;
    if (x) {
        Addr sp = VG_(get_SP)(t->tid);
        while (d > 0 && arch_frame_returned(t->stack[d - 1].sp, sp, x->kind == K_RET) &&
               !alt_shields(&t->stack[d - 1], x, sp))
            d--;
        if (x->kind == K_RET && d == t->depth && d > 0 && !t->stack[d - 1].sig)
            return NULL; /* a stack switch calls it (enter_block) */
    }
    if (d == 0) return t->base;
    /* the signal return trampoline runs under the delivery's mark */
    frame *f = &t->stack[d - 1];
    return f->sig ? f->sigline : f->owner;
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
            cct_switch(&t->cct, sn, t->run, parts_collecting);
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
    /* a call that visits the system stack (Go's systemstack), a switch
     * back to a stack left before, or to one above every frame of this one
     * (tl_switch.c) */
    if (x->kind == K_CALL && !t->n_alt && sw_visit_call(t, exit_site(x), sp)) {
        push_call(t, exit_site(x), sb->first, sp, sb->is_resolver);
        return;
    }
    /* a parked goroutine resumes (gogo's jump) */
    if (UNLIKELY(sw_n_parked) && x->kind == K_JUMP && !t->n_alt && sw_resume(t, sb, sp)) {
        while (t->depth > 0 && arch_frame_returned(t->stack[t->depth - 1].sp, sp, False))
            pop_call(t);
        t->plt_site = NULL;
        return;
    }
    Bool back = t->n_sw && sw_back(t, sp);
    if (!back && t->depth > t->sw_base && !t->n_alt &&
        sp > (t->n_sw ? t->seg_sp : t->stack[0].sp) + SW_GAP) {
        sw_mark(t, sp, False);
        push_call(t, exit_site(x), sb->first, ~(Addr)0, sb->is_resolver);
        return;
    }
    Bool popped = back;
    while (t->depth > 0 && arch_frame_returned(t->stack[t->depth - 1].sp, sp, x->kind == K_RET) &&
           !alt_shields(&t->stack[t->depth - 1], x, sp)) {
        pop_call(t);
        popped = True;
    }
    if (popped && x->kind != K_CALL) {
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
        push_call(t, f->site, sb->first, f->sp, False);
        return;
    }
    /* A tail-called piece (main.cold, entered by a jump from the unwinder
     * or from main) that jumps back into the code of the function below
     * it, on the same stack pointer, has returned to it. */
    if (t->depth > 1 && !sb->is_entry && sb->obj == x->obj) {
        frame *top = &t->stack[t->depth - 1], *below = top - 1;
        if (!top->sig && !below->sig && top->sp == below->sp &&
            below->base->fn == sb->first->line->fn && top->base->fn != sb->first->line->fn) {
            pop_call(t);
            return;
        }
    }
    if (sb->is_entry || sb->obj != x->obj) {
        push_call(t, exit_site(x), sb->first, tail_sp, sb->is_resolver);
        return;
    }
}

/* Called at the start of a block (see tl_instrument), before its first
 * instruction ran: the guest's stack pointer is the block's. */
static VG_REGPARM(1) void h_enter(sbinfo *sb)
{
    thread *t = calls_cur_thread;
    if (t) run_sync(t);
    exit_sync();
    exitinfo *x = calls_last_exit;
    calls_last_exit = NULL;
    if (x && t) {
        enter_block(t, x, sb, VG_(get_SP)(t->tid));
        note_owner(t);
        /* PLT code of a pending call is charged when the call is recorded */
        if (clo_contexts && !(sb->in_plt && t->plt_site)) cct_block(t, sb);
    }
    /* the block runs for another function than last time */
    if (sb->is_dyn && !sb->in_plt && cur_owner && cur_owner != sb->owner)
        dyn_switch(sb, cur_owner);
    gate_update();
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
void tl_pre_deliver_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
    if (!clo_calls) return;
    thread *t = get_thread(tid);
    if (calls_cur_thread) run_sync(calls_cur_thread);
    exit_sync();
    exitinfo **pend = t == calls_cur_thread ? &calls_last_exit : &t->pending;
    frame *m = new_frame(t);
    m->sig = True;
    t->n_sig++;
    if (rms_on) rms_on_signal(tid, sigNo, t->run[EVS(EV_Ir)]);
    m->sp = VG_(get_SP)(tid);
    m->saved = *pend;
    m->saved_plt = t->plt_site;
    m->saved_collect = t->collect;
    m->sigline = signal_exit(sigNo)->site->line;
    m->node = t->cct.root;
    m->saved_node = t->cct.cur;
    t->plt_site = NULL;
    *pend = signal_exit(sigNo);
    note_owner(t);
    /* a handler starts from --collect-atstart, as Callgrind's do */
    if (t->collect != clo_collect_atstart) thread_collect_set(t, clo_collect_atstart);
}

/* The handler returned (sigreturn): close what it left open, drop the mark
 * and resume the interrupted transition. Not called when the handler
 * longjmps; then the mark is popped with the frames it jumps over. */
void tl_post_deliver_signal(ThreadId tid, Int sigNo)
{
    if (!clo_calls) return;
    thread *t = get_thread(tid);
    if (calls_cur_thread) run_sync(calls_cur_thread);
    exit_sync();
    UInt d = t->depth;
    while (d > 0 && !t->stack[d - 1].sig)
        d--;
    if (d == 0) return;
    while (t->depth > d)
        pop_call(t);
    frame *m = pop_call(t);
    *(t == calls_cur_thread ? &calls_last_exit : &t->pending) = m->saved;
    t->plt_site = m->saved_plt;
    note_owner(t);
}

/* At exit: close every open call. */
void calls_finish(void)
{
    calls_last_exit = NULL;
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k])
            while (calls_threads[k]->depth > 0)
                pop_call(calls_threads[k]);
}

/* Instrumentation goes on or off: as Callgrind, every thread's call stack
 * closes (signal marks included) and what it was doing is forgotten; the
 * code that runs next finds its functions anew. */
void calls_unwind(void)
{
    calls_finish();
    for (UInt k = 0; k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (!t) continue;
        t->pending = NULL;
        t->plt_site = NULL;
        t->n_plt = 0;
        t->plt_wait = False;
        t->base = NULL;
    }
    gate_update();
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

/* Where the block is left (for --calls=yes). The static events up to this
 * exit are added to the running cost right here, in IR (*calls_run += n).
 * Then, unless the exit is a plain jump to a known address inside a
 * function (most are), calls_last_exit = x tells the next block's h_enter how
 * control got there. */
static void note_exit(tlstate *st, IRJumpKind jk, instrcc *site, const sbinfo *sbi,
                      const IRExpr *dst)
{
    IRSB *sb = st->sbOut;
    IRTemp p = st->runp;
    /* Ir, Dr and Dw packed (see run_sync): Dr and Dw into RUN_IDD while
     * the block has counted at most IDD_MAX_D of each, else into RUN_PK */
    Bool light = st->cnt[SX_Dr] <= IDD_MAX_D && st->cnt[SX_Dw] <= IDD_MAX_D;
    ULong idd = 0, pk = 0;
    for (Int k = 0; k <= N_SX + 1; k++) {
        ULong n;
        Int slot;
        if (k < N_SX) {
            n = st->cnt[k] - st->charged[k];
            st->charged[k] = st->cnt[k];
            if (k == SX_Ir) {
                idd += n;
                continue;
            }
            if (k == SX_Dr || k == SX_Dw) {
                if (light)
                    idd += n << (k == SX_Dw ? 44 : 24);
                else
                    pk += n << (k == SX_Dw ? 32 : 0);
                continue;
            }
            slot = EVS(sx_ev[k]);
        } else if (k == N_SX) {
            n = idd;
            slot = RUN_IDD;
        } else {
            n = pk;
            slot = RUN_PK;
        }
        if (!n) continue;
        IRTemp a = p;
        IRTemp v = newIRTemp(sb->tyenv, Ity_I64);
        IRTemp w = newIRTemp(sb->tyenv, Ity_I64);
        if (slot) {
            a = newIRTemp(sb->tyenv, Ity_I64);
            addStmtToIRSB(
                sb, IRStmt_WrTmp(a, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                                 IRExpr_Const(IRConst_U64(slot * sizeof(ULong))))));
        }
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
            istr *fn = fn_at(to);
            if (!fn) return;
            if (fn == site->line->fn && site->line->obj == sbi->obj) return;
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
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, gate_addr(st), mkIRExpr_HWord((HWord)x)));
}

/* Translation asks these of a block's first address twice (first_owner,
 * make_sbinfo): the last answer of each is kept, for the address and the
 * debug info epoch it was given for. */
typedef struct {
    Addr a;
    UInt ep;
    Bool yes;
} addr_memo;

static Bool memo_ask(addr_memo *m, Addr a, Bool (*ask)(DiEpoch ep, Addr a))
{
    DiEpoch ep = VG_(current_DiEpoch)();
    if (a != m->a || ep.n != m->ep) {
        m->yes = ask(ep, a);
        m->a = a;
        m->ep = ep.n;
    }
    return m->yes;
}

static Bool ask_entry(DiEpoch ep, Addr a)
{
    const HChar *name;
    return VG_(get_fnname_if_entry)(ep, a, &name);
}

static Bool ask_plt(DiEpoch ep, Addr a)
{
    (void)ep;
    return is_plt(a);
}

static Bool entry_at(Addr a)
{
    static addr_memo m = {.a = 1};
    return memo_ask(&m, a, ask_entry);
}

static Bool plt_at(Addr a)
{
    static addr_memo m = {.a = 1};
    return memo_ask(&m, a, ask_plt);
}

/* The record of a block of n instructions whose first is `first` (see
 * sbinfo); a dynblock when `owner` (the function it runs for) is given. */
static sbinfo *make_sbinfo(instrcc *first, UInt n, const linecc *owner)
{
    Bool dyn = owner && n > 0 && n <= DYN_MAX_INSTRS;
    sbinfo *sb = arena_alloc(sizeof *sb + (dyn ? n * sizeof sb->cur[0] : 0));
    sb->n = n;
    sb->is_dyn = dyn;
    sb->owner = owner;
    sb->first = first;
    sb->obj = object_of(first->addr, NULL);
    sb->is_entry = entry_at(first->addr);
    sb->in_plt = clo_skip_plt && plt_at(first->addr);
    sb->is_resolver = VG_(strncmp)(first->line->fn->s, "_dl_runtime_resolve", 19) == 0;
    if (clo_contexts) {
        sb->cx = arena_alloc(sizeof *sb->cx);
        sb->cx->cfn = fn_of(first->line);
    }
    return sb;
}

/* The owner of a block starting at `a` (see block_owner): none for code
 * with a symbol or PLT code. The first such block a thread runs outside any
 * frame is the function of the code it runs outside frames later. */
static const linecc *first_owner(Addr a)
{
    if (clo_skip_plt && plt_at(a)) return NULL;
    if (fn_at(a))
        /* named code is its function's when it is entered as that
         * function; reached by a jump from another function's frame it is
         * that function's (corrected while it runs, see dynblock) */
        return entry_at(a) ? NULL : block_owner(a);
    const linecc *o = block_owner(a);
    thread *t = clo_calls ? running_thread() : NULL;
    if (!o && t && t->depth == 0 && !t->base && (!calls_last_exit || calls_last_exit->kind == K_START)) {
        t->base = lookup_position(a, a, NULL, False);
        note_owner(t);
        return t->base;
    }
    return o;
}

IRSB *tl_instrument(VgCallbackClosure *closure, IRSB *sbIn, const VexGuestLayout *layout,
                    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy)
{
    if (gWordTy != hWordTy || hWordTy != Ity_I64)
        VG_(tool_panic)("tally: only 64-bit hosts and guests are supported");

    /* instrumentation off (--instr-atstart=no, the requests): the code runs
     * as it is, as under Callgrind, and is translated again when it goes
     * on; the input-sensitive profile follows every block still */
    if (!instr_state() && !rms_on) return sbIn;
    exit_sync(); /* (block_owner and first_owner read calls_last_exit) */
    tlstate st;
    st.sbOut = deepCopyIRSBExceptStmts(sbIn);
    st.nev = 0;
    VG_(memset)(st.cnt, 0, sizeof st.cnt);
    VG_(memset)(st.charged, 0, sizeof st.charged);
    st.idx = 0;
    st.dyn = NULL;
    st.ins = NULL;
    st.segbuf = NULL;
    st.seg_bytes = st.nsegs = 0;
    st.refs = NULL;
    st.n_refs = 0;
    st.runp = IRTemp_INVALID;
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
    if (counting_bbs()) { /* --dump-every-bb: parts_bbs_run += 1 */
        IRTemp t1 = newIRTemp(st.sbOut->tyenv, Ity_I64);
        IRTemp t2 = newIRTemp(st.sbOut->tyenv, Ity_I64);
        IRExpr *at = mkIRExpr_HWord((HWord)&parts_bbs_run);
        addStmtToIRSB(st.sbOut, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
        addStmtToIRSB(st.sbOut, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
                                                              IRExpr_Const(IRConst_U64(1)))));
        addStmtToIRSB(st.sbOut, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(t2)));
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
                monitor_note_block(cia);
                owner = first_owner(cia);
                cur = get_instrcc(cia, isize, sb_start, owner, True);
                UInt n = 0;
                for (Int k = i; k < sbIn->stmts_used; k++)
                    if (sbIn->stmts[k] && sbIn->stmts[k]->tag == Ist_IMark) n++;
                if (clo_calls) {
                    /* a dynblock runs for its owner's function, or, PLT
                     * code, for the function it leads to (plt_name); called,
                     * a block of code without a symbol is a function of its
                     * own, whatever it runs for when reached otherwise */
                    Bool dyn = n <= DYN_MAX_INSTRS;
                    /* (without an owner, cur is that function's own instr) */
                    sbi = make_sbinfo(dyn && owner ? get_instrcc(cia, isize, cia, NULL, False) : cur,
                                      n, dyn ? (owner ? owner : cur->line) : NULL);
                    st.dyn = sb_dyn(sbi);
                    if (st.dyn && clo_contexts) sbi->cx->cfn = fn_of(cur->line);
                }
                st.ins = st.dyn ? st.dyn->cur : arena_alloc(n * sizeof *st.ins);
                /* code without a symbol after the first instruction is its
                 * function's (or its owner's) */
                if (!owner) owner = cur->line;
            } else {
                cur = get_instrcc(cia, isize, sb_start, owner, True);
            }
            st.ins[st.idx] = cur;
            if (sbi && st.idx == 0) {
                addStmtToIRSB(st.sbOut, s);
                /* Only when the last block left through an exit that matters,
                 * or (a dynblock) it runs for another function than last
                 * time: one test, gate != owner (see gate); for PLT code
                 * gate != cur_owner (an exit is pending). */
                st.runp = newIRTemp(st.sbOut->tyenv, Ity_I64);
                addStmtToIRSB(st.sbOut,
                              IRStmt_WrTmp(st.runp, IRExpr_Load(Iend_LE, Ity_I64,
                                                                mkIRExpr_HWord((HWord)&calls_run))));
                IRTemp a = newIRTemp(st.sbOut->tyenv, Ity_I64);
                IRTemp o = newIRTemp(st.sbOut->tyenv, Ity_I64);
                IRTemp g = newIRTemp(st.sbOut->tyenv, Ity_I1);
                Bool owned = st.dyn && !sbi->in_plt;
                addStmtToIRSB(st.sbOut,
                              IRStmt_WrTmp(a, IRExpr_Load(Iend_LE, Ity_I64, gate_addr(&st))));
                addStmtToIRSB(st.sbOut,
                              IRStmt_WrTmp(o, IRExpr_Load(Iend_LE, Ity_I64,
                                                          mkIRExpr_HWord(
                                                              owned ? (HWord)&st.dyn->owner
                                                                    : (HWord)&cur_owner))));
                addStmtToIRSB(st.sbOut, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(a),
                                                                      IRExpr_RdTmp(o))));
                emit_call(st.sbOut, 1, "h_enter", h_enter,
                          mkIRExprVec_1(mkIRExpr_HWord((HWord)sbi)), IRExpr_RdTmp(g));
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
                if (size > sim_min_line_size) size = sim_min_line_size;
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
            if (size > sim_min_line_size) size = sim_min_line_size;
            add_event(&st, Ev_Dr, cur, cas->addr, size, NULL);
            add_event(&st, Ev_Dw, cur, cas->addr, size, NULL);
            if (clo_collect_bus) add_event(&st, Ev_Ge, cur, NULL, 0, NULL);
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
                /* Callgrind puts the bus event of a pair on the SC */
                if (clo_collect_bus) add_event(&st, Ev_Ge, cur, NULL, 0, NULL);
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
    if (clo_systime && cur) note_syscall(&st, cur, sbIn->jumpkind);
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
    if (sbIn->jumpkind == Ijk_ClientReq && st.ins) sim_request_exit(st.sbOut, st.ins, n_im);
    segs_finish(&st, sbi);
    if (st.dyn) sim_note_block(st.dyn);
    return st.sbOut;
}
