/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - `tally report`: a self-contained HTML report. See
 * docs/tally-report.md.
 */
#include "cli.h"

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("report: not built yet");
    return 2;
}
