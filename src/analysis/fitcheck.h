/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fitcheck.h - whether the data of a routine support a complexity class:
 * the checks made before a class is given, and the reason when none is.
 *
 * fit_power() and fit_classes() (fit.h) always find a nearest model; this
 * module decides whether that model describes the points. In order:
 *
 *   1. enough distinct input sizes (FITCHECK_MIN_SIZES);
 *   2. the points form one group: two or more clusters (costs that differ
 *      by a factor of FITCHECK_CLUSTER_RATIO or more at similar sizes,
 *      such as calls that throw and calls that do not) have no one class;
 *   3. a wide enough range of sizes (FITCHECK_MIN_RANGE from the smallest
 *      to the largest size, and FITCHECK_MIN_RANGE_INNER from the second
 *      smallest to the second largest, so that one stray size does not
 *      make the range);
 *   4. a class that fits as well as the free exponent: the classes and
 *      the power model a + b n^c are compared by BIC, and the class is the
 *      simplest one within FITCHECK_BIC_TIE of the best of them all. So
 *      class 1 is chosen when no model explains significantly more than
 *      the mean (whatever the power fit's exponent), and log n only when
 *      the log model beats the mean and fits as well as the power model;
 *      when no class does, the reason says why (a negative exponent or a
 *      decreasing cost, an exponent beyond n^3, or one between classes).
 *      A growing class is given only when no other growing class is also
 *      within the tie (else "log n or n": the data cannot tell them apart);
 *   5. a good fit of the chosen model: R^2 at least FITCHECK_MIN_R2 (for a
 *      growing class), relative error at most FITCHECK_MAX_REL_ERR (for
 *      class 1, FITCHECK_MAX_FLAT_ERR), and no long runs of residuals of
 *      one sign (a runs test below FITCHECK_RUNS_Z with a relative error
 *      above FITCHECK_PATTERN_ERR).
 *
 * The details, and why these thresholds, are in docs/internals/complexity.md.
 * Nothing here fails or prints; memory comes from xmalloc.
 */
#ifndef TALLY_FITCHECK_H
#define TALLY_FITCHECK_H

#include <stddef.h>

#include "fit.h"

#define FITCHECK_MIN_SIZES 5         /* distinct input sizes for a class */
#define FITCHECK_MIN_RANGE 3.0       /* largest size / smallest size */
#define FITCHECK_MIN_RANGE_INNER 2.0 /* second largest / second smallest */
#define FITCHECK_BIC_TIE 2.0         /* BIC within this of the best: as good */
#define FITCHECK_REL_FLOOR 0.01      /* misfits below 1% of the cost count as exact */
#define FITCHECK_MIN_R2 0.9          /* R^2 of a growing class */
#define FITCHECK_MAX_REL_ERR 0.25    /* RMS relative error of the chosen model */
#define FITCHECK_MAX_FLAT_ERR 0.10   /* and of class 1: a constant is flat */
#define FITCHECK_RUNS_Z (-3.0)       /* runs test: fewer runs than this is a pattern... */
#define FITCHECK_PATTERN_ERR 0.10    /* ...when the relative error is above this */
#define FITCHECK_MAX_C 4.0           /* a power exponent beyond this is no class */
#define FITCHECK_CLUSTER_RATIO 1.5   /* clusters differ by this factor at similar sizes */
#define FITCHECK_CLUSTER_MIN 3       /* points of a cluster */
#define FITCHECK_MAX_CLUSTERS 4      /* counted up to */

enum fitcheck_why {
    FITCHECK_CLASS = 0,   /* the data support `cls` */
    FITCHECK_TOO_FEW,     /* fewer than FITCHECK_MIN_SIZES distinct sizes */
    FITCHECK_BAD_DATA,    /* not fitted (non-finite values) */
    FITCHECK_CLUSTERS,    /* two or more clusters */
    FITCHECK_NARROW,      /* the sizes span too narrow a range */
    FITCHECK_DECREASING,  /* the cost falls as n grows (negative exponent, or b < 0) */
    FITCHECK_STEEP,       /* the exponent is beyond FITCHECK_MAX_C */
    FITCHECK_BETWEEN,     /* the free exponent fits better than every class */
    FITCHECK_TIED,        /* two growing classes or more fit as well: tied_lo to tied_hi */
    FITCHECK_POOR_R2,     /* R^2 of the chosen model below FITCHECK_MIN_R2 */
    FITCHECK_POOR_ERROR,  /* relative error above FITCHECK_MAX_REL_ERR */
    FITCHECK_POOR_PATTERN /* residuals in long runs of one sign */
};

/* One cluster: its points, and cost = a + b n^c fitted to them in relative terms. */
struct fitcheck_cluster {
    size_t npoints;
    double nmin, nmax; /* its smallest and largest size (below 1 as 1) */
    double a, b, c;
};

struct fitcheck {
    enum fitcheck_why why;
    enum fit_class cls;          /* the class when why == FITCHECK_CLASS, else FIT_CLASS_1 */
    size_t nsizes;               /* distinct sizes (below 1 counted as 1) */
    double nmin, nmax;           /* smallest and largest size (below 1 as 1); 0 when none */
    double ninner_lo, ninner_hi; /* second smallest and second largest (4 sizes or more) */
    /* The model judged in step 5: the chosen class, or the power model when no class
       was chosen. NAN when not reached. */
    double r2;      /* 1 - RSS/TSS (0 for class 1) */
    double rel_err; /* RMS residual / RMS cost: sqrt(sum (y - f)^2 / sum y^2) */
    double runs_z;  /* runs test of the residual signs in size order (NAN: no residuals) */
    enum fit_class tied_lo, tied_hi; /* FITCHECK_TIED: the simplest and the steepest tied class */
    double c; /* the exponent of the power model as fitted (fit_power; NAN: not fitted) */
    double rel_c, rel_b; /* the power model refitted in relative terms (NAN: not reached) */
    size_t nclusters;    /* 1 when the points form one group */
    struct fitcheck_cluster cluster[FITCHECK_MAX_CLUSTERS];
    double cluster_ratio; /* the smallest cost ratio of two clusters at similar sizes */
};

/*
 * Judge the points (x[i], y[i]), i < n (one per distinct size, as given to
 * fit_power() and fit_classes()) with their fits p and k. Never fails.
 */
void fitcheck_judge(const double *x, const double *y, size_t n, const struct fit_power *p,
                    const struct fit_classes *k, struct fitcheck *out);

/*
 * The reason, without "no clear class": "two clusters", "too few sizes (3)",
 * "n range too narrow (100 to 157)", "negative exponent (-1.76)",
 * "poor fit (R^2 0.71)", ...; "" when a class is given. Returns buf.
 */
char *fitcheck_reason(const struct fitcheck *v, char *buf, size_t size);

/* "n^2", or "no clear class: REASON". Returns buf (64 bytes are enough for every label). */
char *fitcheck_label(const struct fitcheck *v, char *buf, size_t size);

/* The number in words for small counts ("two", "three", "four"). */
const char *fitcheck_count_word(size_t n);

#endif
