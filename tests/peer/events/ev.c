/* Locked instructions and system calls in known numbers, for the peer
 * test of --collect-bus and --collect-systime (tests/peer/events.sh). */
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long counter;

/* 100 locked adds */
__attribute__((noinline)) static void atomics(long n)
{
    for (long i = 0; i < n; i++)
        __atomic_fetch_add(&counter, i, __ATOMIC_SEQ_CST);
}

/* 30 compare-and-swaps and 30 exchanges (xchg with memory is locked) */
__attribute__((noinline)) static void swaps(long n)
{
    for (long i = 0; i < n; i++) {
        long old = counter;
        __atomic_compare_exchange_n(&counter, &old, old + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        __atomic_exchange_n(&counter, i, __ATOMIC_SEQ_CST);
    }
}

/* 7 system calls made through libc's syscall() */
__attribute__((noinline)) static void calls(int n)
{
    for (int i = 0; i < n; i++)
        syscall(SYS_getppid);
}

/* 2 sleeps of 20 ms: each system call takes at least that long */
__attribute__((noinline)) static void sleeps(void)
{
    struct timespec t = {0, 20000000};
    nanosleep(&t, 0);
    nanosleep(&t, 0);
}

int main(void)
{
    atomics(100);
    swaps(30);
    calls(7);
    sleeps();
    return (int)(counter & 1);
}
