/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_parts.c - collection on and off (--toggle-collect, --collect-atstart,
 * client requests), zeroing, and the per-thread stores of
 * --separate-threads: the thread switch moves what the running thread
 * counted into its own store.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_transtab.h"

#include "tl_global.h"

#include "rms.h" /* --input-sensitive (tl_input.c) */

/* Charge every collecting thread's current context with what ran since
 * the last charge (keep), or forget it. */
void cct_restart(Bool keep)
{
    if (!clo_contexts) return;
    for (UInt k = 0; k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (t) cct_switch(&t->cct, t->cct.cur, t->run, keep && thread_collects(t));
    }
}

/* The scheduler gives the CPU to `tid`: costs now run into its vector, and
 * the transition the previous thread was in the middle of waits for it. */
static void stash(thread *t);
static Bool counted = True; /* the counters may hold counts of calls_cur_thread */

void tl_start_client_code(ThreadId tid, ULong bbs_done)
{
    if (calls_cur_thread) run_sync(calls_cur_thread); /* at every time slice (see run_sync) */
    exit_sync();
    if (bbs_done) dump_every_bb(bbs_done); /* (0: not the scheduler's call) */
    thread *t = get_thread(tid);
    if (t == calls_cur_thread) return;
    if (clo_separate && calls_cur_thread && counted) {
        /* what ran since the last switch was the old thread's */
        fold_segs();
        stash(calls_cur_thread);
        counted = parts_collecting;
    }
    if (calls_cur_thread) calls_cur_thread->pending = calls_last_exit;
    calls_last_exit = t->pending;
    t->pending = NULL;
    calls_cur_thread = t;
    calls_run = t->run;
    if (parts_collecting != thread_collects(t)) set_collecting(!parts_collecting);
    note_owner(t);
    if (rms_on) rms_on_switch(tid);
}

/* A thread ends: its open calls (start_thread, clone, and whatever
 * pthread_exit left) end with it, and the next thread given its id starts
 * afresh. */
void tl_thread_exit(ThreadId tid)
{
    if (!clo_calls || tid >= calls_n_threads || !calls_threads[tid]) return;
    thread *t = calls_threads[tid];
    if (calls_cur_thread) run_sync(calls_cur_thread);
    exit_sync();
    /* what the closing calls charge is this thread's (--separate-threads) */
    if (t != calls_cur_thread) tl_start_client_code(tid, 0);
    exitinfo **pend = &calls_last_exit;
    *pend = NULL;
    while (t->depth > 0)
        pop_call(t);
    t->plt_site = NULL;
    t->n_plt = 0;
    t->plt_wait = False;
    t->base = NULL;
    note_owner(t);
    if (clo_contexts) {
        cct_switch(&t->cct, t->cct.root, t->run, parts_collecting);
        *pend = &calls_start_exit;
        note_owner(t); /* (the IR's gate follows calls_last_exit) */
    }
}

/*------------------------------------------------------------*/
/*--- Collection on and off, zeroing, parts                ---*/
/*------------------------------------------------------------*/

/*
 * While collection is off, nothing is counted: each run of a block adds
 * `parts_collecting` (0) to its counters instead of 1, the helpers and the call
 * tracking test `parts_collecting`. The running cost of each thread always
 * advances (it is the clock of the input-sensitive profile), so open calls
 * are charged up to the moment collection stops, and their entry cost is
 * moved to the moment it starts again. Starting and stopping cost a walk of
 * the call stacks, not of the counters. Blocks are instrumented with the
 * gate from the start when collection may stop (--toggle-collect,
 * --collect-atstart=no); otherwise the first stop (a client request) folds
 * the counts and has every block translated again, with the gate.
 */

/* --separate-threads: move the counters into t's store (stash) or put the
 * store back into the counters (unstash, emptying it if `clear`). */
void touch_add(instrcc *n)
{
    static UInt cap;
    n->touched = 1;
    if (parts_n_touched == cap) {
        cap = cap ? 2 * cap : 4096;
        parts_touched_instrs = parts_touched_instrs
                             ? VG_(realloc)("tl.touched", parts_touched_instrs, cap * sizeof(instrcc *))
                             : VG_(malloc)("tl.touched", cap * sizeof(instrcc *));
    }
    parts_touched_instrs[parts_n_touched++] = n;
}

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

ULong *thread_instr_counts(UInt tid, const instrcc *i)
{
    thread *t = get_thread(tid);
    t->istore = grow_store(t->istore, &t->n_istore, i->id + 1, n_out_ev);
    return &t->istore[(SizeT)i->id * n_out_ev];
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
        else if (add && f->outer) { /* an inner call of a recursion adds nothing */
            ULong *c = f->a->cost;
            if (clo_separate && t != calls_cur_thread) {
                t->astore = grow_store(t->astore, &t->n_astore, f->a->id + 1, n_out_ev + 1);
                c = &t->astore[(SizeT)f->a->id * (n_out_ev + 1) + 1];
            } else {
                touch_arc(f->a);
            }
            for (Int e = 0; e < n_out_ev; e++)
                c[e] += upto[e] - f->enter[e];
        }
        VG_(memcpy)(f->enter, t->run, sizeof f->enter);
    }
    VG_(memcpy)(t->plt_enter, t->run, sizeof t->plt_enter);
}

/* Every thread's open calls start now; with `add`, those of the threads
 * that collect are charged up to now first. */
void restart_frames(Bool add)
{
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) restart_thread_frames(calls_threads[k], add && thread_collects(calls_threads[k]));
}

/* The counters (folded) into t's store: only what was counted into since
 * the last stash, which the touched lists hold. */
static void stash(thread *t)
{
    for (UInt k = 0; k < parts_n_touched; k++) {
        instrcc *i = parts_touched_instrs[k];
        i->touched = 0;
        ULong *v = icost(i);
        if (all_zero(v)) continue;
        t->istore = grow_store(t->istore, &t->n_istore, i->id + 1, n_out_ev);
        for (Int e = 0; e < n_out_ev; e++) {
            t->istore[(SizeT)i->id * n_out_ev + e] += v[e];
            v[e] = 0;
        }
    }
    parts_n_touched = 0;
    for (arc *a = parts_touched_arcs; a; a = a->tnext) {
        a->touched = False;
        if (!a->calls && all_zero(a->cost)) continue;
        t->astore = grow_store(t->astore, &t->n_astore, a->id + 1, n_out_ev + 1);
        ULong *c = &t->astore[(SizeT)a->id * (n_out_ev + 1)];
        c[0] += a->calls;
        a->calls = 0;
        for (Int e = 0; e < n_out_ev; e++) {
            c[e + 1] += a->cost[e];
            a->cost[e] = 0;
        }
    }
    parts_touched_arcs = NULL;
    for (jrec *j = parts_touched_jrecs; j; j = j->tnext) {
        j->touched = False;
        if (!j->exe && !j->taken) continue;
        t->jstore = grow_store(t->jstore, &t->n_jstore, j->id + 1, 2);
        t->jstore[(SizeT)j->id * 2] += j->exe;
        t->jstore[(SizeT)j->id * 2 + 1] += j->taken;
        j->exe = j->taken = 0;
    }
    parts_touched_jrecs = NULL;
}

void unstash(thread *t, Bool clear)
{
    for (UWord k = 0; k < cc_instrs.nslots; k++)
        for (instrcc *i = cc_instrs.slot[k]; i; i = i->next) {
            if (i->id >= t->n_istore) continue;
            ULong *c = &t->istore[(SizeT)i->id * n_out_ev];
            for (Int e = 0; e < n_out_ev; e++)
                icost(i)[e] += c[e];
            if (clear) VG_(memset)(c, 0, n_out_ev * sizeof(ULong));
        }
    for (UWord k = 0; k < calls_arcs.nslots; k++)
        for (arc *a = calls_arcs.slot[k]; a; a = a->next) {
            if (a->id >= t->n_astore) continue;
            ULong *c = &t->astore[(SizeT)a->id * (n_out_ev + 1)];
            a->calls += c[0];
            for (Int e = 0; e < n_out_ev; e++)
                a->cost[e] += c[e + 1];
            if (clear) VG_(memset)(c, 0, (n_out_ev + 1) * sizeof(ULong));
        }
    if (!clo_jumps) return;
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next)
            for (jrec *j = l->jumps; j; j = j->snext) {
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
void stash_all(Bool final)
{
    fold_segs();
    if (calls_cur_thread) stash(calls_cur_thread);
    for (UInt k = 0; k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (!t) continue;
        if (clo_calls) {
            if (final)
                while (t->depth > 0)
                    pop_call(t);
            else
                restart_thread_frames(t, thread_collects(t));
        }
        stash(t);
    }
}

/* Every counter to zero. */
void clear_counters(void)
{
    for (UWord k = 0; k < cc_instrs.nslots; k++)
        for (instrcc *i = cc_instrs.slot[k]; i; i = i->next)
            VG_(memset)(icost(i), 0, EV_BYTES);
    /* (lines: the counters of most instrs; the others' moved there) */
    for (UWord k = 0; k < cc_lines.nslots; k++)
        for (linecc *l = cc_lines.slot[k]; l; l = l->next)
            VG_(memset)(l->ev, 0, EV_BYTES);
    for (UWord k = 0; k < calls_arcs.nslots; k++)
        for (arc *a = calls_arcs.slot[k]; a; a = a->next) {
            a->calls = 0;
            VG_(memset)(a->cost, 0, EV_BYTES);
        }
}

void set_collecting(Bool on)
{
    parts_collecting = on;
    if (on) counted = True;
}

/*
 * Collection is on for the running thread when that thread wants it and
 * the instrumentation is on. As in Callgrind, the wish is each thread's
 * own: a new thread (and a signal handler, for as long as it runs) starts
 * from --collect-atstart, and --toggle-collect functions and
 * CALLGRIND_TOGGLE_COLLECT flip the state of the thread that runs them
 * only. The instrumentation is one switch for all (--instr-atstart, the
 * instrumentation requests, tally control); tally's own start and stop
 * requests set every thread's wish. `parts_collecting` is the running thread's
 * state, set anew at each thread switch.
 */
static Bool want_new = True; /* the wish of threads not seen yet */
static Bool instr_on = True;

void thread_collect_init(thread *t)
{
    t->collect = want_new;
}

Bool thread_collects(const thread *t)
{
    return t->collect && instr_on;
}

/* t's collection state goes from `was` to `now`: while it was on, its open
 * calls and its context are charged up to now; while it was off, they
 * start now. The first stop gates the blocks (each run adds `parts_collecting`
 * to its counters from then on). */
static void thread_state_moves(thread *t, Bool was, Bool now)
{
    if (was == now) return;
    if (clo_contexts) cct_switch(&t->cct, t->cct.cur, t->run, was);
    if (clo_calls) restart_thread_frames(t, was);
    if (!now && !parts_gated) {
        /* every block counts 1 per run: fold them all and translate anew
         * (the rest of the running block counts into a dropped segment) */
        fold_segs();
        cc_seg_blocks = NULL;
        parts_gated = True;
        VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "tally");
    }
}

static void running_state(void)
{
    set_collecting(calls_cur_thread ? thread_collects(calls_cur_thread) : want_new && instr_on);
}

/* Rare (kept out of line, so that push_call and pop_call stay small) */
__attribute__((noinline)) void thread_collect_set(thread *t, Bool want)
{
    Bool was = thread_collects(t);
    t->collect = want;
    thread_state_moves(t, was, thread_collects(t));
    if (t == calls_cur_thread) running_state();
}

/* Every thread's wish, and new threads' (tally's own requests). */
static void collect_all(Bool want)
{
    want_new = want;
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k] && calls_threads[k]->collect != want) thread_collect_set(calls_threads[k], want);
    running_state();
}

void collect_start(void)
{
    collect_all(True);
}

void collect_stop(void)
{
    collect_all(False);
}

/* CALLGRIND_TOGGLE_COLLECT: the running thread's state. */
void collect_toggle(void)
{
    thread *t = calls_cur_thread ? calls_cur_thread : get_thread(VG_(get_running_tid)());
    thread_collect_set(t, !t->collect);
}

/* The state at the start; `parts_gated` is set already. */
void parts_init(Bool collect_atstart)
{
    want_new = collect_atstart;
    instr_on = clo_instr_atstart;
    running_state();
}

/* Instrumentation on or off: nothing is counted while it is off, as while
 * collection is off. Callgrind's requests also empty the simulated caches
 * at each switch (`reset_caches`), as Callgrind does; Cachegrind's do not. */
static ULong bbs_at_off; /* --dump-every-bb: parts_bbs_run when instrumentation went off */

void instr_switch(Bool on, Bool reset_caches)
{
    if (instr_on == on) return;
    instr_on = on;
    /* --dump-every-bb: blocks run without instrumentation are not counted
     * (Callgrind counts them in its instrumentation) */
    if (on)
        parts_bbs_run = bbs_at_off;
    else
        bbs_at_off = parts_bbs_run;
    /* as Callgrind: the call stacks close and every block is translated
     * again, instrumented or not (tl_instrument) */
    if (clo_calls) calls_unwind();
    for (UInt k = 0; k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (t && t->collect) thread_state_moves(t, !on, on);
    }
    running_state();
    if (reset_caches) sim_reset_caches();
    if (!rms_on) VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "tally");
}

Bool instr_state(void)
{
    return instr_on;
}

void zero_counts(void)
{
    fold_segs();
    clear_jumps();
    if (clo_calls) restart_frames(False);
    clear_counters();
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) {
            thread *t = calls_threads[k];
            if (t->istore) VG_(memset)(t->istore, 0, (SizeT)t->n_istore * n_out_ev * sizeof(ULong));
            if (t->astore)
                VG_(memset)(t->astore, 0, (SizeT)t->n_astore * (n_out_ev + 1) * sizeof(ULong));
            if (t->jstore) VG_(memset)(t->jstore, 0, (SizeT)t->n_jstore * 2 * sizeof(ULong));
        }
}

void zero_all(void)
{
    Bool hold = clo_cache_sim && clo_cacheuse;
    if (hold) dump_hold_for_zero();
    zero_counts();
    if (hold)
        sim_give_back(); /* restarts the requests too */
    else
        sim_requests_restart();
    if (clo_contexts) {
        cct_restart(False);
        cct_zero();
    }
}

/*------------------------------------------------------------*/
/*--- Parts made by options and by Callgrind's requests    ---*/
/*------------------------------------------------------------*/

Bool clo_instr_atstart = True;
Bool clo_combine_dumps = True; /* Callgrind's default is no */
static Long clo_dump_every_bb = 0;

/* The HOOK_* flags of function `fn` (once per function, for its fnact):
 * the verdicts of the --dump-before, --zero-before and --dump-after
 * patterns, which tl_fnpat.c keeps on the name. */
UChar fn_hooks(istr *fn)
{
    if (!(fn->fnf & FNF_DECIDED)) fnpat_decide(fn);
    return (fn->fnf & FNF(FNP_DUMP_BEFORE) ? HOOK_DUMP_BEFORE : 0) |
           (fn->fnf & FNF(FNP_ZERO_BEFORE) ? HOOK_ZERO_BEFORE : 0) |
           (fn->fnf & FNF(FNP_DUMP_AFTER) ? HOOK_DUMP_AFTER : 0);
}

/* A part with the trigger `opt` + `name` (e.g. "--dump-before=main"). */
static void dump_named(const HChar *opt, const HChar *name)
{
    HChar *t = VG_(malloc)("tl.trigger", VG_(strlen)(opt) + VG_(strlen)(name) + 1);
    VG_(sprintf)(t, "%s%s", opt, name);
    dump_part(t);
    VG_(free)(t);
}

/* A call enters function `a` (before the call is counted), or returns from
 * it (after its arc is charged). Nothing happens inside a dump or at exit. */
void hooks_enter(const fnact *a)
{
    if (dump_writing) return;
    if (a->hooks & HOOK_DUMP_BEFORE)
        dump_named("--dump-before=", a->fn->s);
    else if (a->hooks & HOOK_ZERO_BEFORE)
        zero_all();
}

void hooks_leave(const fnact *a)
{
    if (!dump_writing && (a->hooks & HOOK_DUMP_AFTER)) dump_named("--dump-after=", a->fn->s);
}

/* --dump-every-bb=N: checked when a thread is given the CPU, as Callgrind
 * does: only once the scheduler has run 5,000 blocks since the last check
 * (`sched_blocks`, its count), against the count of blocks run (`parts_bbs_run`,
 * counted by the instrumented blocks only with this option: the core's own
 * count passes over chained blocks). Loops are not unrolled then
 * (tl_main.c), so both counts are Callgrind's. */
ULong parts_bbs_run;

Bool counting_bbs(void)
{
    return clo_dump_every_bb > 0;
}

void dump_every_bb(ULong sched_blocks)
{
    static ULong last, last_sched;
    if (sched_blocks - last_sched < 5000) return;
    last_sched = sched_blocks;
    if (clo_dump_every_bb <= 0 || dump_writing) return;
    ULong n = instr_on ? parts_bbs_run : bbs_at_off;
    if (n - last <= (ULong)clo_dump_every_bb) return;
    last = n;
    HChar t[48];
    VG_(sprintf)(t, "--dump-every-bb=%lld", clo_dump_every_bb);
    dump_part(t);
}

/* Callgrind's requests (callgrind.h: VG_USERREQ_TOOL_BASE('C','T') + n)
 * and Cachegrind's (3.22's cachegrind.h: ('C','G') + n). */
enum { CT_DUMP, CT_ZERO, CT_TOGGLE, CT_DUMP_AT, CT_INSTR_START, CT_INSTR_STOP };
enum { CG_INSTR_START, CG_INSTR_STOP };

Bool parts_client_request(const UWord *args)
{
    if (VG_IS_TOOL_USERREQ('C', 'G', args[0])) {
        switch (args[0] - VG_USERREQ_TOOL_BASE('C', 'G')) {
        case CG_INSTR_START:
            instr_switch(True, False);
            return True;
        case CG_INSTR_STOP:
            instr_switch(False, False);
            return True;
        }
        return False;
    }
    if (!VG_IS_TOOL_USERREQ('C', 'T', args[0])) return False;
    switch (args[0] - VG_USERREQ_TOOL_BASE('C', 'T')) {
    case CT_DUMP:
        dump_part("Client Request");
        return True;
    case CT_DUMP_AT: {
        const HChar *label = (const HChar *)args[1];
        if (!label) label = "";
        dump_named("Client Request: ", label);
        return True;
    }
    case CT_ZERO:
        zero_all();
        return True;
    case CT_TOGGLE:
        collect_toggle();
        return True;
    case CT_INSTR_START:
        instr_switch(True, True);
        return True;
    case CT_INSTR_STOP:
        instr_switch(False, True);
        return True;
    }
    return False;
}

/* A function option: a pattern of tl_fnpat.c (decided once per function,
 * and warned about at exit when it matched no function that ran). */
static void add_fnopt(const HChar *arg, const HChar *name, UInt kind, const HChar *opt)
{
    if (!*name) VG_(fmsg_bad_option)(arg, "it needs a function name\n");
    fnpat_add(kind, opt, name);
}

Bool parts_process_option(const HChar *arg)
{
    const HChar *s;
    if VG_STR_CLO (arg, "--dump-before", s) {
        add_fnopt(arg, s, FNP_DUMP_BEFORE, "--dump-before");
    } else if VG_STR_CLO (arg, "--zero-before", s) {
        add_fnopt(arg, s, FNP_ZERO_BEFORE, "--zero-before");
    } else if VG_STR_CLO (arg, "--dump-after", s) {
        add_fnopt(arg, s, FNP_DUMP_AFTER, "--dump-after");
    } else if VG_BINT_CLO (arg, "--dump-every-bb", clo_dump_every_bb, 0, (Long)1 << 62) {
    } else if VG_BOOL_CLO (arg, "--combine-dumps", clo_combine_dumps) {
    } else if VG_BOOL_CLO (arg, "--instr-atstart", clo_instr_atstart) {
    } else if VG_BOOL_CLO (arg, "--instr-at-start", clo_instr_atstart) {
    } else
        return False;
    return True;
}

void parts_print_usage(void)
{
    VG_(printf)
    ("    --dump-before=<fn>        write a part when entering function <fn>\n"
     "    --zero-before=<fn>        zero all costs when entering function <fn>\n"
     "    --dump-after=<fn>         write a part when leaving function <fn>\n"
     "    --dump-every-bb=<n>       write a part every <n> basic blocks [0: never]\n"
     "    --combine-dumps=yes|no    all parts in one file [yes]\n"
     "    --instr-atstart=yes|no    instrumentation on at the start [yes]\n"
     "    --instr-at-start=yes|no   the same (Cachegrind's name)\n");
}

/* After the options: the function options need the call tracking. */
void parts_post_clo_init(void)
{
    if ((fnpat_given(FNP_DUMP_BEFORE) || fnpat_given(FNP_ZERO_BEFORE) ||
         fnpat_given(FNP_DUMP_AFTER)) &&
        !clo_calls) {
        VG_(fmsg_bad_option)("--dump-before/--zero-before/--dump-after", "they need --calls=yes\n");
        VG_(exit)(1);
    }
}
