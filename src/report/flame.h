/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame.h - an interactive SVG flame graph (or icicle graph) of a stack
 * tree (analysis/stacks.h).
 *
 * One frame per tree node, its width proportional to the node's total
 * (inclusive) cost of one event, children side by side above (flame) or
 * below (icicle) their parent, in the tree's order (by name). The SVG
 * carries its own CSS and JavaScript (no network): hover details (name,
 * file, object, self and total cost with their shares, calls), click to
 * zoom into a frame and reset, search by regular expression (case toggle)
 * showing the share of the total matched (nested matches counted once).
 * Element ids and classes are documented in docs/internals/stacks.md so
 * that pages embedding the graph (tally report) can drive it.
 *
 * Estimated trees say so on the picture: a subtitle line with the tree's
 * `method`.
 *
 * Differential graph: with `old` set, widths come from `t` (NEW) and each
 * frame is coloured by the change of its self cost against the frame with
 * the same stack of function names in `old`: red = grew, blue = shrank,
 * saturation by the relative change (white-ish = unchanged).
 */
#ifndef TALLY_REPORT_FLAME_H
#define TALLY_REPORT_FLAME_H

#include <stdio.h>

#include "../analysis/stacks.h"
#include "../model/error.h"

enum flame_colors {
    FLAME_COLORS_MODULE = 0, /* hue by object (module) name, warm palette */
    FLAME_COLORS_COST = 1,   /* red saturation by self-cost share */
};

struct flame_options {
    const char *title;    /* NULL = "Flame Graph" ("Icicle Graph") */
    const char *subtitle; /* an extra line under the title, or NULL */
    int icicle;           /* top-down: root at the top */
    size_t event;         /* cost column of the tree(s) to draw */
    double minwidth_px;   /* frames narrower than this are not drawn; 0 = 0.1 px */
    double minwidth_frac; /* if > 0: a fraction of the total instead of pixels */
    enum flame_colors colors;
    unsigned width;               /* picture width in pixels; 0 = 1200 */
    const struct stack_tree *old; /* differential: the OLD tree, or NULL */
    size_t old_event;             /* cost column of `old` */
    int negate;   /* differential with the trees swapped: `t` is OLD (widths from OLD), `old` is
                     NEW; colours still say how NEW differs from OLD (FlameGraph's --negate) */
    int fragment; /* no XML prolog (for embedding in HTML) */
};

/*
 * Write the SVG to fp. Returns 0, or -1 with err (write error, event out
 * of range).
 */
int flame_write_svg(const struct stack_tree *t, const struct flame_options *opt, FILE *fp,
                    struct tally_error *err);

#endif
