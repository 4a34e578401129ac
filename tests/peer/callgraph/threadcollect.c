/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collection state per thread (tests/peer/parts.sh): three threads run at
 * once, long enough for Valgrind's scheduler to switch between them many
 * times. Worker A's work runs inside `measured` (the --toggle-collect
 * function), worker B never enters it, worker C turns collection on and
 * off with CALLGRIND_TOGGLE_COLLECT; the main thread takes a signal while
 * it waits. Under Callgrind each thread has its own state, so B's loop is
 * never counted, whatever the interleaving. All threads wait for each
 * other at the end, so that none ends before the last starts (thread ids
 * would be given again, and the number of --separate-threads files would
 * depend on the schedule).
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

static volatile unsigned long sink;
static pthread_barrier_t all_done;

__attribute__((noinline)) static void spin_a(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

__attribute__((noinline)) static void spin_b(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink ^= i;
}

__attribute__((noinline)) static void spin_c(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink -= i;
}

__attribute__((noinline)) void measured(void)
{
    for (int k = 0; k < 40; k++)
        spin_a(50000);
}

static void *worker_a(void *p)
{
    (void)p;
    measured();
    pthread_barrier_wait(&all_done);
    return NULL;
}

static void *worker_b(void *p)
{
    (void)p;
    for (int k = 0; k < 40; k++)
        spin_b(50000);
    pthread_barrier_wait(&all_done);
    return NULL;
}

static void *worker_c(void *p)
{
    (void)p;
    CALLGRIND_TOGGLE_COLLECT;
    for (int k = 0; k < 40; k++)
        spin_c(30000);
    CALLGRIND_TOGGLE_COLLECT;
    spin_c(10000);
    pthread_barrier_wait(&all_done);
    return NULL;
}

__attribute__((noinline)) static void on_alarm(int sig)
{
    (void)sig;
    spin_c(1000);
}

int main(void)
{
    pthread_t a, b, c;
    pthread_barrier_init(&all_done, NULL, 4);
    signal(SIGUSR1, on_alarm);
    pthread_create(&a, NULL, worker_a, NULL);
    pthread_create(&b, NULL, worker_b, NULL);
    pthread_create(&c, NULL, worker_c, NULL);
    raise(SIGUSR1);
    pthread_barrier_wait(&all_done);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(c, NULL);
    return 0;
}
