/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate.h - the `tally annotate` text report: what callgrind_annotate
 * (for callgrind profiles) and cg_annotate 3.19 (for cachegrind profiles)
 * print, with the same numbers and layout, deterministic order, and
 * inclusive costs that are right under recursion.
 *
 * Sections: the header (options and metadata), PROGRAM TOTALS, the
 * function table (`COSTS  FILE:FUNCTION [OBJECT]`, sorted and cut by the
 * threshold), optional caller/callee trees, then annotated source files
 * (each read once) and the count of annotated events.
 *
 * The report reads part 0 of the profile (merge parts and files first) and
 * never changes nor frees it: one profile may be given to any number of
 * reports, with any options, one after the other. It writes to `out`; the
 * only files it touches are the source files it annotates (read-only).
 * What a report shows decides what it needs of the profile: without
 * annotated source no line, and without --inclusive or --tree not the call
 * costs either (cli/annotate.c asks the reader for no more: read_options'
 * drop_line and call_counts_only); a report of a profile read that way
 * shows no call cost and finds every cost on line 0.
 */
#ifndef TALLY_ANNOTATE_H
#define TALLY_ANNOTATE_H

#include <stdio.h>

#include "../analysis/groups.h"
#include "../model/error.h"
#include "../model/profile.h"

struct rename;

struct annotate_options {
    struct strlist show;        /* --show events; none = every base event */
    struct strlist sort;        /* --sort events (without ":T") */
    struct strlist sort_thresh; /* parallel to sort: threshold text, or "" */
    int sort_has_thresholds;    /* some --sort event had ":T" */
    const char *threshold;      /* --threshold number text, or NULL for the default */
    int show_percs;             /* percentages after counts */
    int inclusive;              /* inclusive instead of self costs */
    int tree_caller, tree_calling;
    int auto_annotate;                      /* annotate the files of printed functions */
    long context;                           /* lines of context around annotated lines */
    struct strlist include_dirs;            /* each ends with '/' */
    struct strlist user_files;              /* source files named by the user */
    struct strlist inputs;                  /* profile file names, for the header */
    const char *cwd;                        /* "DIR/" stripped from file names, or NULL */
    const struct rename *mod_file, *mod_fn; /* --mod-filename/--mod-funcname, or NULL */
    /* --group: the groups' table (self and inclusive costs, sorted by the
       sort events' self costs, or inclusive with `inclusive`) in the place
       of the function table and the source files */
    int group;
    enum group_kind group_kind;
    int asm_code;          /* --asm: machine code with costs (annotate_asm.c) */
    const char *asm_regex; /* --asm=RE: of the functions RE matches, or NULL */
    int asm_att;           /* --asm-syntax=att (else Intel) */
};

/* Defaults: percentages, auto-annotation and context 8 on; the rest off. */
void annotate_options_init(struct annotate_options *o);
void annotate_options_release(struct annotate_options *o);

/*
 * Check that every --show/--sort event exists (base or derived) in the
 * profile. Returns 0, or -1 with a message naming the event.
 */
int annotate_check_events(const struct profile *p, const struct annotate_options *o,
                          struct tally_error *err);

/*
 * Check a --asm regex (PCRE2). Returns 0, or -1 with a message giving
 * PCRE2's reason and the offset.
 */
int annotate_asm_regex_check(const char *re, struct tally_error *err);

/*
 * Whether the profile can show machine code: its part 0 has instruction
 * addresses (`positions: instr ...`). Returns 0, or -1 with a message
 * (file = the profile) saying how to record them.
 */
int annotate_asm_check_profile(const struct profile *p, struct tally_error *err);

/* Write the report. Returns 0, or -1 with err (overflow, write error). */
int annotate_report(FILE *out, const struct profile *p, const struct annotate_options *o,
                    struct tally_error *err);

#endif
