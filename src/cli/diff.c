/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.c - `tally diff [options] FILE1 FILE2`: FILE2 minus FILE1 as a
 * cachegrind-format profile with signed counts.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/diff.h"
#include "../analysis/rename.h"
#include "../formats/format.h"

struct diff_cli {
    const char *by;
    const char *mod_filename, *mod_funcname;
    const char *output;
    const char **files; /* the operands: OLD's inputs, then NEW's from files[split] */
    int nfiles, split;
};

static void usage(FILE *fp)
{
    fputs("usage: tally diff [options] FILE1 FILE2\n"
          "\n"
          "Subtract profile FILE1 from profile FILE2 and write the difference as a\n"
          "cachegrind-format profile with signed counts (positive: FILE2 costs more).\n"
          "Either input may be a callgrind, cachegrind or contexts file (plain, gzip\n"
          "or zstd, '-' for standard input) or a program followed by its gmon.out\n"
          "files; only self costs are compared, all parts of a callgrind file are\n"
          "added together, and both files must count the same events (in any order;\n"
          "FILE1's order is kept).\n"
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
          "                       write to FILE (replaced atomically) instead of stdout;\n"
          "                       FILE may not be one of the inputs\n"
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

/* diff's own options (cli_parse_args). */
static enum cli_opt diff_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct diff_cli *o = ctx;
    const char *v;
    if ((v = cli_optval(argc, argv, i, "--by", missing))) {
        if (strcmp(v, "function") != 0 && strcmp(v, "line") != 0) {
            cli_errorf("diff: --by takes 'function' or 'line', not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->by = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--mod-filename", missing))) {
        o->mod_filename = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--mod-funcname", missing))) {
        o->mod_funcname = v;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

/* Returns 0 to go on, or the exit status to return (with 0 mapped to -1). */
static int parse_args(int argc, char **argv, struct diff_cli *o)
{
    struct cli_args a = {.cmd = "diff", .usage = usage};
    int rc = cli_parse_args(argc, argv, &a, diff_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc == 1) return -1;
    if (rc) return rc;
    if ((o->split = cli_split_two_inputs(o->files, o->nfiles)) < 0) {
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
    if (st) {
        free(o.files);
        return st < 0 ? 0 : st;
    }

    struct diff_options dopt = {0};
    dopt.by = o.by && !strcmp(o.by, "line") ? DIFF_BY_LINE : DIFF_BY_FUNCTION;
    struct tally_error err;
    tally_error_clear(&err);
    struct rename *mfl = NULL, *mfn = NULL;
    struct profile *in = NULL, *d = NULL;
    struct diff *dd = NULL;
    struct cli_input_options ropt = {.drop_addr = 1, .drop_jumps = 1, .no_stacks = 1};
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
    dopt.label_new = o.files[o.split];

    status = 1;
    /* one input in memory at a time: add it, then free it */
    dd = diff_new(&dopt);
    cli_progress_start(o.files, o.nfiles);
    for (int k = 0; k < 2; k++) {
        int first = k ? o.split : 0, n = k ? o.nfiles - o.split : o.split;
        in = cli_read_inputs(o.files + first, n, &ropt, &err);
        if (!in) {
            cli_error(&err);
            goto out;
        }
        if (diff_add(dd, in, k == 0 ? DIFF_OLD : DIFF_NEW, &err)) {
            cli_error(&err);
            goto out;
        }
        profile_free(in);
        in = NULL;
    }
    cli_progress_stop();
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
    free(o.files);
    return status;
}
