/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sumbound.h - the readers' rule on the sums of a file's counts, checked
 * cheaply. Shared by the callgrind and cachegrind readers.
 *
 * The rule: counts are unsigned 64-bit, and so is every sum of them. The
 * self costs of one event, summed over the whole file, stay at or under
 * 2^64-1, so that every command can add them up in 64 bits; the line that
 * would take a sum past it is refused, naming the event.
 *
 * Adding every count of every line to a sum, with an overflow check, is
 * a good part of a reader's work on a file with many events. A bound
 * makes it nearly free: if a file's lines so far are L and M is at least
 * every count read so far, no sum of counts can exceed L * M. So a reader
 * keeps the OR of the counts it reads (at least each of them; short counts
 * are covered from the start, see SUMBOUND_OR_8DIGITS) and the
 * number of its lines (the line number will do), and as long as
 * sumbound_holds(L, M) it knows that no sum has passed 2^64-1 without
 * keeping the sums. Both only grow, so once the bound fails it fails for
 * the rest of the file: from that line on the reader keeps the sums
 * exactly, starting from their values at that point, and refuses the line
 * that passes 2^64-1 as it would have without the bound. Real profiles
 * stay far inside it (2^64 is 2^30 lines of counts up to 2^34).
 *
 * The bound of two stretches of a file is the sum of their bounds, which
 * a reader that parses parts in parallel can use: the stretches' (lines,
 * OR) pairs combine, and a file whose bound fails is checked exactly.
 */
#ifndef TALLY_FORMATS_SUMBOUND_H
#define TALLY_FORMATS_SUMBOUND_H

#include <stdint.h>

/*
 * An OR to start from that covers every count of at most 8 decimal digits
 * (below 10^8 < 2^27): a reader then ORs only the longer counts, which it
 * sees when it checks their length. The bound then holds up to 2^37 lines.
 */
#define SUMBOUND_OR_8DIGITS (((uint64_t)1 << 27) - 1)

/*
 * Can no sum of counts have passed 2^64-1 after `lines` lines whose every
 * count is at most `or_all`? Two instructions on x86-64 (a multiplication
 * and a jump on its overflow).
 */
static inline int sumbound_holds(uint64_t lines, uint64_t or_all)
{
    uint64_t product;
    return !__builtin_mul_overflow(lines, or_all, &product);
}

/* The message of a refused line (one %s: the event's name). */
#define SUMBOUND_PAST "the costs of event %s sum past 2^64-1 (the largest count)"

#endif
