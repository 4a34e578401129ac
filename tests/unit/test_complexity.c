/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for analysis/complexity: points from tuples (cumulative and
 * self), totals from real sums, shares, filters, ranking, selection. The
 * expected values are worked out by hand from the reports below.
 */
#include "testutil.h"

#include <math.h>

#include "analysis/complexity.h"
#include "formats/aprof.h"

/*
 * Version 4 tuples: p ID N MIN MAX SUM SQR CALLS REAL SELF SELFMIN SELFMAX SELFSQR.
 * quad: cost 2n^2 + 10 (exponent 2), 6 sizes, one tuple with 2 calls.
 * lin:  cost 5n + 1 (exponent 1), 5 sizes; recursive: real sums are half the sums.
 * lin2: cost 5n + 1 (exponent 1) but cheaper in total than lin; 5 sizes.
 * few:  3 sizes only.
 * flat: cost 9 at 5 sizes.
 */
static const char report[] = "v 4\n"
                             "a ./t\n"
                             "k 100000\n"
                             "r \"quad\" \"/t\" 1\n"
                             "p 1 1 12 12 12 0 1 12 2 2 2 0\n"
                             "p 1 2 18 18 18 0 1 18 3 3 3 0\n"
                             "p 1 3 20 28 48 0 2 48 8 4 4 0\n"
                             "p 1 4 42 42 42 0 1 42 5 5 5 0\n"
                             "p 1 5 60 60 60 0 1 60 6 6 6 0\n"
                             "p 1 6 82 82 82 0 1 82 7 7 7 0\n"
                             "r \"lin\" \"/t\" 2\n"
                             "p 2 10 51 51 51 0 1 25 1 1 1 0\n"
                             "p 2 20 101 101 101 0 1 50 1 1 1 0\n"
                             "p 2 30 151 151 302 0 2 150 2 1 1 0\n"
                             "p 2 40 201 201 201 0 1 100 1 1 1 0\n"
                             "p 2 50 251 251 251 0 1 125 1 1 1 0\n"
                             "r \"lin2\" \"/t\" 3\n"
                             "p 3 1 6 6 6 0 1 6 6 6 6 0\n"
                             "p 3 2 11 11 11 0 1 11 11 11 11 0\n"
                             "p 3 3 16 16 16 0 1 16 16 16 16 0\n"
                             "p 3 4 21 21 21 0 1 21 21 21 21 0\n"
                             "p 3 5 26 26 26 0 1 26 26 26 26 0\n"
                             "r \"few\" \"/t\" 4\n"
                             "p 4 1 5 5 5 0 1 5 5 5 5 0\n"
                             "p 4 2 7 7 7 0 1 7 7 7 7 0\n"
                             "p 4 3 9 9 9 0 1 9 9 9 9 0\n"
                             "r \"flat\" \"/t\" 5\n"
                             "p 5 0 9 9 9 0 1 9 9 9 9 0\n"
                             "p 5 2 9 9 9 0 1 9 9 9 9 0\n"
                             "p 5 4 9 9 9 0 1 9 9 9 9 0\n"
                             "p 5 8 9 9 9 0 1 9 9 9 9 0\n"
                             "p 5 16 9 9 9 0 1 9 9 9 9 0\n"
                             "r \"empty\" \"/t\" 6\n";

static void load(struct isprof *ip, const char *text)
{
    struct tally_error err;
    tally_error_clear(&err);
    isprof_init(ip);
    if (aprof_read_mem(ip, "test.aprof", text, strlen(text), &err))
        fail_msg("read: %s:%lu: %s", err.file, err.line, err.msg);
}

static const struct complexity_routine *by_name(const struct complexity *c, const char *name)
{
    for (size_t i = 0; i < c->nall; i++)
        if (strcmp(c->all[i].name, name) == 0) return &c->all[i];
    fail_msg("no routine %s", name);
    return NULL;
}

static void ranking_is(const struct complexity *c, const char *const *names, size_t n)
{
    if (c->nranked != n) fail_msg("%zu ranked, want %zu", c->nranked, n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(c->ranked[i]->name, names[i]) != 0)
            fail_msg("rank %zu: %s, want %s", i + 1, c->ranked[i]->name, names[i]);
        assert_int_equal(c->ranked[i]->rank, i + 1);
    }
}

static void test_points_and_totals(void **state)
{
    (void)state;
    struct isprof ip;
    load(&ip, report);
    struct complexity_options o;
    complexity_options_init(&o);
    struct complexity c;
    struct tally_error err;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    assert_int_equal(c.nall, 5); /* "empty" has no tuples */
    assert_int_equal(c.program_total, 100000);

    const struct complexity_routine *q = by_name(&c, "quad");
    assert_int_equal(q->npoints, 6);
    assert_int_equal(q->calls, 7);
    assert_int_equal(q->total, 12 + 18 + 48 + 42 + 60 + 82);
    assert_int_equal(q->max_n, 6);
    assert_true(q->points[2].n == 3 && q->points[2].calls == 2);
    assert_true(q->points[2].worst == 28 && q->points[2].best == 20 && q->points[2].avg == 24);
    assert_true(fabs(q->share - 100.0 * 262 / 100000) < 1e-12);
    assert_int_equal(q->power.status, FIT_OK);
    assert_true(fabs(q->power.c - 2) < 1e-3); /* worst costs are 2n^2 + 10 */
    assert_int_equal(q->classes.best, FIT_CLASS_N2);

    /* real sums, not sums: recursion is not counted twice */
    const struct complexity_routine *l = by_name(&c, "lin");
    assert_int_equal(l->total, 25 + 50 + 150 + 100 + 125);
    assert_true(fabs(l->power.c - 1) < 1e-3);
    assert_int_equal(l->classes.best, FIT_CLASS_N);

    const struct complexity_routine *f = by_name(&c, "flat");
    assert_int_equal(f->power.status, FIT_CONSTANT);
    assert_int_equal(f->classes.best, FIT_CLASS_1);
    assert_true(f->points[0].n == 0);
    complexity_release(&c);

    /* self costs */
    o.cost = COMPLEXITY_COST_SELF;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    q = by_name(&c, "quad");
    assert_int_equal(q->total, 2 + 3 + 8 + 5 + 6 + 7);
    assert_true(q->points[2].worst == 4 && q->points[2].avg == 4 && q->points[2].best == 4);
    assert_true(fabs(q->power.c - 1) < 1e-3); /* self maxima 2..7 grow as n + 1 */
    complexity_release(&c);
    isprof_release(&ip);
}

static void test_ranking_and_filters(void **state)
{
    (void)state;
    struct isprof ip;
    load(&ip, report);
    struct complexity_options o;
    complexity_options_init(&o);
    struct complexity c;
    struct tally_error err;

    /* default: a share of at least 1%: every routine here is under it (quad 0.262%,
       lin 0.45%, lin2 0.08%, flat 0.045%), and the four with 5 sizes are counted */
    assert_true(o.min_share == 1.0);
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    assert_int_equal(c.nranked, 0);
    assert_int_equal(c.nbelow_share, 4);
    complexity_release(&c);

    /* no share limit: at least 5 sizes; quad (c=2), lin and lin2 (c=1: lin costs more), flat */
    o.min_share = 0;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    static const char *const all5[] = {"quad", "lin", "lin2", "flat"};
    ranking_is(&c, all5, 4);
    assert_int_equal(c.nbelow_share, 0);
    assert_int_equal(by_name(&c, "few")->rank, 0);
    complexity_release(&c);

    /* min points 3: few (exponent 1, but 3 sizes: no clear class, fitcheck.h) comes last,
       after flat (class 1), however its exponent compares */
    o.min_points = 3;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    static const char *const all3[] = {"quad", "lin", "lin2", "flat", "few"};
    ranking_is(&c, all3, 5);
    assert_int_equal(by_name(&c, "few")->check.why, FITCHECK_TOO_FEW);
    assert_true(fabs(by_name(&c, "few")->power.c - 1) < 1e-3);
    complexity_release(&c);

    /* share: quad 0.262%, lin 0.45%, lin2 0.08%, flat 0.045% */
    o.min_points = 5;
    o.min_share = 0.2;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    static const char *const big[] = {"quad", "lin"};
    ranking_is(&c, big, 2);
    assert_int_equal(c.nbelow_share, 2); /* lin2 and flat */
    complexity_release(&c);

    /* include (either pattern), exclude, top */
    o.min_share = 0;
    const char *inc[] = {"^lin", "at$"};
    const char *exc[] = {"2"};
    o.include = inc;
    o.ninclude = 2;
    o.exclude = exc;
    o.nexclude = 1;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    static const char *const pat[] = {"lin", "flat"};
    ranking_is(&c, pat, 2);
    complexity_release(&c);
    o.top = 1;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    ranking_is(&c, pat, 1);
    assert_int_equal(by_name(&c, "flat")->rank, 0);

    /* selection: ranked first, then profile order */
    size_t n;
    struct complexity_routine **sel = complexity_select(&c, "a", &n, &err);
    assert_int_equal(n, 2); /* quad (not ranked), flat (not ranked) */
    assert_string_equal(sel[0]->name, "quad");
    assert_string_equal(sel[1]->name, "flat");
    free(sel);
    sel = complexity_select(&c, "l", &n, &err);
    assert_int_equal(n, 3);
    assert_string_equal(sel[0]->name, "lin"); /* rank 1 */
    assert_string_equal(sel[1]->name, "lin2");
    assert_string_equal(sel[2]->name, "flat");
    free(sel);
    sel = complexity_select(&c, "nothing", &n, &err);
    assert_null(sel);
    assert_int_equal(n, 0);
    sel = complexity_select(&c, "(", &n, &err);
    assert_null(sel);
    assert_int_equal(n, SIZE_MAX);
    assert_non_null(strstr(err.msg, "bad pattern '('"));
    complexity_release(&c);

    /* a bad filter pattern */
    const char *bad[] = {"[z-a]"};
    o.exclude = bad;
    tally_error_clear(&err);
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "bad pattern '[z-a]'"));
    complexity_release(&c);
    isprof_release(&ip);
}

/*
 * Routines with no clear class come after every classed one, by cost,
 * whatever their exponent. The report (no share limit):
 *  - grow: cost 10n^2, 6 sizes 1..32: class n^2, exponent 2;
 *  - log: cost 9 log2 n + 12, 6 sizes 2..64: class log n (its power model's
 *    exponent is near 0, below that of the constant below it);
 *  - flat: cost 7 at 6 sizes: class 1;
 *  - bands: 8 sizes 1..8, cost 100n at odd sizes and 400n at even ones
 *    (two clusters 4 times apart): no clear class, although its exponent
 *    and cost are the largest;
 *  - down: cost 6400/n + 10, 6 sizes 1..32: negative exponent, no clear class.
 */
static const char unclear[] = "v 4\n"
                              "k 100000\n"
                              "r \"grow\" \"/t\" 1\n"
                              "p 1 1 10 10 10 0 1 10 0 0 0 0\n"
                              "p 1 2 40 40 40 0 1 40 0 0 0 0\n"
                              "p 1 4 160 160 160 0 1 160 0 0 0 0\n"
                              "p 1 8 640 640 640 0 1 640 0 0 0 0\n"
                              "p 1 16 2560 2560 2560 0 1 2560 0 0 0 0\n"
                              "p 1 32 10240 10240 10240 0 1 10240 0 0 0 0\n"
                              "r \"log\" \"/t\" 2\n"
                              "p 2 2 21 21 21 0 1 21 0 0 0 0\n"
                              "p 2 4 30 30 30 0 1 30 0 0 0 0\n"
                              "p 2 8 39 39 39 0 1 39 0 0 0 0\n"
                              "p 2 16 48 48 48 0 1 48 0 0 0 0\n"
                              "p 2 32 57 57 57 0 1 57 0 0 0 0\n"
                              "p 2 64 66 66 66 0 1 66 0 0 0 0\n"
                              "r \"flat\" \"/t\" 3\n"
                              "p 3 1 7 7 7 0 1 7 0 0 0 0\n"
                              "p 3 2 7 7 7 0 1 7 0 0 0 0\n"
                              "p 3 4 7 7 7 0 1 7 0 0 0 0\n"
                              "p 3 8 7 7 7 0 1 7 0 0 0 0\n"
                              "p 3 16 7 7 7 0 1 7 0 0 0 0\n"
                              "p 3 32 7 7 7 0 1 7 0 0 0 0\n"
                              "r \"bands\" \"/t\" 4\n"
                              "p 4 1 100 100 100 0 1 100 0 0 0 0\n"
                              "p 4 2 800 800 800 0 1 800 0 0 0 0\n"
                              "p 4 3 300 300 300 0 1 300 0 0 0 0\n"
                              "p 4 4 1600 1600 1600 0 1 1600 0 0 0 0\n"
                              "p 4 5 500 500 500 0 1 500 0 0 0 0\n"
                              "p 4 6 2400 2400 2400 0 1 2400 0 0 0 0\n"
                              "p 4 7 700 700 700 0 1 700 0 0 0 0\n"
                              "p 4 8 3200 3200 3200 0 1 3200 0 0 0 0\n"
                              "r \"down\" \"/t\" 5\n"
                              "p 5 1 6410 6410 6410 0 1 6410 0 0 0 0\n"
                              "p 5 2 3210 3210 3210 0 1 3210 0 0 0 0\n"
                              "p 5 4 1610 1610 1610 0 1 1610 0 0 0 0\n"
                              "p 5 8 810 810 810 0 1 810 0 0 0 0\n"
                              "p 5 16 410 410 410 0 1 410 0 0 0 0\n"
                              "p 5 32 210 210 210 0 1 210 0 0 0 0\n";

static void test_ranking_unclear(void **state)
{
    (void)state;
    struct isprof ip;
    load(&ip, unclear);
    struct complexity_options o;
    complexity_options_init(&o);
    o.min_share = 0;
    struct complexity c;
    struct tally_error err;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    /* by class (n^2, log n, 1), then the unclear ones by cost: grow's total is 13,650,
       log's 261, flat's 42; bands' 9,600, down's 12,660 */
    static const char *const want[] = {"grow", "log", "flat", "down", "bands"};
    ranking_is(&c, want, 5);
    const struct complexity_routine *b = by_name(&c, "bands");
    assert_int_equal(b->check.why, FITCHECK_CLUSTERS);
    assert_int_equal(b->check.nclusters, 2);
    assert_true(fabs(b->check.cluster_ratio - 4) < 0.05); /* 400n against 100n */
    /* by exponent alone it would rank above log and flat: from 100 to 3,200 over sizes 1 to 8
       is at least linear growth */
    if (!(b->power.c >= 1)) fail_msg("bands: exponent %g", b->power.c);
    assert_int_equal(by_name(&c, "down")->check.why, FITCHECK_DECREASING);
    assert_true(fabs(by_name(&c, "down")->check.c + 1) < 1e-3);
    assert_true(fabs(by_name(&c, "down")->check.rel_c + 1) < 1e-3);
    assert_int_equal(by_name(&c, "log")->check.cls, FIT_CLASS_LOG);
    assert_true(fabs(by_name(&c, "log")->power.c) < 0.1);
    complexity_release(&c);
    isprof_release(&ip);
}

/* Without a k line the program total is the sum of the self costs. */
static void test_total_without_k(void **state)
{
    (void)state;
    struct isprof ip;
    load(&ip, "v 4\nr \"a\" \"/t\" 1\n"
              "p 1 1 10 10 10 0 1 10 4 4 4 0\n"
              "p 1 2 20 20 20 0 1 20 6 6 6 0\n"
              "r \"b\" \"/t\" 2\n"
              "p 2 1 30 30 30 0 1 30 30 30 30 0\n");
    struct complexity_options o;
    complexity_options_init(&o);
    o.min_points = 1;
    struct complexity c;
    struct tally_error err;
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), 0);
    assert_int_equal(c.program_total, 4 + 6 + 30);
    assert_true(fabs(by_name(&c, "a")->share - 75.0) < 1e-12);
    /* a: 2 sizes (too few for the power model), b: 1 size */
    assert_int_equal(by_name(&c, "a")->power.status, FIT_TOO_FEW);
    assert_int_equal(by_name(&c, "b")->power.status, FIT_TOO_FEW);
    /* not fitted: ranked by total cost */
    static const char *const order[] = {"a", "b"};
    ranking_is(&c, order, 2);
    complexity_release(&c);
    isprof_release(&ip);
}

/* Calls adding up beyond 2^64 are an error, not a wrap. */
static void test_overflow(void **state)
{
    (void)state;
    struct isprof ip;
    load(&ip, "v 4\nr \"a\" \"/t\" 1\n"
              "p 1 1 1 1 9223372036854775808 0 9223372036854775808 0 0 0 0 0\n"
              "p 1 2 1 1 9223372036854775808 0 9223372036854775808 0 0 0 0 0\n");
    struct complexity_options o;
    complexity_options_init(&o);
    struct complexity c;
    struct tally_error err;
    tally_error_clear(&err);
    assert_int_equal(complexity_analyse(&ip, &o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "overflows"));
    complexity_release(&c);
    isprof_release(&ip);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_and_totals), cmocka_unit_test(test_ranking_and_filters),
        cmocka_unit_test(test_ranking_unclear),   cmocka_unit_test(test_total_without_k),
        cmocka_unit_test(test_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
