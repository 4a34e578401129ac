/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.h - work run on the second CPU: the one place that starts threads.
 *
 * Readers and views do not start threads; they describe the work (a
 * function and its state) and hand it to one of the forms below, which
 * runs it beside the caller:
 *   - a job (worker_job_start()): one function on the second CPU, waited
 *     for later, or asked to stop early;
 *   - a producer that runs ahead of its consumer (worker_ahead_start()):
 *     items made in order into a ring of slots the caller owns;
 *   - worker_both(): two functions at once; worker_sort(): a sort on two
 *     CPUs; worker_blocks(): text made in blocks on two CPUs, written in
 *     order;
 *   - worker_background(): a thread of its own that nobody waits for
 *     (the CLI's progress line).
 *
 * Every form but the last binds the caller to the CPU it is on and the
 * thread to the other CPUs the process may use, until the work is done;
 * the scheduler, left alone, may keep a new thread on its maker's CPU
 * for a while, and the two then take turns on one CPU while the other
 * idles. With one CPU allowed (or when the CPUs cannot be read) nothing is
 * bound. When no thread can be made, each form says what happens instead
 * (the work runs on the caller's thread, or the caller is told).
 */
#ifndef TALLY_IO_WORKER_H
#define TALLY_IO_WORKER_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "bytebuf.h"

/* Can the process run on two CPUs or more? (Otherwise a second thread only takes turns.) */
int worker_two_cpus(void);

/*
 * A job: fn(arg) on the second CPU while the caller goes on. The fields
 * are worker.c's, but for `stop`, which a long job may poll
 * (worker_job_stopping()) to end early.
 */
struct worker_job {
    void (*fn)(void *arg);
    void *arg;
    _Atomic int stop; /* worker_job_cancel() was called */
    int threaded;     /* fn runs on a thread of its own */
    pthread_t thread;
    cpu_set_t saved; /* the caller's CPUs before the start */
    int bound;       /* the caller was bound: restore `saved` at the end */
};

/*
 * Start fn(arg) on the second CPU. Returns 1 when it runs there, 0 when no
 * thread could be made: worker_job_finish() then runs it on the caller's
 * thread, worker_job_cancel() drops it.
 */
int worker_job_start(struct worker_job *j, void (*fn)(void *arg), void *arg);
/* Wait for the job to end (running it now if it had no thread of its own). */
void worker_job_finish(struct worker_job *j);
/* Ask the job to stop (worker_job_stopping() turns true) and wait for it to end. */
void worker_job_cancel(struct worker_job *j);
/* Has the job been asked to stop? For fn to poll now and then. */
static inline int worker_job_stopping(const struct worker_job *j)
{
    return atomic_load_explicit(&j->stop, memory_order_relaxed);
}

/*
 * A producer ahead of its consumer. make(ctx, k) makes item k (k = 0, 1,
 * ...) into the caller's slot k % depth and returns 1, or returns 0 when
 * there is no item k (the end: it is not called again). It runs on the
 * second CPU, and makes item k only once the consumer has given back item
 * k - depth, so a ring of `depth` slots is enough.
 *
 * worker_ahead_next() gives back the item taken before (if any) and waits
 * for the next: 1 and its number in *k, or 0 at the end (what make() wrote
 * before it returned 0 is then visible to the caller).
 * worker_ahead_stop() stops the producer (it ends after the item it is
 * making), waits for it and frees the ahead; the items made and not taken
 * stay in their slots, for the caller to free.
 *
 * worker_ahead_start() returns NULL when no thread could be made: the
 * caller then makes the items itself.
 */
struct worker_ahead;
struct worker_ahead *worker_ahead_start(int (*make)(void *ctx, size_t k), void *ctx, size_t depth);
int worker_ahead_next(struct worker_ahead *a, size_t *k);
void worker_ahead_stop(struct worker_ahead *a);

/*
 * there(b) on the second CPU while here(a) runs on the caller's, then wait
 * for both. When no thread can be made, there(b) then here(a) run on the
 * caller's thread.
 */
void worker_both(void (*here)(void *), void *a, void (*there)(void *), void *b);

/*
 * qsort_r(base, n, size, cmp, ctx), on two CPUs when n is at least `min`
 * and a thread can be made: each half sorted on one, then merged (taking
 * the first half's element on a tie). With cmp a total order (no two
 * elements equal) the result is qsort_r's.
 */
void worker_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                 void *ctx, size_t min);

/*
 * Text made in blocks, written to out in block order: make(ctx, b, buf)
 * puts block b (0 <= b < nblocks) into buf (emptied first). The caller's
 * thread makes the even blocks and writes every block; a second thread
 * makes the odd ones, at most two ahead. make() must be safe to run on two
 * threads at once. Returns 0, or -1 with nothing written when no thread
 * could be made.
 */
int worker_blocks(FILE *out, size_t nblocks, void (*make)(void *ctx, size_t b, struct bytebuf *buf),
                  void *ctx);

/*
 * fn(arg) on a thread of its own, not bound to a CPU and never waited for:
 * for work that mostly sleeps and lasts as long as the process (the
 * progress line). Returns 0, or -1 when no thread could be made.
 */
int worker_background(void (*fn)(void *arg), void *arg);

#endif
