/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_order.h - the order in which callgrind_write() (format.h)
 * lists a part's records, without writing anything: functions in the
 * order their first record was read (cost records, then calls, then
 * jumps), the others by (object, file, name) after them; records inside a
 * function by position, ties broken by names (docs/internals/callgrind.md).
 * A reader of the written file holds the records in this order, so a
 * profile made in memory in this order is the one a reader would get back
 * (gprof_to_profile(), analysis/gprof_load.c). Kept apart from format.h,
 * which analysis/ may not include: asking for the order reads and writes
 * no file.
 */
#ifndef TALLY_FORMATS_CALLGRIND_ORDER_H
#define TALLY_FORMATS_CALLGRIND_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"

struct callgrind_rec {
    uint32_t kind; /* 0 a cost record, 1 a call, 2 a jump */
    size_t idx;    /* its index in the part */
};

/* *out (allocated) gets one entry per record of pt, in order; returns their number. */
size_t callgrind_record_order(const struct profile *p, const struct part *pt,
                              struct callgrind_rec **out);

#endif
