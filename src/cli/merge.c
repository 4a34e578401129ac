/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.c - `tally merge`: add profiles together into one file.
 *
 * Every input is read with its parts folded into one, then added into the
 * first input's profile with part_accumulate() (events are matched by
 * name). The sum is written atomically with profile_write(), so a failure
 * at any point leaves no output file behind. See docs/tally-merge.md.
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
    fputs("usage: tally merge [-o OUT] [--format=callgrind|cachegrind] FILE...\n"
          "       tally merge [-o OUT] [--format=aprof] REPORT...\n"
          "\n"
          "Add the costs of callgrind and cachegrind profiles (plain, gzip or zstd;\n"
          "'-' reads standard input) and write the sum as one profile.\n"
          "\n"
          "All inputs must count the same events (in any order); the output lists\n"
          "them in the order of the first file. Self costs are kept per line (and\n"
          "per instruction when the inputs have addresses); calls and jumps of\n"
          "callgrind inputs are summed too. The parts (threads, dumps) of callgrind\n"
          "inputs are merged into one part. The 'cmd:' and 'desc:' lines come from\n"
          "the first file.\n"
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
          "  --format=FORMAT    output format, 'callgrind' or 'cachegrind'; by\n"
          "                     default the format of the inputs, or callgrind when\n"
          "                     the inputs mix both formats. Writing cachegrind\n"
          "                     drops calls and jumps and keeps line-level costs.\n"
          "                     'aprof' treats the inputs as aprof reports (needed\n"
          "                     when the first input is standard input)\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when an input cannot be read or merged or\n"
          "the output cannot be written, 2 on a usage error.\n",
          fp);
}

/* Parse the command line. Returns 0, 1 after --help, or 2 on a usage error. */
static int merge_parse_args(int argc, char **argv, struct merge_options *o)
{
    int only_files = 0;
    o->files = xcalloc((size_t)argc + 1, sizeof(*o->files));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            o->files[o->nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            merge_usage(stdout);
            return 1;
        }
        int missing = 0;
        const char *v;
        if ((v = cli_optval(argc, argv, &i, "--output", &missing)) ||
            (v = cli_optval(argc, argv, &i, "-o", &missing))) {
            o->output = v;
            continue;
        }
        if (!missing && strncmp(a, "-o", 2) == 0 && a[2]) {
            o->output = a + 2; /* -oOUT */
            continue;
        }
        if (!missing && (v = cli_optval(argc, argv, &i, "--format", &missing))) {
            if (strcmp(v, "aprof") == 0) {
                o->aprof = 1;
                continue;
            }
            o->format = format_from_name(v);
            if (o->format == PROFILE_FORMAT_UNKNOWN) {
                cli_errorf("merge: unknown format '%s' (use callgrind, cachegrind or aprof)", v);
                return 2;
            }
            continue;
        }
        if (missing) {
            cli_errorf("merge: option '%s' needs a value", a);
            return 2;
        }
        cli_errorf("merge: unknown option '%s'; see 'tally merge --help'", a);
        return 2;
    }
    if (o->nfiles == 0) {
        cli_errorf("merge: no input files; see 'tally merge --help'");
        return 2;
    }
    return 0;
}

/* Add profile `src` (one part) into `dst` (one part). Returns 0 or -1. */
static int merge_into(struct profile *dst, struct profile *src, struct tally_error *err)
{
    /* a signed input (a diff) makes the sum signed */
    if (src->signed_costs && profile_make_signed(dst, err)) return -1;
    if (dst->signed_costs && profile_make_signed(src, err)) return -1;
    return part_accumulate(dst, dst->parts[0], src, src->parts[0], err);
}

/* Is the file an aprof report? (by content; "-" cannot be peeked at and says no) */
static int is_aprof_file(const char *path)
{
    if (strcmp(path, "-") == 0) return 0;
    struct input in;
    struct tally_error err;
    if (input_open(&in, path, &err)) return 0;
    const char *data;
    size_t len;
    int yes = input_peek(&in, 4096, &data, &len, &err) == 0 && aprof_detect(data, len);
    input_close(&in);
    return yes;
}

/* Merge aprof reports (docs/internals/aprof.md): the first is the base. */
static int merge_aprof(const struct merge_options *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct isprof sum, next;
    isprof_init(&sum);
    int rc = 0;
    for (int i = 0; i < o->nfiles && rc == 0; i++) {
        struct isprof *ip = i == 0 ? &sum : &next;
        if (i > 0) isprof_init(&next);
        if (strcmp(o->files[i], "-") != 0 && !is_aprof_file(o->files[i])) {
            tally_error_set(&err, o->files[i], 0,
                            "not an aprof report (cannot merge it with aprof reports)");
            rc = 1;
        } else if (aprof_read(ip, o->files[i], &err)) {
            rc = 1;
        } else if (i > 0) {
            struct strlist warnings = {0};
            if (isprof_merge(&sum, &next, &warnings, &err)) {
                if (!err.file[0]) snprintf(err.file, sizeof(err.file), "%s", o->files[i]);
                err.line = 0;
                rc = 1;
            }
            for (size_t w = 0; w < warnings.n; w++)
                fprintf(stderr, "tally: warning: %s: %s\n", o->files[i], warnings.items[w]);
            strlist_release(&warnings);
        }
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
    if (o.aprof || is_aprof_file(o.files[0])) {
        if (o.format != PROFILE_FORMAT_UNKNOWN) {
            cli_errorf("merge: aprof reports can only be written as aprof reports");
            free(o.files);
            return 2;
        }
        rc = merge_aprof(&o);
        free(o.files);
        return rc;
    }
    struct read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.merge_parts = 1;
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *sum = NULL;
    int mixed = 0;
    rc = 0;
    for (int i = 0; i < o.nfiles && rc == 0; i++) {
        struct profile *p = profile_read(o.files[i], &ro, &err);
        if (!p) {
            rc = 1;
            break;
        }
        cli_warnings(p);
        if (!sum) {
            sum = p;
            continue;
        }
        if (p->format != sum->format) mixed = 1;
        if (merge_into(sum, p, &err)) {
            if (!err.file[0]) snprintf(err.file, sizeof(err.file), "%s", o.files[i]);
            rc = 1;
        }
        profile_free(p);
    }
    if (rc == 0) {
        enum profile_format f = o.format;
        if (f == PROFILE_FORMAT_UNKNOWN) f = mixed ? PROFILE_FORMAT_CALLGRIND : sum->format;
        if (profile_write(sum, f, o.output, &err)) rc = 1;
    }
    if (rc) cli_error(&err);
    profile_free(sum);
    free(o.files);
    return rc;
}
