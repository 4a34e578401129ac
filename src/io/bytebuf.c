/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bytebuf.c - the growable byte buffer (bytebuf.h). */
#include "bytebuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

void bytebuf_add(struct bytebuf *b, const void *data, size_t n)
{
    b->s = xgrow(b->s, &b->cap, b->n + n + 1, 1);
    if (n) memcpy(b->s + b->n, data, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void bytebuf_addc(struct bytebuf *b, char c)
{
    bytebuf_add(b, &c, 1);
}

void bytebuf_printf(struct bytebuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if ((size_t)len < sizeof(tmp)) {
        bytebuf_add(b, tmp, (size_t)len);
        return;
    }
    /* room for the whole text, then print it in place */
    b->s = xgrow(b->s, &b->cap, b->n + (size_t)len + 1, 1);
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)len;
}

void bytebuf_release(struct bytebuf *b)
{
    free(b->s);
    memset(b, 0, sizeof(*b));
}
