/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * speedscope.h - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json) from a stack tree
 * (`tally convert --to=speedscope`).
 *
 * The document: "$schema", "shared": {"frames": [{name, file}]} with one
 * frame per function of the tree, and one profile per event of the tree,
 * of type "sampled", unit "none", startValue 0 and endValue the event's
 * total. Each node of non-zero own weight (folded.h: its total minus its
 * children's totals) is one sample: the stack of frame indices from the
 * outermost frame to the node (root first), with that weight. So the
 * weights of a profile add up to the event's total. The document's "name"
 * tells where the data came from and whether the stacks are exact or
 * estimated (the tree's `method`); "exporter" names tally.
 */
#ifndef TALLY_EXPORT_SPEEDSCOPE_H
#define TALLY_EXPORT_SPEEDSCOPE_H

#include <stdio.h>

#include "../analysis/stacks.h"
#include "../model/error.h"

struct speedscope_options {
    const char *name;     /* what was profiled (e.g. the command), or NULL */
    const char *exporter; /* e.g. "tally 0.1.0", or NULL */
};

/* Write the document. Returns 0, or -1 with err on a write error. */
int speedscope_write(const struct stack_tree *t, FILE *fp, const struct speedscope_options *o,
                     struct tally_error *err);

#endif
