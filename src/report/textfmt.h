/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textfmt.h - number, percentage and column formatting for the text
 * reports (annotate), laid out the way callgrind_annotate and cg_annotate
 * 3.19 lay them out so that their output can be compared column by column.
 *
 * A "cell" is one event column of a cost row: the count with thousands
 * separators, then (when percentages are on) " (12.34%)" of a total, all
 * right-aligned to the column width and followed by one space. A count
 * that was never recorded prints ".", and a zero or "." count gets nine
 * spaces instead of a percentage.
 *
 * Column widths follow the originals' rule: the width of the event name,
 * or for each defined count len + (len - 1) / 3 (+ 9 with percentages),
 * where len is the number of characters of the plain number including a
 * minus sign. All functions are pure; buffers are caller-provided.
 */
#ifndef TALLY_TEXTFMT_H
#define TALLY_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/error.h"
#include "../model/eventset.h"

/* Enough for any tally_wide with separators and a percentage. */
#define TEXTFMT_CELL_MAX 64

/* Write v with a comma every three digits ("-1,234,567"); returns buf (>= 56 bytes). */
char *textfmt_commify(tally_wide v, char *buf);

/* Characters of v printed plainly ("-1234" is 5). */
size_t textfmt_plain_len(tally_wide v);

/* Width a defined count needs in a column (see the rule above). */
size_t textfmt_count_width(tally_wide v, int show_percs);

/*
 * v as a percentage of total, as the originals compute it in Perl: the
 * product v * 100 first, in floating point only when it does not fit 64
 * bits; an exact quotient of integers past 2^53 exactly, others as the
 * quotient of two doubles (so the threshold stops where theirs does);
 * 0 when total is 0.
 */
double textfmt_percent(tally_wide v, tally_wide total);

/*
 * The percentage text " (12.34%)": two decimals when -9.995 < pct < 99.995,
 * else one ("(100.0%)", "(-12.5%)"). Returns buf.
 */
char *textfmt_percent_text(double pct, char *buf, size_t size);

/*
 * How many of the largest keys (counted down from the largest) it takes
 * for their sum to reach thr percent of total (textfmt_percent(), as a
 * table that stops at a threshold adds its rows up; a key of 0 or less
 * adds nothing: an undefined count is -1); n when they never do, 0 when
 * no key is needed. *last is set to the smallest of them when some keys
 * reach it (left alone otherwise). Linear in n (a selection by three-way
 * partitions), not a sort; reorders keys.
 */
size_t textfmt_keys_to_reach(tally_wide *keys, size_t n, tally_wide total, double thr,
                             tally_wide *last);

/*
 * One cell, right-aligned to `width`, followed by one space, into buf
 * (TEXTFMT_CELL_MAX + width bytes are enough). `defined` = 0 prints ".".
 * Returns the number of characters written.
 */
size_t textfmt_cell(char *buf, size_t size, tally_wide v, int defined, tally_wide total,
                    int show_percs, size_t width);

/* Write `n` copies of character c. */
void textfmt_repeat(FILE *fp, int c, size_t n);

/*
 * The end of a report written to fp: flush it; 0, or -1 with err "error
 * writing the WHAT" when that or any earlier write failed.
 */
int textfmt_finish(FILE *fp, const char *what, struct tally_error *err);

#endif
