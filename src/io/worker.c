/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - a second thread bound apart from the caller (see worker.h).
 */
#include "worker.h"

#include <string.h>

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
