#include <valgrind/callgrind.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        sink += i * 3;
}
__attribute__((noinline)) static void phase_a(void)
{
    work(1000);
}
__attribute__((noinline)) static void phase_b(void)
{
    work(2000);
}
int main(void)
{
    work(100);
    CALLGRIND_DUMP_STATS;
    phase_a();
    CALLGRIND_DUMP_STATS_AT("after a");
    work(300);
    CALLGRIND_ZERO_STATS;
    phase_b();
    CALLGRIND_TOGGLE_COLLECT;
    work(5000);
    CALLGRIND_TOGGLE_COLLECT;
    phase_a();
    CALLGRIND_DUMP_STATS_AT("toggled");
    CALLGRIND_STOP_INSTRUMENTATION;
    work(7000);
    CALLGRIND_START_INSTRUMENTATION;
    phase_b();
    CALLGRIND_DUMP_STATS_AT("instrumented again");
    work(50);
    return 0;
}
