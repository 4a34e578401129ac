/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the cachegrind reader and writer: read the input;
 * when it is accepted, write it to memory, read that back, and check that
 * nothing was lost (same totals, same number of records, and writing the
 * re-read profile gives the same text). The reader's options must not
 * change what it accepts: unindexed (check_unindexed) and fl_unspecified
 * (check_unspecified: cg_annotate 3.21+'s <unspecified> functions). What
 * the reader accepts with fl_unspecified, `annotate --layout=3.21`'s report
 * prints without an error (check_cg321; no source is annotated).
 */
#include "formats/format.h"
#include "report/annotate_cg321.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct profile *read_opt(const uint8_t *data, size_t size, const struct read_options *o,
                                struct tally_error *errp)
{
    struct tally_error err;
    struct input in;
    if (input_open_mem(&in, "fuzz", data, size, &err)) {
        if (errp) *errp = err;
        return NULL;
    }
    struct profile *p = profile_new();
    p->path = xstrdup("fuzz");
    int rc = cachegrind_read(&in, p, o, &err);
    if (errp) *errp = err;
    input_close(&in);
    if (rc) {
        /* a failure always says where, and what */
        if (!err.msg[0] || strcmp(err.file, "fuzz") != 0) abort();
        profile_free(p);
        return NULL;
    }
    return p;
}

static struct profile *read_mem(const uint8_t *data, size_t size)
{
    return read_opt(data, size, NULL, NULL);
}

/* Write p, or NULL when it cannot be written (a total past 64 bits). */
static char *write_mem(const struct profile *p, size_t *len);

/*
 * The input read by the default reader (*a) and with the options o (*u):
 * 0 when both read it; -1 when both refused it, at the same line with the
 * same message; a difference aborts.
 */
static int read_both(const uint8_t *data, size_t size, const struct read_options *o,
                     struct profile **a, struct profile **u)
{
    struct tally_error e1, e2;
    *a = read_opt(data, size, NULL, &e1);
    *u = read_opt(data, size, o, &e2);
    if (!*a != !*u) abort();
    if (*a) return 0;
    if (e1.line != e2.line || strcmp(e1.msg, e2.msg) != 0) abort();
    return -1;
}

/*
 * read_options.cachegrind.unindexed (merge inputs after the first) must fail where
 * the indexed reader fails, with the same message, warn the same, and add
 * into a sum exactly as the indexed profile does.
 */
static void check_unindexed(const uint8_t *data, size_t size)
{
    static const struct read_options un = {.cachegrind.unindexed = 1};
    struct profile *a, *u;
    if (read_both(data, size, &un, &a, &u)) return;
    if (a->warnings.n != u->warnings.n) abort();
    for (size_t i = 0; i < a->warnings.n; i++)
        if (strcmp(a->warnings.items[i], u->warnings.items[i]) != 0) abort();
    struct profile *s1 = read_mem(data, size), *s2 = read_mem(data, size);
    struct tally_error e;
    int r1 = part_accumulate(s1, s1->parts[0], a, a->parts[0], &e);
    int r2 = part_accumulate(s2, s2->parts[0], u, u->parts[0], &e);
    if (r1 != r2) abort();
    if (r1 == 0) {
        size_t l1 = 0, l2 = 0;
        char *t1 = write_mem(s1, &l1), *t2 = write_mem(s2, &l2);
        if (!t1 != !t2 || (t1 && (l1 != l2 || memcmp(t1, t2, l1) != 0))) abort();
        free(t1);
        free(t2);
    }
    profile_free(s1);
    profile_free(s2);
    profile_free(a);
    profile_free(u);
}

/*
 * The cg_annotate 3.21+ report of the profile, and of its difference with
 * itself (--diff): cga_add() refuses only a summary: that is not the sum of
 * the counts (the reader's warning); cga_print() then never fails.
 */
static void check_cg321(struct profile *u, double threshold)
{
    for (int diff = 0; diff < 2; diff++) {
        struct cga_options o = {
            .threshold = threshold, .show_percs = 1, .context = 8, .diff = diff};
        struct cga *a = cga_new(&o);
        struct tally_error e;
        int rc = cga_add(a, u, "fuzz", &e);
        if (!rc && diff) rc = cga_add(a, u, "fuzz", &e);
        if (rc && !u->warnings.n && u->parts[0]->events.n) abort();
        if (!rc) {
            char *buf = NULL;
            size_t len = 0;
            FILE *fp = open_memstream(&buf, &len);
            if (!fp) abort();
            if (cga_print(fp, a, &e)) abort();
            fclose(fp);
            free(buf);
        }
        cga_free(a);
    }
}

/*
 * read_options.cachegrind.fl_unspecified (annotate --layout=3.21) only
 * charges counts after a bare fl= to another function: it fails where the
 * default reader fails, with the same message, and keeps the same totals.
 */
static void check_unspecified(const uint8_t *data, size_t size)
{
    static const struct read_options un = {.cachegrind.fl_unspecified = 1};
    struct profile *a, *u;
    if (read_both(data, size, &un, &a, &u)) return;
    size_t n = a->parts[0]->events.n;
    uint64_t *t1 = calloc(n ? n : 1, sizeof(uint64_t)), *t2 = calloc(n ? n : 1, sizeof(uint64_t));
    int r1 = part_self_total(a, a->parts[0], t1), r2 = part_self_total(u, u->parts[0], t2);
    if (r1 != r2 || (r1 == 0 && memcmp(t1, t2, n * sizeof(uint64_t)) != 0)) abort();
    free(t1);
    free(t2);
    check_cg321(u, size % 2 ? 0 : 0.1);
    profile_free(a);
    profile_free(u);
}

static char *write_mem(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) abort();
    struct tally_error err;
    int rc = cachegrind_write(p, fp, &err);
    fclose(fp);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_unindexed(data, size);
    check_unspecified(data, size);
    struct profile *p = read_mem(data, size);
    if (!p) return 0;
    size_t n = p->parts[0]->events.n;
    uint64_t *t1 = calloc(n, sizeof(uint64_t)), *t2 = calloc(n, sizeof(uint64_t));
    size_t len = 0;
    char *text = write_mem(p, &len);
    if (!text) {
        /* the only reason to refuse: the grand total overflows */
        if (part_self_total(p, p->parts[0], t1) == 0) abort();
        goto out;
    }
    struct profile *q = read_mem((const uint8_t *)text, len);
    if (!q) abort();            /* the writer's output must be readable */
    if (q->warnings.n) abort(); /* and its summary right */
    if (q->parts[0]->events.n != n) abort();
    if (part_ncosts(q->parts[0]) != part_ncosts(p->parts[0])) abort();
    if (part_self_total(p, p->parts[0], t1) || part_self_total(q, q->parts[0], t2)) abort();
    if (memcmp(t1, t2, n * sizeof(uint64_t)) != 0) abort();
    size_t len2 = 0;
    char *text2 = write_mem(q, &len2);
    if (!text2 || len2 != len || memcmp(text, text2, len) != 0) abort();
    free(text2);
    profile_free(q);
    free(text);
out:
    free(t1);
    free(t2);
    profile_free(p);
    return 0;
}
