/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gprof_map.c - the `nm -A` map of gprof --file-ordering (gprof_map.h). */
#include "gprof_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_map_func(const void *a, const void *b)
{
    const struct gprof_map_entry *x = a, *y = b;
    return strcmp(x->func, y->func);
}

void gprof_map_free(struct gprof_map_entry *map, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(map[i].file);
        free(map[i].func);
    }
    free(map);
}

struct gprof_map_entry *gprof_map_read(const char *path, size_t *n, struct tally_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        tally_error_set(err, path, 0, "%s", strerror(errno));
        return NULL;
    }
    struct gprof_map_entry *v = NULL;
    size_t cnt = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    while ((len = getline(&line, &lcap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || !strncmp(line, "No symbols in ", 14)) continue;
        char *colon = strchr(line, ':');
        char *sp = strrchr(line, ' ');
        if (!colon || !sp || !sp[1]) {
            tally_error_set(err, path, lineno, "not a line of `nm -A` output");
            gprof_map_free(v, cnt);
            free(line);
            fclose(fp);
            return NULL;
        }
        v = xgrow(v, &cap, cnt + 1, sizeof(*v));
        v[cnt].file = xstrndup(line, (size_t)(colon - line));
        v[cnt].func = xstrdup(sp + 1);
        cnt++;
    }
    free(line);
    fclose(fp);
    if (cnt) qsort(v, cnt, sizeof(*v), cmp_map_func);
    *n = cnt;
    return v ? v : xcalloc(1, sizeof(*v));
}

const struct gprof_map_entry *gprof_map_find(const struct gprof_map_entry *map, size_t n,
                                             const char *func)
{
    struct gprof_map_entry key = {NULL, (char *)func};
    return n ? bsearch(&key, map, n, sizeof(*map), cmp_map_func) : NULL;
}
