/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_aprof.c - the input-sensitive model (isprof) and the aprof report
 * reader and writer.
 *
 * The reports below are written by hand from the field lists of the aprof
 * report versions (research brief section 4 and the 1.4 format seed), so
 * every expected value is read off the input line, or computed by hand
 * (merges: sums added, min/max folded), never taken from tally's output.
 */
#include "testutil.h"

#include <unistd.h>

#include "formats/aprof.h"
#include "model/isprof.h"

static struct isprof *rd(const char *text)
{
    struct isprof *ip = malloc(sizeof *ip);
    isprof_init(ip);
    struct tally_error err;
    tally_error_clear(&err);
    if (aprof_read_mem(ip, "mem.aprof", text, strlen(text), &err)) {
        char buf[1200];
        fail_msg("unexpected error: %s", tally_error_format(&err, buf, sizeof buf));
    }
    return ip;
}

static void rd_free(struct isprof *ip)
{
    isprof_release(ip);
    free(ip);
}

/* Expect a read error whose message contains `msg` at line `line`. */
static void rd_fail(const char *text, unsigned long line, const char *msg)
{
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    tally_error_clear(&err);
    int rc = aprof_read_mem(&ip, "bad.aprof", text, strlen(text), &err);
    isprof_release(&ip);
    if (rc == 0) fail_msg("no error for:\n%s", text);
    if (!strstr(err.msg, msg) || err.line != line || strcmp(err.file, "bad.aprof"))
        fail_msg("got '%s:%lu: %s', want line %lu with '%s'", err.file, err.line, err.msg, line,
                 msg);
}

static char *wr(const struct isprof *ip)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    aprof_write_fp(ip, fp);
    fclose(fp);
    return buf;
}

static const struct isprof_tuple *tup(const struct isprof *ip, const char *name, uint64_t input)
{
    size_t r = isprof_routine_by_name(ip, name, NULL);
    for (size_t i = 0; r == ISPROF_NONE && i < ip->nroutines; i++)
        if (!strcmp(isprof_routine_name(ip, i), name)) r = i;
    assert_true(r != ISPROF_NONE);
    const struct isprof_tuple *t = isprof_find(ip, ISPROF_ROUTINE, r, input);
    if (!t) fail_msg("no tuple %s/%llu", name, (unsigned long long)input);
    return t;
}

#define U128(hi, lo) (((isprof_u128)(hi) << 64) | (isprof_u128)(lo))

/* ---- reading each version ---- */

static void test_v4_doc_example(void **state)
{
    (void)state;
    struct isprof *ip = rd("v 4\n"
                           "e 1700000000\n"
                           "t Mon Feb 4 10:00:00 2013\n"
                           "f ./prog  a b\n"
                           "a ./prog\n"
                           "m bb-count\n"
                           "k 9999\n"
                           "r \"mmap\" \"/lib/i386-linux-gnu/ld-2.13.so\" 30\n"
                           "r \"work\" \"/tmp/prog\" 7\n"
                           "u 7 \"_Z4workv\"\n"
                           "d 7 \"work(void)\"\n"
                           "p 7 23 15 37 270 3000 10 199 200 10 10 3000\n");
    assert_int_equal(ip->version, 4);
    assert_string_equal(ip->exe_mtime, "1700000000");
    assert_string_equal(ip->created, "Mon Feb 4 10:00:00 2013");
    assert_string_equal(ip->cmdline, "./prog  a b");
    assert_string_equal(ip->app, "./prog");
    assert_int_equal(ip->cost, ISPROF_COST_BB);
    assert_int_equal(ip->input, ISPROF_INPUT_RMS);
    assert_int_equal(ip->resolution, 0);
    assert_true(ip->has_total);
    assert_int_equal(ip->total, 9999);
    assert_int_equal(ip->fields, ISPROF_F_V4);
    assert_int_equal(ip->nroutines, 2);
    assert_string_equal(isprof_routine_image(ip, 0), "/lib/i386-linux-gnu/ld-2.13.so");
    size_t r = isprof_routine_by_id(ip, 7);
    assert_int_equal(r, 1);
    assert_string_equal(strtab_str(&ip->names, ip->routines[r].mangled), "_Z4workv");
    assert_string_equal(strtab_str(&ip->names, ip->routines[r].fullname), "work(void)");
    const struct isprof_tuple *t = tup(ip, "work", 23);
    /* the seed's reading: 10 calls, min 15, max 37, sum 270, sqr 3000, real 199,
       self sum 200, self min 10, self max 10, self sqr 3000 */
    assert_int_equal(t->calls, 10);
    assert_int_equal(t->min, 15);
    assert_int_equal(t->max, 37);
    assert_int_equal(t->sum, 270);
    assert_true(t->sqr == 3000);
    assert_int_equal(t->real_sum, 199);
    assert_int_equal(t->self_sum, 200);
    assert_int_equal(t->self_min, 10);
    assert_int_equal(t->self_max, 10);
    assert_true(t->self_sqr == 3000);
    assert_null(isprof_find(ip, ISPROF_ROUTINE, r, 24));
    assert_int_equal(ip->routines[0].tuples.n, 0);
    rd_free(ip);
}

static void test_v1_v2_v3(void **state)
{
    (void)state;
    /* v1: min max sum sqr calls */
    struct isprof *ip = rd("v 1\nr \"f\" \"img\" 0\np 0 5 1 9 20 130 4\n");
    const struct isprof_tuple *t = tup(ip, "f", 5);
    assert_int_equal(t->min, 1);
    assert_int_equal(t->max, 9);
    assert_int_equal(t->sum, 20);
    assert_true(t->sqr == 130);
    assert_int_equal(t->calls, 4);
    assert_int_equal(t->real_sum, 0);
    assert_int_equal(ip->fields, ISPROF_F_SQR);
    rd_free(ip);
    /* v2: min max sum calls real self */
    ip = rd("c old\nv 2\nr \"f\" \"img\" 3\np 3 8 2 6 10 3 7 4\n");
    t = tup(ip, "f", 8);
    assert_int_equal(t->min, 2);
    assert_int_equal(t->max, 6);
    assert_int_equal(t->sum, 10);
    assert_int_equal(t->calls, 3);
    assert_int_equal(t->real_sum, 7);
    assert_int_equal(t->self_sum, 4);
    assert_true(t->sqr == 0);
    assert_int_equal(ip->fields, ISPROF_F_REAL | ISPROF_F_SELF);
    assert_int_equal(ip->comments.n, 1);
    assert_string_equal(ip->comments.items[0], "old");
    rd_free(ip);
    /* v3: v2 + self-min self-max */
    ip = rd("v 3\nr \"f\" \"img\" 3\np 3 8 2 6 10 3 7 4 1 2\n");
    t = tup(ip, "f", 8);
    assert_int_equal(t->self_sum, 4);
    assert_int_equal(t->self_min, 1);
    assert_int_equal(t->self_max, 2);
    assert_int_equal(ip->fields, ISPROF_F_REAL | ISPROF_F_SELF | ISPROF_F_SELFMM);
    rd_free(ip);
}

static void test_v5_rvms(void **state)
{
    (void)state;
    struct isprof *ip = rd("v 5\ni rvms\nm vex-instr\n"
                           "r \"f\" \"img\" 1\n"
                           "p 1 64 10 20 30 500 2 30 12 5 7 74 128 8192\n");
    assert_int_equal(ip->input, ISPROF_INPUT_DRMS);
    assert_int_equal(ip->cost, ISPROF_COST_INSTR);
    const struct isprof_tuple *t = tup(ip, "f", 64);
    assert_int_equal(t->self_max, 7);
    assert_true(t->self_sqr == 74);
    assert_int_equal(t->rms_sum, 128);
    assert_true(t->rms_sqr == 8192);
    assert_int_equal(ip->fields, ISPROF_F_V4 | ISPROF_F_RMSSTAT);
    rd_free(ip);
}

static void test_v6_aprof_drms(void **state)
{
    (void)state;
    /* the header order of aprof 0.2.1 (research brief 4.2) */
    struct isprof *ip = rd("c -------------------------------------\n"
                           "c report generated by aprof (valgrind) \n"
                           "c -------------------------------------\n"
                           "v 6\nk 777\ne 1386600000\nm bb-count\ni drms\nt 16\n"
                           "a ./buffered-read\nf ./buffered-read in.txt\n"
                           "r \"consume\" \"/tmp/buffered-read\" 0\n"
                           "p 0 64 300 310 610 186100 2 610 600 300 300 180000 0 0 128 0 120 0\n"
                           "r \"below_main\" \"NONE\" 1\n"
                           "p 1 70 1000 1000 1000 1000000 1 1000 40 40 40 1600 0 0 128 2 0 0\n");
    assert_int_equal(ip->version, 6);
    assert_int_equal(ip->input, ISPROF_INPUT_DRMS);
    assert_int_equal(ip->resolution, 16);
    assert_null(ip->created);
    assert_int_equal(ip->comments.n, 0); /* banner lines are not kept */
    assert_int_equal(ip->total, 777);
    assert_int_equal(ip->fields, ISPROF_F_V4 | ISPROF_F_RMSSTAT | ISPROF_F_INDUCED);
    const struct isprof_tuple *t = tup(ip, "consume", 64);
    assert_int_equal(t->cumul_syscall, 128);
    assert_int_equal(t->cumul_thread, 0);
    assert_int_equal(t->self_syscall, 120);
    assert_int_equal(t->self_thread, 0);
    t = tup(ip, "below_main", 70);
    assert_int_equal(t->cumul_thread, 2);
    assert_string_equal(isprof_routine_image(ip, 1), "NONE");
    rd_free(ip);
    /* v6 RMS, 12 fields; a date-like t in v6 is a date */
    ip = rd("v 6\ni rms\nt 2\nt not-a-number\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n");
    assert_int_equal(ip->input, ISPROF_INPUT_RMS);
    assert_int_equal(ip->resolution, 2);
    assert_string_equal(ip->created, "not-a-number");
    assert_int_equal(ip->fields, ISPROF_F_V4);
    rd_free(ip);
}

static void test_dev_reports_and_extras(void **state)
{
    (void)state;
    /* early-2013 v6: r with a 4th field, g lines (resolution / distinct rms) */
    struct isprof *ip = rd("v 6\ng 8\nr \"f\" \"i\" 0 3\ng 0 5 2\n"
                           "p 0 5 1 1 2 2 2 2 2 1 1 2\n"
                           "fav f g\n"
                           "c tally thread all\nc tally something new\n");
    assert_int_equal(ip->resolution, 8);
    assert_int_equal(ip->favourites.n, 1);
    assert_string_equal(ip->favourites.items[0], "f g");
    assert_int_equal(ip->thread, -1);
    assert_int_equal(ip->comments.n, 1);
    assert_string_equal(ip->comments.items[0], "tally something new");
    rd_free(ip);
    /* tally's comments; bb_count as aprof-plot spells it; blank lines; CRLF */
    ip = rd("c tally input drms\r\nc tally resolution 1\r\nc tally cost instr\r\n"
            "c tally thread 3\r\nc tally created 2026-01-02T03:04:05Z\r\n\r\nv 4\r\n"
            "m bb_count\r\n");
    assert_int_equal(ip->input, ISPROF_INPUT_DRMS);
    assert_int_equal(ip->resolution, 1);
    assert_int_equal(ip->cost, ISPROF_COST_BB); /* m after the comment wins */
    assert_int_equal(ip->thread, 3);
    assert_string_equal(ip->created, "2026-01-02T03:04:05Z");
    rd_free(ip);
}

static void test_big_numbers(void **state)
{
    (void)state;
    /* 2^128-1 and 2^64 as sums of squares; 2^64-1 as input size */
    struct isprof *ip = rd("v 4\nr \"f\" \"i\" 0\n"
                           "p 0 18446744073709551615 1 1 1 340282366920938463463374607431768211455"
                           " 1 1 1 1 1 18446744073709551616\n");
    const struct isprof_tuple *t = tup(ip, "f", UINT64_MAX);
    assert_true(t->sqr == ~(isprof_u128)0);
    assert_true(t->self_sqr == U128(1, 0));
    char *out = wr(ip);
    assert_non_null(strstr(out, "p 0 18446744073709551615 1 1 1 "
                                "340282366920938463463374607431768211455 1 1 1 1 1 "
                                "18446744073709551616\n"));
    free(out);
    rd_free(ip);
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 340282366920938463463374607431768211456"
            " 1 1 1 1 1 1\n",
            3, "number too large (sum of squares)");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 18446744073709551616 1 1 1 1 1 1 1 1 1 1\n", 3,
            "number too large (input size)");
}

/* ---- contexts ---- */

static const char *cct_report = "v 4\n"
                                "r \"main\" \"p\" 0\n"
                                "q 1 10 100 100 100 10000 1 100 20 20 20 400\n"
                                "r \"f\" \"p\" 1\n"
                                "q 2 3 10 30 40 1000 2 40 40 10 30 1000\n"
                                "q 3 3 5 5 5 25 1 5 5 5 5 25\n"
                                "q 3 4 7 7 7 49 1 7 7 7 7 49\n"
                                "r \"g\" \"p\" 2\n"
                                "q 4 1 2 2 2 4 1 2 2 2 2 4\n"
                                "x 0 1 -1\n"
                                "x 1 2 1\n"
                                "x 2 4 2\n"
                                "x 1 3 4\n";

static void test_cct_aggregate(void **state)
{
    (void)state;
    struct isprof *ip = rd(cct_report);
    assert_int_equal(ip->ncontexts, 4);
    size_t c1 = isprof_context_by_id(ip, 1), c2 = isprof_context_by_id(ip, 2),
           c3 = isprof_context_by_id(ip, 3), c4 = isprof_context_by_id(ip, 4);
    assert_int_equal(ip->contexts[c1].parent, ISPROF_NONE);
    assert_int_equal(ip->contexts[c2].parent, c1);
    assert_int_equal(ip->contexts[c4].parent, c2);
    assert_int_equal(ip->contexts[c3].parent, c4);
    assert_int_equal(isprof_context_child(ip, c4, isprof_routine_by_id(ip, 1)), c3);
    for (size_t c = 0; c < ip->ncontexts; c++)
        assert_true(ip->contexts[c].parent == ISPROF_NONE || ip->contexts[c].parent < c);
    /* f at input 3: contexts 2 and 3 folded: calls 2+1, min(10,5), max(30,5), 40+5 */
    const struct isprof_tuple *t = tup(ip, "f", 3);
    assert_int_equal(t->calls, 3);
    assert_int_equal(t->min, 5);
    assert_int_equal(t->max, 30);
    assert_int_equal(t->sum, 45);
    assert_true(t->sqr == 1025);
    assert_int_equal(t->self_min, 5);
    assert_int_equal(t->self_max, 30);
    assert_int_equal(tup(ip, "f", 4)->sum, 7);
    assert_int_equal(tup(ip, "main", 10)->self_sum, 20);
    assert_true(ip->routines[1].from_contexts);
    /* writing keeps q/x lines and adds no p lines */
    char *out = wr(ip);
    assert_null(strstr(out, "\np "));
    assert_non_null(strstr(out, "q 3 3 5 5 5 25 1 5 5 5 5 25\nq 3 4 7 7 7 49 1 7 7 7 7 49\n"));
    assert_non_null(strstr(out, "x 0 1 -1\nx 1 2 1\nx 2 4 2\nx 1 3 4\n"));
    free(out);
    rd_free(ip);
}

static void test_sorted_and_hashed(void **state)
{
    (void)state;
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    size_t r = isprof_add_routine(&ip, 5, "f", "img", &err);
    assert_int_equal(r, 0);
    assert_int_equal(isprof_add_routine(&ip, 5, "g", "img", &err), ISPROF_NONE);
    /* 100000 tuples in a scrambled order: input i*7919 mod 100003 */
    enum { N = 100000 };
    for (uint64_t i = 1; i <= N; i++) {
        struct isprof_tuple t = {
            .input = i * 7919 % 100003, .calls = 1, .min = i, .max = i, .sum = i};
        assert_non_null(isprof_add(&ip, ISPROF_ROUTINE, r, &t, &err));
    }
    for (uint64_t i = 1; i <= N; i++) {
        const struct isprof_tuple *t = isprof_find(&ip, ISPROF_ROUTINE, r, i * 7919 % 100003);
        assert_non_null(t);
        assert_int_equal(t->sum, i);
    }
    size_t n;
    struct isprof_tuple *const *v = isprof_routine_tuples(&ip, r, &n);
    assert_int_equal(n, N);
    for (size_t i = 1; i < n; i++)
        assert_true(v[i - 1]->input < v[i]->input);
    /* adding an existing input folds */
    struct isprof_tuple t = {.input = 7919, .calls = 2, .min = 0, .max = 100, .sum = 5};
    const struct isprof_tuple *f = isprof_add(&ip, ISPROF_ROUTINE, r, &t, &err);
    assert_int_equal(f->calls, 3);
    assert_int_equal(f->min, 0);
    assert_int_equal(f->max, 100);
    assert_int_equal(f->sum, 6);
    /* overflow is refused and leaves the tuple unchanged */
    t.sum = UINT64_MAX;
    assert_null(isprof_add(&ip, ISPROF_ROUTINE, r, &t, &err));
    assert_non_null(strstr(err.msg, "overflow"));
    assert_int_equal(f->sum, 6);
    t.calls = 0;
    assert_null(isprof_add(&ip, ISPROF_ROUTINE, r, &t, &err));
    assert_int_equal(isprof_count_routine_tuples(&ip), N);
    isprof_release(&ip);
}

/* ---- writing ---- */

static void test_write_layout(void **state)
{
    (void)state;
    /* the model of the example in docs/internals/aprof.md, built by the API */
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    ip.resolution = 4;
    ip.thread = 1;
    ip.exe_mtime = xstrdup("1763780656");
    ip.created = xstrdup("2026-11-22T03:04:16Z");
    ip.cmdline = xstrdup("./sort 100");
    ip.app = xstrdup("./sort");
    ip.total = 52311;
    ip.has_total = 1;
    size_t m = isprof_add_routine(&ip, 0, "main", "/tmp/sort", &err);
    size_t s = isprof_add_routine(&ip, 1, "isort", "/tmp/sort", &err);
    struct isprof_tuple t1 = {.input = 212,
                              .calls = 1,
                              .min = 52100,
                              .max = 52100,
                              .sum = 52100,
                              .sqr = 2714410000u,
                              .real_sum = 52100,
                              .self_sum = 300,
                              .self_min = 300,
                              .self_max = 300,
                              .self_sqr = 90000};
    struct isprof_tuple t2 = {.input = 101,
                              .calls = 1,
                              .min = 51000,
                              .max = 51000,
                              .sum = 51000,
                              .sqr = 2601000000u,
                              .real_sum = 51000,
                              .self_sum = 51000,
                              .self_min = 51000,
                              .self_max = 51000,
                              .self_sqr = 2601000000u};
    assert_non_null(isprof_add(&ip, ISPROF_ROUTINE, m, &t1, &err));
    assert_non_null(isprof_add(&ip, ISPROF_ROUTINE, s, &t2, &err));
    char *out = wr(&ip);
    assert_string_equal(out, "c -------------------------------------\n"
                             "c report generated by tally\n"
                             "c -------------------------------------\n"
                             "c tally input rms\n"
                             "c tally resolution 4\n"
                             "c tally cost bb\n"
                             "c tally thread 1\n"
                             "v 4\n"
                             "e 1763780656\n"
                             "t 2026-11-22T03:04:16Z\n"
                             "f ./sort 100\n"
                             "a ./sort\n"
                             "m bb-count\n"
                             "k 52311\n"
                             "r \"main\" \"/tmp/sort\" 0\n"
                             "p 0 212 52100 52100 52100 2714410000 1 52100 300 300 300 90000\n"
                             "r \"isort\" \"/tmp/sort\" 1\n"
                             "p 1 101 51000 51000 51000 2601000000 1 51000 51000 51000 51000 "
                             "2601000000\n");
    free(out);
    /* DRMS: v 6, t K, i drms, 18 fields, creation date as a comment */
    ip.input = ISPROF_INPUT_DRMS;
    ip.cost = ISPROF_COST_INSTR;
    ip.routines[s].tuples.items[0]->cumul_syscall = 9;
    ip.routines[s].tuples.items[0]->self_thread = 3;
    out = wr(&ip);
    assert_string_equal(out, "c -------------------------------------\n"
                             "c report generated by tally\n"
                             "c -------------------------------------\n"
                             "c tally input drms\n"
                             "c tally resolution 4\n"
                             "c tally cost instr\n"
                             "c tally thread 1\n"
                             "c tally created 2026-11-22T03:04:16Z\n"
                             "v 6\n"
                             "e 1763780656\n"
                             "t 4\n"
                             "f ./sort 100\n"
                             "a ./sort\n"
                             "m vex-instr\n"
                             "i drms\n"
                             "k 52311\n"
                             "r \"main\" \"/tmp/sort\" 0\n"
                             "p 0 212 52100 52100 52100 2714410000 1 52100 300 300 300 90000 "
                             "0 0 0 0 0 0\n"
                             "r \"isort\" \"/tmp/sort\" 1\n"
                             "p 1 101 51000 51000 51000 2601000000 1 51000 51000 51000 51000 "
                             "2601000000 0 0 9 0 0 3\n");
    free(out);
    isprof_release(&ip);
}

/* Every field of two profiles equal (routines and contexts in the same order). */

/* Tuples equal in every count (the line each was read from may differ). */
static int same_tuple(const struct isprof_tuple *a, const struct isprof_tuple *b)
{
    struct isprof_tuple x = *a, y = *b;
    x.line = y.line = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

static void assert_same(struct isprof *a, struct isprof *b)
{
#define SAME_STR(x, y)                                                                             \
    do {                                                                                           \
        if ((x) || (y)) {                                                                          \
            assert_non_null(x);                                                                    \
            assert_non_null(y);                                                                    \
            assert_string_equal(x, y);                                                             \
        }                                                                                          \
    } while (0)
    SAME_STR(a->exe_mtime, b->exe_mtime);
    SAME_STR(a->created, b->created);
    SAME_STR(a->cmdline, b->cmdline);
    SAME_STR(a->app, b->app);
    assert_int_equal(a->cost, b->cost);
    assert_int_equal(a->input, b->input);
    assert_int_equal(a->resolution, b->resolution);
    assert_int_equal(a->has_total, b->has_total);
    assert_int_equal(a->total, b->total);
    assert_int_equal(a->thread, b->thread);
    assert_int_equal(a->fields, b->fields);
    assert_int_equal(a->comments.n, b->comments.n);
    for (size_t i = 0; i < a->comments.n; i++)
        assert_string_equal(a->comments.items[i], b->comments.items[i]);
    assert_int_equal(a->favourites.n, b->favourites.n);
    for (size_t i = 0; i < a->favourites.n; i++)
        assert_string_equal(a->favourites.items[i], b->favourites.items[i]);
    assert_int_equal(a->nroutines, b->nroutines);
    assert_int_equal(a->ncontexts, b->ncontexts);
    for (size_t r = 0; r < a->nroutines; r++) {
        struct isprof_routine *x = &a->routines[r], *y = &b->routines[r];
        assert_int_equal(x->id, y->id);
        assert_string_equal(isprof_routine_name(a, r), isprof_routine_name(b, r));
        assert_string_equal(isprof_routine_image(a, r), isprof_routine_image(b, r));
        assert_string_equal(strtab_str(&a->names, x->mangled), strtab_str(&b->names, y->mangled));
        assert_string_equal(strtab_str(&a->names, x->fullname), strtab_str(&b->names, y->fullname));
        assert_int_equal(x->from_contexts, y->from_contexts);
        size_t n, m;
        struct isprof_tuple *const *u = isprof_routine_tuples(a, r, &n);
        struct isprof_tuple *const *v = isprof_routine_tuples(b, r, &m);
        assert_int_equal(n, m);
        for (size_t i = 0; i < n; i++)
            assert_true(same_tuple(u[i], v[i]));
    }
    for (size_t c = 0; c < a->ncontexts; c++) {
        struct isprof_context *x = &a->contexts[c], *y = &b->contexts[c];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->routine, y->routine);
        assert_int_equal(x->parent, y->parent);
        size_t n, m;
        struct isprof_tuple *const *u = isprof_context_tuples(a, c, &n);
        struct isprof_tuple *const *v = isprof_context_tuples(b, c, &m);
        assert_int_equal(n, m);
        for (size_t i = 0; i < n; i++)
            assert_true(same_tuple(u[i], v[i]));
    }
}

static void roundtrip(const char *text)
{
    struct isprof *a = rd(text);
    char *out = wr(a);
    struct isprof *b = rd(out);
    assert_same(a, b);
    char *out2 = wr(b);
    assert_string_equal(out, out2); /* and the writer is stable */
    free(out);
    free(out2);
    rd_free(a);
    rd_free(b);
}

static void test_roundtrip(void **state)
{
    (void)state;
    roundtrip("c first comment\nc tally thread 2\nc tally resolution 8\n"
              "v 4\ne 17\nt yesterday\nf ./p x\na ./p\nm vex-instr\nk 5000\n"
              "r \"a b\" \"/x y/lib.so\" 9\nu 9 \"_Z1av\"\nd 9 \"a b(int, char)\"\n"
              "p 9 20 1 2 3 5 2 3 3 1 2 5\np 9 10 7 7 7 49 1 0 6 6 6 36\n"
              "r \"c\" \"NONE\" 4\n"
              "p 4 0 1 1 1 340282366920938463463374607431768211455 1 1 1 1 1 1\n"
              "fav a b\n");
    roundtrip(cct_report);
    roundtrip("v 6\ni drms\nt 16\nm bb-count\nr \"f\" \"i\" 0\n"
              "q 5 3 1 2 3 5 2 3 3 1 2 5 0 0 6 7 8 9\nx 0 5 -1\n");
    /* lone carriage returns inside comments: the writer turns them into
     * spaces, so the reader must judge the text as it will be written back
     * (a banner, a `tally ` setting or a comment), else a re-read differs */
    roundtrip("v 4\nc report generated by\rX\nc ---\r\nc tally\rthread 3\n"
              "c keep\rthis\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n");
    {
        struct isprof *ip = rd("v 4\nc report generated by\rX\nc ---\r\nc tally\rthread 3\n"
                               "c keep\rthis\n");
        assert_int_equal(ip->comments.n, 1);
        assert_string_equal(ip->comments.items[0], "keep this");
        assert_int_equal(ip->thread, 3);
        rd_free(ip);
    }
    /* p and q lines for the same routine: both kept */
    roundtrip("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n"
              "q 5 3 1 2 3 5 2 3 3 1 2 5\nx 0 5 -1\n");
}

/* ---- merging ---- */

static const char *run_a = "v 4\ne 100\na ./p\nf ./p 1\nk 1000\n"
                           "c tally resolution 4\n"
                           "r \"main\" \"p\" 0\n"
                           "p 0 10 100 200 300 50000 2 300 30 10 20 500\n"
                           "r \"f\" \"libf.so\" 1\n"
                           "p 1 3 5 9 14 106 2 14 14 5 9 106\n";
static const char *run_b = "v 4\ne 101\na ./p\nf ./p 2\nk 2500\n"
                           "c tally resolution 4\n"
                           "r \"f\" \"libf.so\" 0\n"
                           "p 0 3 4 8 12 80 2 12 12 4 8 80\n"
                           "p 0 6 20 20 20 400 1 20 20 20 20 400\n"
                           "r \"f\" \"other.so\" 1\n"
                           "p 1 1 1 1 1 1 1 1 1 1 1 1\n"
                           "r \"main\" \"p\" 2\n"
                           "p 2 10 50 250 300 65000 2 300 40 15 25 850\n";

static void test_merge_routines(void **state)
{
    (void)state;
    struct isprof *a = rd(run_a), *b = rd(run_b);
    struct strlist warn = {0};
    struct tally_error err;
    assert_int_equal(isprof_merge(a, b, &warn, &err), 0);
    assert_int_equal(warn.n, 1);
    assert_non_null(strstr(warn.items[0], "100"));
    assert_int_equal(a->total, 3500);
    assert_int_equal(a->nroutines, 3);
    /* main/10: calls 2+2, min(100,50), max(200,250), sums added */
    const struct isprof_tuple *t = tup(a, "main", 10);
    assert_int_equal(t->calls, 4);
    assert_int_equal(t->min, 50);
    assert_int_equal(t->max, 250);
    assert_int_equal(t->sum, 600);
    assert_true(t->sqr == 115000);
    assert_int_equal(t->real_sum, 600);
    assert_int_equal(t->self_sum, 70);
    assert_int_equal(t->self_min, 10);
    assert_int_equal(t->self_max, 25);
    assert_true(t->self_sqr == 1350);
    /* f in libf.so: input 3 folded, input 6 new */
    size_t f = isprof_routine_by_name(a, "f", "libf.so");
    t = isprof_find(a, ISPROF_ROUTINE, f, 3);
    assert_int_equal(t->calls, 4);
    assert_int_equal(t->min, 4);
    assert_int_equal(t->max, 9);
    assert_int_equal(t->sum, 26);
    assert_int_equal(isprof_find(a, ISPROF_ROUTINE, f, 6)->sum, 20);
    /* f in other.so is another routine; its id 1 is taken, so it gets a new one */
    size_t o = isprof_routine_by_name(a, "f", "other.so");
    assert_true(o != ISPROF_NONE && o != f);
    assert_int_equal(a->routines[o].id, 2);
    assert_string_equal(a->cmdline, "./p 1");
    strlist_release(&warn);
    rd_free(a);
    rd_free(b);
}

static void test_merge_contexts(void **state)
{
    (void)state;
    /* the same paths with other ids, plus a new path main>g */
    const char *other = "v 4\n"
                        "r \"g\" \"p\" 0\nr \"f\" \"p\" 1\nr \"main\" \"p\" 2\n"
                        "q 7 3 1 1 1 1 1 1 1 1 1 1\n"
                        "q 8 10 1000 1000 1000 1000000 1 1000 1 1 1 1\n"
                        "q 9 1 9 9 9 81 1 9 9 9 9 81\n"
                        "x 2 8 -1\nx 1 7 8\nx 0 9 8\n";
    struct isprof *a = rd(cct_report), *b = rd(other);
    struct tally_error err;
    assert_int_equal(isprof_merge(a, b, NULL, &err), 0);
    assert_int_equal(a->ncontexts, 5);
    /* main>f (context 2) got q 7: input 3 calls 2+1, min 1 */
    size_t c2 = isprof_context_by_id(a, 2);
    const struct isprof_tuple *t = isprof_find(a, ISPROF_CONTEXT, c2, 3);
    assert_int_equal(t->calls, 3);
    assert_int_equal(t->min, 1);
    assert_int_equal(t->sum, 41);
    /* main (context 1) input 10: 100 and 1000 */
    t = isprof_find(a, ISPROF_CONTEXT, isprof_context_by_id(a, 1), 10);
    assert_int_equal(t->calls, 2);
    assert_int_equal(t->max, 1000);
    /* main>g is new: id 5 (one above the largest), parent context 1 */
    size_t c5 = isprof_context_by_id(a, 5);
    assert_true(c5 != ISPROF_NONE);
    assert_int_equal(a->contexts[c5].parent, isprof_context_by_id(a, 1));
    assert_string_equal(isprof_routine_name(a, a->contexts[c5].routine), "g");
    /* per-routine tuples follow: f at 3 = 3 (a) + 1 (b) calls; g at 1 = 1 + 1 */
    assert_int_equal(tup(a, "f", 3)->calls, 4);
    assert_int_equal(tup(a, "g", 1)->calls, 2);
    assert_int_equal(tup(a, "g", 1)->max, 9);
    /* writing and re-reading the merge gives the same per-routine tuples */
    char *out = wr(a);
    struct isprof *c = rd(out);
    assert_same(a, c);
    free(out);
    rd_free(a);
    rd_free(b);
    rd_free(c);
}

static void test_merge_refused(void **state)
{
    (void)state;
    static const struct {
        const char *b, *msg;
    } cases[] = {
        {"v 4\na ./q\nc tally resolution 4\n", "different programs"},
        {"v 4\na ./p\nc tally resolution 4\nc tally input drms\n", "different input metrics"},
        {"v 4\na ./p\nc tally resolution 8\n", "different memory resolutions"},
        {"v 4\na ./p\nc tally resolution 4\nm vex-instr\n", "different cost metrics"},
        {"v 4\na ./p\nc tally resolution 4\nk 18446744073709551615\n", "overflows"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct isprof *a = rd(run_a), *b = rd(cases[i].b);
        struct tally_error err;
        tally_error_clear(&err);
        assert_int_equal(isprof_merge(a, b, NULL, &err), -1);
        if (!strstr(err.msg, cases[i].msg)) fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(a->total, 1000); /* unchanged */
        rd_free(a);
        rd_free(b);
    }
    /* sums that overflow */
    struct isprof *a = rd("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 18446744073709551615 1 1 1 1 1 1 1\n");
    struct isprof *b = rd("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n");
    struct tally_error err;
    assert_int_equal(isprof_merge(a, b, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "overflow"));
    rd_free(a);
    rd_free(b);
}

/* ---- malformed input ---- */

static void test_malformed(void **state)
{
    (void)state;
    rd_fail("", 0, "no v line");
    rd_fail("c only a comment\n", 0, "no v line");
    rd_fail("r \"f\" \"i\" 0\n", 1, "before the v line");
    rd_fail("v 0\n", 1, "version 0");
    rd_fail("v 7\n", 1, "unsupported report version 7");
    rd_fail("v 4\nv 4\n", 2, "second v line");
    rd_fail("v x\n", 1, "expected a number (version)");
    rd_fail("v 4\nz 1\n", 2, "unknown tag 'z'");
    rd_fail("v 4\nfavourite x\n", 2, "unknown tag 'favourite'");
    rd_fail("v 4\nm cycles\n", 2, "unknown cost metric 'cycles'");
    rd_fail("v 4\ni size\n", 2, "unknown input metric 'size'");
    rd_fail("v 4\nk -1\n", 2, "expected a number (total cost)");
    rd_fail("v 4\nk 1 2\n", 2, "unexpected text");
    rd_fail("v 6\nt 3\n", 2, "memory resolution 3");
    rd_fail("v 4\nc tally resolution 32\n", 2, "memory resolution 32");
    rd_fail("v 4\nc tally input xyz\n", 2, "unknown input metric");
    rd_fail("v 4\nc tally thread 0\n", 2, "bad thread number");
    rd_fail("v 4\nr f i 0\n", 2, "expected \"name\" \"image\" id");
    rd_fail("v 4\nr \"f\" \"i\n", 2, "unterminated image name");
    rd_fail("v 4\nr \"f\" \"i\"\n", 2, "expected a routine id");
    rd_fail("v 4\nr \"f\" \"i\" 4294967296\n", 2, "does not fit in 32 bits");
    rd_fail("v 4\nr \"f\" \"i\" 1\nr \"g\" \"i\" 1\n", 3, "routine id 1 defined twice");
    rd_fail("v 4\np 0 1 1 1 1 1 1 1 1 1 1 1\n", 2, "routine id 0 has no r line");
    rd_fail("v 4\nu 3 \"x\"\n", 2, "routine id 3 has no r line");
    rd_fail("v 4\nr \"f\" \"i\" 3\nu 3 x\n", 3, "expected a quoted name");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1\n", 3, "expected 11 numbers");
    rd_fail("v 1\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1\n", 3, "expected 6 numbers");
    rd_fail("v 6\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", 3,
            "expected 11, 13 or 17 numbers");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 0 1 1 1 1 1\n", 3, "0 calls");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 5 4 1 1 1 1 1 1 1 1\n", 3, "min 5 above max 4");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 3 2 1\n", 3, "self min 3 above");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1x 1 1 1 1 1 1 1\n", 3, "bad number '1x'");
    rd_fail("v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n"
            "p 0 1 1 1 18446744073709551615 1 1 1 1 1 1 1\n",
            4, "overflow");
    rd_fail("v 4\nr \"f\" \"i\" 0\nq 5 1 1 1 1 1 1 1 1 1 1 1\n", 3, "context 5 has no x line");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 0 1 -1\nx 0 1 -1\n", 4, "context id 1 defined twice");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 0 1 2\n", 3, "parent context 2 has no x line");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 0 1 2\nx 0 2 1\n", 3, "its own ancestor");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 0 1 1\n", 3, "its own ancestor");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 1 1 -1\n", 3, "routine id 1 has no r line");
    rd_fail("v 4\nr \"f\" \"i\" 0\nx 0 1 -2\n", 3, "expected a parent context id");
    rd_fail("v 4\ng 1 2\n", 2, "g line");
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "v 4\nc a\0b\n";
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    assert_int_equal(aprof_read_mem(&ip, "nul", text, sizeof text - 1, &err), -1);
    assert_non_null(strstr(err.msg, "NUL byte"));
    assert_int_equal(err.line, 2);
    isprof_release(&ip);
}

static void test_files(void **state)
{
    (void)state;
    /* resolution from aprof's file name prog_PID_TID_K.aprof; gzip is read too */
    const char *text = "v 4\nr \"f\" \"i\" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\n";
    char *tmp = test_tmpfile(text, strlen(text));
    char *named = xasprintf("%s_123_0_16.aprof", tmp);
    assert_int_equal(rename(tmp, named), 0);
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    assert_int_equal(aprof_read(&ip, named, &err), 0);
    assert_int_equal(ip.resolution, 16);
    isprof_release(&ip);
    char *cmd = xasprintf("gzip -c %s > %s.gz", named, named);
    assert_int_equal(system(cmd), 0);
    char *gz = xasprintf("%s.gz", named);
    isprof_init(&ip);
    assert_int_equal(aprof_read(&ip, gz, &err), 0);
    assert_int_equal(tup(&ip, "f", 1)->calls, 1);
    /* atomic write, then read back */
    char *out = xasprintf("%s.out", named);
    assert_int_equal(aprof_write(&ip, out, &err), 0);
    isprof_release(&ip);
    isprof_init(&ip);
    assert_int_equal(aprof_read(&ip, out, &err), 0);
    assert_int_equal(ip.nroutines, 1);
    isprof_release(&ip);
    /* a missing file */
    isprof_init(&ip);
    assert_int_equal(aprof_read(&ip, "/nonexistent/x.aprof", &err), -1);
    isprof_release(&ip);
    unlink(named);
    unlink(gz);
    unlink(out);
    free(cmd);
    free(gz);
    free(out);
    free(named);
    free(tmp);
}

static void test_detect(void **state)
{
    (void)state;
    const char *yes = "c hello\nc x\nv 6\n";
    const char *no1 = "events: Ir\n";
    const char *no2 = "# callgrind format\nversion: 1\n";
    const char *no3 = "c only\n";
    assert_true(aprof_detect(yes, strlen(yes)));
    assert_false(aprof_detect(no1, strlen(no1)));
    assert_false(aprof_detect(no2, strlen(no2)));
    assert_false(aprof_detect(no3, strlen(no3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v4_doc_example),
        cmocka_unit_test(test_v1_v2_v3),
        cmocka_unit_test(test_v5_rvms),
        cmocka_unit_test(test_v6_aprof_drms),
        cmocka_unit_test(test_dev_reports_and_extras),
        cmocka_unit_test(test_big_numbers),
        cmocka_unit_test(test_cct_aggregate),
        cmocka_unit_test(test_sorted_and_hashed),
        cmocka_unit_test(test_write_layout),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_merge_routines),
        cmocka_unit_test(test_merge_contexts),
        cmocka_unit_test(test_merge_refused),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
