/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dot.h - the call graph as Graphviz DOT text, and running the `dot`
 * program to lay it out (SVG).
 *
 * What is drawn (see docs/tally-graph.md for the user's view):
 *   - functions reachable from a --root match and reaching a --leaf match
 *     (when given; reachability follows every arc of the full graph);
 *   - of those, the nodes whose inclusive share of the chosen column is at
 *     least node_thres percent, plus the --root/--leaf matches themselves;
 *   - arcs between two drawn nodes whose inclusive share is at least
 *     edge_thres percent; arcs inside a recursion (a self-call, or both
 *     ends in one cycle) carry no meaningful share and are drawn, with
 *     their call count only, whenever both ends are drawn;
 *   - the drawn members of each cycle inside `subgraph cluster_cycleN`.
 * Node label: name, inclusive share, (self share), calls into it; edge
 * label: inclusive share and call count. Fill colours follow the viridis
 * ramp (readable with the common colour-vision deficiencies) by inclusive
 * share, pale for cheap and dark for costly. Every string is escaped for
 * DOT. Nodes get id="fN" (N = the profile's function id) and a tooltip
 * with the full name, file, object and absolute costs.
 *
 * The library never links Graphviz: dot_run() forks and executes the
 * `dot` program found in PATH.
 */
#ifndef TALLY_DOT_H
#define TALLY_DOT_H

#include <stddef.h>
#include <stdio.h>

#include "../analysis/callgraph.h"
#include "../model/error.h"

struct dot_options {
    size_t col;        /* the column of the graph that is drawn */
    const char *event; /* its name, for the title */
    double node_thres; /* percent of the total (default 0.5) */
    double edge_thres; /* percent of the total (default 0.1) */
    /* at most this many functions above node_thres, the largest inclusive
       costs first (0 = no limit; default DOT_MAX_NODES): Graphviz lays out
       a few hundred boxes in seconds, thousands in minutes */
    size_t max_nodes;
    const char *const *roots; /* regexes (PCRE2), any may match; NULL/0 = none */
    size_t nroots;
    const char *const *leaves; /* regexes, any may match */
    size_t nleaves;
    const char *title; /* first line of the graph label; NULL = none */
};

#define DOT_MAX_NODES 400

/* Defaults: column 0, thresholds 0.5 and 0.1, DOT_MAX_NODES, no filters. */
void dot_options_init(struct dot_options *o);

/* Is this a valid regex for --root/--leaf? Returns 0, or -1 with err. */
int dot_check_regex(const char *re, struct tally_error *err);

/* What dot_select() decided. */
struct dot_selection {
    char *node;           /* [nnodes] 1 = drawn */
    char *arc;            /* [narcs] 1 = drawn */
    size_t nnodes, narcs; /* how many are drawn */
    size_t over_thres;    /* functions above node_thres (more than nnodes when capped) */
};

/*
 * Choose the nodes and arcs to draw. Returns 0, or -1 with err (a bad
 * regex, or a --root/--leaf regex that matches no function).
 */
int dot_select(const struct callgraph *g, const struct dot_options *o, struct dot_selection *s,
               struct tally_error *err);
void dot_selection_release(struct dot_selection *s);

/* Write the DOT text of the selection. Returns 0, or -1 on a write error. */
int dot_write(FILE *out, const struct callgraph *g, const struct dot_options *o,
              const struct dot_selection *s, struct tally_error *err);

/*
 * The DOT text of the selection in memory (the caller frees it), its
 * length in *len. NULL when it cannot be made: err as dot_write() sets it,
 * or left empty when no memory stream could be opened.
 */
char *dot_text(const struct callgraph *g, const struct dot_options *o,
               const struct dot_selection *s, size_t *len, struct tally_error *err);

/* Write `s` as a DOT double-quoted string (with the quotes). */
void dot_quote(FILE *out, const char *s);

/*
 * Find the `dot` program in PATH. Returns 1 when found (its path, up to
 * size bytes, in buf), else 0.
 */
int dot_find_program(char *buf, size_t size);

/*
 * Run `dot -T<format>` (format: "svg", ...) on `len` bytes of DOT text and
 * write its output to the file descriptor `out_fd`. Returns 0, or -1 with
 * err: dot missing, killed, failing (its first error line is quoted), or
 * still running after 120 s (it is then killed).
 */
int dot_run(const char *text, size_t len, const char *format, int out_fd, struct tally_error *err);
/* The same, stopping dot after timeout_ms milliseconds. */
int dot_run_limited(const char *text, size_t len, const char *format, int out_fd,
                    unsigned timeout_ms, struct tally_error *err);
/*
 * The colours of a share (percent) of the total: the fill (#rrggbb) runs
 * from pale (cheap) to dark (costly) on the viridis ramp (the square root
 * spreads small shares); `palest` (at most 1) cuts the pale end off; the
 * font is white on dark fills; *weight is the position on the ramp, 0..1.
 */
void dot_share_colours(double share, double palest, char fill[8], const char **font,
                       double *weight);

#endif
