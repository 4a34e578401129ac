/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.h - the answers of tally view's API for a page that has no
 * server: `tally report` embeds them (page.h), and the page answers its
 * own questions from them (docs/internals/view.md, "Snapshots").
 *
 * A snapshot is JSON: {"note": TEXT, "answers": {KEY: ANSWER, ...},
 * "svg": {KEY: SVG TEXT, ...}}. KEY is the question without "api/" and
 * the token: the path, then "?" and the arguments sorted by name, joined
 * by "&" (no argument: the path alone), e.g. "function?id=12",
 * "graph?down=2&ev=0&id=12&up=2". "functions" holds the rows of every
 * function shipped (the page sorts and searches them itself); meta gains
 * "snapshot": what was shipped out of how much.
 *
 * What is shipped, for the session's default selection (every part
 * summed, or part 0 when the parts count different events): the
 * max_functions functions with the largest inclusive share, taking each
 * function's largest share over every event (and over the base's costs in
 * a comparison), and their function answers; the source of the first
 * max_source of them; the call graph of the first max_graphs; their flame
 * graph under them and sandwich for the first max_trees; the flame graph
 * of every event; their complexity when there is an aprof report. The
 * pictures are those of event `ev`, the event the page opens on. The page
 * embeds it packed (page.h), so the text needs no escaping for HTML.
 */
#ifndef TALLY_VIEW_SNAPSHOT_H
#define TALLY_VIEW_SNAPSHOT_H
#include <stddef.h>
#include "session.h"

struct view_snapshot_options {
    size_t ev; /* the event of the pictures and of the page at first */
    size_t max_functions, max_source;
    size_t max_graphs; /* none with no_graph */
    size_t max_trees;  /* none with no_flame */
    int no_graph, no_flame;
    /* why the call graphs or the flame graphs are left out (the page says
       it), or NULL */
    const char *graph_note, *flame_note;
};

/* tally report's defaults */
#define VIEW_SNAPSHOT_OPTIONS_INIT                                                                 \
    {                                                                                              \
        .max_functions = 2000, .max_source = 300, .max_graphs = 50, .max_trees = 200               \
    }

/* The snapshot of the session's default selection (malloc'd text), or NULL
 * with err. */
char *view_snapshot(struct view_session *s, const struct view_snapshot_options *o,
                    struct tally_error *err);

#endif
