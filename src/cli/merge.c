/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.c - `tally merge`: add profiles together into one file.
 *
 * Profiles are read and added up by cli_read_inputs() (inputs.c): parts
 * folded into one, events matched by name, contexts trees added when every
 * input has one, a program with its gmon.out files through the gprof
 * analysis. The sum is written atomically with profile_write(), so a
 * failure at any point leaves no output file behind. aprof reports are
 * merged by isprof_merge(). See docs/tally-merge.md.
 */
#include "cli.h"
#include "../formats/aprof.h"
#include "../formats/format.h"
#include "../io/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct merge_options {
    const char *output;         /* -o; NULL = standard output */
    enum profile_format format; /* --format; UNKNOWN = choose from the inputs */
    int aprof;                  /* --format=aprof */
    const char **files;
    int nfiles;
};

static void merge_usage(FILE *fp)
{
    fputs("usage: tally merge [-o OUT] [--format=callgrind|cachegrind|contexts] FILE...\n"
          "       tally merge [-o OUT] [--format=aprof] REPORT...\n"
          "\n"
          "Add the costs of callgrind, cachegrind and contexts files (plain, gzip or\n"
          "zstd; '-' reads standard input) and write the sum as one profile. A\n"
          "program built with -pg followed by its gmon.out files counts as the\n"
          "profile of gprof's analysis (event Time), as 'tally gprof\n"
          "--callgrind-out' writes it.\n"
          "\n"
          "All inputs must count the same events (in any order); the output lists\n"
          "them in the order of the first file. Self costs are kept per line (and\n"
          "per instruction when the inputs have addresses); calls and jumps of\n"
          "callgrind inputs are summed too. The parts (threads, dumps) of callgrind\n"
          "inputs are merged into one part. The 'cmd:' and 'desc:' lines come from\n"
          "the first file. The calling-context trees of contexts files are added\n"
          "up too (when every input has one).\n"
          "\n"
          "aprof reports (input-sensitive profiles, recognised by content) of\n"
          "several runs of the same program are merged into one report: routines\n"
          "are matched by name and image, calling contexts by their path, tuples\n"
          "by input size. The reports must have the same program ('a' line),\n"
          "input metric, memory resolution and cost metric.\n"
          "\n"
          "Options:\n"
          "  -o, --output=OUT   write to OUT (atomically: on failure OUT is not\n"
          "                     touched) instead of standard output\n"
          "  --format=FORMAT    output format, 'callgrind', 'cachegrind' or\n"
          "                     'contexts'; by default the format of the inputs,\n"
          "                     or callgrind when the inputs mix formats. Writing\n"
          "                     cachegrind drops calls and jumps and keeps\n"
          "                     line-level costs; contexts needs a tree in every\n"
          "                     input.\n"
          "                     'aprof' treats the inputs as aprof reports (needed\n"
          "                     when the first input is standard input)\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when an input cannot be read or merged or\n"
          "the output cannot be written, 2 on a usage error.\n",
          fp);
}

/* merge's own options (cli_parse_args). */
static enum cli_opt merge_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct merge_options *o = ctx;
    const char *v = cli_optval(argc, argv, i, "--format", missing);
    if (!v) return CLI_OPT_UNKNOWN;
    if (strcmp(v, "aprof") == 0) {
        o->aprof = 1;
        return CLI_OPT_TAKEN;
    }
    o->format = format_from_name(v);
    if (o->format != PROFILE_FORMAT_UNKNOWN && !format_ops_of(o->format)->write)
        o->format = PROFILE_FORMAT_UNKNOWN; /* gmon: recognised, not written */
    if (o->format == PROFILE_FORMAT_UNKNOWN) {
        cli_errorf("merge: unknown format '%s' (use callgrind, cachegrind, contexts or aprof)", v);
        return CLI_OPT_BAD;
    }
    return CLI_OPT_TAKEN;
}

/* Parse the command line. Returns 0, 1 after --help, or 2 on a usage error. */
static int merge_parse_args(int argc, char **argv, struct merge_options *o)
{
    /* merging into one of the inputs (a running total) is allowed and documented */
    struct cli_args a = {.cmd = "merge", .usage = merge_usage, .output_may_be_input = 1};
    int rc = cli_parse_args(argc, argv, &a, merge_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc) return rc;
    if (o->nfiles == 0) {
        cli_errorf("merge: no input files; see 'tally merge --help'");
        return 2;
    }
    return 0;
}

/* Is the opened input an aprof report? (by content; nothing is consumed) */
static int is_aprof_input(struct input *in)
{
    enum profile_format f;
    return format_classify(in, &f, NULL) == FORMAT_PROFILE && f == PROFILE_FORMAT_APROF;
}

/*
 * Merge aprof reports (docs/internals/aprof.md): the first is the base.
 * `first` is the first file, already opened (closed here).
 */
static int merge_aprof(const struct merge_options *o, struct input *first)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct isprof sum, next;
    isprof_init(&sum);
    int rc = 0;
    for (int i = 0; i < o->nfiles && rc == 0; i++) {
        struct isprof *ip = i == 0 ? &sum : &next;
        if (i > 0) isprof_init(&next);
        /* every report is opened once: a pipe cannot be opened again */
        struct input opened, *in = i == 0 ? first : &opened;
        if (i > 0 && cli_open_input(&opened, o->files[i], &err)) {
            rc = 1;
        } else if (strcmp(o->files[i], "-") != 0 && !is_aprof_input(in)) {
            tally_error_set(&err, o->files[i], 0,
                            "not an aprof report (cannot merge it with aprof reports)");
            rc = 1;
        } else if (aprof_read_input(ip, in, &err)) {
            rc = 1;
        } else if (i > 0) {
            struct strlist warnings = {0};
            const char *base = strrchr(o->files[i], '/');
            cli_progress_note("merging %s into the sum (%d of %d)", base ? base + 1 : o->files[i],
                              i + 1, o->nfiles);
            int bad = isprof_merge(&sum, &next, &warnings, &err);
            cli_progress_note(NULL);
            if (bad) {
                if (!err.file[0]) snprintf(err.file, sizeof(err.file), "%s", o->files[i]);
                rc = 1;
            }
            if (warnings.n) cli_progress_stop();
            for (size_t w = 0; w < warnings.n; w++)
                fprintf(stderr, "tally: warning: %s: %s\n", o->files[i], warnings.items[w]);
            strlist_release(&warnings);
        }
        input_close(in);
        if (i > 0) isprof_release(&next);
    }
    if (rc == 0 && aprof_write(&sum, o->output, &err)) rc = 1;
    if (rc) cli_error(&err);
    isprof_release(&sum);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    struct merge_options o;
    memset(&o, 0, sizeof(o));
    int rc = merge_parse_args(argc, argv, &o);
    if (rc) {
        free(o.files);
        return rc == 1 ? 0 : 2;
    }
    struct tally_error err;
    tally_error_clear(&err);
    /* the first file is opened once: its content says aprof or not */
    struct input *opened = xcalloc((size_t)o.nfiles, sizeof(*opened)), *first = &opened[0];
    if (cli_open_input(first, o.files[0], &err)) {
        cli_error(&err);
        free(opened);
        free(o.files);
        return 1;
    }
    if (o.aprof || is_aprof_input(first)) {
        if (o.format != PROFILE_FORMAT_UNKNOWN) {
            cli_errorf("merge: aprof reports can only be written as aprof reports");
            input_close(first);
            free(opened);
            free(o.files);
            return 2;
        }
        cli_progress_start(o.files, o.nfiles);
        rc = merge_aprof(&o, first);
        cli_progress_stop();
        free(opened);
        free(o.files);
        return rc;
    }
    struct cli_input_options in = {.opened = opened};
    cli_progress_start(o.files, o.nfiles);
    struct profile *sum = cli_read_inputs(o.files, o.nfiles, &in, &err);
    cli_progress_stop();
    rc = sum ? 0 : 1;
    if (sum) {
        /* by default the inputs' format; contexts files keep their summed
           tree, a mix of formats becomes callgrind */
        enum profile_format f = o.format;
        if (f == PROFILE_FORMAT_UNKNOWN) f = in.mixed ? PROFILE_FORMAT_CALLGRIND : sum->format;
        if (f == PROFILE_FORMAT_CONTEXTS && !sum->cct) {
            if (o.format == PROFILE_FORMAT_CONTEXTS) {
                tally_error_set(&err, NULL, 0,
                                "--format=contexts needs calling contexts in every input (tally "
                                "record --contexts=yes)");
                rc = 1;
            }
            f = PROFILE_FORMAT_CALLGRIND;
        }
        if (!rc && profile_write(sum, f, o.output, &err)) rc = 1;
    }
    if (rc) cli_error(&err);
    profile_free(sum);
    free(o.files);
    return rc;
}
