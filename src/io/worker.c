/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - a second thread bound apart from the caller (see worker.h).
 */
#include "worker.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

int worker_start(struct worker *w, void *(*fn)(void *), void *arg)
{
    memset(w, 0, sizeof(*w));
    pthread_attr_t at;
    if (pthread_attr_init(&at)) return -1;
    cpu_set_t others;
    int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < CPU_SETSIZE &&
        pthread_getaffinity_np(pthread_self(), sizeof(w->saved), &w->saved) == 0 &&
        CPU_ISSET(cpu, &w->saved)) {
        others = w->saved;
        CPU_CLR(cpu, &others);
        if (CPU_COUNT(&others) > 0 &&
            pthread_attr_setaffinity_np(&at, sizeof(others), &others) == 0) {
            cpu_set_t mine;
            CPU_ZERO(&mine);
            CPU_SET(cpu, &mine);
            w->bound = pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine) == 0;
        }
    }
    int rc = pthread_create(&w->thread, &at, fn, arg);
    pthread_attr_destroy(&at);
    if (rc) {
        if (w->bound) pthread_setaffinity_np(pthread_self(), sizeof(w->saved), &w->saved);
        w->bound = 0;
        return -1;
    }
    return 0;
}

void worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
    if (w->bound) pthread_setaffinity_np(pthread_self(), sizeof(w->saved), &w->saved);
    w->bound = 0;
}

/* worker_both()'s job for the second thread. */
struct both {
    void (*fn)(void *);
    void *arg;
};

static void *both_main(void *p)
{
    struct both *b = p;
    b->fn(b->arg);
    return NULL;
}

void worker_both(void (*here)(void *), void *a, void (*there)(void *), void *b)
{
    struct both t = {there, b};
    struct worker w;
    if (worker_start(&w, both_main, &t)) {
        there(b);
        here(a);
        return;
    }
    here(a);
    worker_join(&w);
}

/* One half of worker_sort(), sorted on the second thread. */
struct sort_half {
    void *base;
    size_t n, size;
    int (*cmp)(const void *, const void *, void *);
    void *ctx;
};

static void *sort_half(void *arg)
{
    struct sort_half *h = arg;
    qsort_r(h->base, h->n, h->size, h->cmp, h->ctx);
    return NULL;
}

void worker_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                 void *ctx, size_t min)
{
    size_t h = n / 2;
    char *a = base;
    struct worker w;
    struct sort_half second = {a + h * size, n - h, size, cmp, ctx};
    if (n < min || n < 2 || worker_start(&w, sort_half, &second)) {
        qsort_r(base, n, size, cmp, ctx);
        return;
    }
    qsort_r(base, h, size, cmp, ctx);
    worker_join(&w);
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
static void *odd_blocks(void *arg)
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
    return NULL;
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
    struct worker w;
    int rc = -1;
    if (worker_start(&w, odd_blocks, &s) == 0) {
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
        worker_join(&w);
        bytebuf_release(&mine);
        rc = 0;
    }
    bytebuf_release(&s.buf[0]);
    bytebuf_release(&s.buf[1]);
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    return rc;
}
