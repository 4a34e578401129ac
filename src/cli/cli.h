/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the subcommands share: the entry points dispatched by
 * tally.c, and printing of errors and warnings. Only this layer prints
 * and chooses exit codes (0 success, 1 bad input or failure, 2 bad usage).
 */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include <stdio.h>

#include "../io/input.h"
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
int cmd_view(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_complexity(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_control(int argc, char **argv);

/* Set by -q/--quiet (tally.c): cli_note() prints nothing, nor do progress lines. */
extern int cli_quiet;
/*
 * From TALLY_READ_SPLIT (tally.c: bytes, or "off"): the smallest callgrind
 * file read on two threads (read_options.callgrind.split_min; 0 = the reader's default).
 */
extern size_t cli_read_split;
/* From tally --max-records=N (tally.c): gmon_read_opts.max_records (0 = the default). */
extern size_t cli_gmon_max_records;
/* From tally --max-line=BYTES (tally.c): every input's line limit (0 = the default). */
extern size_t cli_max_line;
/* input_open() with the limits of the command line (--max-line); 0, or -1 with err. */
int cli_open_input(struct input *in, const char *path, struct tally_error *err);
/* "tally: msg" on stderr unless cli_quiet: what a run did, not what went wrong. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The candidate nearest to `word` (edit distance, adjacent swaps counting
 * one; a word that starts a candidate counts as near) when it is near
 * enough to be a typo, else NULL.
 */
const char *cli_nearest(const char *word, const char *const *cands, size_t n);
/*
 * "tally: CMD: unknown option 'ARG'; did you mean '--X'? See ..." on
 * stderr, the candidates being the options named in the usage text.
 */
void cli_unknown_option(const char *cmd, const char *arg, void (*usage)(FILE *fp));
/*
 * "tally: CMD: " then fmt with arg, then "try 'tally CMD --help'" on
 * stderr; returns 2 (a usage error's exit status).
 */
int cli_bad_usage(const char *cmd, const char *fmt, const char *arg);
/*
 * PROG as a path (allocated): itself when it has a '/', else the first
 * executable regular file PROG in a directory of $PATH (an empty entry is
 * the current directory; no $PATH: /usr/local/bin:/usr/bin:/bin), made
 * absolute. NULL when none is found.
 */
char *cli_find_program(const char *prog);
/*
 * Write the output file `path` ("-": stdout) through an outfile (a
 * temporary renamed at the end): write(fp, ctx, err) fills it; when that
 * fails the file is removed and -1 returned (err as write left it).
 * Returns 0, or -1 with err.
 */
int cli_write_output(const char *path, int (*write)(FILE *fp, void *ctx, struct tally_error *err),
                     void *ctx, struct tally_error *err);
/*
 * For a command given no profile: the newest regular file of the current
 * directory named tally.out.*, callgrind.out.* or cachegrind.out.* (as
 * KCachegrind picks), said in a note; NULL after an error saying none was
 * found (a usage error: exit 2).
 */
const char *cli_newest_profile(const char *cmd);

/*
 * (progress.c) While FILES are read: after a second, a progress line on
 * stderr ("tally: reading FILE: 45% (1.2 GB of 2.7 GB)"), when stderr is a
 * terminal and not cli_quiet. cli_progress_stop() ends it and erases the
 * line; call it before anything else is printed. Once per run.
 */
void cli_progress_start(const char *const *files, int nfiles);
void cli_progress_stop(void);
/*
 * What is done between reads, shown instead of the reading line while it
 * lasts ("merging FILE into the sum (2 of 9)"; printf format, NULL ends
 * it). Shown at once when the first second is over, under the same rules.
 */
void cli_progress_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "tally: FILE:LINE: msg" on stderr (control characters shown as '?'). */
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
 * A short option with a value: "-X VALUE", "-XVALUE" or "-X=VALUE" (name is
 * "-X"). Returns the value (advancing *i past a separate one), or NULL when
 * argv[*i] is not that option; a missing value sets *missing.
 */
const char *cli_shortval(int argc, char **argv, int *i, const char *name, int *missing);
/*
 * --event=EV and --title=TEXT, which graph, report and flame take: 1 when
 * argv[*i] is one of them (its value stored in *event or *title), else 0
 * (*missing set when the option has no value).
 */
/*
 * Cost formulas (--event=NAME=FORMULA, eventset.h): add the definitions
 * defs[0..n) to the event set of every part of p, in order. Returns 0, or
 * -1 with err (the file, the event, what is wrong: a usage error).
 * cli_formula_help is the paragraph every command's --help ends with.
 */
int cli_define_events(struct profile *p, const char *const *defs, size_t n,
                      struct tally_error *err);
extern const char cli_formula_help[];
int cli_event_title(int argc, char **argv, int *i, int *missing, const char **event,
                    const char **title);
/*
 * Is the output file one of the inputs (the same file, or the same name
 * when the output does not exist yet)? Writing it would destroy a profile:
 * returns -1 with err naming the output and the input, else 0. A NULL
 * output and "-" (standard output) pass.
 */
int cli_check_output(const char *output, const char *const *files, int nfiles,
                     struct tally_error *err);
/* The output option of every command: --output[=]FILE or -o FILE / -oFILE. */
const char *cli_output_arg(int argc, char **argv, int *i, int *missing);

/* What cli_common_arg() made of an argument. */
enum cli_arg { CLI_ARG_OTHER, CLI_ARG_TAKEN, CLI_ARG_HELP };
/*
 * The arguments every command that reads files treats alike: an operand (a
 * word not starting with '-', "-" for standard input, or anything after
 * "--") is appended to files[*nfiles] (room for argc entries), and "--"
 * itself is taken (CLI_ARG_TAKEN); "-h" and "--help" give CLI_ARG_HELP;
 * anything else is an option for the command (CLI_ARG_OTHER).
 */
enum cli_arg cli_common_arg(const char *a, int *only_files, const char **files, int *nfiles);

/* How a command's own option handler answered (cli_parse_args). */
enum cli_opt { CLI_OPT_TAKEN, CLI_OPT_UNKNOWN, CLI_OPT_BAD };
/*
 * A command's own options: argv[*i] is an option other than "--", -h,
 * --help and the output option. Match it with cli_optval() and the like,
 * which advance *i past a separate value and set *missing when the value
 * is missing (then answer CLI_OPT_UNKNOWN), and store it in `ctx`.
 * CLI_OPT_BAD after reporting a bad value with cli_errorf().
 */
typedef enum cli_opt (*cli_opt_fn)(void *ctx, int argc, char **argv, int *i, int *missing);

/* What cli_parse_args() is told about a command and finds for it. */
struct cli_args {
    const char *cmd;         /* "merge": for messages */
    void (*usage)(FILE *fp); /* --help prints it on standard output */
    int max_files;           /* more operands are a usage error; 0 = no limit */
    const char **files;      /* the operands (set; room for argc) */
    int nfiles;
    const char *output;      /* -o FILE, --output=FILE */
    int output_may_be_input; /* set by the caller: the output may be one of the files (merge
                                into a total); otherwise that is a usage error
                                (cli_check_output()) */
};
/*
 * The argument loop of the commands that read files: operands go to
 * a->files (cli_common_arg()), the output option to a->output, -h and
 * --help print the usage, every other option goes to `own` (NULL: none).
 * An unknown option or a missing value is reported as "CMD: option 'X'
 * needs a value" or "CMD: unknown option 'X'; see 'tally CMD --help'".
 * An output that is one of the files is refused (cli_check_output()) unless
 * a->output_may_be_input.
 * Returns 0, 1 after --help, or 2 on a usage error.
 */
int cli_parse_args(int argc, char **argv, struct cli_args *a, cli_opt_fn own, void *ctx);

/* What cli_read_inputs() does with the contexts and callgrind files of one run. */
enum cli_pair {
    CLI_PAIR_SUM,      /* adds them up (with a warning: every cost counts twice) */
    CLI_PAIR_JOIN,     /* joins them (runpair_join(): exact stacks and source lines) */
    CLI_PAIR_CALLGRIND /* keeps the callgrind file alone: it has every cost, line and call arc,
                          all that a view without stacks shows */
};

/* What cli_read_inputs() leaves out of the files it reads, and what it found. */
struct cli_input_options {
    int drop_jumps;       /* jump records (jump=, jcnd=) */
    int drop_addr;        /* instruction addresses (costs stay, per line) */
    int drop_line;        /* source lines too: costs and calls per function and file */
    int call_counts_only; /* calls without their costs (read_options.callgrind) */
    int no_stacks;        /* calling-context trees (for views that show no stack) */
    /* cachegrind files read by cg_annotate 3.21+'s rule for counts after `fl=`
       (read_options.cachegrind.fl_unspecified) */
    int cg_unspecified;
    /* with keep_parts and one callgrind input: called as each of its parts
       is read whole (read_options.part_done) */
    void (*part_done)(void *ctx, struct profile *p, size_t part);
    void *part_done_ctx;
    int keep_parts;          /* parts stay apart: each input's parts (dumps, threads) are
                                parts of the result, in order (no calling contexts then,
                                unless the result has one part) */
    int drop_index;          /* the sum's indexes of functions and records: it is only
                                read by number afterwards (profile_drop_indexes()) */
    enum cli_pair pair_runs; /* two inputs that are the contexts and callgrind files of one
                                run (analysis/runpair.h) */
    int mixed;               /* set on return: the inputs were not all of one format */
    struct input *opened;    /* NULL, or nfiles inputs (xcalloc'ed): those with a path are
                                files[i] already opened; cli_read_inputs takes them, closes
                                them all, frees the array and sets this to NULL */
};

/*
 * (inputs.c) Read the inputs of a command and add them up into one profile
 * of one part: callgrind, cachegrind and contexts files (plain, gzip or
 * zstd; "-" is standard input), and a program built with -pg followed by
 * its gmon.out files, which become the profile of the gprof analysis
 * (event Time in microseconds, as `tally gprof --callgrind-out` writes).
 * Calling-context trees are added up when every input has one with the
 * same events; otherwise the sum has none (its stacks will be estimated)
 * and a warning says so. Exactly two inputs that are the contexts file and
 * the callgrind file of one run are joined, added up or reduced to the
 * callgrind file, as o->pair_runs says. A profile of differences makes the sum signed.
 * The profiles' warnings are printed. `o` may be NULL. Returns the sum, or
 * NULL with err.
 */
struct profile *cli_read_inputs(const char *const *files, int nfiles, struct cli_input_options *o,
                                struct tally_error *err);
/*
 * (inputs.c) Open each file once (a pipe cannot be opened again) and sort
 * them by their first bytes: aprof reports to aprofs/aprof_in[*naprof],
 * the others to profs/prof_in[*nprof] (for cli_input_options.opened).
 * The arrays have room for nfiles. Returns 0, or -1 with err (an input
 * that cannot be opened or read; what was opened is closed).
 */
struct isprof;
int cli_sort_inputs(const char *const *files, int nfiles, const char **aprofs,
                    struct input *aprof_in, int *naprof, const char **profs, struct input *prof_in,
                    int *nprof, struct tally_error *err);
/*
 * (inputs.c) Read the n opened aprof reports ins[] (named files[]) and add
 * them up into ip (isprof_init()ed), printing their warnings. Every input
 * is closed. Returns 0, or -1 with err.
 */
int cli_read_aprofs(const char *const *files, struct input *ins, int n, struct isprof *ip,
                    struct tally_error *err);
/*
 * (inputs.c) Where the second of two inputs starts, for commands that
 * compare two (flame --diff): an input is one profile file, or a program
 * followed by its gmon.out files. Returns the index of the second input's
 * first file, or -1 when `files` is not exactly two inputs.
 */
int cli_split_two_inputs(const char *const *files, int nfiles);
/*
 * (threadset.c) Sets of per-thread files: Callgrind with
 * --separate-threads=yes (and tally record) writes one complete profile per
 * thread, FILE-01, FILE-02, ..., and leaves FILE empty. An empty FILE given
 * with such files beside it stands for the set (as KCachegrind opens it);
 * given with members of its set too (a shell glob `FILE*`), it is dropped.
 * `files` must be malloc'd (the operands of cli_parse_args()); when the
 * list changes it is freed and a new one returned (one block: free() of it
 * frees the names made here too), and *nfiles updated; else `files`
 * itself is returned.
 */
const char **cli_thread_sets(const char **files, int *nfiles);
/*
 * (graph.c) The column of part 0 for --event=EVENT (base, derived or
 * built-in; NULL = the first base event), and its name. Returns 0, or -1
 * with err naming the events the profile has; a definition NAME=FORMULA
 * is refused (a command that takes one defines NAME with
 * cli_define_events() and passes NAME).
 */
int cli_event_column(const struct profile *p, const char *event, struct event_expr *out,
                     const char **name, struct tally_error *err);
/*
 * (viewload.c) The session of tally view's application from the inputs:
 * profiles read with their parts kept, packed as they are read; aprof
 * reports among them analysed for the complexity view; `base`, when it
 * holds files, read as the profile compared with. The options' strings
 * are copied. Returns the session, or NULL with err.
 */
struct view_session;
struct cli_view_load {
    const char *title, *editor;
    struct strlist include;
    const struct strlist *base; /* NULL or empty: no comparison */
};
struct view_session *cli_view_load(const char *const *files, int nfiles,
                                   const struct cli_view_load *o, struct tally_error *err);

#endif
