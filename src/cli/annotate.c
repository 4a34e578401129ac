/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder until the annotate command lands. */
#include "cli.h"

int cmd_annotate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("annotate: not built yet");
    return 1;
}
