/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the cachegrind reader and writer. Expected costs are
 * worked out by hand from the little files below.
 */
#include "testutil.h"

#include <inttypes.h>
#include <unistd.h>

/*
 * Sum of event `ev` over every record of function (file, name) at `line`
 * (line UINT64_MAX = any line). Names are compared as strings.
 */
static uint64_t cost_at(const struct profile *p, const char *file, const char *name, uint64_t line,
                        size_t ev)
{
    const struct part *pt = p->parts[0];
    uint64_t sum = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        struct function f = profile_function_at(p, c.fn);
        if (strcmp(profile_str(p, f.file), file) || strcmp(profile_str(p, f.name), name)) continue;
        if (line != UINT64_MAX && c.pos.line != line) continue;
        sum += c.cost[ev];
    }
    return sum;
}

static int has_function(const struct profile *p, const char *file, const char *name)
{
    for (size_t i = 0; i < profile_nfunctions(p); i++) {
        struct function f = profile_function_at(p, (uint32_t)i);
        if (!strcmp(profile_str(p, f.file), file) && !strcmp(profile_str(p, f.name), name))
            return 1;
    }
    return 0;
}

static struct profile *read_ok(const char *text)
{
    struct tally_error err;
    struct profile *p = test_read_string(text, NULL, &err);
    if (!p) fail_msg("unexpected error: line %lu: %s", err.line, err.msg);
    assert_int_equal(p->nparts, 1);
    return p;
}

/*
 * Reading (with the cachegrind reader, whatever format_detect would say)
 * must fail at `line` with a message containing `want`.
 */
static void read_fails_len(const char *text, size_t len, unsigned long line, const char *want)
{
    struct tally_error err;
    struct input in;
    assert_int_equal(input_open_mem(&in, "test", text, len, &err), 0);
    struct profile *p = profile_new();
    int rc = cachegrind_read(&in, p, NULL, &err);
    input_close(&in);
    profile_free(p);
    if (rc == 0) fail_msg("no error for:\n%s", text);
    if (err.line != line || !strstr(err.msg, want))
        fail_msg("got line %lu '%s', want line %lu '%s'", err.line, err.msg, line, want);
    assert_string_equal(err.file, "test");
}

static void read_fails(const char *text, unsigned long line, const char *want)
{
    read_fails_len(text, strlen(text), line, want);
}

/* Write p as cachegrind text into a malloc'd string. */
static char *write_string(const struct profile *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct tally_error err;
    if (cachegrind_write(p, fp, &err)) fail_msg("write failed: %s", err.msg);
    fclose(fp);
    return buf;
}

static const char file319[] = "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
                              "desc: D1 cache: 32768 B\n"
                              "cmd: ./prog arg1 arg2\n"
                              "events: Ir Dr Dw \n"
                              "fl=a.c\n"
                              "fn=main\n"
                              "3 10 2 1\n"
                              "4 5 . 7\n"
                              "5 6\n"     /* short: Dr = Dw = 0 */
                              "3 1 1 1\n" /* line 3 again: added */
                              "fn=helper\n"
                              "20 100 . .\n"
                              "fl=b.h\n" /* no fn=: still helper */
                              "7 8 9 10\n"
                              "summary: 130 12 19\n";

static void test_319_file(void **state)
{
    (void)state;
    struct profile *p = read_ok(file319);
    const struct part *pt = p->parts[0];
    assert_int_equal(p->format, PROFILE_FORMAT_CACHEGRIND);
    assert_int_equal(pt->positions, POS_LINE);
    assert_int_equal(p->signed_costs, 0);
    assert_string_equal(pt->cmd, "./prog arg1 arg2");
    assert_int_equal(pt->desc.n, 2);
    assert_string_equal(pt->desc.items[0], "I1 cache:         32768 B, 64 B, 8-way associative");
    assert_string_equal(pt->desc.items[1], "D1 cache: 32768 B");
    assert_int_equal(pt->events.n, 3);
    assert_string_equal(pt->events.names[0], "Ir");
    assert_string_equal(pt->events.names[2], "Dw");
    assert_int_equal(profile_nfunctions(p), 3);
    assert_true(has_function(p, "a.c", "main"));
    assert_true(has_function(p, "a.c", "helper"));
    assert_true(has_function(p, "b.h", "helper"));
    assert_int_equal(part_ncosts(pt), 5);
    assert_int_equal(cost_at(p, "a.c", "main", 3, 0), 11);
    assert_int_equal(cost_at(p, "a.c", "main", 3, 1), 3);
    assert_int_equal(cost_at(p, "a.c", "main", 3, 2), 2);
    assert_int_equal(cost_at(p, "a.c", "main", 4, 1), 0);
    assert_int_equal(cost_at(p, "a.c", "main", 4, 2), 7);
    assert_int_equal(cost_at(p, "a.c", "main", 5, 0), 6);
    assert_int_equal(cost_at(p, "a.c", "main", 5, 2), 0);
    assert_int_equal(cost_at(p, "a.c", "helper", 20, 0), 100);
    assert_int_equal(cost_at(p, "b.h", "helper", 7, 2), 10);
    /* the record's file is the fl= file */
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        assert_int_equal(c.pos.file, profile_function_at(p, c.fn).file);
        assert_int_equal(c.pos.addr, 0);
    }
    assert_non_null(pt->summary);
    assert_int_equal(pt->summary[0], 130);
    assert_int_equal(pt->summary[1], 12);
    assert_int_equal(pt->summary[2], 19);
    assert_int_equal(pt->summary_line, 15);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
}

/* 3.21+: no desc lines, plain zeros, a count line with only a line number. */
static void test_321_file(void **state)
{
    (void)state;
    struct profile *p = read_ok("cmd: prog\n"
                                "events: Ir\n"
                                "fl=x.c\n"
                                "fn=f\n"
                                "1 0\n"
                                "2 5\n"
                                "9\n"
                                "fl=y.c\n"
                                "fn=g\n"
                                "0 7\n"
                                "summary: 12\n");
    const struct part *pt = p->parts[0];
    assert_int_equal(pt->desc.n, 0);
    assert_int_equal(part_ncosts(pt), 4);
    assert_int_equal(cost_at(p, "x.c", "f", UINT64_MAX, 0), 5);
    assert_int_equal(cost_at(p, "x.c", "f", 9, 0), 0);
    assert_int_equal(cost_at(p, "y.c", "g", 0, 0), 7);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
}

/* Blank lines and comments anywhere, CRLF ends, tabs as separators. */
static void test_blank_comment_crlf(void **state)
{
    (void)state;
    struct profile *p = read_ok("# a comment before the header\r\n"
                                "\r\n"
                                "cmd:\tprog\r\n"
                                "   \r\n"
                                "events: A B\r\n"
                                "# comment\r\n"
                                "fl=f.c\r\n"
                                "\r\n"
                                "fn=fun\r\n"
                                "10\t3\t 4 \t\r\n"
                                "summary: 3 4\r\n"
                                "\r\n"
                                "# trailing comment\r\n");
    assert_string_equal(p->parts[0]->cmd, "prog");
    assert_int_equal(cost_at(p, "f.c", "fun", 10, 0), 3);
    assert_int_equal(cost_at(p, "f.c", "fun", 10, 1), 4);
    profile_free(p);
}

/* Counts before any fl=/fn= belong to ???:???; names keep spaces. */
static void test_unknown_names(void **state)
{
    (void)state;
    struct profile *p = read_ok("cmd: x\n"
                                "events: Ir\n"
                                "1 4\n"
                                "fl=some file.c\n"
                                "2 5\n" /* file known, function still ??? */
                                "fn=(below main)\n"
                                "3 6\n"
                                "summary: 15\n");
    assert_int_equal(profile_nfunctions(p), 3);
    assert_int_equal(cost_at(p, "???", "???", 1, 0), 4);
    assert_int_equal(cost_at(p, "some file.c", "???", 2, 0), 5);
    assert_int_equal(cost_at(p, "some file.c", "(below main)", 3, 0), 6);
    profile_free(p);
}

/*
 * read_options.cachegrind.fl_unspecified (cg_annotate 3.21+'s rule): after
 * a bare fl= the counts belong to "<unspecified>" of that file, a function
 * made at the fl= line even when no count follows; fn= ends it.
 */
static void test_fl_unspecified(void **state)
{
    (void)state;
    const char *text = "cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 5\nfl=b.c\n2 7\nfn=g\n3 1\n"
                       "fl=c.c\nfn=h\n4 2\nsummary: 15\n";
    struct read_options un = {.cachegrind.fl_unspecified = 1};
    struct tally_error err;
    struct profile *u = test_read_string(text, &un, &err);
    assert_non_null(u);
    assert_int_equal(u->warnings.n, 0);
    assert_int_equal(cost_at(u, "a.c", "f", 1, 0), 5);
    assert_int_equal(cost_at(u, "b.c", "<unspecified>", 2, 0), 7);
    assert_int_equal(cost_at(u, "b.c", "g", 3, 0), 1);
    assert_int_equal(cost_at(u, "c.c", "h", 4, 0), 2);
    /* one <unspecified> per fl=, with counts or not */
    assert_true(has_function(u, "a.c", "<unspecified>"));
    assert_true(has_function(u, "c.c", "<unspecified>"));
    assert_int_equal(cost_at(u, "c.c", "<unspecified>", UINT64_MAX, 0), 0);
    assert_int_equal(profile_nfunctions(u), 6);
    profile_free(u);
    /* without it, the counts after fl=b.c stay with f (3.19's rule) */
    struct profile *p = read_ok(text);
    assert_int_equal(cost_at(p, "b.c", "f", 2, 0), 7);
    assert_false(has_function(p, "b.c", "<unspecified>"));
    profile_free(p);
}

static void test_summary_mismatch_warns(void **state)
{
    (void)state;
    struct profile *p = read_ok("cmd: x\nevents: Ir Dr\nfn=f\n1 4 1\nsummary: 5 1\n");
    assert_int_equal(p->warnings.n, 1);
    assert_non_null(strstr(p->warnings.items[0], "test:5:"));
    assert_non_null(strstr(p->warnings.items[0], "Ir = 5"));
    assert_non_null(strstr(p->warnings.items[0], "add up to 4"));
    profile_free(p);
}

/*
 * read_options.cachegrind.unindexed (a file read only to be added into a sum): each
 * count line is a record of its own, and the sum is the same as with the
 * indexed reader. Expected costs worked out by hand.
 */
static void test_unindexed(void **state)
{
    (void)state;
    const char *text = "cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 5\n2 7\n1 3\nfn=g\n1 1\nfn=f\n2 1\n"
                       "summary: 17\n";
    struct read_options un = {.cachegrind.unindexed = 1};
    struct tally_error err;
    struct profile *a = read_ok(text), *u = test_read_string(text, &un, &err);
    assert_non_null(u);
    assert_int_equal(part_ncosts(a->parts[0]), 3); /* f:1, f:2, g:1 */
    assert_int_equal(part_ncosts(u->parts[0]), 5); /* one per count line */
    assert_int_equal(cost_at(u, "a.c", "f", 1, 0), 8);
    assert_int_equal(u->warnings.n, 0); /* the summary is checked all the same */
    assert_int_equal(part_accumulate(a, a->parts[0], u, u->parts[0], &err), 0);
    assert_int_equal(part_ncosts(a->parts[0]), 3);
    assert_int_equal(cost_at(a, "a.c", "f", 1, 0), 16);
    assert_int_equal(cost_at(a, "a.c", "f", 2, 0), 16);
    assert_int_equal(cost_at(a, "a.c", "g", 1, 0), 2);
    profile_free(a);
    profile_free(u);

    /* a file that becomes signed is indexed from there on */
    u = test_read_string("cmd: x\nevents: Ir\n1 5\n1 3\n2 -1\n1 -2\nsummary: 5\n", &un, &err);
    assert_non_null(u);
    assert_int_equal(u->signed_costs, 1);
    assert_int_equal(part_ncosts(u->parts[0]), 2);
    assert_int_equal((int64_t)cost_at(u, "???", "???", 1, 0), 6);
    assert_int_equal((int64_t)cost_at(u, "???", "???", 2, 0), -1);
    profile_free(u);
    /* and fails as the indexed reader does when a position's sum does not fit */
    const char *big = "cmd: x\nevents: Ir\n0 5000000000000000000\n0 5000000000000000000\n0 -1\n"
                      "summary: 0\n";
    struct tally_error e1, e2;
    assert_null(test_read_string(big, NULL, &e1));
    assert_null(test_read_string(big, &un, &e2));
    assert_int_equal(e1.line, e2.line);
    assert_string_equal(e1.msg, e2.msg);

    /* a long file of few positions: memory bounded by them, not by its
       lines (100,000 count lines on 7 lines, past the 32768 appended
       records the reader keeps before it indexes); sums as when indexed */
    size_t nlines = 100000, cap = 96 + nlines * 8, n = 0, total = 0;
    char *longf = malloc(cap);
    assert_non_null(longf);
    n += (size_t)snprintf(longf + n, cap - n, "cmd: x\nevents: Ir\nfl=a.c\nfn=f\n");
    for (size_t i = 0; i < nlines; i++) {
        n += (size_t)snprintf(longf + n, cap - n, "%zu %zu\n", i % 7 + 1, i % 3 + 1);
        total += i % 3 + 1;
    }
    n += (size_t)snprintf(longf + n, cap - n, "summary: %zu\n", total);
    a = read_ok(longf);
    u = test_read_string(longf, &un, &err);
    assert_non_null(u);
    assert_int_equal(part_ncosts(a->parts[0]), 7);
    assert_int_equal(part_ncosts(u->parts[0]), 7);
    for (uint64_t line = 1; line <= 7; line++)
        assert_int_equal(cost_at(u, "a.c", "f", line, 0), cost_at(a, "a.c", "f", line, 0));
    profile_free(a);
    profile_free(u);
    free(longf);
}

/* Counts and line numbers of every width (the 8-bytes-at-a-time scanner
   takes up to 7 digits, longer ones go through the loop). */
static void test_count_widths(void **state)
{
    (void)state;
    struct profile *p = read_ok("cmd: x\nevents: A B C D E F G H I\n"
                                "1234567 1 12 123 1234 12345 123456 1234567 12345678 0000012\n"
                                "12345678 9999999 10000000 1234567890123456789 0 7 .  0 1 2\n"
                                "7 1 2 3\n"
                                "summary: 10000001 10000014 1234567890123456915 1234 12352 "
                                "123456 1234567 12345679 14\n");
    static const uint64_t l1[9] = {1, 12, 123, 1234, 12345, 123456, 1234567, 12345678, 12};
    static const uint64_t l2[9] = {9999999, 10000000, 1234567890123456789, 0, 7, 0, 0, 1, 2};
    for (size_t e = 0; e < 9; e++) {
        assert_int_equal(cost_at(p, "???", "???", 1234567, e), l1[e]);
        assert_int_equal(cost_at(p, "???", "???", 12345678, e), l2[e]);
    }
    assert_int_equal(cost_at(p, "???", "???", 7, 2), 3);
    assert_int_equal(p->warnings.n, 0); /* the summary (worked out by hand) agrees */
    profile_free(p);
}

static void test_negative_counts(void **state)
{
    (void)state;
    struct profile *p = read_ok("desc: Files compared:   a; b\n"
                                "cmd:  a; b\n"
                                "events:  Ir Dr\n"
                                "fl=f.c\n"
                                "fn=g\n"
                                "0 100 3\n"
                                "0 -150 -1\n"
                                "2 . -0\n"
                                "summary: -50 2\n");
    assert_int_equal(p->signed_costs, 1);
    assert_int_equal((int64_t)cost_at(p, "f.c", "g", 0, 0), -50);
    assert_int_equal((int64_t)cost_at(p, "f.c", "g", 0, 1), 2);
    assert_int_equal(cost_at(p, "f.c", "g", 2, 1), 0);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    /* the extremes of int64 */
    p = read_ok("cmd: x\nevents: Ir Dr\n1 -9223372036854775808 9223372036854775807\n"
                "summary: -9223372036854775808 9223372036854775807\n");
    assert_int_equal((int64_t)cost_at(p, "???", "???", 1, 0), INT64_MIN);
    assert_int_equal((int64_t)cost_at(p, "???", "???", 1, 1), INT64_MAX);
    assert_int_equal((int64_t)p->parts[0]->summary[0], INT64_MIN);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);

    /* a huge unsigned count before a negative one cannot be signed */
    read_fails("cmd: x\nevents: Ir\n0 9223372036854775808\n0 -1\nsummary: 0\n", 4, "above 2^63-1");
    read_fails("cmd: x\nevents: Ir Dr\n0 9223372036854775808 -1\nsummary: 0 0\n", 3,
               "above 2^63-1");
    read_fails("cmd: x\nevents: Ir\n0 -1\n0 9223372036854775808\nsummary: 0\n", 4, "above 2^63-1");
    read_fails("cmd: x\nevents: Ir\n0 -9223372036854775809\nsummary: 0\n", 3, "64 bits");
    /* signed overflow when adding */
    read_fails("cmd: x\nevents: Ir\n0 -9223372036854775808\n0 -1\nsummary: 0\n", 4,
               "sum past a signed 64-bit count");
}

static void test_big_unsigned(void **state)
{
    (void)state;
    struct profile *p = read_ok(
        "cmd: x\nevents: Ir\nfn=f\n1 18446744073709551615\nsummary: 18446744073709551615\n");
    assert_int_equal(cost_at(p, "???", "f", 1, 0), UINT64_MAX);
    assert_int_equal(p->warnings.n, 0);
    profile_free(p);
    read_fails("cmd: x\nevents: Ir\n1 18446744073709551616\nsummary: 0\n", 3,
               "does not fit in 64 bits");
    read_fails("cmd: x\nevents: Ir\n1 18446744073709551615\n1 1\nsummary: 0\n", 4,
               "sum past 2^64-1");
    /* over the whole file, not only one line's record */
    read_fails("cmd: x\nevents: Ir Dr\nfn=f\n1 0 18446744073709551615\nfn=g\n2 0 1\nsummary: 0\n",
               6, "costs of event Dr sum past 2^64-1");
    read_fails("cmd: x\nevents: Ir\n99999999999999999999 1\nsummary: 0\n", 3,
               "line number too large");
}

static void test_errors(void **state)
{
    (void)state;
    read_fails("", 0, "missing 'cmd:'");
    read_fails("cmd: x\n", 1, "missing 'events:'");
    read_fails("desc: d\nevents: Ir\nfn=f\n", 3, "missing 'cmd:' line before the cost lines");
    read_fails("cmd: x\nfn=f\n", 2, "missing 'events:' line before");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 2\n", 4, "missing 'summary:' line");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 2\n\n# c\n", 6, "missing 'summary:' line");
    read_fails("cmd: x\ncmd: y\nevents: Ir\nsummary: 0\n", 2, "second 'cmd:'");
    read_fails("cmd: x\nevents: Ir\nevents: Ir\nsummary: 0\n", 3, "second 'events:'");
    read_fails("cmd: x\nevents:\nsummary: 0\n", 2, "names no event");
    read_fails("cmd: x\nevents: Ir Ir\nsummary: 0\n", 2, "twice");
    read_fails("cmd: x\nevents: Ir\nbogus line\nsummary: 0\n", 3, "unrecognised line 'bogus line'");
    read_fails("cmd: x\nevents: Ir\nfn=f\nfi=x.h\n", 4, "unrecognised line 'fi=x.h'");
    read_fails("cmd: x\nevents: Ir Dr\nfn=f\n1 2 3 4\nsummary: 0 0\n", 4, "too many counts");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 2x\nsummary: 0\n", 4, "bad count '2x'");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 0x10\nsummary: 0\n", 4, "bad count '0x10'");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 -\nsummary: 0\n", 4, "bad count '-'");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1 ..\nsummary: 0\n", 4, "bad count '..'");
    read_fails("cmd: x\nevents: Ir\nfn=f\n1x 2\nsummary: 0\n", 4, "bad line number '1x'");
    read_fails("cmd: x\nevents: Ir\nfn=f\n-3 2\nsummary: 0\n", 4, "negative line number");
    read_fails("cmd: x\nevents: Ir Dr\nsummary: 1\n", 3, "'summary:' line has 1 count for 2");
    read_fails("cmd: x\nevents: Ir\nsummary: 1 2\n", 3, "too many counts");
    read_fails("cmd: x\nevents: Ir\nsummary: x\n", 3, "bad count 'x'");
    read_fails("cmd: x\nevents: Ir\nsummary: 0\nfn=f\n", 4, "content after the 'summary:'");
    read_fails("cmd: x\nevents: Ir\nsummary: 0\nsummary: 0\n", 4, "content after");
    read_fails("cmd: x\nevents: Ir\nfn=f\ncmd: y\nsummary: 0\n", 4, "header line after");
    read_fails("cmd: x\nevents: Ir\nfn=f\nevents: Ir\nsummary: 0\n", 4, "header line after");
    /* NUL bytes in names would be cut short when written */
    static const char nul[] = "cmd: x\nevents: Ir\nfn=a\0b\nsummary: 0\n";
    read_fails_len(nul, sizeof(nul) - 1, 3, "NUL byte");
    static const char nul2[] = "cmd: x\nevents: Ir\0Dr\nsummary: 0\n";
    read_fails_len(nul2, sizeof(nul2) - 1, 2, "NUL byte");
}

/* Stray CRs end a line: names and values never keep them. */
static void test_stray_cr(void **state)
{
    (void)state;
    struct profile *p = read_ok("desc: d\r\r\ncmd: c\r\r\nevents: Ir\r\r\nfl=f.c\r\r\n"
                                "fn=g\r\r\n1 2\r\r\nsummary: 2\r\r\n");
    assert_string_equal(p->parts[0]->desc.items[0], "d");
    assert_string_equal(p->parts[0]->cmd, "c");
    assert_int_equal(cost_at(p, "f.c", "g", 1, 0), 2);
    profile_free(p);
}

static void test_write_refuses(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    struct tally_error err;
    FILE *fp = fopen("/dev/null", "w");
    assert_int_equal(cachegrind_write(p, fp, &err), -1); /* no part */
    assert_non_null(strstr(err.msg, "no data"));
    profile_add_part(p);
    assert_int_equal(cachegrind_write(p, fp, &err), -1); /* no events */
    assert_non_null(strstr(err.msg, "no events"));
    fclose(fp);
    profile_free(p);
}

/* Every record of a, looked up in b by names and line, with equal costs. */
static void assert_same_costs(const struct profile *a, const struct profile *b)
{
    const struct part *pa = a->parts[0], *pb = b->parts[0];
    assert_int_equal(pa->events.n, pb->events.n);
    assert_int_equal(a->signed_costs, b->signed_costs);
    size_t n = pa->events.n;
    for (size_t i = 0; i < part_ncosts(pa); i++) {
        struct cost_rec c;
        part_cost_get(pa, i, &c);
        struct function f = profile_function_at(a, c.fn);
        for (size_t e = 0; e < n; e++)
            assert_int_equal(
                cost_at(b, profile_str(a, f.file), profile_str(a, f.name), c.pos.line, e),
                c.cost[e]);
    }
    assert_int_equal(part_ncosts(pa), part_ncosts(pb));
}

static void test_round_trip(void **state)
{
    (void)state;
    struct profile *p = read_ok(file319);
    char *text = write_string(p);
    struct profile *q = read_ok(text);
    assert_same_costs(p, q);
    assert_same_costs(q, p);
    assert_string_equal(q->parts[0]->cmd, "./prog arg1 arg2");
    assert_int_equal(q->parts[0]->desc.n, 2);
    assert_string_equal(q->parts[0]->desc.items[0], p->parts[0]->desc.items[0]);
    assert_int_equal(q->warnings.n, 0);
    /* writing again gives the same text */
    char *text2 = write_string(q);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    profile_free(p);
    profile_free(q);
}

static void test_round_trip_signed(void **state)
{
    (void)state;
    struct profile *p = read_ok("cmd: d\nevents: Ir Dr\nfl=f.c\nfn=g\n0 -5 7\n3 2 -1\n"
                                "summary: -3 6\n");
    char *text = write_string(p);
    assert_non_null(strstr(text, "\n0 -5 7\n3 2 -1\nsummary: -3 6\n"));
    struct profile *q = read_ok(text);
    assert_same_costs(p, q);
    free(text);
    profile_free(p);
    profile_free(q);
}

/* The exact text of a small file: layout, sorting, summing, computed summary. */
static void test_write_layout(void **state)
{
    (void)state;
    struct profile *p = read_ok("desc: D\n"
                                "cmd: c\n"
                                "events: A B\n"
                                "fl=z.c\n"
                                "fn=zf\n"
                                "9 1 1\n"
                                "2 2 .\n"
                                "fl=a.c\n"
                                "fn=af\n"
                                "5 3\n"
                                "fl=z.c\n"
                                "fn=zf\n"
                                "9 10 10\n"
                                "summary: 1 1\n"); /* wrong: a warning, computed one is written */
    assert_int_equal(p->warnings.n, 2);
    char *text = write_string(p);
    assert_string_equal(text, "desc: D\n"
                              "cmd: c\n"
                              "events: A B\n"
                              "fl=z.c\n"
                              "fn=zf\n"
                              "2 2 0\n"
                              "9 11 11\n"
                              "fl=a.c\n"
                              "fn=af\n"
                              "5 3 0\n"
                              "summary: 16 11\n");
    free(text);
    profile_free(p);
}

/*
 * A profile built by hand as a callgrind reader would: addresses, inlined
 * code from another file, several records per line, calls.
 */
static void test_write_from_callgrind_model(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    p->format = PROFILE_FORMAT_CALLGRIND;
    struct part *pt = profile_add_part(p);
    struct tally_error err;
    assert_int_equal(eventset_set_base(&pt->events, "Ir", 2, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    pt->positions = POS_INSTR | POS_LINE;
    uint32_t obj = profile_intern(p, "/bin/prog", 9);
    uint32_t fa = profile_intern(p, "a.c", 3), fh = profile_intern(p, "inl.h", 5);
    uint32_t main_fn = profile_function(p, obj, fa, profile_intern(p, "main", 4));
    uint32_t leaf = profile_function(p, obj, fh, profile_intern(p, "leaf", 4));
    uint64_t c;
    struct position pos = {fh, 4, 0x1000, 0}; /* inlined into main first */
    c = 1;
    assert_int_equal(part_add_cost(p, pt, main_fn, &pos, &c, 1), 0);
    pos = (struct position){fa, 12, 0x1010, 0};
    c = 2;
    assert_int_equal(part_add_cost(p, pt, main_fn, &pos, &c, 1), 0);
    pos = (struct position){fa, 12, 0x1014, 0}; /* same line, other address */
    c = 3;
    assert_int_equal(part_add_cost(p, pt, main_fn, &pos, &c, 1), 0);
    pos = (struct position){fa, 10, 0x1020, 0};
    c = 4;
    assert_int_equal(part_add_cost(p, pt, main_fn, &pos, &c, 1), 0);
    pos = (struct position){fh, 4, 0x2000, 0};
    c = 5;
    assert_int_equal(part_add_cost(p, pt, leaf, &pos, &c, 1), 0);
    struct position site = {fa, 12, 0x1014, 0}, target = {fh, 4, 0x2000, 0};
    c = 5;
    assert_int_equal(part_add_call(p, pt, main_fn, &site, leaf, &target, 1, &c, 1), 0);
    char *text = write_string(p);
    /* inl.h lines of main under fl=inl.h fn=main; leaf's own group is separate */
    assert_string_equal(text, "cmd: \n"
                              "events: Ir\n"
                              "fl=a.c\n"
                              "fn=main\n"
                              "10 4\n"
                              "12 5\n"
                              "fl=inl.h\n"
                              "fn=main\n"
                              "4 1\n"
                              "fn=leaf\n"
                              "4 5\n"
                              "summary: 15\n");
    free(text);
    /* several parts: refused */
    profile_add_part(p);
    FILE *fp = fopen("/dev/null", "w");
    assert_int_equal(cachegrind_write(p, fp, &err), -1);
    assert_non_null(strstr(err.msg, "2 parts"));
    fclose(fp);
    profile_free(p);
}

static enum profile_format detect(const char *s)
{
    return format_detect(s, strlen(s));
}

/* Which files format_detect() sends to the cachegrind reader. */
static void test_detect(void **state)
{
    (void)state;
    assert_int_equal(detect(file319), PROFILE_FORMAT_CACHEGRIND);
    assert_int_equal(detect("cmd: x\nevents: Ir\nfn=(below main)\n0 1\nsummary: 1\n"),
                     PROFILE_FORMAT_CACHEGRIND);
    assert_int_equal(detect("# c\n\ncmd: x\nevents: Ir\n"), PROFILE_FORMAT_CACHEGRIND);
    /* callgrind: name compression, or no cmd: (which cachegrind requires) */
    assert_int_equal(detect("cmd: x\nevents: Ir\nfn=(1) main\n"), PROFILE_FORMAT_CALLGRIND);
    assert_int_equal(detect("events: Ir\nfn=f\n1 2\n"), PROFILE_FORMAT_CALLGRIND);
    assert_int_equal(detect("hello\n"), PROFILE_FORMAT_UNKNOWN);
}

static void test_profile_read_file(void **state)
{
    (void)state;
    char *path = test_tmpfile(file319, sizeof(file319) - 1);
    struct tally_error err;
    struct profile *p = profile_read(path, NULL, &err);
    assert_non_null(p);
    assert_int_equal(p->format, PROFILE_FORMAT_CACHEGRIND);
    assert_int_equal(cost_at(p, "a.c", "main", UINT64_MAX, 0), 22);
    profile_free(p);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_319_file),
        cmocka_unit_test(test_321_file),
        cmocka_unit_test(test_blank_comment_crlf),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_summary_mismatch_warns),
        cmocka_unit_test(test_fl_unspecified),
        cmocka_unit_test(test_negative_counts),
        cmocka_unit_test(test_unindexed),
        cmocka_unit_test(test_count_widths),
        cmocka_unit_test(test_big_unsigned),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_stray_cr),
        cmocka_unit_test(test_write_refuses),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_signed),
        cmocka_unit_test(test_write_layout),
        cmocka_unit_test(test_write_from_callgrind_model),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_profile_read_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
