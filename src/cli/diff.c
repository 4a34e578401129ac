/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.c - `tally diff [options] FILE1 FILE2`: FILE2 minus FILE1 as a
 * cachegrind-format profile with signed counts.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "../analysis/diff.h"
#include "../analysis/rename.h"
#include "../formats/format.h"

struct diff_cli {
    const char *by;
    const char *mod_filename, *mod_funcname;
    const char *output;
    const char *files[3]; /* a third is caught as an error */
    int nfiles;
};

static void usage(FILE *fp)
{
    fputs("usage: tally diff [options] FILE1 FILE2\n"
          "\n"
          "Subtract profile FILE1 from profile FILE2 and write the difference as a\n"
          "cachegrind-format profile with signed counts (positive: FILE2 costs more).\n"
          "Either input may be a callgrind or cachegrind file (plain, gzip or zstd,\n"
          "'-' for standard input); only self costs are compared, all parts of a\n"
          "callgrind file are added together, and both files must count the same\n"
          "events (in any order; FILE1's order is kept).\n"
          "\n"
          "Options:\n"
          "  --by=function        one total per (file, function), at line 0, as cg_diff\n"
          "                       does (the default)\n"
          "  --by=line            keep source lines: one count per (file, function, line)\n"
          "  --mod-filename=s/REGEX/REPL/[g][i]\n"
          "                       rewrite every file name of both inputs before matching\n"
          "                       them up (e.g. to drop differing build directories)\n"
          "  --mod-funcname=s/REGEX/REPL/[g][i]\n"
          "                       rewrite every function name the same way\n"
          "  -o FILE, --output=FILE\n"
          "                       write to FILE (replaced atomically) instead of stdout\n"
          "  -h, --help           show this help\n"
          "\n"
          "REGEX is Perl-compatible (PCRE2). In REPL, \\1..\\9, $N and ${N} insert\n"
          "capture groups; write \\/ for a slash in REGEX or REPL. Flag g replaces every\n"
          "match instead of the first, i ignores case.\n"
          "\n"
          "Example:\n"
          "  tally diff --mod-filename='s/\\/build-[a-z]+\\//\\//' old.out new.out > d.out\n"
          "  tally annotate d.out\n"
          "\n"
          "Exit status: 0 on success, 1 for bad or unreadable input, 2 for bad usage.\n",
          fp);
}

/* Returns 0 to go on, or the exit status to return (with 0 mapped to -1). */
static int parse_args(int argc, char **argv, struct diff_cli *o)
{
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        enum cli_arg kind = cli_common_arg(a, &only_files, o->files, &o->nfiles);
        if (o->nfiles > 2) {
            cli_errorf("diff: too many files ('%s'); give exactly two", a);
            return 2;
        }
        if (kind == CLI_ARG_TAKEN) continue;
        if (kind == CLI_ARG_HELP) {
            usage(stdout);
            return -1;
        } else if ((v = cli_optval(argc, argv, &i, "--by", &missing))) {
            if (strcmp(v, "function") != 0 && strcmp(v, "line") != 0) {
                cli_errorf("diff: --by takes 'function' or 'line', not '%s'", v);
                return 2;
            }
            o->by = v;
        } else if ((v = cli_optval(argc, argv, &i, "--mod-filename", &missing))) {
            o->mod_filename = v;
        } else if ((v = cli_optval(argc, argv, &i, "--mod-funcname", &missing))) {
            o->mod_funcname = v;
        } else if ((v = cli_output_arg(argc, argv, &i, &missing))) {
            o->output = v;
        } else if (!missing) {
            cli_errorf("diff: unknown option '%s'; see 'tally diff --help'", a);
            return 2;
        }
        if (missing) {
            cli_errorf("diff: option '%s' needs a value", a);
            return 2;
        }
    }
    if (o->nfiles != 2) {
        cli_errorf("diff: give exactly two profiles, FILE1 and FILE2; see 'tally diff --help'");
        return 2;
    }
    if (o->output && !*o->output) {
        cli_errorf("diff: empty output file name");
        return 2;
    }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_cli o = {0};
    int st = parse_args(argc, argv, &o);
    if (st) return st < 0 ? 0 : st;

    struct diff_options dopt = {0};
    dopt.by = o.by && !strcmp(o.by, "line") ? DIFF_BY_LINE : DIFF_BY_FUNCTION;
    struct tally_error err;
    tally_error_clear(&err);
    struct rename *mfl = NULL, *mfn = NULL;
    struct profile *in = NULL, *d = NULL;
    struct diff *dd = NULL;
    struct read_options ropt = {.merge_parts = 1, .drop_addr = 1, .drop_jumps = 1};
    int status = 2;
    if (o.mod_filename && !(mfl = rename_compile(o.mod_filename, &err))) {
        cli_errorf("diff: --mod-filename: %s", err.msg);
        goto out;
    }
    if (o.mod_funcname && !(mfn = rename_compile(o.mod_funcname, &err))) {
        cli_errorf("diff: --mod-funcname: %s", err.msg);
        goto out;
    }
    dopt.mod_filename = mfl;
    dopt.mod_funcname = mfn;
    dopt.label_old = o.files[0];
    dopt.label_new = o.files[1];

    status = 1;
    /* one input in memory at a time: add it, then free it */
    dd = diff_new(&dopt);
    for (int k = 0; k < 2; k++) {
        in = profile_read(o.files[k], &ropt, &err);
        if (!in) {
            cli_error(&err);
            goto out;
        }
        cli_warnings(in);
        if (diff_add(dd, in, k == 0 ? DIFF_OLD : DIFF_NEW, &err)) {
            cli_error(&err);
            goto out;
        }
        profile_free(in);
        in = NULL;
    }
    d = diff_finish(dd, &err);
    if (!d) {
        cli_error(&err);
        goto out;
    }
    diff_free(dd);
    dd = NULL;
    if (profile_write(d, PROFILE_FORMAT_CACHEGRIND, o.output ? o.output : "-", &err)) {
        cli_error(&err);
        goto out;
    }
    status = 0;
out:
    profile_free(d);
    profile_free(in);
    diff_free(dd);
    rename_free(mfl);
    rename_free(mfn);
    return status;
}
