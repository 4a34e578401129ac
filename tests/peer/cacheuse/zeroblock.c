/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Use held back across a zeroing. touch() brings a line in and a dump
 * follows; sweep() evicts the line, so its use is charged to touch(),
 * whose block has not run in that part: the second dump holds that use
 * back (Callgrind writes a block's costs only in a part it ran in). Then
 * CALLGRIND_ZERO_STATS: Callgrind zeroes only the blocks that ran since
 * the last dump, so the held use survives, and touch()'s next run writes
 * it in the last part. */
#include <valgrind/callgrind.h>

#define BYTES (1 << 18)

static unsigned char big[BYTES];
static volatile unsigned char mark[64] __attribute__((aligned(64)));

__attribute__((noinline)) static void sweep(void)
{
    for (int i = 0; i < BYTES; i += 64)
        big[i]++;
}

__attribute__((noinline)) static void touch(void)
{
    mark[0]++;
}

int main(void)
{
    sweep();
    touch();
    CALLGRIND_DUMP_STATS;
    sweep();
    CALLGRIND_DUMP_STATS;
    CALLGRIND_ZERO_STATS;
    touch();
    return 0;
}
