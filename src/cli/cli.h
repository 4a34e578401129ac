/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the subcommands share: the entry points dispatched by
 * tally.c, and printing of errors and warnings. Only this layer prints
 * and chooses exit codes (0 success, 1 bad input or failure, 2 bad usage).
 */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include "../model/error.h"
#include "../model/profile.h"

int cmd_annotate(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_gprof(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_complexity(int argc, char **argv);

/* "tally: FILE:LINE: msg" on stderr. */
void cli_error(const struct tally_error *err);
/* "tally: msg" on stderr (printf-style). */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print and forget the profile's warnings ("tally: warning: ..."). */
void cli_warnings(struct profile *p);
/*
 * Match "--name=value" or "--name value" (advancing *i). Returns the value,
 * or NULL when argv[*i] is not that option. A missing value is a usage
 * error reported through *missing.
 */
const char *cli_optval(int argc, char **argv, int *i, const char *name, int *missing);

/*
 * (graph.c) Read callgrind/cachegrind files with their parts merged and add
 * them up into one profile (one part). Warnings are printed. Returns the
 * sum, or NULL with err.
 */
struct profile *cli_read_summed(const char *const *files, int nfiles, struct tally_error *err);
/*
 * (graph.c) The column of part 0 for --event=EVENT (base or derived; NULL
 * = the first base event), and its name. Returns 0, or -1 with err naming
 * the events the profile has.
 */
int cli_event_column(const struct profile *p, const char *event, struct event_expr *out,
                     const char **name, struct tally_error *err);

#endif
