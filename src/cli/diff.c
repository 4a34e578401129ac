/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder until the diff command lands. */
#include "cli.h"

int cmd_diff(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("diff: not built yet");
    return 1;
}
