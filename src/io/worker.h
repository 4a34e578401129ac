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
 */
#ifndef TALLY_IO_WORKER_H
#define TALLY_IO_WORKER_H

#include <pthread.h>
#include <sched.h>

struct worker {
    pthread_t thread;
    cpu_set_t saved; /* the caller's CPUs before worker_start() */
    int bound;       /* the caller was bound: worker_join() restores `saved` */
};

/* Start fn(arg) on a new thread. Returns 0, or -1 when no thread could be made. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg);
/* Wait for the thread to end; the caller gets its CPUs back. */
void worker_join(struct worker *w);

#endif
