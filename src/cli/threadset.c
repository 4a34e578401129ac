/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threadset.c - sets of per-thread files given as one: Callgrind with
 * --separate-threads=yes writes FILE-01, FILE-02, ... (one complete
 * profile per thread) and leaves FILE itself empty. See cli.h.
 */
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int empty_regular(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

struct member {
    unsigned long num;
    char suffix[24]; /* the digits after "FILE-", as in the directory */
};

static int by_number(const void *a, const void *b)
{
    unsigned long x = ((const struct member *)a)->num, y = ((const struct member *)b)->num;
    return x < y ? -1 : x > y;
}

/*
 * The files "PATH-N" beside PATH (N: at least two digits, as Callgrind
 * writes them), sorted by N; their count, or 0.
 */
static size_t thread_files(const char *path, struct member **out)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
    size_t blen = strlen(base), n = 0, cap = 0;
    struct member *m = NULL;
    DIR *d = opendir(dir);
    free(dir);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *s = e->d_name;
        if (strncmp(s, base, blen) != 0 || s[blen] != '-') continue;
        s += blen + 1;
        size_t k = strspn(s, "0123456789");
        if (k < 2 || k > 20 || s[k]) continue;
        m = xgrow(m, &cap, n + 1, sizeof(*m));
        m[n].num = strtoul(s, NULL, 10);
        memcpy(m[n].suffix, s, k + 1);
        n++;
    }
    closedir(d);
    if (n) qsort(m, n, sizeof(*m), by_number);
    *out = m;
    return n;
}

const char **cli_thread_sets(const char **files, int *nfiles)
{
    size_t cap = 0, n = 0, bytes = 0;
    struct entry {
        const char *name;   /* as given */
        const char *suffix; /* a set member: FILE-SUFFIX; NULL: the name as given */
    } *v = NULL;
    int given_n = *nfiles;
    struct member **sets = xcalloc((size_t)given_n + 1, sizeof(*sets));
    int changed = 0;
    for (int i = 0; i < *nfiles; i++) {
        size_t k = empty_regular(files[i]) ? thread_files(files[i], &sets[i]) : 0;
        if (!k) {
            v = xgrow(v, &cap, n + 1, sizeof(*v));
            v[n++] = (struct entry){files[i], NULL};
            continue;
        }
        changed = 1;
        /* members given too (a shell glob FILE*): the empty FILE just goes */
        size_t len = strlen(files[i]);
        int given = 0;
        for (int j = 0; j < *nfiles && !given; j++)
            given = strncmp(files[j], files[i], len) == 0 && files[j][len] == '-' &&
                    files[j][len + 1] >= '0' && files[j][len + 1] <= '9';
        for (size_t m = 0; m < k && !given; m++) {
            v = xgrow(v, &cap, n + 1, sizeof(*v));
            v[n++] = (struct entry){files[i], sets[i][m].suffix};
            bytes += len + strlen(sets[i][m].suffix) + 2;
        }
    }
    const char **out = files;
    if (changed) {
        /* one block: the pointers, then the names made here (free() frees all) */
        out = xmalloc((n + 1) * sizeof(*out) + bytes + 1);
        char *text = (char *)(out + n + 1);
        for (size_t i = 0; i < n; i++) {
            if (!v[i].suffix) {
                out[i] = v[i].name;
                continue;
            }
            size_t a = strlen(v[i].name), b = strlen(v[i].suffix);
            memcpy(text, v[i].name, a);
            text[a] = '-';
            memcpy(text + a + 1, v[i].suffix, b + 1);
            out[i] = text;
            text += a + b + 2;
        }
        out[n] = NULL;
        free(files);
        *nfiles = (int)n;
    }
    for (int i = 0; i < given_n; i++)
        free(sets[i]);
    free(sets);
    free(v);
    return out;
}
