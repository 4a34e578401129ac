/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.h - a second thread that runs beside the caller on the other CPU.
 *
 * The readers use one more thread to read ahead (input.c, format.c) or to
 * parse half a file (callgrind_split.c). Left to itself, the scheduler
 * often keeps a new thread on the CPU of the thread that made it for tens
 * of milliseconds, and the two then take turns on one CPU while the other
 * idles: measured on a 2-CPU machine, two threads that each compute for
 * 8 ms took 12-17 ms each about half the time (two processes never did).
 * So worker_start() binds the caller to the CPU it is on and the worker
 * to the other CPUs the process may use, and worker_join() gives the
 * caller its CPUs back. With one CPU allowed (or when the CPUs cannot be
 * read) nothing is bound.
 *
 * This is the one place that starts threads. Readers and views describe
 * the work, and the helpers below run it on two CPUs: two jobs at once
 * (worker_both()), a sort (worker_sort()) and text made in blocks
 * (worker_blocks()).
 */
#ifndef TALLY_IO_WORKER_H
#define TALLY_IO_WORKER_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>

#include "bytebuf.h"

struct worker {
    pthread_t thread;
    cpu_set_t saved; /* the caller's CPUs before worker_start() */
    int bound;       /* the caller was bound: worker_join() restores `saved` */
};

/* Start fn(arg) on a new thread. Returns 0, or -1 when no thread could be made. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg);
/* Wait for the thread to end; the caller gets its CPUs back. */
void worker_join(struct worker *w);

/*
 * there(b) on a second thread while here(a) runs on the caller's, then
 * wait for both. When no thread can be made, there(b) then here(a) run
 * on the caller's thread.
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

#endif
