/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.h - how library functions report failure, plus allocation helpers.
 *
 * Library functions never print and never exit. A function that can fail
 * returns -1 (or NULL) and fills a caller-provided `struct tally_error`:
 * a message, and where it applies the input file name and 1-based line
 * number. The command-line layer turns that into "tally: FILE:LINE: msg".
 *
 * The one exception is running out of memory: the x*alloc helpers print a
 * short message and abort, as handling OOM in every parser path would
 * double the code for no practical benefit on the systems we target.
 */
#ifndef TALLY_ERROR_H
#define TALLY_ERROR_H

#include <stdarg.h>
#include <stddef.h>

struct tally_error {
    char msg[512];      /* what is wrong, without a trailing newline */
    char file[1024];    /* input file name, or "" when no file is involved */
    unsigned long line; /* 1-based line number, or 0 when not known */
};

/*
 * Fill `err` (which may be NULL) and return -1, so callers can write
 * `return tally_error_set(err, path, line, "bad %s", x);`.
 */
int tally_error_set(struct tally_error *err, const char *file, unsigned long line, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
int tally_error_vset(struct tally_error *err, const char *file, unsigned long line, const char *fmt,
                     va_list ap);

/* Reset to "no error". */
void tally_error_clear(struct tally_error *err);

/*
 * Write "FILE:LINE: msg", "FILE: msg" or "msg" (whichever parts are known)
 * into buf; returns buf.
 */
const char *tally_error_format(const struct tally_error *err, char *buf, size_t size);

/* Allocation that cannot fail: aborts with a message when memory runs out. */
/* The end of those: the message, then abort() (also for a memory stream that
   could not grow). */
_Noreturn void xalloc_failed(size_t n);
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
/*
 * Zeroed like xcalloc(), with every page written at once: for tables read
 * before they are written (hash slots). Fresh pages of calloc() are first
 * mapped to the shared zero page by a read and copied on the first write;
 * with a second thread running, each copy also interrupts its CPU.
 */
void *xzalloc_written(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array of `count` elements of `size` bytes to hold at least `need`. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
/*
 * Give memory freed inside the heap back to the system (glibc's
 * malloc_trim(); nothing elsewhere, nor under ASan or TSan): for code that
 * frees a large structure piece by piece to lower the peak.
 */
void xtrim(void);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable list of owned strings (used for desc lines, warnings, ...). */
struct strlist {
    char **items;
    size_t n, cap;
};
void strlist_push(struct strlist *l, const char *s);
/* Push a copy of every string of src, in order. */
void strlist_append(struct strlist *l, const struct strlist *src);
void strlist_pushf(struct strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strlist_release(struct strlist *l);

#endif
