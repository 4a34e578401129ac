/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.h - the sum of profiles, as `tally merge` and every command that
 * reads several inputs (cli_read_inputs()) add them up.
 */
#ifndef TALLY_ANALYSIS_MERGE_H
#define TALLY_ANALYSIS_MERGE_H

#include "../model/error.h"
#include "../model/profile.h"

/*
 * Add profile `src` (one part) into `dst` (one part): costs, calls and
 * jumps (part_accumulate(); events are matched by name), and the
 * calling-context trees when both have one whose events all have a place
 * in dst's. When only one of them has a tree, or src's events do not fit,
 * dst's tree is dropped (its stacks will be estimated from the call arcs)
 * and *dropped is set to 1. A signed (diff) profile makes the sum signed;
 * src may be made signed too. A sum of different processes or threads
 * keeps no pid or thread. Returns 0, or -1 with err (overflow, events that
 * do not match).
 */
int profile_sum(struct profile *dst, struct profile *src, int *dropped, struct tally_error *err);

#endif
