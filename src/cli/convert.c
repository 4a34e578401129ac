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
#include "../formats/folded.h"
#include "../formats/format.h"
#include "../formats/json.h"
#include "../formats/pprof.h"
#include "../formats/speedscope.h"
#include "../io/outfile.h"

#ifndef TALLY_VERSION
#define TALLY_VERSION "0.1.0"
#endif

enum convert_format {
    CONV_NONE = 0,
    CONV_CALLGRIND,
    CONV_CACHEGRIND,
    CONV_JSON,
    CONV_FOLDED,
    CONV_SPEEDSCOPE,
    CONV_PPROF,
};

static const struct {
    const char *name;
    enum convert_format f;
} convert_formats[] = {
    {"callgrind", CONV_CALLGRIND}, {"cachegrind", CONV_CACHEGRIND}, {"json", CONV_JSON},
    {"folded", CONV_FOLDED},       {"speedscope", CONV_SPEEDSCOPE}, {"pprof", CONV_PPROF},
};

struct convert_options {
    enum convert_format to; /* --to */
    const char *output;     /* -o; NULL = standard output */
    const char *event;      /* --event; NULL = the first event */
    int lines;              /* --lines (json) */
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
          "  --event=EV         the event of a one-event format (folded; the default\n"
          "                     sample type of pprof): one of the input's events\n"
          "                     (not a derived one); default: the first event\n"
          "  --lines            json: add per-line self costs to each function\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when an input cannot be read or the output\n"
          "cannot be written, 2 on a usage error.\n",
          fp);
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
        o->to = CONV_NONE;
        for (size_t k = 0; k < sizeof(convert_formats) / sizeof(convert_formats[0]); k++)
            if (strcmp(v, convert_formats[k].name) == 0) o->to = convert_formats[k].f;
        if (o->to == CONV_NONE) {
            cli_errorf("convert: unknown format '%s' (use callgrind, cachegrind, json, "
                       "folded, speedscope or pprof)",
                       v);
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
    if (o->to == CONV_NONE) {
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

/* The writers other than callgrind/cachegrind (those use profile_write). */
static int convert_write(const struct convert_options *o, struct profile *p, int event, FILE *fp,
                         struct tally_error *err)
{
    struct stack_tree t;
    int rc;
    switch (o->to) {
    case CONV_JSON: {
        struct json_options jo = {.lines = o->lines, .source = NULL};
        return json_write(p, fp, &jo, err);
    }
    case CONV_FOLDED:
        if (convert_stacks(&t, p, event, err)) return -1;
        rc = folded_write(&t, 0, fp, err);
        break;
    case CONV_SPEEDSCOPE: {
        if (convert_stacks(&t, p, -1, err)) return -1;
        const char *cmd = p->nparts ? p->parts[0]->cmd : NULL;
        struct speedscope_options so = {.name = cmd ? cmd : p->path,
                                        .exporter = "tally " TALLY_VERSION};
        rc = speedscope_write(&t, fp, &so, err);
        break;
    }
    case CONV_PPROF: {
        if (convert_stacks(&t, p, -1, err)) return -1;
        const char *cmd = p->nparts ? p->parts[0]->cmd : NULL;
        char *comment = cmd ? xasprintf("cmd: %s", cmd) : NULL;
        struct pprof_options po = {.default_event = (size_t)event, .comment = comment};
        rc = pprof_write(&t, fp, &po, err);
        free(comment);
        break;
    }
    default:
        return tally_error_set(err, NULL, 0, "internal error: unknown output format");
    }
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
    if (o.to == CONV_PPROF && (!o.output || strcmp(o.output, "-") == 0) && isatty(1)) {
        cli_errorf("convert: pprof output is binary: not writing it to a terminal "
                   "(use -o FILE or a redirection)");
        free(o.files);
        return 2;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct cli_input_options in = {.pair_runs = 1};
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
    if (o.event) {
        event = eventset_index(&p->parts[0]->events, o.event);
        if (event < 0) {
            char *names = eventset_join(&p->parts[0]->events);
            cli_errorf("convert: no event '%s' in the input (its events: %s)", o.event, names);
            free(names);
            profile_free(p);
            free(o.files);
            return 2; /* --event names no event of the input: usage */
        }
    }
    if (o.to == CONV_CALLGRIND || o.to == CONV_CACHEGRIND) {
        enum profile_format f =
            o.to == CONV_CALLGRIND ? PROFILE_FORMAT_CALLGRIND : PROFILE_FORMAT_CACHEGRIND;
        if (profile_write(p, f, o.output, &err)) rc = 1;
    } else {
        struct outfile of;
        if (outfile_open(&of, o.output, &err))
            rc = 1;
        else if (convert_write(&o, p, event, of.fp, &err)) {
            outfile_abort(&of);
            /* what the input holds and the format cannot (pprof's signed values): name it */
            if (!err.file[0] && o.nfiles == 1)
                snprintf(err.file, sizeof(err.file), "%s", o.files[0]);
            rc = 1;
        } else if (outfile_commit(&of, &err))
            rc = 1;
    }
    if (rc) cli_error(&err);
    profile_free(p);
    free(o.files);
    return rc;
}
