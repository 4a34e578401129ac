/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A dump request in the block that brought a line in (main's store into
 * mark, then CALLGRIND_DUMP_STATS), the line evicted after the dump by
 * sweep. Callgrind counts a run of a block when the next block starts, so
 * the block's run belongs to the part after the dump, and the use of its
 * line is written there, with main; unless collection is off at the dump
 * (any argument: the program toggles it off around the dump), when the run
 * is not counted and the use is never written. */
#include <valgrind/callgrind.h>

#define BYTES (1 << 18)

static unsigned char big[BYTES];
static volatile unsigned char mark[64] __attribute__((aligned(64)));

__attribute__((noinline)) static void sweep(void)
{
    for (int i = 0; i < BYTES; i += 64)
        big[i]++;
}

int main(int argc, char **argv)
{
    (void)argv;
    sweep();
    if (argc > 1) CALLGRIND_TOGGLE_COLLECT;
    mark[0] = 1;
    CALLGRIND_DUMP_STATS;
    if (argc > 1) CALLGRIND_TOGGLE_COLLECT;
    sweep();
    return 0;
}
