/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c - `tally check [OPTIONS] BASE NEW`: fail (exit 3) when NEW
 * costs more than the limits allow. See docs/tally-check.md.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "../analysis/stacks.h"
#include "../io/outfile.h"
#include "../report/flame.h"

const char check_options_help[] =
    "  --limit=LIMIT        a limit (repeat for several); LIMIT is one of\n"
    "                         EVENT=[+-]N%      the total may change by N percent\n"
    "                                           at most (negative: must improve)\n"
    "                         EVENT<=COUNT      NEW's total is at most COUNT (5e9)\n"
    "                         REGEX:EVENT=...   the same for each function whose\n"
    "                                           name matches REGEX (PCRE2)\n"
    "                       default: Ir=+10% (the first event when there is no Ir)\n"
    "  --event=NAME=FORMULA define an event (see Cost formulas below), e.g.\n"
    "                       'Cyc=Ir+10*I1mr+100*ILmr'; built in: CEst (also Cyc)\n"
    "  --show=EV[,EV...]    also show these events\n"
    "  --format=text|markdown|json\n"
    "                       the output (default text)\n"
    "  --top=N              list the N functions that changed most (default 10)\n"
    "  --inclusive=yes|no   compare each function's inclusive cost (its time on\n"
    "                       the stack, as tally annotate --inclusive=yes shows\n"
    "                       it) instead of its self cost [no]; totals are the\n"
    "                       same either way\n"
    "  --flame-diff=FILE.svg\n"
    "                       also draw the differential flame graph of the change\n"
    "  --ignore-object=REGEX\n"
    "                       leave out the costs of objects matching REGEX (repeat\n"
    "                       to add); default: the dynamic loader (ld.so);\n"
    "                       --ignore-object= (empty) leaves out nothing\n"
    "  --baseline=NAME      BASE is the baseline NAME (saved by tally record);\n"
    "                       every file given is NEW\n"
    "  --baseline-dir=DIR   the folder of baselines (default $TALLY_BASELINE_DIR,\n"
    "                       else .tally/baselines)\n";

static void check_usage(FILE *fp)
{
    fprintf(fp,
            "usage: tally check [OPTIONS] BASE NEW\n"
            "       tally check [OPTIONS] BASE... --new NEW...\n"
            "       tally check [OPTIONS] --baseline=NAME NEW...\n"
            "\n"
            "Compare the profile NEW with the profile BASE, event by event and function\n"
            "by function, and fail when a limit is exceeded: a performance gate for CI.\n"
            "BASE and NEW are any profiles tally reads (callgrind, cachegrind, contexts;\n"
            "plain, gzip or zstd), or a program built with -pg followed by its gmon.out\n"
            "files; several files on one side (before and after --new) are added up.\n"
            "Self costs (or with --inclusive=yes, inclusive costs) are summed per\n"
            "function name.\n"
            "\n"
            "Options:\n"
            "%s"
            "  --new                the files after it are NEW (the ones before are BASE)\n"
            "  -o FILE, --output=FILE\n"
            "                       write the report to FILE (atomically), not stdout\n"
            "  -q, --quiet          no notes on stderr\n"
            "  -h, --help           show this help\n"
            "\n"
            "Example:\n"
            "  tally check --limit=Ir=+2%% --limit='parse_.*:Ir=+5%%' old.out new.out\n"
            "\n"
            "Exit status: 0 within the limits, 3 when a limit is exceeded, 1 for bad or\n"
            "unreadable input, 2 for bad usage. Documentation: docs/tally-check.md.\n"
            "\n%s",
            check_options_help, cli_formula_help);
}

void check_cli_init(struct check_cli *o)
{
    memset(o, 0, sizeof(*o));
    o->top = 10;
    o->new_at = -1;
}

void check_cli_release(struct check_cli *o)
{
    for (size_t i = 0; i < o->nlimits; i++)
        check_limit_release(&o->limits[i]);
    free(o->limits);
    free(o->events);
    free(o->show);
    free(o->ignore_object);
    free(o->files);
    memset(o, 0, sizeof(*o));
}

enum cli_opt check_cli_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct check_cli *o = ctx;
    const char *v;
    struct tally_error err;
    tally_error_clear(&err);
    if ((v = cli_optval(argc, argv, i, "--limit", missing))) {
        o->limits = xgrow(o->limits, &o->limits_cap, o->nlimits + 1, sizeof(*o->limits));
        if (check_limit_parse(v, &o->limits[o->nlimits], &err)) {
            cli_errorf("check: --limit: %s", err.msg);
            return CLI_OPT_BAD;
        }
        o->nlimits++;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--event", missing))) {
        o->events = xgrow(o->events, &o->events_cap, o->nevents + 1, sizeof(*o->events));
        if (event_definition_check(v, &err)) {
            cli_errorf("check: --event: %s", err.msg);
            return CLI_OPT_BAD;
        }
        o->events[o->nevents++] = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--show", missing))) {
        /* the names point into argv: split on commas in place */
        char *s = (char *)v;
        for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
            o->show = xgrow(o->show, &o->show_cap, o->nshow + 1, sizeof(*o->show));
            o->show[o->nshow++] = tok;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--format", missing))) {
        if (!strcmp(v, "text"))
            o->format = CHECK_TEXT;
        else if (!strcmp(v, "markdown") || !strcmp(v, "md"))
            o->format = CHECK_MARKDOWN;
        else if (!strcmp(v, "json"))
            o->format = CHECK_JSON;
        else {
            cli_errorf("check: --format takes text, markdown or json, not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--inclusive", missing))) {
        if (strcmp(v, "yes") && strcmp(v, "no")) {
            cli_errorf("check: --inclusive takes yes or no, not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->inclusive = !strcmp(v, "yes");
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--top", missing))) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (!*v || *end || *v == '-' || n > 1000000) {
            cli_errorf("check: --top needs a count, not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->top = n;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--flame-diff", missing))) {
        if (!*v) {
            cli_errorf("check: --flame-diff needs a file name");
            return CLI_OPT_BAD;
        }
        o->flame_diff = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--ignore-object", missing))) {
        if (!*v) {
            o->no_ignore = 1;
            free(o->ignore_object);
            o->ignore_object = NULL;
        } else {
            char *j = o->ignore_object ? xasprintf("%s|(?:%s)", o->ignore_object, v)
                                       : xasprintf("(?:%s)", v);
            free(o->ignore_object);
            o->ignore_object = j;
            o->no_ignore = 0;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--baseline", missing))) {
        o->baseline = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--baseline-dir", missing))) {
        if (!*v) {
            cli_errorf("check: --baseline-dir needs a folder");
            return CLI_OPT_BAD;
        }
        o->baseline_dir = v;
    } else if (!*missing && !strcmp(argv[*i], "--new")) {
        if (o->new_at >= 0) {
            cli_errorf("check: --new given twice");
            return CLI_OPT_BAD;
        }
        o->new_at = o->args ? o->args->nfiles : 0;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

const char *check_baseline_dir(const struct check_cli *o)
{
    if (o->baseline_dir) return o->baseline_dir;
    const char *env = getenv("TALLY_BASELINE_DIR");
    return env && *env ? env : ".tally/baselines";
}

char *check_baseline_path(const struct check_cli *o, const char *name)
{
    size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
    if (!*name || name[n] || name[0] == '.') {
        cli_errorf("baseline name '%s': use letters, digits, '.', '_' and '-' (not first '.')",
                   name);
        return NULL;
    }
    return xasprintf("%s/%s.out", check_baseline_dir(o), name);
}

/* Read one side; a program with its gmon.out files is fine. */
static struct profile *read_side(const char **files, int n, struct tally_error *err)
{
    struct cli_input_options in = {.drop_jumps = 1, .drop_addr = 1, .pair_runs = CLI_PAIR_JOIN};
    return cli_read_inputs(files, n, &in, err);
}

/* The differential flame graph of NEW against BASE, on a base event. */
static int flame_diff(const char *path, const struct profile *base, const struct profile *newp,
                      const char *want, struct tally_error *err)
{
    const struct eventset *nes = &newp->parts[0]->events, *bes = &base->parts[0]->events;
    int ev = eventset_index(nes, want);
    if (ev < 0 || eventset_index(bes, want) < 0) ev = eventset_index(nes, "Ir");
    if (ev < 0 || eventset_index(bes, nes->names[ev]) < 0) ev = 0;
    int oev = eventset_index(bes, nes->names[ev]);
    if (!nes->n || oev < 0)
        return tally_error_set(err, path, 0, "the profiles share no event to draw");
    struct stack_tree tnew, told;
    struct stack_options so = {.part = -1, .event = ev, .prune = 0.1 / 1180};
    if (stacks_build(&tnew, newp, &so, err)) return -1;
    so.event = oev;
    so.prune /= 100;
    if (stacks_build(&told, base, &so, err)) {
        stacks_release(&tnew);
        return -1;
    }
    char *title = xasprintf("tally check: %s, NEW against BASE", nes->names[ev]);
    struct flame_options fo;
    memset(&fo, 0, sizeof(fo));
    fo.title = title;
    fo.old = &told;
    struct outfile of;
    int rc = outfile_open(&of, path, err);
    if (!rc) {
        rc = flame_write_svg(&tnew, &fo, of.fp, err);
        if (rc)
            outfile_abort(&of);
        else
            rc = outfile_commit(&of, err);
    }
    free(title);
    stacks_release(&tnew);
    stacks_release(&told);
    return rc;
}

int check_cli_run(struct check_cli *o, const char **base, int nbase, const char **new_, int nnew)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *bp = NULL, *np = NULL;
    struct check_result res;
    int have_res = 0, status = 1;
    struct check_limit deflimit;
    memset(&deflimit, 0, sizeof(deflimit));

    /* one progress line for both sides (it runs once per command) */
    const char **all = xcalloc((size_t)(nbase + nnew) + 1, sizeof(*all));
    memcpy(all, base, (size_t)nbase * sizeof(*all));
    memcpy(all + nbase, new_, (size_t)nnew * sizeof(*all));
    cli_progress_start(all, nbase + nnew);
    bp = read_side(base, nbase, &err);
    if (bp) np = read_side(new_, nnew, &err);
    cli_progress_stop();
    free(all);
    if (!bp || !np) goto out;

    struct check_options co;
    memset(&co, 0, sizeof(co));
    co.limits = o->limits;
    co.nlimits = o->nlimits;
    if (!o->nlimits) {
        /* the default: Ir +10% on the total (the first event without Ir) */
        const struct eventset *es = &bp->parts[0]->events;
        const char *ev = eventset_index(es, "Ir") >= 0 || !es->n ? "Ir" : es->names[0];
        char *text = xasprintf("%s=+10%%", ev);
        int rc = check_limit_parse(text, &deflimit, &err);
        free(text);
        if (rc) goto out;
        co.limits = &deflimit;
        co.nlimits = 1;
    }
    co.events = o->events;
    co.nevents = o->nevents;
    co.columns = o->show;
    co.ncolumns = o->nshow;
    co.ignore_object = o->no_ignore       ? NULL
                       : o->ignore_object ? o->ignore_object
                                          : CHECK_DEFAULT_IGNORE;
    co.inclusive = o->inclusive;
    co.base_label = base[0];
    co.new_label = new_[0];
    int crc = check_compute(bp, np, &co, &res, &err);
    if (crc) {
        /* an event the profiles do not have is a usage error, as flame --event */
        if (crc == -2) status = 2;
        goto out;
    }
    have_res = 1;
    if (o->flame_diff && flame_diff(o->flame_diff, bp, np, res.cols[0], &err)) goto out;

    struct check_report_options ro = {base, (size_t)nbase, new_, (size_t)nnew, o->top};
    struct outfile of;
    if (outfile_open(&of, o->output ? o->output : "-", &err)) goto out;
    check_write(of.fp, &res, o->format, &ro);
    if (outfile_commit(&of, &err)) goto out;
    if (o->flame_diff) cli_note("check: the differential flame graph is in %s", o->flame_diff);
    status = res.nexceeded ? 3 : 0;
out:
    if (status == 1 || status == 2) cli_error(&err);
    if (have_res) check_result_release(&res);
    check_limit_release(&deflimit);
    profile_free(bp);
    profile_free(np);
    return status;
}

int cmd_check(int argc, char **argv)
{
    struct check_cli o;
    check_cli_init(&o);
    struct cli_args a = {.cmd = "check", .usage = check_usage};
    o.args = &a; /* --new: how many files came before it */
    int rc = cli_parse_args(argc, argv, &a, check_cli_option, &o);
    o.files = a.files;
    o.nfiles = a.nfiles;
    o.output = a.output;
    char *basepath = NULL;
    if (rc == 1) {
        rc = 0;
        goto out;
    }
    if (rc) goto out;
    rc = 2;
    const char **base = o.files, **newf = NULL;
    int nbase = 0, nnew = 0;
    if (o.baseline) {
        if (o.new_at >= 0) {
            cli_errorf("check: --baseline=NAME is BASE: every file given is NEW (no --new)");
            goto out;
        }
        if (!(basepath = check_baseline_path(&o, o.baseline))) goto out;
        base = (const char **)&basepath;
        nbase = 1;
        newf = o.files;
        nnew = o.nfiles;
    } else if (o.new_at >= 0) {
        nbase = o.new_at;
        newf = o.files + o.new_at;
        nnew = o.nfiles - o.new_at;
    } else {
        int split = o.nfiles >= 2 ? cli_split_two_inputs(o.files, o.nfiles) : -1;
        if (split < 0) {
            cli_errorf("check: give BASE and NEW (a profile each, or a program followed by its "
                       "gmon.out files), or BASE... --new NEW...; see 'tally check --help'");
            goto out;
        }
        nbase = split;
        newf = o.files + split;
        nnew = o.nfiles - split;
    }
    if (nbase < 1 || nnew < 1) {
        cli_errorf("check: %s has no file; see 'tally check --help'", nbase < 1 ? "BASE" : "NEW");
        goto out;
    }
    if (o.output && !*o.output) {
        cli_errorf("check: empty output file name");
        goto out;
    }
    if (o.baseline) {
        FILE *fp = fopen(basepath, "rb");
        if (!fp) {
            cli_errorf("check: no baseline '%s' (%s missing); save one with 'tally record "
                       "--save-baseline=%s -- PROG'",
                       o.baseline, basepath, o.baseline);
            rc = 1;
            goto out;
        }
        fclose(fp);
    }
    rc = check_cli_run(&o, base, nbase, newf, nnew);
out:
    free(basepath);
    check_cli_release(&o);
    return rc;
}
