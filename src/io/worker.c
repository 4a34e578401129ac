/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - work run on the second CPU, bound apart from the caller (see worker.h).
 */
#include "worker.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/error.h"

int worker_two_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set) > 1;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static void *job_main(void *arg)
{
    struct worker_job *j = arg;
    j->fn(j->arg);
    return NULL;
}

int worker_job_start(struct worker_job *j, void (*fn)(void *arg), void *arg)
{
    j->fn = fn;
    j->arg = arg;
    atomic_init(&j->stop, 0);
    j->threaded = j->bound = 0;
    pthread_attr_t at;
    if (pthread_attr_init(&at)) return 0;
    cpu_set_t others;
    int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < CPU_SETSIZE &&
        pthread_getaffinity_np(pthread_self(), sizeof(j->saved), &j->saved) == 0 &&
        CPU_ISSET(cpu, &j->saved)) {
        others = j->saved;
        CPU_CLR(cpu, &others);
        if (CPU_COUNT(&others) > 0 &&
            pthread_attr_setaffinity_np(&at, sizeof(others), &others) == 0) {
            cpu_set_t mine;
            CPU_ZERO(&mine);
            CPU_SET(cpu, &mine);
            j->bound = pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine) == 0;
        }
    }
    int rc = pthread_create(&j->thread, &at, job_main, j);
    pthread_attr_destroy(&at);
    if (rc) {
        if (j->bound) pthread_setaffinity_np(pthread_self(), sizeof(j->saved), &j->saved);
        j->bound = 0;
        return 0;
    }
    j->threaded = 1;
    return 1;
}

/* The job's thread has ended, or it had none: forget it (the caller gets its CPUs back). */
static void job_end(struct worker_job *j)
{
    if (j->threaded) pthread_join(j->thread, NULL);
    if (j->bound) pthread_setaffinity_np(pthread_self(), sizeof(j->saved), &j->saved);
    j->threaded = j->bound = 0;
    j->fn = NULL;
}

void worker_job_finish(struct worker_job *j)
{
    if (!j->threaded && j->fn) j->fn(j->arg);
    job_end(j);
}

void worker_job_cancel(struct worker_job *j)
{
    atomic_store(&j->stop, 1);
    job_end(j);
}

struct worker_ahead {
    int (*make)(void *ctx, size_t k);
    void *ctx;
    size_t depth;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t made, taken, freed; /* items made, taken and given back */
    int held;                  /* the consumer holds item taken - 1 */
    int ended, stop;           /* make() said the end; worker_ahead_stop() was called */
    struct worker_job job;
};

static void ahead_main(void *arg)
{
    struct worker_ahead *a = arg;
    for (size_t k = 0;; k++) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && k >= a->freed + a->depth)
            pthread_cond_wait(&a->cv, &a->mu);
        int stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop) return;
        int more = a->make(a->ctx, k);
        pthread_mutex_lock(&a->mu);
        if (more)
            a->made = k + 1;
        else
            a->ended = 1;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (!more) return;
    }
}

struct worker_ahead *worker_ahead_start(int (*make)(void *ctx, size_t k), void *ctx, size_t depth)
{
    struct worker_ahead *a = xcalloc(1, sizeof(*a));
    a->make = make;
    a->ctx = ctx;
    a->depth = depth ? depth : 1;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    if (!worker_job_start(&a->job, ahead_main, a)) {
        worker_job_cancel(&a->job);
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->cv);
        free(a);
        return NULL;
    }
    return a;
}

int worker_ahead_next(struct worker_ahead *a, size_t *k)
{
    pthread_mutex_lock(&a->mu);
    if (a->held) {
        a->held = 0;
        a->freed++;
        pthread_cond_broadcast(&a->cv);
    }
    while (a->made == a->taken && !a->ended)
        pthread_cond_wait(&a->cv, &a->mu);
    int have = a->made > a->taken;
    if (have) {
        *k = a->taken++;
        a->held = 1;
    }
    pthread_mutex_unlock(&a->mu);
    return have;
}

void worker_ahead_stop(struct worker_ahead *a)
{
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    worker_job_finish(&a->job);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}

void worker_both(void (*here)(void *), void *a, void (*there)(void *), void *b)
{
    struct worker_job j;
    if (!worker_job_start(&j, there, b)) {
        worker_job_finish(&j); /* there(b) first, as on two threads it starts first */
        here(a);
        return;
    }
    here(a);
    worker_job_finish(&j);
}

/* One half of worker_sort(), sorted on the second thread. */
struct sort_half {
    void *base;
    size_t n, size;
    int (*cmp)(const void *, const void *, void *);
    void *ctx;
};

static void sort_half(void *arg)
{
    struct sort_half *h = arg;
    qsort_r(h->base, h->n, h->size, h->cmp, h->ctx);
}

void worker_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                 void *ctx, size_t min)
{
    size_t h = n / 2;
    char *a = base;
    struct worker_job w;
    struct sort_half second = {a + h * size, n - h, size, cmp, ctx};
    if (n < min || n < 2 || !worker_job_start(&w, sort_half, &second)) {
        if (n >= min && n >= 2) worker_job_cancel(&w);
        qsort_r(base, n, size, cmp, ctx);
        return;
    }
    qsort_r(base, h, size, cmp, ctx);
    worker_job_finish(&w);
    char *out = xmalloc(n * size), *o = out;
    size_t i = 0, j = h;
    while (i < h && j < n) {
        const char *x = cmp(a + j * size, a + i * size, ctx) < 0 ? a + j++ * size : a + i++ * size;
        memcpy(o, x, size);
        o += size;
    }
    memcpy(o, a + i * size, (h - i) * size);
    o += (h - i) * size;
    memcpy(o, a + j * size, (n - j) * size);
    memcpy(base, out, n * size);
    free(out);
}

/* What the two threads of worker_blocks() share. */
struct blocks {
    size_t nblocks;
    void (*make)(void *ctx, size_t b, struct bytebuf *buf);
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct bytebuf buf[2];
    size_t block[2]; /* the block in buf[i], or SIZE_MAX when buf[i] is free */
};

/* The second thread: the odd blocks, block b into buf[b / 2 % 2]. */
static void odd_blocks(void *arg)
{
    struct blocks *s = arg;
    for (size_t b = 1; b < s->nblocks; b += 2) {
        int slot = (int)(b / 2 % 2);
        pthread_mutex_lock(&s->mu);
        while (s->block[slot] != SIZE_MAX)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
        s->buf[slot].n = 0;
        s->make(s->ctx, b, &s->buf[slot]);
        pthread_mutex_lock(&s->mu);
        s->block[slot] = b;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
}

int worker_blocks(FILE *out, size_t nblocks, void (*make)(void *ctx, size_t b, struct bytebuf *buf),
                  void *ctx)
{
    struct blocks s;
    memset(&s, 0, sizeof(s));
    s.nblocks = nblocks;
    s.make = make;
    s.ctx = ctx;
    s.block[0] = s.block[1] = SIZE_MAX;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    struct worker_job w;
    int rc = -1;
    if (worker_job_start(&w, odd_blocks, &s)) {
        struct bytebuf mine = {0};
        for (size_t b = 0; b < nblocks; b++) {
            if (b % 2 == 0) {
                mine.n = 0;
                make(ctx, b, &mine);
                fwrite(mine.s, 1, mine.n, out);
                continue;
            }
            int slot = (int)(b / 2 % 2);
            pthread_mutex_lock(&s.mu);
            while (s.block[slot] != b)
                pthread_cond_wait(&s.cv, &s.mu);
            pthread_mutex_unlock(&s.mu);
            fwrite(s.buf[slot].s, 1, s.buf[slot].n, out);
            pthread_mutex_lock(&s.mu);
            s.block[slot] = SIZE_MAX;
            pthread_cond_broadcast(&s.cv);
            pthread_mutex_unlock(&s.mu);
        }
        worker_job_finish(&w);
        bytebuf_release(&mine);
        rc = 0;
    } else {
        worker_job_cancel(&w);
    }
    bytebuf_release(&s.buf[0]);
    bytebuf_release(&s.buf[1]);
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    return rc;
}

/* worker_background()'s job, handed to its thread. */
struct background {
    void (*fn)(void *);
    void *arg;
};

static void *background_main(void *p)
{
    struct background b = *(struct background *)p;
    free(p);
    b.fn(b.arg);
    return NULL;
}

int worker_background(void (*fn)(void *arg), void *arg)
{
    struct background *b = xmalloc(sizeof(*b));
    b->fn = fn;
    b->arg = arg;
    pthread_t t;
    pthread_attr_t at;
    if (pthread_attr_init(&at)) {
        free(b);
        return -1;
    }
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &at, background_main, b);
    pthread_attr_destroy(&at);
    if (rc) {
        free(b);
        return -1;
    }
    return 0;
}
