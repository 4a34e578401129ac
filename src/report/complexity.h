/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * complexity.h - the reports of `tally complexity`: the ranking and the
 * chosen routines' tuple tables as text or JSON, and the pictures (one
 * cost plot and one frequency plot per routine, plus an index.html).
 *
 * The text layout and the JSON schema ("tally-complexity", version 1) are
 * described in docs/tally-complexity.md; the text layout has a golden test
 * (tests/golden/complexity.sh).
 */
#ifndef TALLY_REPORT_COMPLEXITY_H
#define TALLY_REPORT_COMPLEXITY_H

#include <stdio.h>

#include "../analysis/complexity.h"
#include "../model/error.h"
#include "../model/isprof.h"

struct complexity_report_options {
    const char *const *sources; /* input file names (for the header), may be NULL */
    size_t nsources;
    const struct complexity_options *filters; /* as analysed (echoed in headers), or NULL */
    /* routines whose tuple tables are shown (--routine), in order */
    struct complexity_routine *const *detail;
    size_t ndetail;
    int logscale; /* plots: logarithmic axes */
};

/* The ranking, then the detail of each chosen routine. 0, or -1 with err on a write error. */
int complexity_write_text(const struct complexity *c, const struct isprof *ip,
                          const struct complexity_report_options *o, FILE *fp,
                          struct tally_error *err);

/* The same as one JSON document. 0, or -1 with err on a write error. */
int complexity_write_json(const struct complexity *c, const struct isprof *ip,
                          const struct complexity_report_options *o, FILE *fp,
                          struct tally_error *err);

/*
 * Into directory `dir` (created when missing): for each ranked routine and
 * each detail routine, ROUTINE.svg (worst, average and best cost against
 * input size, with the fitted curve and its formula) and ROUTINE-freq.svg
 * (calls per input size), where ROUTINE is "r<index>-<name>" with the
 * name cut to 60 safe characters; and index.html (the ranking, links to
 * and pictures of every plot). Every file is written atomically.
 * 0, or -1 with err.
 */
int complexity_write_plots(const struct complexity *c, const struct isprof *ip,
                           const struct complexity_report_options *o, const char *dir,
                           struct tally_error *err);

/*
 * The same page's content as one HTML fragment for another page (a <div>
 * with its own scoped styles): the ranking, then every plot inlined as an
 * <img> with a base64 data: URI, so the page needs no file beside it.
 * 0, or -1 with err.
 */
int complexity_write_html_inline(const struct complexity *c, const struct isprof *ip,
                                 const struct complexity_report_options *o, FILE *fp,
                                 struct tally_error *err);

/*
 * The checks made before classing r, in a line: "12 distinct sizes (a class
 * needs 5); sizes span x12 (x5.5 without the extremes); relative error 0.4%;
 * runs test z 0.30". Returns buf (256 bytes are enough).
 */
char *complexity_checks_text(const struct complexity_routine *r, char *buf, size_t size);

/*
 * r's clusters when it has two or more: "two, 3.1 times apart at similar n:
 * 12 sizes from 1 to 999 (cost ~ n^1.02), 8 sizes from 3 to 1,000 (cost ~
 * n^0.98)". Returns buf (512 bytes are enough).
 */
char *complexity_clusters_text(const struct complexity_routine *r, char *buf, size_t size);

/* "cost = A + B * n^C" with 4 significant digits (buf of 128 bytes is enough). */
char *complexity_model_text(const struct fit_power *f, char *buf, size_t size);

#endif
