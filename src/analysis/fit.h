/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fit.h - empirical growth models fitted to (input size, cost) points.
 *
 * Two fits over the same points (x[i], y[i]), i < n:
 *
 *   fit_power()   cost = a + b * x^c, by Levenberg-Marquardt least squares
 *                 (unit weights), with R^2 = 1 - RSS/TSS;
 *   fit_classes() cost = a + b * g(x) for each class g of enum fit_class,
 *                 by ordinary least squares, and the class that fits best
 *                 by the Bayesian information criterion with a tie-break
 *                 toward the simpler class (see docs/internals/complexity.md).
 *
 * Input sizes below 1 (in particular 0, an activation that read nothing)
 * are taken as 1, so that x^c and log x are defined. Points are used as
 * given: callers pass one point per distinct input size.
 *
 * Neither function fails (memory comes from xmalloc): degenerate data
 * (too few distinct sizes, all costs equal, non-finite values) gives a
 * result whose `status` says what happened. With a single distinct size
 * nothing is fitted (FIT_TOO_FEW), even when the costs are equal.
 * Everything is deterministic.
 */
#ifndef TALLY_FIT_H
#define TALLY_FIT_H

#include <stddef.h>

enum fit_status {
    FIT_OK = 0,   /* fitted */
    FIT_CONSTANT, /* every cost equal (two sizes or more): a = that cost, b = 0, c = 0, R^2 = 1 */
    FIT_TOO_FEW,  /* fewer distinct input sizes than needed (power: 3, classes: 2) */
    FIT_BAD_DATA, /* a non-finite x or y: not fitted */
    FIT_NO_CONVERGE, /* every start failed (should not happen): not fitted */
};

/* Exponents are kept within [FIT_C_MIN, FIT_C_MAX]. */
#define FIT_C_MIN (-2.0)
#define FIT_C_MAX 8.0

struct fit_power {
    enum fit_status status;
    double a, b, c;      /* the model; meaningful for FIT_OK and FIT_CONSTANT */
    double r2;           /* 1 - RSS/TSS; 1 for FIT_CONSTANT; NAN when not fitted */
    unsigned iterations; /* Levenberg-Marquardt steps taken (all starts) */
};

/* Fit cost = a + b * x^c. Never fails; see `status`. */
void fit_power(const double *x, const double *y, size_t n, struct fit_power *out);

/* a + b * x^c at x (x below 1 taken as 1). */
double fit_power_eval(const struct fit_power *f, double x);

/* The usual complexity classes, simplest first. */
enum fit_class {
    FIT_CLASS_1 = 0,
    FIT_CLASS_LOG,   /* log n */
    FIT_CLASS_N,     /* n */
    FIT_CLASS_NLOGN, /* n log n */
    FIT_CLASS_N2,    /* n^2 */
    FIT_CLASS_N3,    /* n^3 */
    FIT_NCLASSES
};

/* "1", "log n", "n", "n log n", "n^2", "n^3". */
const char *fit_class_name(enum fit_class k);
/* g(x) of the class (natural logarithm), x below 1 taken as 1. */
double fit_class_g(enum fit_class k, double x);

struct fit_class_fit {
    int valid;   /* 0: not fitted (g constant over the points, or b < 0) */
    double a, b; /* cost = a + b * g(x) */
    double r2;   /* 1 - RSS/TSS (0 for class 1) */
    double bic;  /* n ln(RSS/n) + k ln n, RSS floored, k = 1 or 2 */
};

struct fit_classes {
    enum fit_status status; /* FIT_OK, FIT_CONSTANT (class 1), FIT_TOO_FEW, FIT_BAD_DATA */
    enum fit_class best;    /* the chosen class (FIT_CLASS_1 unless FIT_OK) */
    struct fit_class_fit fit[FIT_NCLASSES];
};

/*
 * Fit every class and choose one. Needs two distinct input sizes
 * (FIT_TOO_FEW otherwise, with best = FIT_CLASS_1). Never fails.
 */
void fit_classes(const double *x, const double *y, size_t n, struct fit_classes *out);

#endif
