/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcfile.c - the search rules for source files and the reader (see
 * srcfile.h and docs/internals/annotate.md).
 */
#include "srcfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The k-th path of a rule, or NULL past the last one; *dir as in
 * struct srcfile_found. */
static char *candidate(const char *name, const struct strlist *dirs, enum srcfile_rule rule,
                       size_t k, size_t *dir)
{
    size_t nd = dirs ? dirs->n : 0;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : NULL;
    *dir = 0;
    if (k == 0) return xstrdup(name);
    k--;
    switch (rule) {
    case SRCFILE_PREFIX:
        if (k >= nd) return NULL;
        *dir = k + 1;
        return xasprintf("%s%s", dirs->items[k], name);
    case SRCFILE_BASE: {
        /* per directory: DIR/NAME, then DIR/BASENAME when there is one */
        size_t per = base ? 2 : 1;
        if (k >= nd * per) return NULL;
        *dir = k / per + 1;
        return xasprintf("%s/%s", dirs->items[k / per], k % per ? base : name);
    }
    case SRCFILE_GPROF: {
        size_t nrel = name[0] != '/' ? nd : 0;
        if (k < nrel) {
            *dir = k + 1;
            return xasprintf("%s/%s", dirs->items[k], name);
        }
        k -= nrel;
        if (!base || k >= nd) return NULL;
        *dir = k + 1;
        return xasprintf("%s/%s", dirs->items[k], base);
    }
    }
    return NULL;
}

int srcfile_find(const char *name, const struct strlist *dirs, enum srcfile_rule rule,
                 srcfile_accept_fn accept, void *ctx, struct srcfile_found *found)
{
    found->path = NULL;
    found->dir = 0;
    size_t dir;
    char *path;
    for (size_t k = 0; (path = candidate(name, dirs, rule, k, &dir)) != NULL; k++) {
        if (accept(path, ctx)) {
            found->path = path;
            found->dir = dir;
            return 1;
        }
        free(path);
    }
    return 0;
}

int srcfile_opens(const char *path, void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

int srcfile_access(const char *path, void *ctx)
{
    return access(path, R_OK) == 0;
}

void srcfile_dirs_add(struct strlist *dirs, const char *list)
{
    if (!list) return;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) {
            char *d = xstrndup(p, len);
            strlist_push(dirs, d);
            free(d);
        }
        if (!e) break;
        p = e + 1;
    }
}

/* The whole stream, NUL-terminated; NULL on a read error. */
static char *read_all(FILE *fp, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (n == cap) buf = xrealloc(buf, (cap *= 2) + 1);
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int srcfile_text_read(struct srcfile_text *t, const char *path, size_t max_bytes)
{
    memset(t, 0, sizeof(*t));
    if (max_bytes != SIZE_MAX) {
        struct stat st;
        if (stat(path, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max_bytes) return -1;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    size_t len = 0;
    char *text = read_all(fp, &len);
    fclose(fp);
    if (!text) return -1;
    size_t nl = 0;
    for (size_t i = 0; i < len; i++)
        nl += text[i] == '\n';
    if (len && text[len - 1] != '\n') nl++;
    t->text = text;
    t->len = len;
    t->nlines = nl;
    t->line_off = xmalloc((nl + 1) * sizeof(size_t));
    size_t k = 0;
    t->line_off[k++] = 0;
    for (size_t i = 0; i < len && k <= nl; i++)
        if (text[i] == '\n') t->line_off[k++] = i + 1;
    t->line_off[nl] = len;
    return 0;
}

void srcfile_text_release(struct srcfile_text *t)
{
    free(t->text);
    free(t->line_off);
    memset(t, 0, sizeof(*t));
}
