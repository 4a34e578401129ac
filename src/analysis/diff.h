/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - the difference of two profiles (what `tally diff` computes).
 *
 * diff_profiles() returns a new profile holding NEW minus OLD as signed
 * costs (profile->signed_costs = 1, int64 values in the uint64 words, see
 * profile.h). Only self costs take part: calls and jumps are ignored, as
 * is the object of a function (the cachegrind format has none).
 *
 * Cost centres are matched by name after the optional renames:
 *   - DIFF_BY_FUNCTION (the default, as cg_diff): one record per (file,
 *     function), at line 0;
 *   - DIFF_BY_LINE: one record per (file, function, source file, line),
 *     where the source file is the function's file except for inlined
 *     code (callgrind `fi=`/`fe=`).
 * A centre present in only one input still appears (with its cost or its
 * negated cost); a centre present in both with equal costs appears with
 * zeros. Functions and records come sorted by file name, function name,
 * source file name and line (as the 3.21+ cg_diff sorts its output), so
 * the result does not depend on the order of the inputs.
 *
 * Events are matched by name: both inputs must have the same set of base
 * events, in any order; the result uses OLD's order (and OLD's derived
 * event definitions). The result has one part whose `summary` is the sum
 * of its costs (so NEW's computed total minus OLD's), desc
 * "Files compared:   OLD; NEW" and cmd "CMD1; CMD2".
 *
 * Each input must have at most one part (read with merge_parts = 1); a
 * profile without parts counts as empty only if the other one gives the
 * events. Inputs may be unsigned (ordinary profiles) or signed (earlier
 * diffs). Fails (NULL + err) on an event mismatch, on a value or a sum
 * that does not fit int64, or when a rename fails.
 */
#ifndef TALLY_DIFF_H
#define TALLY_DIFF_H

#include "../model/profile.h"
#include "rename.h"

enum diff_by {
    DIFF_BY_FUNCTION = 0,
    DIFF_BY_LINE,
};

struct diff_options {
    enum diff_by by;
    const struct rename *mod_filename; /* applied to every file name, or NULL */
    const struct rename *mod_funcname; /* applied to every function name, or NULL */
    /* names for the desc line; default to the profiles' paths */
    const char *label_old, *label_new;
};

/* NEW minus OLD in one call. Returns a new profile, or NULL with err. */
struct profile *diff_profiles(const struct profile *old, const struct profile *new_,
                              const struct diff_options *opt, struct tally_error *err);

/*
 * The same in steps, so that a caller can free each input as soon as it
 * has been added (peak memory: one input plus the result):
 *
 *   struct diff *d = diff_new(&opt);
 *   diff_add(d, old, DIFF_OLD, &err);   then profile_free(old)
 *   diff_add(d, new, DIFF_NEW, &err);   then profile_free(new)
 *   struct profile *result = diff_finish(d, &err);
 *   diff_free(d);
 *
 * The first profile added (with a part) gives the event order, so add OLD
 * first for the documented order. diff_add() does not keep `p`; it copies
 * what it needs. It fails (-1 with err) when p has several parts, when
 * its events do not match, when a value does not fit, or when a side is
 * added twice; the diff should then be freed. diff_finish() returns the
 * result (owned by the caller) or NULL with err; call it once.
 */
enum diff_which { DIFF_OLD = 0, DIFF_NEW = 1 };
struct diff;
struct diff *diff_new(const struct diff_options *opt);
int diff_add(struct diff *d, const struct profile *p, enum diff_which which,
             struct tally_error *err);
struct profile *diff_finish(struct diff *d, struct tally_error *err);
void diff_free(struct diff *d);

#endif
