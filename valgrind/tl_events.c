/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_events.c - Callgrind's events beyond the caches and branches:
 * --collect-systime (below) and --collect-bus=yes (event Ge: one per compare-and-swap (a locked
 * instruction on amd64) and per store-conditional, as Callgrind counts
 * them; tl_instrument queues it as a static event of the instruction, so
 * the block's seg counts it).
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_tooliface.h"

#include "tl_arch.h"
#include "tl_global.h"

Bool clo_collect_bus = False;

Bool events_process_option(const HChar *arg)
{
    if VG_BOOL_CLO (arg, "--collect-bus", clo_collect_bus) {
    } else if VG_XACT_CLO (arg, "--collect-systime=no", clo_systime, SYSTIME_NO) {
    } else if VG_XACT_CLO (arg, "--collect-systime=yes", clo_systime, SYSTIME_MSEC) {
    } else if VG_XACT_CLO (arg, "--collect-systime=msec", clo_systime, SYSTIME_MSEC) {
    } else if VG_XACT_CLO (arg, "--collect-systime=usec", clo_systime, SYSTIME_USEC) {
    } else if VG_XACT_CLO (arg, "--collect-systime=nsec", clo_systime, SYSTIME_NSEC) {
    } else
        return False;
    return True;
}

void events_print_usage(void)
{
    VG_(printf)("    --collect-bus=yes|no      count global bus events: locked instructions\n"
                "                              (compare-and-swap), event Ge [no]\n"
                "    --collect-systime=no|yes|msec|usec|nsec  count system calls and their\n"
                "                              time in ms (yes), us or ns: sysCount sysTime,\n"
                "                              with nsec also sysCpuTime [no]\n");
}

/*------------------------------------------------------------*/
/*--- --collect-systime                                    ---*/
/*------------------------------------------------------------*/

/*
 * As Callgrind: each system call a thread makes counts one sysCount and
 * the time from the pre-call hook to the post-call hook as sysTime (in
 * ms, us or ns by the option; `yes` is ms), with `nsec` also the thread's
 * CPU time as sysCpuTime; they go to the instruction that made the call
 * (the last of its block) and into the running cost of the thread. The
 * time includes what Valgrind does for the call (e.g. reading the debug
 * info of an object that mmap maps).
 */
Int clo_systime = SYSTIME_NO;

/* The instruction of the system call a block ends with, stored by the
 * block (note_syscall) right before the call; the pre-call hook gives it
 * to the thread. */
static instrcc *sys_site;

void note_syscall(tlstate *st, instrcc *ins, IRJumpKind jk)
{
    if (!arch_is_syscall(jk)) return;
    addStmtToIRSB(st->sbOut, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&sys_site),
                                          ins_atom(st, ins, st->idx)));
}

/* The clock of the option in its unit, and with nsec the thread's CPU
 * time in ns. */
static ULong sys_clock(ULong *cpu)
{
    switch (clo_systime) {
    case SYSTIME_MSEC:
        return VG_(read_millisecond_timer)();
    case SYSTIME_USEC: {
        struct vki_timeval tv;
        VG_(gettimeofday)(&tv, NULL);
        return (ULong)tv.tv_sec * 1000000ULL + (ULong)tv.tv_usec;
    }
    default: {
        struct vki_timespec ts;
        VG_(clock_gettime)(&ts, VKI_CLOCK_THREAD_CPUTIME_ID);
        *cpu = (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
        VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
        return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
    }
    }
}

static void pre_syscall(ThreadId tid, UInt no, UWord *args, UInt n_args)
{
    (void)no;
    (void)args;
    (void)n_args;
    thread *t = get_thread(tid);
    t->sys_site = sys_site;
    sys_site = NULL;
    t->sys_wall = sys_clock(&t->sys_cpu);
}

static void post_syscall(ThreadId tid, UInt no, UWord *args, UInt n_args, SysRes res)
{
    (void)no;
    (void)args;
    (void)n_args;
    (void)res;
    thread *t = get_thread(tid);
    instrcc *n = t->sys_site;
    if (!n) return;
    t->sys_site = NULL;
    ULong cpu = 0, wall = sys_clock(&cpu);
    /* another thread may have run while this one waited in the call: what
     * is counted now is this thread's (--separate-threads) */
    if (t != calls_cur_thread) tl_start_client_code(tid, 0);
    ULong d[3] = {1, wall - t->sys_wall, cpu - t->sys_cpu};
    Int k = clo_systime == SYSTIME_NSEC ? 3 : 2;
    for (Int e = 0; e < k; e++) {
        if (parts_collecting) icost(n)[EVS(EV_sysCount + e)] += d[e];
        t->run[EVS(EV_sysCount + e)] += d[e];
    }
    if (parts_collecting) touch_instr(n);
}

void events_post_clo_init(void)
{
    if (clo_systime != SYSTIME_NO) VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
}
