/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testutil.h - helpers shared by the cmocka unit tests.
 */
#ifndef TALLY_TESTUTIL_H
#define TALLY_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "io/input.h"
#include "model/profile.h"

/* Read a profile from a string; fails the test with the message on error. */
static inline struct profile *test_read_string(const char *text, const struct read_options *opt,
                                               struct tally_error *err_out)
{
    struct tally_error err;
    struct input in;
    tally_error_clear(&err);
    if (input_open_mem(&in, "test", text, strlen(text), &err)) return NULL;
    enum profile_format f = format_detect(text, strlen(text));
    struct profile *p = profile_new();
    p->path = xstrdup("test");
    p->format = f;
    static const struct read_options defaults;
    int rc = f == PROFILE_FORMAT_CACHEGRIND ? cachegrind_read(&in, p, opt ? opt : &defaults, &err)
                                            : callgrind_read(&in, p, opt ? opt : &defaults, &err);
    input_close(&in);
    if (rc == 0 && opt && opt->merge_parts) rc = profile_merge_parts(p, &err);
    if (err_out) *err_out = err;
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

/* A profile as the callgrind writer writes it (malloc'd, *len bytes). */
static inline char *test_written(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    assert_non_null(fp);
    struct tally_error err;
    assert_int_equal(callgrind_write(p, fp, &err), 0);
    fclose(fp);
    return buf;
}

/*
 * Two reads of one file that must agree: the same parts, warnings and last
 * mention of every function, and the same profile byte for byte as the
 * callgrind writer writes it.
 */
static inline void test_same_profile(const struct profile *a, const struct profile *b)
{
    assert_int_equal(a->nparts, b->nparts);
    assert_int_equal(a->warnings.n, b->warnings.n);
    for (size_t i = 0; i < a->warnings.n; i++)
        assert_string_equal(a->warnings.items[i], b->warnings.items[i]);
    assert_int_equal(profile_nfunctions(a), profile_nfunctions(b));
    for (size_t f = 0; f < profile_nfunctions(a); f++)
        assert_int_equal(profile_function_mention(a, (uint32_t)f),
                         profile_function_mention(b, (uint32_t)f));
    size_t la, lb;
    char *wa = test_written(a, &la), *wb = test_written(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(wa, wb, la);
    free(wa);
    free(wb);
}

/* Write a temporary file with this content; returns its malloc'd path. */
static inline char *test_tmpfile(const void *data, size_t len)
{
    char *path = strdup("/tmp/tally-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
    return path;
}

#endif
