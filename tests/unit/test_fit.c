/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for analysis/fit: cost = a + b * n^c by Levenberg-Marquardt
 * and the choice of a complexity class, on synthetic data from known
 * functions (with and without noise) and on degenerate data.
 */
#include "testutil.h"

#include <math.h>

#include "analysis/fit.h"

#define NPTS 40

/* Deterministic noise in [-amp, amp] (a small LCG, so runs are repeatable). */
static double noise(unsigned *seed, double amp)
{
    *seed = *seed * 1103515245u + 12345u;
    double u = (double)((*seed >> 8) & 0xffffff) / (double)0xffffff; /* [0, 1] */
    return amp * (2.0 * u - 1.0);
}

/* Sizes: a geometric spread from 1 to about 10^5 (as input sizes often are). */
static void sizes_geometric(double *x)
{
    for (int i = 0; i < NPTS; i++)
        x[i] = floor(pow(1.34, i));
    /* floor makes the first few equal: spread them */
    for (int i = 1; i < NPTS; i++)
        if (x[i] <= x[i - 1]) x[i] = x[i - 1] + 1;
}

/* Sizes: an arithmetic spread 16, 41, ..., as a loop over n gives. */
static void sizes_linear(double *x)
{
    for (int i = 0; i < NPTS; i++)
        x[i] = 16 + 25 * i;
}

typedef double (*fn)(double);
static double f_sqrt(double n)
{
    return 100 + 3 * pow(n, 0.5);
}
static double f_lin(double n)
{
    return 100 + 3 * n;
}
static double f_n15(double n)
{
    return 100 + 3 * pow(n, 1.5);
}
static double f_sq(double n)
{
    return 100 + 3 * n * n;
}
static double f_cube(double n)
{
    return 100 + 3 * n * n * n;
}
static double f_log(double n)
{
    return 50 + 20 * log(n);
}
static double f_nlogn(double n)
{
    return 5 + 2 * n * log(n);
}

/* y[i] = f(x[i]) * (1 + noise) */
static void make(const double *x, double *y, fn f, double amp, unsigned seed)
{
    for (int i = 0; i < NPTS; i++)
        y[i] = f(x[i]) * (1.0 + noise(&seed, amp));
}

struct powcase {
    fn f;
    double c;
    int cls; /* expected class, or -1 when the exponent has none */
};
static const struct powcase powcases[] = {
    {f_sqrt, 0.5, -1},         {f_lin, 1.0, FIT_CLASS_N},   {f_n15, 1.5, -1},
    {f_sq, 2.0, FIT_CLASS_N2}, {f_cube, 3.0, FIT_CLASS_N3},
};

static void check_power(fn f, double want_c, int cls, double amp, int geometric, double tol)
{
    double x[NPTS], y[NPTS];
    if (geometric)
        sizes_geometric(x);
    else
        sizes_linear(x);
    make(x, y, f, amp, 7u);
    struct fit_power p;
    fit_power(x, y, NPTS, &p);
    if (p.status != FIT_OK) fail_msg("c=%g: status %d", want_c, p.status);
    if (fabs(p.c - want_c) > tol)
        fail_msg("c=%g noise=%g geo=%d: got a=%g b=%g c=%g r2=%g", want_c, amp, geometric, p.a, p.b,
                 p.c, p.r2);
    if (amp == 0 && p.r2 < 0.999999) fail_msg("c=%g: R^2 %g", want_c, p.r2);
    if (amp > 0 && p.r2 < 0.95) fail_msg("c=%g noisy: R^2 %g", want_c, p.r2);
    if (cls >= 0) {
        struct fit_classes k;
        fit_classes(x, y, NPTS, &k);
        assert_int_equal(k.status, FIT_OK);
        if ((int)k.best != cls)
            fail_msg("c=%g noise=%g geo=%d: class %s, want %s", want_c, amp, geometric,
                     fit_class_name(k.best), fit_class_name(cls));
    }
}

static void test_power_exact(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(powcases) / sizeof(powcases[0]); i++) {
        check_power(powcases[i].f, powcases[i].c, powcases[i].cls, 0.0, 1, 1e-3);
        check_power(powcases[i].f, powcases[i].c, powcases[i].cls, 0.0, 0, 1e-3);
    }
}

static void test_power_exact_parameters(void **state)
{
    (void)state;
    double x[NPTS], y[NPTS];
    sizes_linear(x);
    make(x, y, f_sq, 0.0, 1u);
    struct fit_power p;
    fit_power(x, y, NPTS, &p);
    assert_int_equal(p.status, FIT_OK);
    assert_true(fabs(p.a - 100) < 0.5);
    assert_true(fabs(p.b - 3) < 1e-3);
    assert_true(fabs(p.c - 2) < 1e-5);
    assert_true(fabs(fit_power_eval(&p, 1000) - f_sq(1000)) < 1e-3 * f_sq(1000));
    assert_true(p.iterations > 0 && p.iterations < 3 * 400);
}

static void test_power_noisy(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(powcases) / sizeof(powcases[0]); i++) {
        check_power(powcases[i].f, powcases[i].c, powcases[i].cls, 0.05, 1, 0.1);
        check_power(powcases[i].f, powcases[i].c, powcases[i].cls, 0.05, 0, 0.1);
    }
}

static void test_log_and_nlogn(void **state)
{
    (void)state;
    double x[NPTS], y[NPTS];
    for (int geo = 0; geo <= 1; geo++) {
        for (int noisy = 0; noisy <= 1; noisy++) {
            if (geo)
                sizes_geometric(x);
            else
                sizes_linear(x);
            struct fit_power p;
            struct fit_classes k;

            make(x, y, f_log, noisy ? 0.03 : 0.0, 3u);
            fit_classes(x, y, NPTS, &k);
            if (k.best != FIT_CLASS_LOG)
                fail_msg("log n (geo %d noisy %d): class %s", geo, noisy, fit_class_name(k.best));
            fit_power(x, y, NPTS, &p);
            /* a + b n^c tends to log n as c -> 0 */
            if (p.status != FIT_OK || fabs(p.c) > 0.1)
                fail_msg("log n (geo %d noisy %d): c = %g", geo, noisy, p.c);

            make(x, y, f_nlogn, noisy ? 0.03 : 0.0, 5u);
            fit_classes(x, y, NPTS, &k);
            if (k.best != FIT_CLASS_NLOGN)
                fail_msg("n log n (geo %d noisy %d): class %s", geo, noisy, fit_class_name(k.best));
            fit_power(x, y, NPTS, &p);
            /* the local exponent of n log n is 1 + 1/ln n: between 1 and 1.25 here */
            if (p.status != FIT_OK || p.c < 1.0 || p.c > 1.25)
                fail_msg("n log n (geo %d noisy %d): c = %g", geo, noisy, p.c);
        }
    }
}

static void test_constant_with_noise(void **state)
{
    (void)state;
    double x[NPTS], y[NPTS];
    sizes_linear(x);
    unsigned seed = 11u;
    for (int i = 0; i < NPTS; i++)
        y[i] = 500 + noise(&seed, 5);
    struct fit_classes k;
    fit_classes(x, y, NPTS, &k);
    assert_int_equal(k.status, FIT_OK);
    if (k.best != FIT_CLASS_1) fail_msg("noisy constant: class %s", fit_class_name(k.best));
    assert_true(fabs(k.fit[FIT_CLASS_1].a - 500) < 2);
}

static void test_decreasing(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4, 5, 6}, y[] = {60, 50, 40, 30, 20, 10};
    struct fit_classes k;
    fit_classes(x, y, 6, &k);
    assert_int_equal(k.status, FIT_OK);
    assert_int_equal(k.best, FIT_CLASS_1); /* no growth class may have b < 0 */
    assert_false(k.fit[FIT_CLASS_N].valid);
    struct fit_power p;
    fit_power(x, y, 6, &p);
    assert_int_equal(p.status, FIT_OK);
    assert_true(p.r2 > 0.999);
    assert_true(fabs(fit_power_eval(&p, 3) - 40) < 0.1);
}

static void test_degenerate(void **state)
{
    (void)state;
    struct fit_power p;
    struct fit_classes k;
    double x1[] = {10}, y1[] = {42};
    /* no points */
    fit_power(x1, y1, 0, &p);
    assert_int_equal(p.status, FIT_TOO_FEW);
    assert_true(isnan(p.r2));
    fit_classes(x1, y1, 0, &k);
    assert_int_equal(k.status, FIT_TOO_FEW);
    /* one point: nothing can be said */
    fit_power(x1, y1, 1, &p);
    assert_int_equal(p.status, FIT_TOO_FEW);
    fit_classes(x1, y1, 1, &k);
    assert_int_equal(k.status, FIT_TOO_FEW);
    assert_int_equal(k.best, FIT_CLASS_1);
    /* all equal */
    double xe[] = {1, 2, 3, 4, 5}, ye[] = {7, 7, 7, 7, 7};
    fit_power(xe, ye, 5, &p);
    assert_int_equal(p.status, FIT_CONSTANT);
    assert_true(p.a == 7 && p.b == 0 && p.c == 0 && p.r2 == 1);
    fit_classes(xe, ye, 5, &k);
    assert_int_equal(k.status, FIT_CONSTANT);
    assert_int_equal(k.best, FIT_CLASS_1);
    assert_true(k.fit[FIT_CLASS_1].a == 7);
    /* all zero; sizes 0 and 1 are the same size (0 counts as 1) */
    double xz[] = {0, 1, 2}, yz[] = {0, 0, 0};
    fit_power(xz, yz, 3, &p);
    assert_int_equal(p.status, FIT_CONSTANT);
    assert_true(p.a == 0 && fit_power_eval(&p, 0) == 0);
    double xz1[] = {0, 1, 0};
    fit_power(xz1, yz, 3, &p);
    assert_int_equal(p.status, FIT_TOO_FEW);
    /* two distinct sizes: too few for three parameters, enough for a class */
    double x2[] = {1, 1, 4, 4}, y2[] = {1, 2, 8, 9};
    fit_power(x2, y2, 4, &p);
    assert_int_equal(p.status, FIT_TOO_FEW);
    fit_classes(x2, y2, 4, &k);
    assert_int_equal(k.status, FIT_OK);
    /* same size, different costs */
    double xs[] = {3, 3, 3}, ys[] = {1, 2, 3};
    fit_classes(xs, ys, 3, &k);
    assert_int_equal(k.status, FIT_TOO_FEW);
    /* non-finite values */
    double xn[] = {1, 2, NAN, 4}, yn[] = {1, 2, 3, 4}, yi[] = {1, INFINITY, 3, 4};
    fit_power(xn, yn, 4, &p);
    assert_int_equal(p.status, FIT_BAD_DATA);
    fit_power(yn, yi, 4, &p);
    assert_int_equal(p.status, FIT_BAD_DATA);
    fit_classes(yn, yi, 4, &k);
    assert_int_equal(k.status, FIT_BAD_DATA);
    /* extreme range: overflows to infinity when subtracted */
    double xr[] = {1, 2, 3}, yr[] = {-1e308, 0, 1e308};
    fit_power(xr, yr, 3, &p);
    assert_int_equal(p.status, FIT_BAD_DATA);
}

/* Size 0 is taken as 1: the fit of zeros and ones must equal the fit of ones. */
static void test_zero_size(void **state)
{
    (void)state;
    double x0[] = {0, 2, 3, 4, 5, 6}, x1[] = {1, 2, 3, 4, 5, 6};
    double y[] = {1, 4, 9, 16, 25, 36};
    struct fit_power p0, p1;
    fit_power(x0, y, 6, &p0);
    fit_power(x1, y, 6, &p1);
    assert_int_equal(p0.status, FIT_OK);
    assert_true(p0.a == p1.a && p0.b == p1.b && p0.c == p1.c);
    assert_true(fabs(p0.c - 2) < 1e-4);
}

/* Costs near 2^64 and sizes near 2^40 fit as well as small ones. */
static void test_huge_values(void **state)
{
    (void)state;
    double x[NPTS], y[NPTS];
    for (int i = 0; i < NPTS; i++) {
        x[i] = 1e10 + 2.5e10 * i;
        y[i] = 1e18 + 3e-3 * pow(x[i], 1.5);
    }
    struct fit_power p;
    fit_power(x, y, NPTS, &p);
    assert_int_equal(p.status, FIT_OK);
    if (fabs(p.c - 1.5) > 1e-3) fail_msg("huge: c = %g", p.c);
    /* a tiny rise on a huge offset */
    for (int i = 0; i < NPTS; i++) {
        x[i] = 1 + i;
        y[i] = 1.8e19 + 4096.0 * x[i] * x[i];
    }
    fit_power(x, y, NPTS, &p);
    assert_int_equal(p.status, FIT_OK);
    if (fabs(p.c - 2) > 0.05) fail_msg("offset: c = %g", p.c);
    struct fit_classes k;
    fit_classes(x, y, NPTS, &k);
    assert_int_equal(k.best, FIT_CLASS_N2);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(fit_class_name(FIT_CLASS_1), "1");
    assert_string_equal(fit_class_name(FIT_CLASS_NLOGN), "n log n");
    assert_string_equal(fit_class_name(FIT_CLASS_N3), "n^3");
    assert_string_equal(fit_class_name(FIT_NCLASSES), "?");
    assert_true(fit_class_g(FIT_CLASS_LOG, 0) == 0);
    assert_true(fit_class_g(FIT_CLASS_N2, 3) == 9);
    assert_true(fabs(fit_class_g(FIT_CLASS_NLOGN, M_E) - M_E) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_exact),         cmocka_unit_test(test_power_exact_parameters),
        cmocka_unit_test(test_power_noisy),         cmocka_unit_test(test_log_and_nlogn),
        cmocka_unit_test(test_constant_with_noise), cmocka_unit_test(test_decreasing),
        cmocka_unit_test(test_degenerate),          cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_huge_values),         cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
