/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321.h - `tally annotate --layout=3.21`: the report that
 * cg_annotate prints since Valgrind 3.21 (checked against 3.27.1), for
 * cachegrind profiles.
 *
 * Sections: `-- Metadata` (the invocation, desc: lines, commands, events,
 * threshold), `-- Summary` (PROGRAM TOTALS), `-- File:function summary`
 * and `-- Function:file summary` (each file with its functions and each
 * function with its files, cut by the threshold, with a cumulative
 * percentage), one `-- Annotated source file:` section per file listed
 * in the first table, and `-- Annotation summary` (where the counts went).
 * docs/internals/annotate.md describes the rules (widths, rounding, order).
 *
 * Use: cga_new(), then cga_add() for each profile in the order given (with
 * `diff`, exactly two: the result is the second minus the first), then
 * cga_print(). The profiles are only read, and may be freed after
 * cga_add(): the report keeps its own sums, keyed by the names after
 * --mod-filename and --mod-funcname, per (file, function) and, when
 * source is annotated, per (file, line), as 128-bit signed values. The
 * only files it touches are the source files it annotates and the
 * profiles' own files (their modification times), both read-only.
 *
 * Functions return 0, or -1 with err filled (no memory is leaked).
 */
#ifndef TALLY_ANNOTATE_CG321_H
#define TALLY_ANNOTATE_CG321_H

#include <stdio.h>

#include "../model/error.h"
#include "../model/profile.h"

struct rename;

struct cga_options {
    struct strlist show;           /* --show events, in order (repeats allowed); none = all */
    struct strlist sort;           /* --sort events; none = the file's order */
    double threshold;              /* percent of the first sort event [0.1] */
    int show_percs;                /* [1] */
    int annotate;                  /* annotate the listed files' source [1] */
    long context;                  /* lines around each annotated line [8] */
    int diff;                      /* two profiles: the second minus the first */
    const struct rename *mod_file; /* --mod-filename, or NULL */
    const struct rename *mod_fn;   /* --mod-funcname, or NULL */
    const char *invocation;        /* the text of the `Invocation:` line (the command line) */
};

struct cga;

/* A report with these options (copied but for the strings, renames and
 * lists, which must outlive the report). */
struct cga *cga_new(const struct cga_options *o);
void cga_free(struct cga *a);

/*
 * Add part 0 of profile p, read from `path` (named in messages; its
 * modification time is compared with the sources'). Fails when p's events
 * are not the first profile's (the same names in the same order), when a
 * --show or --sort event is not among them, when p's `summary:` line is
 * not the sum of its costs, or on a third profile with `diff`.
 */
int cga_add(struct cga *a, const struct profile *p, const char *path, struct tally_error *err);

/* Print the report on out. */
int cga_print(FILE *out, struct cga *a, struct tally_error *err);

#endif
