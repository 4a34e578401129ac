/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * folded.h - folded stacks (`tally convert --to=folded`), the text that
 * FlameGraph's flamegraph.pl, speedscope and the Firefox Profiler import:
 * one line per stack, frames from the outermost to the innermost joined
 * by ';', a space and the stack's count of one event:
 *
 *     main;work;leaf 900
 *
 * The stacks come from a stack tree (analysis/stacks.h). A node's count is
 * its *own* weight: its total minus its children's totals, which is its
 * self cost plus whatever was pruned or cut by the depth limit below it.
 * So the counts of all lines add up to the root's total, the sum of every
 * self cost of the event. Nodes of weight 0 are left out; lines come in a
 * depth-first walk of the tree (children in the tree's order).
 *
 * A ';' inside a function name would split the frame, and a line break
 * would split the line: they are written as ',' and ' '. Cost that belongs
 * to no frame (the root's own weight) is written as the frame "[other]".
 *
 * The helpers below are shared by the other stack writers (speedscope.c,
 * pprof.c).
 */
#ifndef TALLY_EXPORT_FOLDED_H
#define TALLY_EXPORT_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "../analysis/stacks.h"
#include "../model/error.h"

/* Write the lines for event `ev` (0 <= ev < t->nev). Returns 0, or -1
 * with err when the stream reports an error. */
int folded_write(const struct stack_tree *t, size_t ev, FILE *fp, struct tally_error *err);

/* Node i's own weight for event ev: total minus the children's totals. */
uint64_t folded_weight(const struct stack_tree *t, uint32_t i, size_t ev);

/* The node after i in a depth-first (pre-order) walk from the root, or 0
 * at the end. Start with folded_next(t, 0) to get the first frame. */
uint32_t folded_next(const struct stack_tree *t, uint32_t i);

/* Function name and file of node i, read from the profile ("" for the root). */
const char *folded_name(const struct stack_tree *t, uint32_t i);
const char *folded_file(const struct stack_tree *t, uint32_t i);

/*
 * The first source line of every function: the smallest line with a cost
 * in the function's own file (inlined code of other files does not
 * count), 0 when none. A malloc'd array of profile_nfunctions(p) + 1
 * values (p may be NULL).
 */
uint64_t *folded_start_lines(const struct profile *p);

#endif
