/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runpair.h - the contexts file and the callgrind file of one run, read
 * as one profile.
 *
 * `tally record --contexts=yes` writes both: the callgrind file has source
 * lines, call sites and jumps, the contexts file has the exact stacks.
 * They count the same costs, so adding them up would double every number.
 * runpair_match() tells such a pair from two runs; runpair_join() makes
 * one profile of it: the callgrind file's data with the contexts file's
 * calling-context tree attached, so that stack views are exact and line
 * views keep their lines.
 *
 * The two files name some functions differently, so functions are matched
 * by object and name: unknown objects and files are empty in a contexts
 * file and `???` in a callgrind file, and a function with code from other
 * source files (inlined headers) is one function of its first file in the
 * contexts file but one per file in the callgrind file. In the joined
 * profile each function of the contexts file is one function (file `???`
 * when unknown); the callgrind file's pieces of it are added to it, each
 * cost keeping the source file of its line. A callgrind function that
 * matches no function of the contexts file, or more than one (two static
 * functions of one name in one object, and a third piece of code of that
 * name), stays a function of its own.
 */
#ifndef TALLY_RUNPAIR_H
#define TALLY_RUNPAIR_H

#include "../model/error.h"
#include "../model/profile.h"

/*
 * 1 when `ctx` is a contexts file (it has a tree), `callgrind` a callgrind file
 * without one, both of one part with the same `cmd:` and `pid:`, and every
 * event of the tree an event of `callgrind`; else 0.
 */
int runpair_match(const struct profile *ctx, const struct profile *callgrind);

/*
 * The joined profile (see above), or NULL with err when the two do not
 * count the same costs: for every function of the contexts file, its
 * self cost in every event of the tree must equal the self cost of the
 * callgrind functions matched to it (the message names the first one that
 * differs). The inputs are not changed.
 */
struct profile *runpair_join(const struct profile *ctx, const struct profile *callgrind,
                             struct tally_error *err);

#endif
