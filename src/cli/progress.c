/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.c - the progress line on stderr while a command reads its inputs.
 *
 * A thread of its own (worker_background()) wakes after one second and then four times a second. It
 * finds which input is being read, and how far, from the kernel's view of this process:
 * /proc/self/fd names the open files, /proc/self/fdinfo their read positions, so the readers need
 * no hook. The position is in the file as stored (the compressed bytes of a gzip or zstd file), and
 * so is the size. Nothing is printed when stderr is not a terminal, with -q, or once
 * cli_progress_stop() has run; the stop erases the line.
 *
 * Between reads, cli_progress_note() names what is done instead (merging
 * the inputs): the line changes at once, and stays until the note ends.
 *
 * For tests, TALLY_PROGRESS_AFTER_MS replaces the first second.
 */
#include "cli.h"
#include "../io/worker.h"

#include <dirent.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int running, stopped, shown;
static char **paths; /* the inputs' real paths ([npaths]; NULL when unknown) */
static int npaths;
static char note[PATH_MAX + 128];   /* cli_progress_note()'s text, "" = none */
static struct timespec shown_after; /* CLOCK_MONOTONIC time of the first line */

/* The first second (or TALLY_PROGRESS_AFTER_MS) is over. */
static int started(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > shown_after.tv_sec ||
           (now.tv_sec == shown_after.tv_sec && now.tv_nsec >= shown_after.tv_nsec);
}

/* Print the note (the lock held). */
static void show_note(void)
{
    char msg[sizeof note + 16];
    int len = snprintf(msg, sizeof msg, "\rtally: %s\033[K", note);
    if (len > 0 && write(2, msg, (size_t)len) > 0) shown = 1;
}

/* "1.2 GB", "340 MB", "12 kB" */
static void human(char *buf, size_t n, long long v)
{
    if (v >= 1000000000LL)
        snprintf(buf, n, "%.1f GB", (double)v / 1e9);
    else if (v >= 1000000LL && v < 10000000LL)
        snprintf(buf, n, "%.1f MB", (double)v / 1e6);
    else if (v >= 1000000LL)
        snprintf(buf, n, "%.0f MB", (double)v / 1e6);
    else
        snprintf(buf, n, "%.0f kB", (double)v / 1e3);
}

/* The read position and size of the input being read, or -1. */
static int current_input(long long *pos, long long *size)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int found = -1;
    struct dirent *de;
    while ((de = readdir(d)) && found < 0) {
        int fd = atoi(de->d_name);
        if (fd <= 2 || fd == dirfd(d)) continue;
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        int which = -1;
        for (int k = 0; k < npaths && which < 0; k++)
            if (paths[k] && !strcmp(paths[k], target)) which = k;
        struct stat st;
        if (which < 0 || stat(link, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        char info[64], line[128];
        snprintf(info, sizeof info, "/proc/self/fdinfo/%d", fd);
        FILE *fp = fopen(info, "r");
        if (!fp) continue;
        long long p = -1;
        while (fgets(line, sizeof line, fp))
            if (!strncmp(line, "pos:", 4)) p = atoll(line + 4);
        fclose(fp);
        if (p < 0) continue;
        *pos = p;
        *size = (long long)st.st_size;
        found = which;
    }
    closedir(d);
    return found;
}

static void progress_thread(void *arg)
{
    struct timespec first = *(struct timespec *)arg, every = {0, 250000000};
    free(arg);
    nanosleep(&first, NULL);
    for (;;) {
        pthread_mutex_lock(&lock);
        if (stopped) {
            pthread_mutex_unlock(&lock);
            return;
        }
        long long pos = 0, size = 0;
        int k = note[0] ? -1 : current_input(&pos, &size);
        if (note[0]) show_note();
        if (k >= 0 && size > 0) {
            char a[32], b[32], msg[PATH_MAX + 128];
            human(a, sizeof a, pos);
            human(b, sizeof b, size);
            const char *name = strrchr(paths[k], '/') ? strrchr(paths[k], '/') + 1 : paths[k];
            char nth[32] = "";
            if (npaths > 1) snprintf(nth, sizeof nth, " (%d of %d)", k + 1, npaths);
            int len = snprintf(msg, sizeof msg, "\rtally: reading %s%s: %3d%% (%s of %s)\033[K",
                               name, nth, (int)(pos * 100 / size), a, b);
            if (len > 0 && write(2, msg, (size_t)len) > 0) shown = 1;
        }
        pthread_mutex_unlock(&lock);
        nanosleep(&every, NULL);
    }
}

void cli_progress_start(const char *const *files, int nfiles)
{
    if (running || cli_quiet || nfiles <= 0 || !isatty(2)) return;
    paths = xcalloc((size_t)nfiles, sizeof *paths);
    npaths = nfiles;
    for (int k = 0; k < nfiles; k++)
        paths[k] = strcmp(files[k], "-") ? realpath(files[k], NULL) : NULL;
    struct timespec *first = xmalloc(sizeof *first);
    *first = (struct timespec){1, 0};
    const char *after = getenv("TALLY_PROGRESS_AFTER_MS");
    if (after && *after) {
        long ms = atol(after);
        first->tv_sec = ms / 1000;
        first->tv_nsec = (ms % 1000) * 1000000L;
    }
    clock_gettime(CLOCK_MONOTONIC, &shown_after);
    shown_after.tv_sec += first->tv_sec;
    shown_after.tv_nsec += first->tv_nsec;
    if (shown_after.tv_nsec >= 1000000000L) {
        shown_after.tv_sec++;
        shown_after.tv_nsec -= 1000000000L;
    }
    if (worker_background(progress_thread, first) == 0)
        running = 1;
    else
        free(first);
}

void cli_progress_stop(void)
{
    if (!running) return;
    pthread_mutex_lock(&lock);
    if (!stopped && shown) {
        static const char clear[] = "\r\033[K";
        if (write(2, clear, sizeof clear - 1) < 0) {
            /* nothing to do: the line stays */
        }
    }
    stopped = 1;
    for (int k = 0; k < npaths; k++)
        free(paths[k]);
    free(paths);
    paths = NULL;
    npaths = 0;
    pthread_mutex_unlock(&lock);
}

void cli_progress_note(const char *fmt, ...)
{
    if (!running) return;
    pthread_mutex_lock(&lock);
    if (!stopped) {
        note[0] = '\0';
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(note, sizeof note, fmt, ap);
            va_end(ap);
        }
        if (note[0] && started()) show_note();
    }
    pthread_mutex_unlock(&lock);
}
