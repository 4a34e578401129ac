/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * glibc's malloc_trim(); not under ASan or TSan, whose allocators replace
 * glibc's (under ASan it made the tests slow; under TSan, called from two
 * threads at once, it crashed test_split about one run in five)
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define XTRIM 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define XTRIM 0
#endif
#endif
#if !defined(XTRIM) && defined(__GLIBC__)
#define XTRIM 1
#include <malloc.h>
#endif

int tally_error_vset(struct tally_error *err, const char *file, unsigned long line, const char *fmt,
                     va_list ap)
{
    if (!err) return -1;
    snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
    err->line = line;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    return -1;
}

int tally_error_set(struct tally_error *err, const char *file, unsigned long line, const char *fmt,
                    ...)
{
    va_list ap;
    va_start(ap, fmt);
    tally_error_vset(err, file, line, fmt, ap);
    va_end(ap);
    return -1;
}

void tally_error_clear(struct tally_error *err)
{
    if (err) memset(err, 0, sizeof(*err));
}

const char *tally_error_format(const struct tally_error *err, char *buf, size_t size)
{
    if (err->file[0] && err->line)
        snprintf(buf, size, "%s:%lu: %s", err->file, err->line, err->msg);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, err->msg);
    else
        snprintf(buf, size, "%s", err->msg);
    return buf;
}

void xalloc_failed(size_t n)
{
    fprintf(stderr, "tally: out of memory (allocating %zu bytes)\n", n);
    abort();
}

static void *oom(size_t n)
{
    xalloc_failed(n);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom(n);
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    return p ? p : oom(count * size);
}

void *xzalloc_written(size_t count, size_t size)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) return oom(SIZE_MAX);
    void *p = xmalloc(n);
    memset(p, 0, n);
    return p;
}

void xtrim(void)
{
#if XTRIM
    malloc_trim(0);
#endif
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    return q ? q : oom(n);
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > ((size_t)-1 / 2) / size) oom((size_t)-1);
        c *= 2;
    }
    p = xrealloc(p, c * size);
    *cap = c;
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void strlist_push(struct strlist *l, const char *s)
{
    l->items = xgrow(l->items, &l->cap, l->n + 1, sizeof(*l->items));
    l->items[l->n++] = xstrdup(s);
}

void strlist_append(struct strlist *l, const struct strlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        strlist_push(l, src->items[i]);
}

void strlist_pushf(struct strlist *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    l->items = xgrow(l->items, &l->cap, l->n + 1, sizeof(*l->items));
    l->items[l->n++] = s;
}

void strlist_release(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
}
