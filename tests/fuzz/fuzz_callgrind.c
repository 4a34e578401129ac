/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_callgrind.c - libFuzzer harness for the callgrind reader and writer.
 *
 * Any input must be read without crashing; when it loads, it is written
 * back and the result must load again with the same number of records.
 *
 * Each input is also read split in two (formats/callgrind_split.c, forced
 * with read_options.callgrind.split_min = 1, whatever its size): the result must be exactly
 * that of one reader: the same error at the same line, or the same
 * profile written byte for byte, the same warnings and the same last
 * mention of every function.
 *
 * And it is read with call counts only and no jumps (what `annotate
 * --auto=no` asks for), its parts added up as they are read (most of them
 * straight into part 0, see formats/callgrind_rd.h) and, for reference,
 * each on its own and added up after: the same outcome again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"

static size_t records(const struct profile *p)
{
    size_t n = 0;
    for (size_t k = 0; k < p->nparts; k++)
        n += part_ncosts(p->parts[k]) + part_ncalls(p->parts[k]) + part_njumps(p->parts[k]);
    return n;
}

static struct profile *load_as(const void *data, size_t size, int drop, int fold, int split,
                               int lean, struct tally_error *err)
{
    struct input in;
    if (input_open_mem(&in, "fuzz", data, size, err)) return NULL;
    struct profile *p = profile_new();
    struct read_options opt = {0};
    opt.callgrind.split_min = split ? 1 : READ_SPLIT_NEVER;
    opt.drop_addr = drop;
    opt.drop_jumps = drop;
    opt.merge_parts = fold;
    opt.callgrind.call_counts_only = lean;
    int rc = callgrind_read(&in, p, &opt, err);
    input_close(&in);
    /* as profile_read() does: parts left when a fold failed, or all of them (reference) */
    if (!rc && lean) rc = profile_merge_parts(p, err);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

static struct profile *load(const void *data, size_t size, int drop)
{
    struct tally_error err;
    return load_as(data, size, drop, 0, 0, 0, &err);
}

/* The profile as the callgrind writer writes it (malloc'd), or NULL. */
static char *written(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    struct tally_error err;
    if (!fp) return NULL;
    int rc = callgrind_write(p, fp, &err);
    fclose(fp);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Two outcomes are the same (the same error, or the same profile); frees both. */
static void same(struct profile *a, const struct tally_error *e1, struct profile *b,
                 const struct tally_error *e2)
{
    if (!a || !b) {
        if (a || b || e1->line != e2->line || strcmp(e1->msg, e2->msg)) abort();
        return;
    }
    if (a->nparts != b->nparts || a->warnings.n != b->warnings.n) abort();
    for (size_t i = 0; i < a->warnings.n; i++)
        if (strcmp(a->warnings.items[i], b->warnings.items[i])) abort();
    if (profile_nfunctions(a) != profile_nfunctions(b)) abort();
    for (size_t f = 0; f < profile_nfunctions(a); f++)
        if (profile_function_mention(a, (uint32_t)f) != profile_function_mention(b, (uint32_t)f))
            abort();
    size_t la = 0, lb = 0;
    char *wa = written(a, &la), *wb = written(b, &lb);
    if (!wa != !wb || la != lb || (wa && memcmp(wa, wb, la))) abort();
    free(wa);
    free(wb);
    profile_free(a);
    profile_free(b);
}

/* One reader or two: the same outcome. */
static void same_split(const void *data, size_t size, int drop, int fold, int lean)
{
    struct tally_error e1, e2;
    struct profile *a = load_as(data, size, drop, fold, 0, lean, &e1);
    struct profile *b = load_as(data, size, drop, fold, 1, lean, &e2);
    same(a, &e1, b, &e2);
}

/* Lean parts added up while reading, or each read and added up after: the same outcome. */
static void same_fold(const void *data, size_t size)
{
    struct tally_error e1, e2;
    struct profile *a = load_as(data, size, 1, 0, 0, 1, &e1);
    struct profile *b = load_as(data, size, 1, 1, 0, 1, &e2);
    same(a, &e1, b, &e2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    same_split(data, size, size & 1, (size >> 1) & 1, (size >> 2) & 1);
    same_fold(data, size);
    struct profile *p = load(data, size, size & 1);
    if (!p) return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct tally_error err;
    if (fp && callgrind_write(p, fp, &err) == 0) {
        fclose(fp);
        struct profile *q = load(buf, len, 0);
        if (!q || records(q) != records(p)) abort();
        profile_free(q);
    } else if (fp) {
        fclose(fp);
    }
    free(buf);
    profile_free(p);
    return 0;
}
