/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * complexity.c - `tally complexity REPORT...`: the empirical complexity of
 * every routine of aprof reports (input-sensitive profiles): fitted growth
 * models, the closest class, a ranking by growth, tuple tables and plots.
 *
 * Several reports (runs of the same program) are merged first with
 * isprof_merge(). The analysis is analysis/complexity.c, the output
 * report/complexity.c. See docs/tally-complexity.md.
 */
#include "cli.h"

#include "../io/input.h"
#include "../analysis/complexity.h"
#include "../formats/aprof.h"
#include "../formats/format.h"
#include "../io/outfile.h"
#include "../report/complexity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct complexity_cli {
    struct complexity_options an;
    const char **include, **exclude, **routine, **files;
    size_t ninclude, nexclude, nroutine;
    int nfiles;
    int json;
    int logscale;
    const char *plot;   /* --plot DIR, or NULL */
    const char *output; /* -o, NULL = stdout */
};

static void complexity_usage(FILE *fp)
{
    fputs("usage: tally complexity [OPTIONS] REPORT...\n"
          "\n"
          "Estimate how the cost of every routine grows with its input size, from\n"
          "aprof reports (input-sensitive profiles written by 'tally record\n"
          "--input-sensitive=yes' or by aprof; plain, gzip or zstd). Several reports\n"
          "of runs of the same program are merged first.\n"
          "\n"
          "For each routine: its points (input size against worst, average and best\n"
          "cost per activation, and calls), its share of the program's cost, the\n"
          "model cost = a + b * n^c fitted to (input size, worst cost) by\n"
          "Levenberg-Marquardt with its R^2, and its class: one of 1, log n, n,\n"
          "n log n, n^2, n^3 when the points support it, else 'no clear class' and\n"
          "why (too few sizes, two clusters, n range too narrow, negative exponent,\n"
          "poor fit, ...). Routines with a class are ranked first, by class, then\n"
          "exponent c, then total cost; then those of class 1; then the others.\n"
          "\n"
          "Options:\n"
          "  --min-points=N      rank only routines with at least N distinct input\n"
          "                      sizes (default 5)\n"
          "  --min-share=PCT     rank only routines whose cost is at least PCT percent\n"
          "                      of the program's cost (default 1)\n"
          "  --min-r2=R2         rank only routines whose model cost = a + b * n^c\n"
          "                      has R^2 >= R2 (0 to 1; default 0: all)\n"
          "  --include=REGEX     rank only routines whose name matches REGEX (PCRE2,\n"
          "                      unanchored); may be repeated (any may match)\n"
          "  --exclude=REGEX     do not rank routines whose name matches REGEX; may be\n"
          "                      repeated\n"
          "  --top=N             show the first N routines of the ranking only\n"
          "  --cost=KIND         'cumulative' (default: the cost of the activation and\n"
          "                      everything it calls) or 'self'\n"
          "  --routine=REGEX     also print the tuple table of every routine whose name\n"
          "                      matches REGEX, ranked or not; may be repeated\n"
          "  --format=FORMAT     'text' (default) or 'json'\n"
          "  -o, --output=FILE   write the report to FILE (atomically) instead of\n"
          "                      standard output; never one of the inputs\n"
          "  --plot=DIR          write DIR/index.html and, per ranked or chosen routine,\n"
          "                      an SVG cost plot (worst, average, best, fitted curve)\n"
          "                      and an SVG frequency plot (calls per input size)\n"
          "  --log               logarithmic axes in the plots\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when a report cannot be read or merged or an\n"
          "output cannot be written, 2 on a usage error (bad option or pattern).\n",
          fp);
}

/* Parse a whole non-negative integer; -1 when s is not one. */
static int parse_size(const char *s, size_t *out)
{
    if (!*s || *s == '-' || *s == '+') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_percent(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0 || v > 100) return -1;
    *out = v;
    return 0;
}

static void push(const char ***list, size_t *n, const char *v)
{
    *list = xrealloc(*list, (*n + 1) * sizeof(**list));
    (*list)[(*n)++] = v;
}

/* complexity's own options (cli_parse_args). */
static enum cli_opt complexity_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct complexity_cli *o = ctx;
    const char *v;
    if (strcmp(argv[*i], "--log") == 0) {
        o->logscale = 1;
    } else if ((v = cli_optval(argc, argv, i, "--min-points", missing))) {
        if (parse_size(v, &o->an.min_points)) {
            cli_errorf("complexity: --min-points wants a whole number, not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--min-share", missing))) {
        if (parse_percent(v, &o->an.min_share)) {
            cli_errorf("complexity: --min-share wants a percentage from 0 to 100, not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--min-r2", missing))) {
        char *end;
        errno = 0;
        o->an.min_r2 = strtod(v, &end);
        if (!*v || *end || errno || !(o->an.min_r2 >= 0 && o->an.min_r2 <= 1)) {
            cli_errorf("complexity: --min-r2 wants a number from 0 to 1, not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--top", missing))) {
        if (parse_size(v, &o->an.top) || o->an.top == 0) {
            cli_errorf("complexity: --top wants a positive whole number, not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--include", missing))) {
        push(&o->include, &o->ninclude, v);
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--exclude", missing))) {
        push(&o->exclude, &o->nexclude, v);
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--routine", missing))) {
        push(&o->routine, &o->nroutine, v);
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--cost", missing))) {
        if (strcmp(v, "cumulative") == 0)
            o->an.cost = COMPLEXITY_COST_CUMULATIVE;
        else if (strcmp(v, "self") == 0)
            o->an.cost = COMPLEXITY_COST_SELF;
        else {
            cli_errorf("complexity: unknown cost '%s' (use cumulative or self)", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--format", missing))) {
        if (strcmp(v, "text") == 0)
            o->json = 0;
        else if (strcmp(v, "json") == 0)
            o->json = 1;
        else {
            cli_errorf("complexity: unknown format '%s' (use text or json)", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--plot", missing))) {
        if (!*v) {
            cli_errorf("complexity: --plot wants a directory");
            return CLI_OPT_BAD;
        }
        o->plot = v;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

/* Returns 0, 1 after --help, or 2 on a usage error. */
static int complexity_parse_args(int argc, char **argv, struct complexity_cli *o)
{
    struct cli_args a = {.cmd = "complexity", .usage = complexity_usage};
    int rc = cli_parse_args(argc, argv, &a, complexity_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc) return rc;
    if (o->nfiles == 0) {
        cli_errorf("complexity: no reports given; see 'tally complexity --help'");
        return 2;
    }
    o->an.include = o->include;
    o->an.ninclude = o->ninclude;
    o->an.exclude = o->exclude;
    o->an.nexclude = o->nexclude;
    return 0;
}

/*
 * Read one report into *ip, opening it once (a FIFO or <( ) works): its
 * first bytes must look like an aprof report, else "FILE: not an aprof
 * report" (a callgrind profile, a picture, ...), which says more than the
 * reader's complaint about its first line (standard input is left to the
 * reader, which names the line). 0, or 1 after printing the error.
 */
static int read_report(struct isprof *ip, const char *file)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct input in;
    if (cli_open_input(&in, file, &err)) {
        cli_error(&err);
        return 1;
    }
    enum profile_format f;
    enum format_class k = format_classify(&in, &f, &err);
    int rc = k == FORMAT_UNREADABLE;
    if (rc)
        cli_error(&err);
    else if (strcmp(file, "-") != 0 && !(k == FORMAT_PROFILE && f == PROFILE_FORMAT_APROF)) {
        rc = 1;
        cli_errorf("%s: not an aprof report (tally complexity reads the reports of 'tally record "
                   "--input-sensitive=yes' and of aprof)",
                   file);
    } else if (aprof_read_input(ip, &in, &err)) {
        rc = 1;
        cli_error(&err);
    }
    input_close(&in);
    return rc;
}

/* Read every report and merge them into *ip. 0, or 1 after printing the error. */
static int read_reports(const struct complexity_cli *o, struct isprof *ip)
{
    struct tally_error err;
    tally_error_clear(&err);
    if (read_report(ip, o->files[0])) return 1;
    for (int i = 1; i < o->nfiles; i++) {
        struct isprof next;
        isprof_init(&next);
        struct strlist warnings = {0};
        int rc = read_report(&next, o->files[i]);
        if (rc == 0) {
            const char *base = strrchr(o->files[i], '/');
            cli_progress_note("merging %s into the sum (%d of %d)", base ? base + 1 : o->files[i],
                              i + 1, o->nfiles);
            rc = isprof_merge(ip, &next, &warnings, &err);
            cli_progress_note(NULL);
            if (rc && !err.file[0]) snprintf(err.file, sizeof(err.file), "%s", o->files[i]);
            if (rc) cli_error(&err);
        }
        if (warnings.n) cli_progress_stop();
        for (size_t w = 0; w < warnings.n; w++)
            fprintf(stderr, "tally: warning: %s: %s\n", o->files[i], warnings.items[w]);
        strlist_release(&warnings);
        isprof_release(&next);
        if (rc) return 1;
    }
    return 0;
}

/* The --routine choices (union, in ranking order). NULL with *n = SIZE_MAX on a bad pattern. */
static struct complexity_routine **choose(const struct complexity *c,
                                          const struct complexity_cli *o, size_t *n,
                                          struct tally_error *err)
{
    *n = 0;
    if (o->nroutine == 0) return NULL;
    /* mark the matches of every pattern, then list them in the order of one selection */
    char *mark = xcalloc(c->nall ? c->nall : 1, 1);
    for (size_t k = 0; k < o->nroutine; k++) {
        size_t m;
        struct complexity_routine **sel = complexity_select(c, o->routine[k], &m, err);
        if (m == SIZE_MAX) {
            free(mark);
            *n = SIZE_MAX;
            return NULL;
        }
        for (size_t j = 0; j < m; j++)
            mark[sel[j] - c->all] = 1;
        free(sel);
    }
    size_t m;
    struct complexity_routine **all = complexity_select(c, "", &m, err);
    struct complexity_routine **out = xcalloc(m ? m : 1, sizeof(*out));
    for (size_t j = 0; j < m; j++)
        if (mark[all[j] - c->all]) out[(*n)++] = all[j];
    free(all);
    free(mark);
    return out;
}

int cmd_complexity(int argc, char **argv)
{
    struct complexity_cli o;
    memset(&o, 0, sizeof(o));
    complexity_options_init(&o.an);
    int rc = complexity_parse_args(argc, argv, &o);
    struct isprof ip;
    isprof_init(&ip);
    struct complexity c;
    memset(&c, 0, sizeof(c));
    struct complexity_routine **detail = NULL;
    struct tally_error err;
    tally_error_clear(&err);
    if (rc) {
        rc = rc == 1 ? 0 : 2;
        goto done;
    }
    cli_progress_start((const char *const *)o.files, o.nfiles);
    int unread = read_reports(&o, &ip);
    cli_progress_stop();
    if (unread) {
        rc = 1;
        goto done;
    }
    if (complexity_analyse(&ip, &o.an, &c, &err)) {
        cli_error(&err);
        rc = strncmp(err.msg, "bad pattern", 11) == 0 ? 2 : 1;
        goto done;
    }
    size_t ndetail;
    detail = choose(&c, &o, &ndetail, &err);
    if (ndetail == SIZE_MAX) {
        cli_error(&err);
        rc = 2;
        goto done;
    }
    if (o.nroutine && ndetail == 0)
        fprintf(stderr, "tally: warning: no routine matches --routine\n");
    struct complexity_report_options ro = {
        .sources = o.files,
        .nsources = o.nfiles,
        .filters = &o.an,
        .detail = detail,
        .ndetail = ndetail,
        .logscale = o.logscale,
    };
    if (o.plot && complexity_write_plots(&c, &ip, &ro, o.plot, &err)) {
        cli_error(&err);
        rc = 1;
        goto done;
    }
    struct outfile of;
    if (outfile_open(&of, o.output, &err)) {
        cli_error(&err);
        rc = 1;
        goto done;
    }
    int wrc = o.json ? complexity_write_json(&c, &ip, &ro, of.fp, &err)
                     : complexity_write_text(&c, &ip, &ro, of.fp, &err);
    if (wrc)
        outfile_abort(&of);
    else
        wrc = outfile_commit(&of, &err);
    if (wrc) {
        cli_error(&err);
        rc = 1;
    }
done:
    free(detail);
    complexity_release(&c);
    isprof_release(&ip);
    free(o.include);
    free(o.exclude);
    free(o.routine);
    free(o.files);
    return rc;
}
