/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Three threads, each running a recursive shape: two run worker_a
 * (mutual recursion ping -> pong -> ping, each with its own seed), one
 * runs worker_b (self-recursion in descend, which now and then calls
 * ping); shared is a leaf of both. Each thread counts its own work
 * (truth.h keeps the counters thread-local), copies its counters out
 * when done, and main adds them up after joining. The total is all the
 * threads' work, i.e. the work of worker_a and worker_b together: main
 * does none.
 */
#include <pthread.h>

#include "truth.h"

enum { F_WORKER_A = 1, F_WORKER_B, F_PING, F_PONG, F_DESCEND, F_SHARED, NFN };
static const char *const names[NFN] = {"work", "worker_a", "worker_b", "ping",
                                       "pong", "descend",  "shared"};
#define NTHREADS 3
static struct truth done[NTHREADS]; /* each thread's counters, once it ends */

NOINLINE static void pong(unsigned d);

NOINLINE static void shared(void)
{
    ENTER(F_SHARED);
    work(UNITS(2000, 3000));
    LEAVE(F_SHARED);
}

NOINLINE static void ping(unsigned d)
{
    ENTER(F_PING);
    work(UNITS(2000, 4000));
    if (d && RND() % 8) pong(d - 1);
    if (RND() % 3 == 0) shared();
    LEAVE(F_PING);
}

NOINLINE static void pong(unsigned d)
{
    ENTER(F_PONG);
    if (RND() % 4 == 0) shared();
    work(UNITS(2000, 2000));
    if (d && RND() % 4) ping(d - 1);
    if (d && RND() % 4 == 0) ping(d - 1);
    LEAVE(F_PONG);
}

NOINLINE static void descend(unsigned d)
{
    ENTER(F_DESCEND);
    work(UNITS(2000, 3000));
    if (RND() % 6 == 0) ping(4);
    if (d && RND() % 4) descend(d - 1);
    if (d && RND() % 8 == 0) descend(d - 1);
    if (RND() % 4 == 0) shared();
    LEAVE(F_DESCEND);
}

NOINLINE static void *worker_a(void *arg)
{
    long k = (long)arg;
    T.rng = 1013904223u + 7919u * (unsigned)k;
    ENTER(F_WORKER_A);
    for (int i = 0; i < 40; i++) {
        if (RND() % 4)
            ping(20);
        else
            pong(20);
    }
    LEAVE(F_WORKER_A);
    done[k] = T;
    return NULL;
}

NOINLINE static void *worker_b(void *arg)
{
    long k = (long)arg;
    T.rng = 2654435769u;
    ENTER(F_WORKER_B);
    for (int i = 0; i < 40; i++) {
        descend(20);
        if (RND() % 4 == 0) shared();
    }
    LEAVE(F_WORKER_B);
    done[k] = T;
    return NULL;
}

int main(void)
{
    static const int refs[] = {F_WORKER_A, F_WORKER_B};
    static struct truth sum;
    pthread_t t[NTHREADS];
    for (long k = 0; k < NTHREADS; k++)
        if (pthread_create(&t[k], NULL, k == NTHREADS - 1 ? worker_b : worker_a, (void *)k))
            return 1;
    for (int k = 0; k < NTHREADS; k++) {
        if (pthread_join(t[k], NULL)) return 1;
        truth_add(&sum, &done[k]);
    }
    return truth_report(&sum, names, NFN, refs, 2);
}
