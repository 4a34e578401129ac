/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for analysis/fitcheck: which data get a complexity class and
 * which get "no clear class" with a reason. Every case is generated from a
 * function whose growth is known (stated beside it), so each expected
 * class or reason follows from how the data were made, not from a run of
 * the code:
 *
 *  - each class, exact and with multiplicative noise of 1%, 5% and 10%,
 *    with a constant term, on geometric and arithmetic sizes;
 *  - two and three clusters (bands a constant factor apart, two curves that
 *    meet, a jump at some size), against one curve with a kink (no cluster);
 *  - too few sizes, a narrow range of sizes, negative growth, exponents
 *    between classes or beyond n^3, poor fits and patterned residuals;
 *  - the constant against log n: a constant never gets log n, whatever
 *    exponent the power model finds, and log n data get log n.
 */
#include "testutil.h"

#include <math.h>

#include "analysis/fit.h"
#include "analysis/fitcheck.h"

#define MAXPTS 64

/* Deterministic noise in [-amp, amp] (an LCG, so runs are repeatable). */
static double noise(unsigned *seed, double amp)
{
    *seed = *seed * 1103515245u + 12345u;
    double u = (double)((*seed >> 8) & 0xffffff) / (double)0xffffff;
    return amp * (2.0 * u - 1.0);
}

/* 30 sizes: 2, 3, 4, ... growing by 1.3x each (about 2 to 4,000: a factor 2,000). */
static size_t sizes_geometric(double *x)
{
    double v = 2;
    for (size_t i = 0; i < 30; i++, v *= 1.3)
        x[i] = i && floor(v) <= x[i - 1] ? x[i - 1] + 1 : floor(v);
    return 30;
}

/* 30 sizes 16, 41, ..., 741 (a factor 46), as a loop over n gives. */
static size_t sizes_linear(double *x)
{
    for (size_t i = 0; i < 30; i++)
        x[i] = 16 + 25 * (double)i;
    return 30;
}

typedef double (*fn)(double);

/* Every class with a constant term, scaled so that the growth is a few times the constant. */
static double g_const(double n)
{
    (void)n;
    return 500;
}
static double g_log(double n)
{
    return 50 + 40 * log(n);
}
static double g_lin(double n)
{
    return 200 + 7 * n;
}
static double g_nlogn(double n)
{
    return 200 + 3 * n * log(n);
}
static double g_sq(double n)
{
    return 200 + 0.5 * n * n;
}
static double g_cube(double n)
{
    return 200 + 0.01 * n * n * n;
}

static const struct {
    fn f;
    enum fit_class cls;
} classes[] = {
    {g_const, FIT_CLASS_1},     {g_log, FIT_CLASS_LOG}, {g_lin, FIT_CLASS_N},
    {g_nlogn, FIT_CLASS_NLOGN}, {g_sq, FIT_CLASS_N2},   {g_cube, FIT_CLASS_N3},
};

/* Fit and judge n points. */
static void judge(const double *x, const double *y, size_t n, struct fitcheck *v)
{
    struct fit_power p;
    struct fit_classes k;
    fit_power(x, y, n, &p);
    fit_classes(x, y, n, &k);
    fitcheck_judge(x, y, n, &p, &k, v);
}

static const char *label(const struct fitcheck *v)
{
    static char buf[128];
    return fitcheck_label(v, buf, sizeof(buf));
}

static void expect_class(const double *x, const double *y, size_t n, enum fit_class cls,
                         const char *what)
{
    struct fitcheck v;
    judge(x, y, n, &v);
    if (v.why != FITCHECK_CLASS || v.cls != cls)
        fail_msg("%s: got '%s' (c %.3f, R^2 %.4f, error %.4f, runs z %.2f), want class %s", what,
                 label(&v), v.c, v.r2, v.rel_err, v.runs_z, fit_class_name(cls));
}

static void expect_why(const double *x, const double *y, size_t n, enum fitcheck_why why,
                       const char *reason, const char *what)
{
    struct fitcheck v;
    judge(x, y, n, &v);
    char buf[128];
    fitcheck_reason(&v, buf, sizeof(buf));
    if (v.why != why || (reason && strcmp(buf, reason) != 0))
        fail_msg("%s: got '%s' (c %.3f, R^2 %.4f, error %.4f), want reason %d '%s'", what,
                 label(&v), v.c, v.r2, v.rel_err, why, reason ? reason : "");
}

/* g(x) of each class, written out here rather than taken from fit.c. */
static double class_g(enum fit_class k, double x)
{
    static const double one = 1;
    switch (k) {
    case FIT_CLASS_LOG:
        return log(x);
    case FIT_CLASS_N:
        return x;
    case FIT_CLASS_NLOGN:
        return x * log(x);
    case FIT_CLASS_N2:
        return x * x;
    case FIT_CLASS_N3:
        return x * x * x;
    default:
        return one;
    }
}

/* What the least-squares line a + b g(x) leaves of f at the points (RSS). */
static double misfit(const double *x, size_t n, fn f, enum fit_class k)
{
    double mg = 0, mf = 0, sgg = 0, sgf = 0, rss = 0;
    for (size_t i = 0; i < n; i++) {
        mg += class_g(k, x[i]) / (double)n;
        mf += f(x[i]) / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sgg += (class_g(k, x[i]) - mg) * (class_g(k, x[i]) - mg);
        sgf += (class_g(k, x[i]) - mg) * (f(x[i]) - mf);
    }
    double b = sgg > 0 ? sgf / sgg : 0;
    for (size_t i = 0; i < n; i++) {
        double r = f(x[i]) - mf - b * (class_g(k, x[i]) - mg);
        rss += r * r;
    }
    return rss;
}

/*
 * Each class, exact and noisy, on both spreads of sizes. The noise is
 * multiplicative (each cost times 1 + u, u uniform in [-amp, amp]: a
 * variance of amp^2 f^2 / 3 at each point); three seeds each. From f and
 * amp alone, before any fit:
 *
 *  - R^2: the variance of f over the points against that plus the noise's.
 *  - The BIC margin of the true class over each other class j: the noise
 *    leaves an RSS of about N = sum amp^2 f^2 / 3 to the true class and N
 *    plus j's misfit of the exact f to j, so the margin is about
 *    m ln(1 + misfit / N) (less ln m for the parameter class 1 lacks).
 *    A simpler class within the tie would be chosen instead, a steeper one
 *    would make the class tied ("n or n log n"). A constant has no steeper
 *    rival: growing classes that fit noise no better than the mean are
 *    not chosen over it.
 *
 * The class is expected when R^2 >= 0.95 (safely above FITCHECK_MIN_R2)
 * and every margin is at least 6 (three times FITCHECK_BIC_TIE). The cases
 * that are not are left out (poor fits and ties have their own tests) and
 * printed: under 10% noise on sizes 16 to 741, log n (its rise is small
 * against its level: R^2 about 0.84), n and n log n (the best line misses
 * n ln n there by about 2% of its rise: margins under 6 against each other).
 */
static void test_each_class(void **state)
{
    (void)state;
    static const double amps[] = {0, 0.01, 0.05, 0.10};
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    char what[160];
    int nclass = 0, nskip = 0;
    for (int geo = 0; geo <= 1; geo++) {
        size_t n = geo ? sizes_geometric(x) : sizes_linear(x);
        for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
            enum fit_class cls = classes[c].cls;
            fn f = classes[c].f;
            for (size_t a = 0; a < sizeof(amps) / sizeof(amps[0]); a++) {
                double mean = 0, var = 0, nv = 0;
                for (size_t i = 0; i < n; i++)
                    mean += f(x[i]) / (double)n;
                for (size_t i = 0; i < n; i++) {
                    var += (f(x[i]) - mean) * (f(x[i]) - mean);
                    nv += amps[a] * amps[a] * f(x[i]) * f(x[i]) / 3;
                }
                double r2 = cls == FIT_CLASS_1 ? 1 : var / (var + nv), margin = INFINITY;
                for (int j = 0; j < FIT_NCLASSES && nv > 0; j++) {
                    if (j == (int)cls || (cls == FIT_CLASS_1 && j > 0)) continue;
                    double mis = j == FIT_CLASS_1 ? var : misfit(x, n, f, (enum fit_class)j);
                    double extra = j == FIT_CLASS_1 ? log((double)n) : 0;
                    margin = fmin(margin, (double)n * log(1 + mis / nv) - extra);
                }
                if (r2 < 0.95 || margin < 6) {
                    print_message("left out: %s, noise %g%%, %s sizes (R^2 %.3f, margin %.1f)\n",
                                  fit_class_name(cls), 100 * amps[a],
                                  geo ? "geometric" : "arithmetic", r2, margin);
                    nskip++;
                    continue;
                }
                for (unsigned seed = 1; seed <= (amps[a] > 0 ? 3u : 1u); seed++) {
                    unsigned s = seed * 7919u;
                    for (size_t i = 0; i < n; i++)
                        y[i] = f(x[i]) * (1 + noise(&s, amps[a]));
                    snprintf(what, sizeof(what),
                             "%s, noise %g%%, seed %u, %s sizes (R^2 %.3f, margin %.1f)",
                             fit_class_name(cls), 100 * amps[a], seed,
                             geo ? "geometric" : "arithmetic", r2, margin);
                    expect_class(x, y, n, cls, what);
                    nclass++;
                }
            }
        }
    }
    /* 2 spreads x 6 classes x (1 exact + 3 noise levels x 3 seeds) = 120 checks; only the three
       cases named above may be left out (3 checks each) */
    if (nskip > 3 || nclass != 120 - 3 * nskip) fail_msg("%d checks, %d left out", nclass, nskip);
}

/*
 * A constant is "1", never "log n", whatever the power model's exponent
 * (which noise around a constant leaves anywhere); a bump at the smallest
 * sizes that levels off is no log n either (the power model, with a
 * negative exponent, fits it better than the log model does).
 */
static void test_constant_not_log(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    size_t n = sizes_geometric(x);
    for (unsigned seed = 1; seed <= 20; seed++) {
        unsigned s = seed;
        for (size_t i = 0; i < n; i++)
            y[i] = 1000 * (1 + noise(&s, 0.05));
        char what[64];
        snprintf(what, sizeof(what), "constant with 5%% noise, seed %u", seed);
        expect_class(x, y, n, FIT_CLASS_1, what);
    }
    /* every cost equal */
    for (size_t i = 0; i < n; i++)
        y[i] = 42;
    expect_class(x, y, n, FIT_CLASS_1, "every cost equal");
    /* 1000 - 800/n: rises at the first sizes, then flat; no log n */
    for (size_t i = 0; i < n; i++)
        y[i] = 1000 - 800 / x[i];
    struct fitcheck v;
    judge(x, y, n, &v);
    if (v.why == FITCHECK_CLASS && v.cls == FIT_CLASS_LOG)
        fail_msg("levelling off: got log n (c %.3f)", v.c);
    expect_why(x, y, n, FITCHECK_DECREASING, "negative exponent (-1.00)", "1000 - 800/n");
    /* log n itself: the power model's exponent is near 0, and the log model wins */
    for (size_t i = 0; i < n; i++)
        y[i] = 12 + 9 * log2(x[i]);
    judge(x, y, n, &v);
    if (!(fabs(v.c) < 0.1)) fail_msg("log n: power exponent %.3f", v.c);
    expect_class(x, y, n, FIT_CLASS_LOG, "12 + 9 log2 n");
}

/*
 * Two clusters: the calls of some sizes cost about 3 or 5 times more (as
 * when they throw). The sizes that fall in the upper band follow a fixed
 * pattern, so every band has points across the whole range.
 */
static void test_clusters(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    size_t n = sizes_linear(x);
    struct fitcheck v;
    /* bands: n and 3n, every third size in the upper one; with 5% noise */
    unsigned s = 5;
    for (size_t i = 0; i < n; i++)
        y[i] = (i % 3 == 0 ? 3.0 : 1.0) * (100 + 10 * x[i]) * (1 + noise(&s, 0.05));
    expect_why(x, y, n, FITCHECK_CLUSTERS, "two clusters", "bands 3x apart");
    judge(x, y, n, &v);
    assert_int_equal(v.nclusters, 2);
    /* the bands are 3 times apart: the measured ratio within the noise */
    if (!(v.cluster_ratio > 2.5 && v.cluster_ratio < 3.6))
        fail_msg("bands 3x apart: ratio %.2f", v.cluster_ratio);
    assert_int_equal(v.cluster[0].npoints + v.cluster[1].npoints, n);
    assert_true(v.cluster[0].npoints == 10 || v.cluster[1].npoints == 10);

    /* two curves that draw together: 10n + 50 and 10n + 5000 (a throw costs 4,950) */
    n = sizes_geometric(x);
    for (size_t i = 0; i < n; i++)
        y[i] = 10 * x[i] + (i % 2 ? 5000 : 50);
    expect_why(x, y, n, FITCHECK_CLUSTERS, "two clusters", "10n + 50 and 10n + 5000");

    /* a jump: from size 200 every call throws (+ 3,000) */
    n = sizes_linear(x);
    for (size_t i = 0; i < n; i++)
        y[i] = 20 * x[i] + (x[i] >= 200 ? 3000 + 20 * x[i] : 0);
    expect_why(x, y, n, FITCHECK_CLUSTERS, "two clusters", "a jump at 200");

    /* three bands: 1, 4 and 16 times n^2 */
    for (size_t i = 0; i < n; i++)
        y[i] = pow(4, (double)(i % 3)) * x[i] * x[i];
    expect_why(x, y, n, FITCHECK_CLUSTERS, "three clusters", "bands 1, 4, 16");

    /* one curve whose slope changes (a + b n^3: flat, then steep) is one cluster, and n^3 */
    n = sizes_geometric(x);
    for (size_t i = 0; i < n; i++)
        y[i] = 1e9 + x[i] * x[i] * x[i];
    judge(x, y, n, &v);
    assert_int_equal(v.nclusters, 1);
    expect_class(x, y, n, FIT_CLASS_N3, "1e9 + n^3");

    /* bands only 20% apart are noise, not clusters (below FITCHECK_CLUSTER_RATIO) */
    n = sizes_linear(x);
    for (size_t i = 0; i < n; i++)
        y[i] = (i % 2 ? 1.2 : 1.0) * 10 * x[i];
    judge(x, y, n, &v);
    if (v.why == FITCHECK_CLUSTERS) fail_msg("bands 1.2x apart: %s", label(&v));
}

/* The RMS relative misfit of class k's least-squares line to f at the points. */
static double rms_misfit(const double *x, size_t n, fn f, enum fit_class k)
{
    double mg = 0, mf = 0, sgg = 0, sgf = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        mg += class_g(k, x[i]) / (double)n;
        mf += f(x[i]) / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sgg += (class_g(k, x[i]) - mg) * (class_g(k, x[i]) - mg);
        sgf += (class_g(k, x[i]) - mg) * (f(x[i]) - mf);
    }
    for (size_t i = 0; i < n; i++) {
        double r = (f(x[i]) - mf - sgf / sgg * (class_g(k, x[i]) - mg)) / f(x[i]);
        sum += r * r / (double)n;
    }
    return sqrt(sum);
}

static double g_lin_offset(double n)
{
    return 1000 + 10 * n;
}

/*
 * Two growing classes that both fit within FITCHECK_REL_FLOOR (1% RMS) are
 * tied. 1000 + 10n on sizes 100 to 300 is n, and n log n's least-squares
 * line misses it by under 1% RMS there (so its relative refit, which
 * minimises that very misfit, does too), while log n and n^2 miss by over
 * 3% (the test checks these facts about the data first). So: "n or n log
 * n". Over 10 to 10,000 n log n misses by far more, and the class is n.
 */
static void test_tied(void **state)
{
    (void)state;
    double x[11], y[11];
    for (size_t i = 0; i < 11; i++) {
        x[i] = 100 + 20 * (double)i;
        y[i] = g_lin_offset(x[i]);
    }
    double nlogn = rms_misfit(x, 11, g_lin_offset, FIT_CLASS_NLOGN);
    double lg = rms_misfit(x, 11, g_lin_offset, FIT_CLASS_LOG);
    double sq = rms_misfit(x, 11, g_lin_offset, FIT_CLASS_N2);
    if (!(nlogn < 0.01 && lg > 0.03 && sq > 0.03))
        fail_msg("the data: n log n misses by %.4f, log n by %.4f, n^2 by %.4f", nlogn, lg, sq);
    expect_why(x, y, 11, FITCHECK_TIED, "n or n log n", "1000 + 10n on 100 to 300");
    for (size_t i = 0; i < 11; i++) {
        x[i] = round(10 * pow(10, 0.3 * (double)i));
        y[i] = g_lin_offset(x[i]);
    }
    if (!(rms_misfit(x, 11, g_lin_offset, FIT_CLASS_NLOGN) > 0.05)) fail_msg("n log n fits");
    expect_class(x, y, 11, FIT_CLASS_N, "1000 + 10n on 10 to 10,000");
}

/*
 * Many sizes: the searches work on a sample (fitcheck.c, SAMPLE_MAX 8,192
 * points: one of every 3 of these 20,000), which must not miss bands that
 * alternate with the same period, and every point is counted in its
 * cluster. Sizes 1..20,000, cost 50 + 20 ln n with 2% noise, three times
 * as much at every third size: two clusters of 6,667 and 13,333 sizes,
 * 3 times apart; without the bands, log n.
 */
static void test_many_sizes(void **state)
{
    (void)state;
    enum { N = 20000 };
    double *x = malloc(N * sizeof(*x)), *y = malloc(N * sizeof(*y));
    unsigned s = 99;
    for (size_t i = 0; i < N; i++) {
        x[i] = (double)(i + 1);
        y[i] = (50 + 20 * log(x[i])) * (1 + noise(&s, 0.02)) * (i % 3 == 0 ? 3 : 1);
    }
    struct fitcheck v;
    judge(x, y, N, &v);
    if (v.why != FITCHECK_CLUSTERS || v.nclusters != 2)
        fail_msg("20,000 sizes in bands: %s", label(&v));
    assert_int_equal(v.cluster[0].npoints, 13333);
    assert_int_equal(v.cluster[1].npoints, 6667);
    assert_true(fabs(v.cluster_ratio - 3) < 0.1);
    for (size_t i = 0; i < N; i += 3)
        y[i] /= 3;
    expect_class(x, y, N, FIT_CLASS_LOG, "20,000 sizes of log n");
    free(x);
    free(y);
}

/* Too few sizes, and sizes over too narrow a range. */
static void test_sizes(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    /* 4 sizes of an exact n^2: one short of FITCHECK_MIN_SIZES */
    for (size_t i = 0; i < 4; i++) {
        x[i] = 10 * (double)(i + 1);
        y[i] = x[i] * x[i];
    }
    expect_why(x, y, 4, FITCHECK_TOO_FEW, "too few sizes (4)", "4 sizes");
    /* sizes 0 and 1 are one size (0 counts as 1): 5 points, 4 sizes */
    double x0[] = {0, 1, 2, 3, 4}, y0[] = {1, 1, 4, 9, 16};
    expect_why(x0, y0, 5, FITCHECK_TOO_FEW, "too few sizes (4)", "0 and 1 are one size");
    /* 5 sizes: enough */
    x[4] = 50;
    y[4] = 2500;
    expect_class(x, y, 5, FIT_CLASS_N2, "5 sizes of n^2");
    /* an exact n^3 on sizes 100 to 150: a factor 1.5, under FITCHECK_MIN_RANGE */
    for (size_t i = 0; i < 11; i++) {
        x[i] = 100 + 5 * (double)i;
        y[i] = x[i] * x[i] * x[i];
    }
    expect_why(x, y, 11, FITCHECK_NARROW, "n range too narrow (100 to 150)", "100 to 150");
    /* the same with one stray size at 1: the range without the ends is still 105 to 145 */
    x[0] = 1;
    y[0] = 1;
    expect_why(x, y, 11, FITCHECK_NARROW, "n range too narrow (105 to 145 without its ends)",
               "1, then 105 to 150");
}

/* Costs that fall as n grows. */
static void test_negative(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    size_t n = sizes_geometric(x);
    /* 100 + 1000/n: exponent -1 */
    for (size_t i = 0; i < n; i++)
        y[i] = 100 + 1000 / x[i];
    expect_why(x, y, n, FITCHECK_DECREASING, "negative exponent (-1.00)", "100 + 1000/n");
    /* 100 + 1000/sqrt(n) with 2% noise: exponent -0.5 */
    unsigned s = 3;
    for (size_t i = 0; i < n; i++)
        y[i] = (100 + 1000 / sqrt(x[i])) * (1 + noise(&s, 0.02));
    struct fitcheck v;
    judge(x, y, n, &v);
    if (v.why != FITCHECK_DECREASING || fabs(v.c + 0.5) > 0.1 || fabs(v.rel_c + 0.5) > 0.1)
        fail_msg("100 + 1000/sqrt(n): %s (c %.3f, relative %.3f)", label(&v), v.c, v.rel_c);
    /* 60 - 10n on 6 sizes: the exponent is 1 but b < 0 */
    double xd[] = {1, 2, 3, 4, 5, 6}, yd[] = {60, 50, 40, 30, 20, 10};
    expect_why(xd, yd, 6, FITCHECK_DECREASING, "decreasing cost", "60 - 10n");
}

/* Growth that no class describes. */
static void test_no_class_fits(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    size_t n = sizes_geometric(x);
    /* n^1.5 and n^0.5, exact: between classes */
    for (size_t i = 0; i < n; i++)
        y[i] = 100 + 2 * pow(x[i], 1.5);
    expect_why(x, y, n, FITCHECK_BETWEEN, "exponent 1.50 between classes", "n^1.5");
    for (size_t i = 0; i < n; i++)
        y[i] = 100 + 50 * sqrt(x[i]);
    expect_why(x, y, n, FITCHECK_BETWEEN, "exponent 0.50 between classes", "n^0.5");
    /* n^5: beyond n^3 */
    n = sizes_linear(x);
    for (size_t i = 0; i < n; i++)
        y[i] = 1000 + pow(x[i] / 100, 5);
    expect_why(x, y, n, FITCHECK_STEEP, "exponent 5.00 beyond n^3", "n^5");
}

/* Fits that are poor, by R^2, by relative error, or by a pattern in the residuals. */
static void test_poor_fits(void **state)
{
    (void)state;
    double x[MAXPTS] = {0}, y[MAXPTS] = {0};
    size_t n = sizes_linear(x);
    unsigned s = 17;
    /* a linear trend under uniform noise of +-80% of the trend's mean: R^2 well below 0.9
       (the variance of the noise is about twice that of the trend) */
    for (size_t i = 0; i < n; i++)
        y[i] = 10 * x[i] + 3800 * noise(&s, 0.8) + 5000;
    struct fitcheck v;
    judge(x, y, n, &v);
    if (v.why != FITCHECK_POOR_R2) fail_msg("noisy trend: %s (R^2 %.3f)", label(&v), v.r2);
    /* a constant with +-60% uniform scatter: no trend, but an error of about 35% */
    for (size_t i = 0; i < n; i++)
        y[i] = 1000 * (1 + noise(&s, 0.6));
    judge(x, y, n, &v);
    if (v.why != FITCHECK_POOR_ERROR) fail_msg("scattered constant: %s", label(&v));
    /* and with +-30%: an error of about 17% (30% / sqrt(3)), too much for a constant
       (FITCHECK_MAX_FLAT_ERR, 10%) */
    for (size_t i = 0; i < n; i++)
        y[i] = 1000 * (1 + noise(&s, 0.3));
    judge(x, y, n, &v);
    if (v.why != FITCHECK_POOR_ERROR || !(v.rel_err > 0.12 && v.rel_err < 0.22))
        fail_msg("constant +-30%%: %s (error %.3f)", label(&v), v.rel_err);
    /* n^2 with a slow wave of +-25% (two periods over the sizes): R^2 high, but the
       residuals come in long runs of one sign (about 4 runs where 16 are expected), and
       no smooth model takes up two whole periods, so the relative error stays near the
       wave's RMS, 25% / sqrt(2) = 18%: above FITCHECK_PATTERN_ERR (10%), below
       FITCHECK_MAX_REL_ERR (25%). The wave's top and bottom are 1.25 / 0.75 = 1.7 times
       apart, but it passes smoothly from one to the other: no clusters */
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * x[i] * (1 + 0.25 * sin(4 * M_PI * (double)i / (double)n));
    judge(x, y, n, &v);
    if (v.why != FITCHECK_POOR_PATTERN)
        fail_msg("wavy n^2: %s (runs z %.2f, error %.3f)", label(&v), v.runs_z, v.rel_err);
}

static void test_text(void **state)
{
    (void)state;
    struct fitcheck v;
    memset(&v, 0, sizeof(v));
    char buf[128];
    v.why = FITCHECK_CLASS;
    v.cls = FIT_CLASS_NLOGN;
    assert_string_equal(fitcheck_label(&v, buf, sizeof(buf)), "n log n");
    assert_string_equal(fitcheck_reason(&v, buf, sizeof(buf)), "");
    v.why = FITCHECK_POOR_R2;
    v.r2 = 0.714;
    assert_string_equal(fitcheck_label(&v, buf, sizeof(buf)),
                        "no clear class: poor fit (R^2 0.71)");
    v.why = FITCHECK_CLUSTERS;
    v.nclusters = 2;
    assert_string_equal(fitcheck_reason(&v, buf, sizeof(buf)), "two clusters");
    v.why = FITCHECK_BAD_DATA;
    assert_string_equal(fitcheck_reason(&v, buf, sizeof(buf)), "not fitted (bad data)");
    assert_string_equal(fitcheck_count_word(3), "three");
    assert_string_equal(fitcheck_count_word(99), "many");
    /* no points, and non-finite values */
    double x[] = {1, 2, NAN, 4, 5, 6}, y[] = {1, 2, 3, 4, 5, 6};
    judge(x, y, 0, &v);
    assert_int_equal(v.why, FITCHECK_TOO_FEW);
    assert_int_equal(v.nclusters, 0);
    judge(x, y, 6, &v);
    assert_int_equal(v.why, FITCHECK_BAD_DATA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_class),    cmocka_unit_test(test_constant_not_log),
        cmocka_unit_test(test_clusters),      cmocka_unit_test(test_many_sizes),
        cmocka_unit_test(test_sizes),         cmocka_unit_test(test_negative),
        cmocka_unit_test(test_no_class_fits), cmocka_unit_test(test_poor_fits),
        cmocka_unit_test(test_tied),          cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
