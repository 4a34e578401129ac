/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - performance limits on the change between two profiles (what
 * `tally check` computes; docs/tally-check.md).
 *
 * A *limit* is parsed from the text of a --limit option:
 *   EVENT=[+|-]N%          the total of EVENT may change by at most N percent
 *                          (a negative N asks for an improvement of at least |N|%)
 *   EVENT<=N               the total of EVENT in NEW may be at most N (5e9 is fine)
 *   REGEX:EVENT=...        the same for every function whose name matches the
 *   REGEX:EVENT<=N         Perl-compatible REGEX (anchored neither end), one by one
 * EVENT is a base or derived event of the profiles, an event the options
 * define (`NAME=FORMULA`, eventset_add_definition()), or a built-in one
 * (eventset_builtin_expr(); the events it names that a profile lacks count
 * 0, and a note says so).
 *
 * check_compute() adds up each profile's self (or, with `inclusive`,
 * inclusive) costs per function name (the
 * costs of functions in ignored objects are left out of everything), then
 * evaluates every column (an event) and every limit. Everything in a
 * `struct check_result` is owned by it; check_result_release() frees it.
 * Library code: nothing is printed; errors return -1 with err.
 */
#ifndef TALLY_CHECK_H
#define TALLY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"

enum check_kind { CHECK_PERCENT, CHECK_ABSOLUTE };

struct check_limit {
    char *text;       /* the option's value, as given */
    char *func_regex; /* NULL: the limit is on the total */
    void *re;         /* compiled func_regex (pcre2_code), or NULL */
    char *event;
    enum check_kind kind;
    double value; /* percent (CHECK_PERCENT) or a count (CHECK_ABSOLUTE) */
};

/* Parse one limit. Returns 0, or -1 with err saying what is wrong. */
int check_limit_parse(const char *text, struct check_limit *out, struct tally_error *err);
void check_limit_release(struct check_limit *l);

struct check_options {
    const struct check_limit *limits;
    size_t nlimits;
    const char *const *events; /* user-defined events: "NAME=FORMULA" (eventset.h) */
    size_t nevents;
    const char *const *columns; /* events to show besides those of the limits */
    size_t ncolumns;
    const char *ignore_object; /* regex on object names, or NULL */
    /* the functions' values are their inclusive costs (time on the stack,
       analysis/inclusive.h) instead of their self costs; totals stay the
       sums of the self costs */
    int inclusive;
    const char *base_label, *new_label; /* for errors: the first file of each side */
};

/* One function, under its name (static functions of one name are added). */
struct check_func {
    char *name;
    char *file;    /* a file it is defined in (one of them), "" when none */
    int64_t *base; /* [ncols] */
    int64_t *new_; /* [ncols] */
    int in_base, in_new;
};

/* One evaluation of a limit: on the total (fn NULL) or on one function. */
struct check_hit {
    const struct check_func *fn;
    int64_t base, new_;
    double percent; /* (new - base) / base * 100; +-INFINITY when base is 0; 0 when both 0 */
    int exceeded;
};

struct check_outcome {
    const struct check_limit *limit;
    size_t col;     /* the limit's column */
    size_t checked; /* totals: 1; functions: how many matched the regex */
    size_t nhits;   /* totals: 1; functions: the functions beyond the limit */
    struct check_hit *hits;
    int exceeded;
};

struct check_result {
    size_t ncols;
    char **cols;     /* event names */
    char **formulas; /* [ncols] how a column is computed ("" for an event of the profiles) */
    int64_t *base_total, *new_total;
    size_t nfuncs;
    struct check_func *funcs; /* by the size of the change of column 0, largest first */
    size_t nlimits;
    struct check_outcome *outcomes;
    size_t nexceeded;     /* limits exceeded */
    struct strlist notes; /* things a reader should know (events counted as 0, ...) */
    int inclusive;        /* the functions' values are inclusive costs */
};

/*
 * Compare NEW against BASE (part 0 of each; merge parts first). Columns are
 * the events of the limits, then opt->columns, each once. Returns 0; -2
 * with err when the options do not fit the profiles (an event neither
 * side's profile, the user nor the built-ins define, a definition that
 * loops, a bad --ignore-object regex); -1 with err on an overflow or a
 * profile without data.
 */
int check_compute(const struct profile *base, const struct profile *new_,
                  const struct check_options *opt, struct check_result *res,
                  struct tally_error *err);
void check_result_release(struct check_result *res);

/* (new - base) / base * 100 as check_hit.percent. */
double check_percent(int64_t base, int64_t new_);

#endif
