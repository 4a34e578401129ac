/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apportion.h - splitting a whole count into whole parts in proportion to
 * weights, so that the parts add up to the count exactly (the largest
 * remainder method). The stack estimates (stacks_estimated.c) and pprof's
 * line-level locations (export/pprof_lines.h) both split this way.
 *
 * Each part gets floor(w * weight / sum), computed in 128 bits; what is
 * left (fewer than n units) goes one unit each to the parts with the
 * largest remainders, ties to the lower index. When every weight is 0 the
 * zero rule decides:
 *   APPORTION_ZERO_FIRST  all of w to part 0 (the stack estimates: part 0
 *                         is the node's own cost, nothing to go by)
 *   APPORTION_ZERO_EVEN   an even split, as if every weight were 1 (pprof)
 */
#ifndef TALLY_ANALYSIS_APPORTION_H
#define TALLY_ANALYSIS_APPORTION_H

#include <stddef.h>
#include <stdint.h>

enum apportion_zero {
    APPORTION_ZERO_FIRST,
    APPORTION_ZERO_EVEN,
};

/* Scratch space, reused across calls (zero it to start; free with
 * apportion_scratch_release()). */
struct apportion_scratch {
    size_t cap;
    size_t *idx;
    uint64_t *rem_hi, *rem_lo;
};
void apportion_scratch_release(struct apportion_scratch *s);

/*
 * Split w into out[0..n) in proportion to weights[k * stride] (k < n).
 * `out` may be `weights` itself when stride is 1 (each weight is read
 * before its part is written). n = 0 does nothing.
 */
void apportion(uint64_t w, const uint64_t *weights, size_t stride, size_t n, uint64_t *out,
               enum apportion_zero zero, struct apportion_scratch *s);

#endif
