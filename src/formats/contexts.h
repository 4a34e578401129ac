/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contexts.h - the tally contexts format (calling-context trees written by
 * `tally record --contexts=yes`; the layout is in
 * docs/internals/contexts.md).
 *
 * Reading gives a normal profile with one part: per-function self costs
 * (the sum of the self costs of the function's contexts, at line 0 of the
 * function's file), call arcs parent -> child (the child contexts' calls,
 * and the inclusive costs of those whose function is not already on the
 * stack above them, summed over the contexts with the same pair; the
 * part's desc has PART_DESC_OUTERMOST), and the tree itself in p->cct.
 * So every command works on it, and stack views are exact. A function
 * may occur several times on one stack.
 *
 * Malformed input fails with "FILE:LINE: message": a bad first line,
 * unknown keys, ids used before their definition or defined twice, a
 * context whose parent is not yet defined, the same (parent, function)
 * twice, more costs than events, numbers that do not fit 64 bits. A
 * `totals:` line that disagrees with the sum of the costs is a warning.
 */
#ifndef TALLY_FORMATS_CONTEXTS_H
#define TALLY_FORMATS_CONTEXTS_H

#include <stdio.h>

#include "../io/input.h"
#include "../model/profile.h"

/* The first line of every contexts file. */
#define CONTEXTS_MAGIC "# tally contexts 1"

/* Read from an opened input into a fresh profile. Returns 0 or -1 with err. */
int contexts_read(struct input *in, struct profile *p, struct tally_error *err);

/*
 * Write p->cct (with part 0's events and metadata) in the contexts format.
 * Returns -1 with err when the profile has no context tree or fp fails.
 */
int contexts_write(const struct profile *p, FILE *fp, struct tally_error *err);

/*
 * Does p carry a context tree that still describes it (one part, the
 * tree's self costs summing to the part's)? A profile changed after
 * reading (e.g. other files added into it) does not; profile_write()
 * then writes callgrind instead.
 */
int contexts_tree_current(const struct profile *p);

#endif
