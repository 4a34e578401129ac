/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * complexity.h - empirical complexity of every routine of an
 * input-sensitive profile (struct isprof): the points (input size against
 * worst, average and best cost), the routine's share of the program's
 * cost, a fitted growth model cost = a + b * n^c and the closest usual
 * class (fit.h), then filters and a ranking by growth.
 *
 * The fit uses (input size, worst cost) points, one per distinct input
 * size, the worst cost being the cumulative maximum (or, with
 * COMPLEXITY_COST_SELF, the self maximum). Input size 0 counts as 1.
 *
 * A routine's total cost (what its share is computed from) is, for
 * cumulative costs, the sum of its `real_sum` fields (cost of outermost
 * activations only, so recursion is not counted twice) or the plain sum
 * when the report has no real sums; for self costs, the sum of self sums.
 * The share is that total over the program total: the report's `k` line
 * when present and non-zero, else the sum of every routine's self cost
 * (or, without self costs, the largest routine total).
 *
 * Ranking (cmp_rank): first the routines with a clear growing class
 * (check.why == FITCHECK_CLASS, class log n to n^3), by class descending,
 * then by exponent c rounded to two decimals (as printed) descending; then
 * those of class 1; then those with no clear class (whatever the reason,
 * too few sizes included), whose exponent means nothing. Within each group
 * ties go by total cost descending, then by name.
 */
#ifndef TALLY_COMPLEXITY_H
#define TALLY_COMPLEXITY_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/isprof.h"
#include "fit.h"
#include "fitcheck.h"

enum complexity_cost {
    COMPLEXITY_COST_CUMULATIVE, /* inclusive cost of the activations (default) */
    COMPLEXITY_COST_SELF,       /* their self cost */
};

struct complexity_options {
    enum complexity_cost cost;
    size_t min_points; /* fewest distinct input sizes a routine must have (aprof-plot: 5) */
    double min_share;  /* smallest share of the program cost, in percent (0 = all; default 1) */
    double min_r2;     /* if > 0: only routines whose model has at least this R^2 */
    const char *const *include; /* PCRE2 patterns: keep routines whose name matches one */
    size_t ninclude;            /*   (none given: keep all) */
    const char *const *exclude; /* drop routines whose name matches one */
    size_t nexclude;
    size_t top; /* keep the first `top` of the ranking; 0 = all */
};

/* Defaults: cumulative, min_points 5, everything else off. */
void complexity_options_init(struct complexity_options *o);

/* One distinct input size of one routine. */
struct complexity_point {
    uint64_t n;     /* input size (RMS or DRMS) */
    uint64_t calls; /* activations with that input size */
    double worst;   /* largest cost of one activation */
    double avg;     /* sum / calls */
    double best;    /* smallest cost */
    uint64_t sum;   /* cost of all those activations */
};

struct complexity_routine {
    size_t routine;                  /* index into isprof.routines */
    const char *name;                /* owned by the isprof */
    const char *image;               /* owned by the isprof */
    size_t rank;                     /* 1-based position in the ranking (0 before ranking) */
    size_t npoints;                  /* distinct input sizes */
    struct complexity_point *points; /* ascending n; owned */
    uint64_t calls;                  /* all activations */
    uint64_t total;                  /* total cost (see above) */
    double share;                    /* total as a percentage of complexity.program_total */
    uint64_t max_n;                  /* largest input size */
    struct fit_power power;
    struct fit_classes classes; /* classes.best: the nearest class, whether clear or not */
    struct fitcheck check;      /* the class the data support, or why none (fitcheck.h) */
};

struct complexity {
    enum complexity_cost cost;
    enum isprof_cost metric;
    enum isprof_input input;
    unsigned resolution;
    uint64_t program_total;
    /* Every routine that has tuples, in the isprof's order, with its fits. */
    struct complexity_routine *all;
    size_t nall;
    /* The routines that passed the filters, ranked (and cut to `top`): pointers into `all`. */
    struct complexity_routine **ranked;
    size_t nranked;
    /* Routines with enough input sizes left out only for their share (min_share). */
    size_t nbelow_share;
};

/*
 * Analyse ip: points and fits of every routine, then filters and ranking.
 * Fails (-1 with err) on a bad pattern, or when a sum overflows.
 * `out` must be released with complexity_release() (also after failure).
 */
int complexity_analyse(struct isprof *ip, const struct complexity_options *o,
                       struct complexity *out, struct tally_error *err);
void complexity_release(struct complexity *c);

/*
 * The routines of `c->all` whose name matches the PCRE2 pattern, in
 * ranking order where ranked, then in profile order. Returns a malloc'd
 * array (count in *n; NULL with *n = 0 when none), or NULL with err set
 * and *n = SIZE_MAX on a bad pattern.
 */
struct complexity_routine **complexity_select(const struct complexity *c, const char *pattern,
                                              size_t *n, struct tally_error *err);

#endif
