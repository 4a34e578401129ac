/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - what `tally check` (check.c) shares with `tally record
 * --baseline` (record_check.c): its options and its run.
 */
#ifndef TALLY_CLI_CHECK_H
#define TALLY_CLI_CHECK_H

#include "cli.h"

#include "../analysis/check.h"
#include "../report/check.h"

/* The options of tally check. */
struct check_cli {
    struct check_limit *limits;
    size_t nlimits, limits_cap;
    const char **events; /* --event definitions (point into argv) */
    size_t nevents, events_cap;
    const char **show; /* --show events */
    size_t nshow, show_cap;
    char *ignore_object; /* joined --ignore-object regexes; NULL = the default */
    int no_ignore;       /* --ignore-object= (empty): nothing ignored */
    int inclusive;       /* --inclusive=yes: functions by inclusive cost */
    enum check_format format;
    const char *flame_diff;
    size_t top;
    const char *baseline;     /* --baseline=NAME: BASE is DIR/NAME.out */
    const char *baseline_dir; /* --baseline-dir=DIR */
    const char *output;
    int new_at;                  /* --new: the index of NEW's first file; -1 = not given */
    const struct cli_args *args; /* while the arguments are parsed, or NULL */
    const char **files;
    int nfiles;
};

/* Regex of the objects left out by default: the dynamic loader. */
#define CHECK_DEFAULT_IGNORE "(^|/)ld(-linux[^/]*|-musl[^/]*)?\\.so"

void check_cli_init(struct check_cli *o);
void check_cli_release(struct check_cli *o);
/*
 * One option of tally check (a cli_opt_fn; ctx is a struct check_cli):
 * CLI_OPT_TAKEN, CLI_OPT_UNKNOWN (not one of check's), or CLI_OPT_BAD
 * after an error message.
 */
enum cli_opt check_cli_option(void *ctx, int argc, char **argv, int *i, int *missing);
/* The baseline folder: --baseline-dir, else $TALLY_BASELINE_DIR, else .tally/baselines. */
const char *check_baseline_dir(const struct check_cli *o);
/* "DIR/NAME.out" (caller frees), or NULL after an error when NAME is not a plain name. */
char *check_baseline_path(const struct check_cli *o, const char *name);
/*
 * Run the check: BASE files base[0..nbase), NEW files new_[0..nnew).
 * Returns the exit status: 0 within limits, 3 beyond, 1 on errors, 2 on
 * usage errors (an event the profiles do not have).
 */
int check_cli_run(struct check_cli *o, const char **base, int nbase, const char **new_, int nnew);
/* The options text of tally check (for record --help too). */
extern const char check_options_help[];

/*
 * (record_check.c) tally record's --save-baseline, --baseline, --clean-env
 * and check options: record_check_wanted() says whether argv (record's)
 * has one before PROG; record_check() then runs the whole command (a child
 * records; this process saves and checks) and returns its exit status.
 * record_check_usage() prints their lines of record's --help.
 */
int record_check_wanted(int argc, char **argv);
int record_check(int argc, char **argv);
void record_check_usage(FILE *fp);

#endif
