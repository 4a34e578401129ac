/* tally.h: client requests for programs profiled with `tally record`.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Include this header (it needs Valgrind's <valgrind/valgrind.h>) and call
 * the macros from the profiled program. Outside Valgrind they do nothing
 * and cost a few instructions.
 *
 *   TALLY_START_COLLECTION   count from here on
 *   TALLY_STOP_COLLECTION    stop counting (what ran is kept)
 *   TALLY_START, TALLY_STOP  the same two, short (for a benchmark region:
 *                            record with --collect-atstart=no)
 *   TALLY_ZERO_COUNTERS      forget everything counted so far
 *   TALLY_DUMP_PART          write what was counted since the last part as
 *                            a new part of the output file, then start a
 *                            new part
 *
 * Callgrind's requests (<valgrind/callgrind.h>) and Cachegrind 3.22's
 * instrumentation requests (<valgrind/cachegrind.h>) work as well, as under
 * those tools (docs/tally-record.md).
 */
#ifndef TALLY_CLIENT_H
#define TALLY_CLIENT_H

#include <valgrind/valgrind.h>

enum tally_request {
    TALLY_REQ_START = VG_USERREQ_TOOL_BASE('T', 'L'),
    TALLY_REQ_STOP,
    TALLY_REQ_ZERO,
    TALLY_REQ_DUMP
};

#define TALLY_REQUEST_(code) VALGRIND_DO_CLIENT_REQUEST_STMT((code), 0, 0, 0, 0, 0)

#define TALLY_START_COLLECTION TALLY_REQUEST_(TALLY_REQ_START)
#define TALLY_STOP_COLLECTION TALLY_REQUEST_(TALLY_REQ_STOP)
#define TALLY_START TALLY_START_COLLECTION
#define TALLY_STOP TALLY_STOP_COLLECTION
#define TALLY_ZERO_COUNTERS TALLY_REQUEST_(TALLY_REQ_ZERO)
#define TALLY_DUMP_PART TALLY_REQUEST_(TALLY_REQ_DUMP)

#endif
