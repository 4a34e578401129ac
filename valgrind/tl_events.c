/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_events.c - Callgrind's events beyond the caches and branches:
 * --collect-bus=yes (event Ge: one per compare-and-swap, i.e. per locked
 * instruction on amd64, and per store-conditional, as Callgrind counts
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
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"

#include "tl_global.h"

Bool clo_collect_bus = False;

Bool events_process_option(const HChar *arg)
{
    if VG_BOOL_CLO (arg, "--collect-bus", clo_collect_bus) {
    } else
        return False;
    return True;
}

void events_print_usage(void)
{
    VG_(printf)("    --collect-bus=yes|no      count global bus events: locked instructions\n"
                "                              (compare-and-swap), event Ge [no]\n");
}
