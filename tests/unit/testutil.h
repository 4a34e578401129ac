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
