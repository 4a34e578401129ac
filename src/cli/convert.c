/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * convert.c - `tally convert --to=FORMAT FILE... [-o OUT]`: write a
 * profile in another format (callgrind, cachegrind, json, folded,
 * speedscope, pprof). See docs/tally-convert.md.
 *
 * Inputs are read as `tally merge` reads them (parts folded, several
 * files added together). A GNU gmon.out goes through the gprof analysis:
 * the program (an ELF file among the inputs) and its gmon.out files become
 * one profile with the event `Time` (microseconds), as `tally gprof
 * --callgrind-out` makes it. Every output is written atomically.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/stacks.h"
#include "../export/export.h"
#include "../formats/format.h"
#include "../io/outfile.h"

#ifndef TALLY_VERSION
#define TALLY_VERSION "0.1.0"
#endif

/*
 * The output is one of two kinds: a lossless format of the model (a row
 * of profile_formats[] offered to convert) or an exporter (exporters[]).
 */
struct convert_options {
    const struct format_ops *format; /* --to, a format of the model */
    const struct exporter *exporter; /* --to, a derived view */
    const char *output;              /* -o; NULL = standard output */
    const char *event;               /* --event; NULL = the first event */
    int lines;                       /* --lines (json) */
    const char **files;
    int nfiles;
};

static void convert_usage(FILE *fp)
{
    fputs("usage: tally convert --to=FORMAT [-o OUT] [--event=EV] FILE...\n"
          "\n"
          "Write a profile in another format. Inputs are callgrind or cachegrind\n"
          "files (plain, gzip or zstd; '-' reads standard input), tally contexts\n"
          "files, or a program built with -pg followed by its gmon.out files.\n"
          "Several inputs are added together first, as 'tally merge' does; the\n"
          "contexts and callgrind files of one recording are joined instead (exact\n"
          "stacks with source lines).\n"
          "\n"
          "Formats:\n"
          "  callgrind    the callgrind format (KCachegrind, callgrind_annotate)\n"
          "  cachegrind   the cachegrind format (line-level self costs only)\n"
          "  json         tally's JSON document: functions with self and inclusive\n"
          "               costs, call arcs, cycles (docs/internals/convert.md)\n"
          "  folded       'a;b;c COUNT' stack lines of one event (FlameGraph,\n"
          "               speedscope, Firefox Profiler)\n"
          "  speedscope   speedscope's JSON file format, one sampled profile per event\n"
          "  pprof        gzip-compressed profile.proto (go tool pprof, Pyroscope,\n"
          "               Parca), one sample type per event\n"
          "Stacks (folded, speedscope, pprof) are exact when the input has calling\n"
          "contexts (tally record --contexts=yes); otherwise they are estimated from\n"
          "the call arcs (a function's cost split among its callers by the\n"
          "inclusive costs of their calls; by call counts where the arcs have no\n"
          "costs), and the output and standard error say which.\n"
          "\n"
          "Options:\n"
          "  --to=FORMAT        the output format (required)\n"
          "  -o, --output=OUT   write to OUT (atomically) instead of standard output;\n"
          "                     pprof output is binary and never goes to a terminal;\n"
          "                     OUT may not be one of the inputs\n"
          "  --event=EV         the event of folded output, or the default sample\n"
          "                     type of pprof (other formats hold every event and\n"
          "                     refuse it): one of the input's events;\n"
          "                     for folded also a built-in one (CEst, ...) or\n"
          "                     NAME=FORMULA (see below), which callgrind output\n"
          "                     keeps as an 'event:' line; default: the first event\n"
          "  --lines            json: add per-line self costs to each function\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when an input cannot be read or the output\n"
          "cannot be written, 2 on a usage error.\n"
          "\n",
          fp);
    fputs(cli_formula_help, fp);
}

/* "callgrind, cachegrind, ... or pprof": every name --to takes (malloc'd). */
static char *convert_format_names(void)
{
    const char *names[32];
    size_t n = 0;
    for (const struct format_ops *f = profile_formats; f->name; f++)
        if (f->convert && n < 32) names[n++] = f->name;
    for (const struct exporter *e = exporters; e->name && n < 32; e++)
        names[n++] = e->name;
    char *s = xstrdup("");
    for (size_t k = 0; k < n; k++) {
        char *t = xasprintf("%s%s%s", s, k == 0 ? "" : k + 1 == n ? " or " : ", ", names[k]);
        free(s);
        s = t;
    }
    return s;
}

/* convert's own options (cli_parse_args). */
static enum cli_opt convert_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct convert_options *o = ctx;
    const char *v;
    if (strcmp(argv[*i], "--lines") == 0) {
        o->lines = 1;
        return CLI_OPT_TAKEN;
    }
    if ((v = cli_optval(argc, argv, i, "--to", missing))) {
        o->format = NULL;
        o->exporter = exporter_find(v);
        for (const struct format_ops *f = profile_formats; f->name && !o->exporter; f++)
            if (f->convert && strcmp(v, f->name) == 0) o->format = f;
        if (!o->format && !o->exporter) {
            char *names = convert_format_names();
            cli_errorf("convert: unknown format '%s' (use %s)", v, names);
            free(names);
            return CLI_OPT_BAD;
        }
        return CLI_OPT_TAKEN;
    }
    if (!*missing && (v = cli_optval(argc, argv, i, "--event", missing))) {
        o->event = v;
        return CLI_OPT_TAKEN;
    }
    return CLI_OPT_UNKNOWN;
}

/* Parse the command line. Returns 0, 1 after --help, or 2 on a usage error. */
static int convert_parse_args(int argc, char **argv, struct convert_options *o)
{
    struct cli_args a = {.cmd = "convert", .usage = convert_usage};
    int rc = cli_parse_args(argc, argv, &a, convert_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc) return rc;
    if (!o->format && !o->exporter) {
        cli_errorf("convert: --to=FORMAT is required; see 'tally convert --help'");
        return 2;
    }
    if (o->nfiles == 0) {
        cli_errorf("convert: no input files; see 'tally convert --help'");
        return 2;
    }
    return 0;
}

/*
 * Build the stack tree for the stack formats: every event, or only
 * `event` (folded). Says on stderr whether the stacks are exact (a note:
 * not with -q).
 */
static int convert_stacks(struct stack_tree *t, const struct profile *p, int event,
                          struct tally_error *err)
{
    struct stack_options so = {.part = -1, .event = event};
    if (stacks_build(t, p, &so, err)) return -1;
    cli_note("convert: stacks %s", t->method);
    if (t->truncated)
        fprintf(stderr,
                "tally: convert: warning: the stack tree was cut at %zu nodes; the cost "
                "below the cut stays in the last frame kept\n",
                t->n);
    return 0;
}

/* Write an exporter's view, with the stack tree it needs. */
static int convert_export(const struct convert_options *o, struct profile *p, int event,
                          const struct event_expr *derived, const char *name, FILE *fp,
                          struct tally_error *err)
{
    const struct exporter *x = o->exporter;
    struct export_options eo = {.event = (size_t)(event < 0 ? 0 : event),
                                .lines = o->lines,
                                .exporter = "tally " TALLY_VERSION};
    if (x->needs_stacks == EXPORT_NO_STACKS) return x->write(p, NULL, &eo, fp, err);
    struct stack_tree t;
    int one = x->needs_stacks == EXPORT_STACKS_ONE_EVENT;
    if (convert_stacks(&t, p, one && event >= 0 ? event : -1, err)) return -1;
    if (one && event < 0 && stacks_derive(&t, derived, name, err)) {
        stacks_release(&t);
        return -1;
    }
    int rc = x->write(p, &t, &eo, fp, err);
    stacks_release(&t);
    return rc;
}

int cmd_convert(int argc, char **argv)
{
    struct convert_options o;
    memset(&o, 0, sizeof(o));
    int rc = convert_parse_args(argc, argv, &o);
    if (rc) {
        free(o.files);
        return rc == 1 ? 0 : 2;
    }
    if (o.exporter && o.exporter->binary && (!o.output || strcmp(o.output, "-") == 0) &&
        isatty(1)) {
        cli_errorf("convert: pprof output is binary: not writing it to a terminal "
                   "(use -o FILE or a redirection)");
        free(o.files);
        return 2;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct cli_input_options in = {.pair_runs = CLI_PAIR_JOIN};
    cli_progress_start(o.files, o.nfiles);
    struct profile *p = cli_read_inputs(o.files, o.nfiles, &in, &err);
    cli_progress_stop();
    if (!p) {
        cli_error(&err);
        free(o.files);
        return 1;
    }
    rc = 0;
    int event = 0;
    if (p->nparts == 0) {
        cli_errorf("%s: the profile holds no data", p->path ? p->path : o.files[0]);
        profile_free(p);
        free(o.files);
        return 1;
    }
    /* --event=NAME=FORMULA: NAME is an event of every part (callgrind output keeps it as an
       `event:` line) and the event of the one-event formats */
    const char *evname = o.event;
    struct event_expr derived = {0, NULL};
    if (o.event && strchr(o.event, '=')) {
        if (cli_define_events(p, &o.event, 1, &err)) {
            cli_error(&err);
            profile_free(p);
            free(o.files);
            return 2;
        }
        const struct eventset *es = &p->parts[0]->events;
        evname = es->derived[es->nderived - 1].name;
    }
    if (evname) {
        const struct eventset *es = &p->parts[0]->events;
        event = eventset_index(es, evname);
        const char *bad = NULL;
        if (event < 0 && eventset_lookup(es, evname, &derived) == 0) {
            event = -1; /* a derived event: the one-event formats draw it */
            if (o.exporter && o.exporter->needs_stacks != EXPORT_STACKS_ONE_EVENT)
                bad = "a derived event is drawn by --to=folded (the sample types of pprof "
                      "and speedscope, the columns of json, are the profile's own events)";
            else if (!o.exporter && !strchr(o.event, '='))
                bad = "a derived event is kept in a file only when --event defines it "
                      "(NAME=FORMULA)";
            else if (!o.exporter && strcmp(o.format->name, "callgrind") != 0)
                bad = "only callgrind files keep a derived event (an 'event:' line)";
        } else if (event >= 0 && !strchr(o.event, '=') &&
                   !(o.exporter && (o.exporter->needs_stacks == EXPORT_STACKS_ONE_EVENT ||
                                    !strcmp(o.exporter->name, "pprof")))) {
            /* a base event chooses nothing in a format that holds every event */
            bad = "--event chooses the event of --to=folded and the default sample type of "
                  "--to=pprof; this format holds every event";
        } else if (event < 0) {
            char *names = eventset_join(es);
            cli_errorf("convert: no event '%s' in the input (its events: %s)", evname, names);
            free(names);
            bad = "";
        }
        if (bad) {
            if (*bad) cli_errorf("convert: --event=%s: %s", o.event, bad);
            event_expr_release(&derived);
            profile_free(p);
            free(o.files);
            return 2; /* --event names no event the output can have: usage */
        }
    }
    if (o.format) {
        if (profile_write(p, o.format->id, o.output, &err)) rc = 1;
    } else {
        struct outfile of;
        if (outfile_open(&of, o.output, &err))
            rc = 1;
        else if (convert_export(&o, p, event, &derived, evname, of.fp, &err)) {
            outfile_abort(&of);
            /* what the input holds and the format cannot (pprof's signed values): name it */
            if (!err.file[0] && o.nfiles == 1)
                snprintf(err.file, sizeof(err.file), "%s", o.files[0]);
            rc = 1;
        } else if (outfile_commit(&of, &err))
            rc = 1;
    }
    if (rc) cli_error(&err);
    event_expr_release(&derived);
    profile_free(p);
    free(o.files);
    return rc;
}
