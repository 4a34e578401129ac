/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_setup.c - tally's Valgrind tool: the options (their values, parsing
 * and usage text), the checks and set-up after them, the client requests'
 * entry point, and the registration with Valgrind's core.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"

#include "tally.h"
#include "tl_global.h"
#include "tl_out.h"

#include "rms.h" /* --input-sensitive (tl_input.c) */
#include "tl_cct.h"

/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

Bool clo_cache_sim = False; /* as Callgrind, and Cachegrind since 3.21 */
static Bool clo_cache_sim_given;
Bool clo_simulate_wb = False, clo_simulate_hwpref = False, clo_cacheuse = False;
static Bool clo_models_given; /* --simulate-wb, --simulate-hwpref or --cacheuse, yes or no */
Bool clo_branch_sim = False;
Bool clo_dump_instr = False;
Bool clo_calls = True;
const HChar *clo_out_file = "tally.out.%p";
const HChar *clo_cachegrind_out_file = NULL;
Bool clo_collect_atstart = True;
Bool clo_separate = False;
Bool clo_jumps = False;
const HChar *clo_toggle = NULL;
Bool clo_contexts = False;
static Long clo_context_depth = 0;
const HChar *clo_ctx_out_file = "tally.ctx.%p";
cache_cfg clo_I1 = {-1, -1, -1};
cache_cfg clo_D1 = {-1, -1, -1};
cache_cfg clo_LL = {-1, -1, -1};
/* The caches really simulated (after defaults and checks). */
cache_cfg sim_I1, sim_D1, sim_LL;

/*------------------------------------------------------------*/
/*--- Setup and teardown                                   ---*/
/*------------------------------------------------------------*/

static Bool tl_process_cmd_line_option(const HChar *arg)
{
    if (rms_process_option(arg) || parts_process_option(arg) || sep_process_option(arg) ||
        events_process_option(arg) || dump_process_option(arg))
        return True;
    if VG_BOOL_CLO (arg, "--cache-sim", clo_cache_sim) {
        clo_cache_sim_given = True;
    } else if VG_BOOL_CLO (arg, "--simulate-wb", clo_simulate_wb) {
        clo_models_given = True;
    } else if VG_BOOL_CLO (arg, "--simulate-hwpref", clo_simulate_hwpref) {
        clo_models_given = True;
    } else if VG_BOOL_CLO (arg, "--cacheuse", clo_cacheuse) {
        clo_models_given = True;
        if (clo_cacheuse) clo_dump_instr = True; /* as Callgrind (a later --dump-instr wins) */
    } else if VG_BOOL_CLO (arg, "--branch-sim", clo_branch_sim) {
    } else if VG_BOOL_CLO (arg, "--dump-instr", clo_dump_instr) {
    } else if VG_BOOL_CLO (arg, "--calls", clo_calls) {
    } else if (VG_STR_CLO(arg, "--out-file", clo_out_file) ||
               VG_STR_CLO(arg, "--callgrind-out-file", clo_out_file)) {
        if (!*clo_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_STR_CLO (arg, "--cachegrind-out-file", clo_cachegrind_out_file) {
        if (!*clo_cachegrind_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_BOOL_CLO (arg, "--collect-atstart", clo_collect_atstart) {
    } else if VG_BOOL_CLO (arg, "--separate-threads", clo_separate) {
    } else if VG_BOOL_CLO (arg, "--collect-jumps", clo_jumps) {
    } else if VG_BOOL_CLO (arg, "--contexts", clo_contexts) {
    } else if VG_BINT_CLO (arg, "--context-depth", clo_context_depth, 0, 1000000) {
    } else if VG_STR_CLO (arg, "--contexts-out-file", clo_ctx_out_file) {
        if (!*clo_ctx_out_file) VG_(fmsg_bad_option)(arg, "it needs a file name\n");
    } else if VG_STR_CLO (arg, "--toggle-collect", clo_toggle) {
        if (!*clo_toggle) VG_(fmsg_bad_option)(arg, "it needs a function name\n");
        fnpat_add(FNP_TOGGLE, "--toggle-collect", clo_toggle);
        clo_collect_atstart = False;
    } else if (sim_parse_opt(arg)) {
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
     "    --simulate-wb=yes|no      write-back LL: misses evicting a dirty line [no]\n"
     "    --simulate-hwpref=yes|no  Callgrind's LL prefetcher of sequential lines [no]\n"
     "    --cacheuse=yes|no         Callgrind's cache-use events AcCost1 SpLoss1 AcCost2\n"
     "                              SpLoss2, costs per instruction [no]\n"
     "    --branch-sim=yes|no       simulate branch prediction [no]\n"
     "    --calls=yes|no            the call graph with inclusive costs [yes]\n"
     "    --dump-instr=yes|no       costs per instruction as well as per line [no]\n"
     "    --out-file=<file>         callgrind-format output [tally.out.%%p]\n"
     "    --callgrind-out-file=<file>  the same\n"
     "    --cachegrind-out-file=<file>  also write the cachegrind format\n"
     "    --collect-atstart=yes|no  collect from the start [yes; no with --toggle-collect]\n"
     "    --toggle-collect=<fn>     collect only while inside a function matching <fn>\n"
     "                              (* and ? wildcards, repeatable; needs --calls=yes)\n"
     "    --separate-threads=yes|no one part per thread [no: threads summed]\n"
     "    --collect-jumps=yes|no    jump=/jcnd= records of jumps and conditional jumps [no]\n"
     "    --contexts=yes|no         also write the calling-context tree [no]\n"
     "    --context-depth=<n>       keep stacks at most <n> frames deep [0: no limit]\n"
     "    --contexts-out-file=<file>  the context tree's file [tally.ctx.%%p]\n",
     "yes");
    events_print_usage();
    sep_print_usage();
    dump_print_usage();
    parts_print_usage();
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
    /* so do Callgrind's cache model options, yes or no */
    if (clo_models_given) {
        if (clo_cache_sim_given && !clo_cache_sim) {
            VG_(fmsg_bad_option)("--simulate-wb/--simulate-hwpref/--cacheuse",
                                 "a cache model is chosen while --cache-sim=no\n");
            VG_(exit)(1);
        }
        clo_cache_sim = True;
    }
    if (VG_(clo_vex_control).guest_chase) {
        if (VG_(clo_verbosity) > 1)
            VG_(umsg)("tally counts only instructions that run: --vex-guest-chase is set to no\n");
        VG_(clo_vex_control).guest_chase = False;
    }
    /* --dump-every-bb counts blocks as Callgrind does: a loop of one block
     * is not unrolled (Callgrind never unrolls), so each iteration is one
     * block run, and the scheduler checks the count as often */
    if (counting_bbs()) VG_(clo_vex_control).iropt_unroll_thresh = 0;
    sim_init();
    events_post_clo_init();
    choose_events();
    dump_post_clo_init();
    htab_init(&cc_strs, 4096);
    htab_init(&cc_lines, 16384);
    htab_init(&cc_instrs, 65536);
    /* looked up when code is translated, not when it runs: longer chains
     * cost little there, and the slots are the table's memory (programs
     * that mostly start up translate hundreds of thousands of instrs) */
    cc_instrs.per_slot = 4;
    htab_init(&calls_arcs, 4096);
    htab_init(&dump_fnrecs, 4096);
    htab_init(&dump_entry_files, 4096);
    htab_init(&calls_djumps, 1024);
    if (clo_toggle) {
        if (!clo_calls) {
            /* after option parsing this only prints */
            VG_(fmsg_bad_option)("--toggle-collect", "it needs --calls=yes\n");
            VG_(exit)(1);
        }
    }
    if (sep_post_clo_init()) {
        if (!clo_calls) {
            VG_(fmsg_bad_option)("--fn-skip/--separate-*/--skip-direct-rec", "they need --calls=yes\n");
            VG_(exit)(1);
        }
        if (clo_contexts) {
            VG_(fmsg_bad_option)("--fn-skip/--separate-*/--skip-direct-rec",
                                 "not with --contexts=yes (the context tree has no such names)\n");
            VG_(exit)(1);
        }
    }
    if (clo_contexts) {
        if (!clo_calls) {
            VG_(fmsg_bad_option)("--contexts=yes", "it needs --calls=yes\n");
            VG_(exit)(1);
        }
        cct_init((UInt)clo_context_depth, clo_separate, ctx_ev, n_ctx_ev);
    }
    parts_post_clo_init();
    parts_gated = clo_toggle != NULL || !clo_collect_atstart || !clo_instr_atstart;
    parts_init(clo_collect_atstart);
    /* the files are written at exit: find out now if they cannot be */
    tl_out_check("--out-file", clo_out_file);
    if (clo_cachegrind_out_file) tl_out_check("--cachegrind-out-file", clo_cachegrind_out_file);
    if (clo_contexts) tl_out_check("--contexts-out-file", clo_ctx_out_file);
    rms_out_check();
}

static Bool handle_request(UWord *args, UWord *ret);

static Bool tl_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    (void)tid;
    if (calls_cur_thread) run_sync(calls_cur_thread);
    exit_sync();
    if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) { /* vgdb, tally control */
        Bool ours = monitor_command((const HChar *)args[1]);
        *ret = ours;
        return ours;
    }
    Bool ours = handle_request(args, ret);
    sim_request_done(); /* (--cacheuse: the requesting block's run) */
    return ours;
}

static Bool handle_request(UWord *args, UWord *ret)
{
    if (parts_client_request(args)) {
        *ret = 0;
        return True;
    }
    if (!VG_IS_TOOL_USERREQ('T', 'L', args[0])) return False;
    switch (args[0]) {
    case TALLY_REQ_START:
        collect_start();
        break;
    case TALLY_REQ_STOP:
        collect_stop();
        break;
    case TALLY_REQ_ZERO:
        zero_all();
        break;
    case TALLY_REQ_DUMP:
        dump_part("Client Request");
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
    /* no loop unrolling, as Callgrind: an unrolled loop's block is several
     * times the IR to translate, which programs that mostly start up pay
     * for, and hot loops ran no faster (--vex-iropt-unroll-thresh still
     * sets it) */
    VG_(clo_vex_control).iropt_unroll_thresh = 0;

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
