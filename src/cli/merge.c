/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder until the merge command lands. */
#include "cli.h"

int cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("merge: not built yet");
    return 1;
}
