/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_monitor.c - the monitor commands that vgdb sends to a running
 * process (`vgdb --pid=PID COMMAND`, `tally control`): Callgrind's names
 * and meanings (dump, zero, instrumentation, status, and `status
 * internal`, the answer callgrind_control parses), plus `stack`, the
 * call stack of each thread as `callgrind_control -b` prints it. The
 * actions are those of the client requests (tl_parts.c, tl_dump.c).
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "tl_global.h"

static void print_help(void)
{
    VG_(gdb_printf)("\n"
                    "tally monitor commands:\n"
                    "  dump [<label>]\n"
                    "        write a part now (desc: Trigger: dump <label>)\n"
                    "  zero\n"
                    "        zero all costs\n"
                    "  status [internal]\n"
                    "        print the state (internal: callgrind_control's form)\n"
                    "  instrumentation [on|off]\n"
                    "        print, or switch, the instrumentation state\n"
                    "  stack\n"
                    "        print the call stack of each thread\n"
                    "\n");
}

/* The start addresses of the blocks translated so far, each once however
 * often its code is translated again (discarded translations, a full
 * translation cache): Callgrind's distinct-bbs. An open-addressing set of
 * at most half-full slots (0: free; no code lies at address 0), touched
 * at translation only, never by the code it makes. */
static Addr *blocks;
static UWord blocks_cap, n_blocks;

static void blocks_put(Addr a)
{
    UWord m = blocks_cap - 1;
    UWord h = addr_hash(a) & m;
    while (blocks[h] && blocks[h] != a)
        h = (h + 1) & m;
    if (!blocks[h]) n_blocks++;
    blocks[h] = a;
}

void monitor_note_block(Addr a)
{
    if (2 * (n_blocks + 1) > blocks_cap) {
        Addr *old = blocks;
        UWord cap = blocks_cap;
        blocks_cap = cap ? 2 * cap : 4096;
        blocks = VG_(calloc)("tl.monitor.blocks", blocks_cap, sizeof *blocks);
        n_blocks = 0;
        for (UWord k = 0; k < cap; k++)
            if (old[k]) blocks_put(old[k]);
        if (old) VG_(free)(old);
    }
    blocks_put(a);
}

static void print_costs(const ULong *ev)
{
    for (Int k = 0; k < n_out_ev; k++)
        VG_(gdb_printf)("%s%llu", k ? " " : "", ev[k]);
    VG_(gdb_printf)("\n");
}

static const HChar *caller_name(const frame *f)
{
    return f->a->site->line->fn->s;
}

static const HChar *callee_name(const frame *f)
{
    return f->a->callee->line->fn->s;
}

static UInt n_live_threads(void)
{
    UInt n = 0;
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) n++;
    return n;
}

/* events-T-d: thread t's cost since frame f began. */
static void print_since(const thread *t, UInt d, const frame *f)
{
    ULong ev[N_EV];
    for (Int e = 0; e < n_out_ev; e++)
        ev[e] = t->run[e] - f->enter[e];
    VG_(gdb_printf)("events-%u-%u: ", t->tid, d);
    print_costs(ev);
}

/* Callgrind's `status internal`: key: value lines, what
 * callgrind_control -s, -b and -e read. Frame i of thread T is the
 * call made by function-T-i, with its arc's call count and the cost
 * since that call began; the last function-T-N is the running one.
 * A signal mark's frame is the function it interrupted, with the cost
 * since the delivery and no calls (the handler's frame above names the
 * mark, `<signal N>`); skipped calls are left out, as Callgrind leaves
 * them out. The threads' costs and stacks are kept with the call graph
 * only (--calls=yes). */
static void status_internal(void)
{
    VG_(gdb_printf)("instrumentation: %s\n", instr_state() ? "on" : "off");
    if (!instr_state()) return;
    ULong calls = 0;
    for (UWord k = 0; k < calls_arcs.nslots; k++)
        for (arc *a = calls_arcs.slot[k]; a; a = a->next)
            calls += a->calls;
    /* blocks run are counted for --dump-every-bb only (not on the hot path
     * otherwise): without it the line is left out, not written as 0 */
    if (counting_bbs()) VG_(gdb_printf)("executed-bbs: %llu\n", parts_bbs_run);
    VG_(gdb_printf)("executed-calls: %llu\n", calls);
    VG_(gdb_printf)("distinct-bbs: %lu\n", n_blocks);
    VG_(gdb_printf)("distinct-calls: %lu\n", calls_arcs.nused);
    VG_(gdb_printf)("distinct-functions: %u\n", n_functions());
    VG_(gdb_printf)("distinct-contexts: %u\n", n_functions());
    VG_(gdb_printf)("events:");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(gdb_printf)(" %s", ev_name[out_ev[k]]);
    VG_(gdb_printf)("\npart: %u\n", dump_count());
    VG_(gdb_printf)("threads:");
    for (UInt k = 0; k < calls_n_threads; k++)
        if (calls_threads[k]) VG_(gdb_printf)(" %u", calls_threads[k]->tid);
    VG_(gdb_printf)("\ncurrent-tid: %u\n", calls_cur_thread ? calls_cur_thread->tid : 0);
    for (UInt k = 0; clo_calls && k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (!t) continue;
        VG_(gdb_printf)("events-%u: ", t->tid);
        print_costs(t->run);
        VG_(gdb_printf)("frames-%u: %u\n", t->tid, t->depth);
        const frame *top = NULL; /* the last call printed, its callee not yet */
        for (UInt d = 0; d < t->depth; d++) {
            const frame *f = &t->stack[d];
            if (f->sig && top) {
                VG_(gdb_printf)("function-%u-%u: %s\n", t->tid, d, callee_name(top));
                print_since(t, d, f);
                top = NULL;
            }
            if (!f->a) continue;
            top = f;
            VG_(gdb_printf)("function-%u-%u: %s\n", t->tid, d, caller_name(f));
            VG_(gdb_printf)("calls-%u-%u: %llu\n", t->tid, d, f->a->calls);
            print_since(t, d, f);
        }
        if (top) VG_(gdb_printf)("function-%u-%u: %s\n", t->tid, t->depth, callee_name(top));
    }
}

/* The stacks as callgrind_control -b prints them: the running function
 * first, each line a function and the calls of the arc that entered it. */
static void print_stacks(void)
{
    if (!clo_calls) {
        VG_(gdb_printf)("No call stacks: the run has --calls=no.\n");
        return;
    }
    for (UInt k = 0; k < calls_n_threads; k++) {
        thread *t = calls_threads[k];
        if (!t) continue;
        VG_(gdb_printf)("Backtrace for Thread %u\n", t->tid);
        UInt n = 0;
        for (UInt d = t->depth; d-- > 0 && n < 100;) {
            const frame *f = &t->stack[d];
            if (f->sig) {
                VG_(gdb_printf)("   [%2u]  %s\n", n++, f->sigline ? f->sigline->fn->s : "<signal>");
                continue;
            }
            if (!f->a) continue; /* a skipped call (--fn-skip), a stack switch */
            VG_(gdb_printf)("   [%2u]  %s (%llu x)\n", n++, callee_name(f), f->a->calls);
            if (d == 0) VG_(gdb_printf)("   [%2u]  %s\n", n++, caller_name(f));
        }
        VG_(gdb_printf)("\n");
    }
}

static void status(void)
{
    VG_(gdb_printf)("%u thread(s) running.\n", n_live_threads());
    VG_(gdb_printf)("instrumentation: %s, collection: %s\n", instr_state() ? "on" : "off",
                    parts_collecting ? "on" : "off");
    VG_(gdb_printf)("parts dumped: %u\n", dump_count());
    VG_(gdb_printf)("events:");
    for (Int k = 0; k < n_out_ev; k++)
        VG_(gdb_printf)(" %s", ev_name[out_ev[k]]);
    VG_(gdb_printf)("\n");
    if (clo_calls) {
        for (UInt k = 0; k < calls_n_threads; k++)
            if (calls_threads[k]) {
                VG_(gdb_printf)("thread %u: run so far: ", calls_threads[k]->tid);
                print_costs(calls_threads[k]->run);
            }
        VG_(gdb_printf)("functions: %u, call arcs: %lu\n", n_functions(), calls_arcs.nused);
    }
    VG_(gdb_printf)("basic blocks: %lu", n_blocks);
    if (counting_bbs()) VG_(gdb_printf)(", run %llu times", parts_bbs_run);
    VG_(gdb_printf)("\n");
}

/* A monitor command: True when it is one of tally's (then answered). */
Bool monitor_command(const HChar *req)
{
    SizeT len = VG_(strlen)(req);
    HChar *s = VG_(malloc)("tl.monitor", len + 1);
    VG_(strcpy)(s, req);
    HChar *save;
    HChar *word = VG_(strtok_r)(s, " ", &save);
    Bool ok = True;
    switch (VG_(keyword_id)("help dump zero status instrumentation stack", word,
                            kwd_report_duplicated_matches)) {
    case -2: /* ambiguous: said already */
        break;
    case -1:
        ok = False;
        break;
    case 0:
        print_help();
        break;
    case 1:
        /* Callgrind's trigger is the command as given: "dump LABEL" */
        if (dump_writing)
            VG_(gdb_printf)("a part is being written: try again\n");
        else
            dump_part(req);
        break;
    case 2:
        zero_all();
        break;
    case 3: {
        HChar *arg = VG_(strtok_r)(NULL, " ", &save);
        if (arg && VG_(strcmp)(arg, "internal") == 0)
            status_internal();
        else
            status();
        break;
    }
    case 4: {
        HChar *arg = VG_(strtok_r)(NULL, " ", &save);
        if (!arg)
            VG_(gdb_printf)("instrumentation: %s\n", instr_state() ? "on" : "off");
        else if (VG_(strcmp)(arg, "on") == 0 || VG_(strcmp)(arg, "off") == 0)
            instr_switch(VG_(strcmp)(arg, "on") == 0, True);
        else
            VG_(gdb_printf)("instrumentation: say on or off, not '%s'\n", arg);
        break;
    }
    case 5:
        print_stacks();
        break;
    }
    VG_(free)(s);
    return ok;
}
