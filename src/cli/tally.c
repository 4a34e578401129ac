/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally.c - the `tally` command: dispatch to subcommands.
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/format.h"
#include "../formats/gmon.h"
#include "../io/input.h"
#include "../io/outfile.h"

#ifndef TALLY_VERSION
#define TALLY_VERSION "0.1.0"
#endif

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand commands[] = {
    {"annotate", cmd_annotate, "function table, call trees, annotated source and machine code"},
    {"merge", cmd_merge, "add profiles together into one file"},
    {"diff", cmd_diff, "subtract one profile from another"},
    {"gprof", cmd_gprof, "gprof's reports from a -pg program and its gmon.out"},
    {"record", cmd_record, "run a program under tally's Valgrind tool and write its profile"},
    {"control", cmd_control, "dump, zero, switch or inspect a running 'tally record'"},
    {"convert", cmd_convert, "write a profile as json, folded, speedscope, pprof, callgrind..."},
    {"graph", cmd_graph, "the call graph as Graphviz DOT or SVG"},
    {"view", cmd_view, "explore profiles in the browser (a local web server)"},
    {"report", cmd_report, "a self-contained HTML report (tables, callers, source, pictures)"},
    {"flame", cmd_flame, "an interactive SVG flame graph (exact from contexts files)"},
    {"complexity", cmd_complexity, "cost growth of each routine with its input size (aprof)"},
    {"check", cmd_check, "fail (exit 3) when a profile costs more than limits allow (CI)"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tally [--version] [--help] [--max-line=BYTES] [--max-records=N] COMMAND "
                "[ARGS]\n"
                "       tally help COMMAND\n\n"
                "tally measures programs (record, gprof) and reads their profiles\n"
                "(callgrind, cachegrind, tally contexts, gmon.out, aprof; plain, gzip or\n"
                "zstd) to explain where the cost goes and how it grows with the input.\n\n"
                "Commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp,
            "\n--max-line=BYTES sets the longest line a text input may have (default %zu\n"
            "bytes; K, M and G suffixes count 1024s): a longer one is refused with its\n"
            "file and line.\n"
            "--max-records=N sets the most records (arcs, blocks, histograms) a gmon.out\n"
            "may hold (default %zu): one past it is refused with its file and byte.\n",
            (size_t)INPUT_MAX_LINE_DEFAULT, (size_t)GMON_MAX_RECORDS_DEFAULT);
    fprintf(fp, "\nRun 'tally COMMAND --help' or 'tally help COMMAND' for the options of one\n"
                "command. Every command also takes --version, and -q/--quiet to print no\n"
                "notes (errors and warnings stay; gprof's -q is gprof's own). Documentation:\n"
                "'man tally', docs/ in the source tree.\n");
}

enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

/* "'X' is not a tally command", with the nearest command when X looks like a typo. */
static int not_a_command(const char *cmd)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = cli_nearest(cmd, names, NCOMMANDS);
    if (near)
        cli_errorf("'%s' is not a tally command; did you mean '%s'? See 'tally --help'", cmd, near);
    else
        cli_errorf("'%s' is not a tally command; see 'tally --help'", cmd);
    return 2;
}

/*
 * The options every command takes, taken out of argv before the command
 * sees it: --version (1 is returned) and -q/--quiet (cli_quiet). Only the
 * arguments before "--" count; for record only those before the program,
 * and -q stays (Valgrind's own -q, which record passes on). gprof's -q is
 * gprof's own (the call graph): there only --quiet is tally's.
 */
static int common_options(int *argc, char **argv, int record, int gprof)
{
    int out = 1, version = 0, done = 0;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (!done && !strcmp(a, "--")) done = 1;
        if (!done && record && a[0] != '-') done = 1;
        if (!done && !strcmp(a, "--version")) {
            version = 1;
            continue;
        }
        if (!done && ((!gprof && !strcmp(a, "-q")) || !strcmp(a, "--quiet"))) {
            cli_quiet = 1;
            if (!record) continue;
        }
        argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return version;
}

/* "N[KMG]" (K = 2^10 ...) into *out: 0, or -1 when v is not such a count (or 0). */
static int size_option(const char *v, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10;
    if (*end == 'M' || *end == 'm') shift = 20;
    if (*end == 'G' || *end == 'g') shift = 30;
    if (shift) end++;
    if (errno || end == v || *end || *v == '-' || n == 0 || n > (SIZE_MAX >> 31)) return -1;
    *out = (size_t)n << shift;
    return 0;
}

/* "--max-line=N[KMG]": 0 and sets the limit, or -1 when N is not a size. */
static int max_line_option(const char *v)
{
    size_t n;
    if (size_option(v, &n)) return -1;
    cli_max_line = n;
    return 0;
}

/* "--max-records=N[KMG]": 0 and sets the gmon record limit, or -1 when N is not a count. */
static int max_records_option(const char *v)
{
    size_t n;
    if (size_option(v, &n)) return -1;
    cli_gmon_max_records = n;
    return 0;
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary output files, then die of the signal. */
static void on_signal(int sig)
{
    outfile_remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

size_t cli_read_split;
size_t cli_gmon_max_records;
size_t cli_max_line;

/* TALLY_READ_SPLIT: bytes, or "off" (anything else: the reader's default). */
static void read_split_env(void)
{
    const char *v = getenv("TALLY_READ_SPLIT");
    if (!v || !*v) return;
    if (!strcmp(v, "off")) {
        cli_read_split = READ_SPLIT_NEVER;
        return;
    }
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end) return;
    cli_read_split = n ? (size_t)n : 1;
}

int main(int argc, char **argv)
{
    read_split_env();
    static const int deadly[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal ignored by the caller (nohup, a background shell) stays ignored */
        if (sigaction(deadly[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(deadly[i], &sa, NULL);
    }
    for (;;) {
        int line = argc >= 2 && strncmp(argv[1], "--max-line", 10) == 0;
        int recs = argc >= 2 && strncmp(argv[1], "--max-records", 13) == 0;
        if (!line && !recs) break;
        size_t k = line ? 10 : 13;
        const char *v = argv[1][k] == '=' ? argv[1] + k + 1 : argv[1][k] ? NULL : argv[2];
        int used = argv[1][k] == '=' ? 1 : 2;
        if (line && (!v || max_line_option(v))) {
            cli_errorf("--max-line needs a size in bytes (like 64M)");
            return 2;
        }
        if (recs && (!v || max_records_option(v))) {
            cli_errorf("--max-records needs a number of records (like 64M)");
            return 2;
        }
        argc -= used;
        argv += used;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i].name)) {
                    char *av[] = {argv[2], "--help", NULL};
                    return commands[i].run(2, av);
                }
            return not_a_command(argv[2]);
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("tally %s\n", TALLY_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name)) {
            int n = argc - 1;
            if (common_options(&n, argv + 1, commands[i].run == cmd_record,
                               commands[i].run == cmd_gprof)) {
                printf("tally %s\n", TALLY_VERSION);
                return 0;
            }
            int rc = commands[i].run(n, argv + 1);
            cli_progress_stop();
            return rc;
        }
    return not_a_command(cmd);
}
