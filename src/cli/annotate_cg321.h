/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321.h - `tally annotate --layout=3.21`: what cli/annotate.c
 * parsed, handed to annotate_cg321.c, which reads each profile and prints
 * cg_annotate 3.21+'s report (src/report/annotate_cg321.h).
 */
#ifndef TALLY_CLI_ANNOTATE_CG321_H
#define TALLY_CLI_ANNOTATE_CG321_H

#include "../report/annotate.h"

struct cga_cli {
    const struct annotate_options *o; /* show, sort, show_percs, auto_annotate, context, renames */
    const char *threshold;            /* --threshold text as given, or NULL (0.1) */
    int diff;                         /* --diff */
    const struct strlist *profiles;   /* every argument that is not an option */
    int source_files;                 /* arguments after "--" were given */
    int defines;                      /* --event=NAME=FORMULA was given */
    int argc;                         /* the command line, for the Invocation: line */
    char **argv;
};

/* Check the options, read the profiles, print the report. Returns the exit
 * status (0; 1 bad input; 2 bad usage), having printed any message. */
int annotate_cg321(const struct cga_cli *x);

#endif
