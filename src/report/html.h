/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.h - `tally report`: one self-contained HTML page for a profile.
 *
 * The page (see docs/tally-report.md, docs/internals/html.md) holds its
 * own CSS and JavaScript (src/report/html_assets.h, generated from
 * assets/report.{css,js}) and its data as one JSON object embedded in a
 * <script type="application/json"> element: nothing is fetched, it opens
 * from the disk.
 *
 * The data is reduced in C so the page stays small on huge profiles: the
 * `max_functions` functions with the largest inclusive share (the largest
 * over every event) and the arcs between them; each function knows how many
 * of its callers and callees were left out. Annotated source is shipped for
 * the first `max_source` of those functions whose source file is found
 * (as named in the profile, else under one of the include dirs): the lines
 * with costs and a few lines of context, at most SOURCE_MAX_LINES lines a
 * function.
 *
 * Pictures are included as inline SVG when given: the call graph (laid out
 * by `dot`, done by the caller, see dot.h) and the flame graph.
 *
 * The report reads part 0 (merge parts and files first).
 */
#ifndef TALLY_HTML_H
#define TALLY_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "../model/error.h"
#include "../model/profile.h"
#include "../model/strtab.h"

#define HTML_DEFAULT_MAX_FUNCTIONS 2000
#define HTML_DEFAULT_MAX_SOURCE 300
#define SOURCE_MAX_LINES 400
#define SOURCE_CONTEXT 3

struct html_options {
    const char *title;          /* page title; NULL = "tally report: CMD" */
    size_t max_functions;       /* 0 = HTML_DEFAULT_MAX_FUNCTIONS */
    size_t max_source;          /* functions with source shipped; SIZE_MAX = default */
    struct strlist include;     /* directories searched for source files */
    struct strlist inputs;      /* input file names, for the header */
    const char *callgraph_svg;  /* inline SVG of the call graph, or NULL */
    const char *callgraph_note; /* why there is no call graph, or NULL */
    const char *flame_svg;      /* inline SVG of the flame graph, or NULL */
    const char *flame_note;     /* why there is no flame graph, or NULL */
    const char *extra_html;     /* more sections (e.g. complexity plots), or NULL */
};

void html_options_init(struct html_options *o);
void html_options_release(struct html_options *o); /* the strlists only */

/*
 * Write the page to `out`. Returns 0, or -1 with err (overflow, write
 * error).
 */
int html_report_write(FILE *out, const struct profile *p, const struct html_options *o,
                      struct tally_error *err);

#endif
