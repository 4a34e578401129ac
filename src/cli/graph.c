/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * graph.c - `tally graph`: the call graph as Graphviz DOT, or as SVG laid
 * out by the `dot` program. See docs/tally-graph.md.
 *
 * Also home of cli_event_column(), which `tally report` shares.
 */
#include "cli.h"
#include "../analysis/callgraph.h"
#include "../formats/format.h"
#include "../io/outfile.h"
#include "../report/dot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

struct graph_options {
    const char *output; /* -o; NULL = standard output */
    int svg;            /* -1 = from the output name, 0 = DOT, 1 = laid out by dot */
    const char *fmt;    /* with svg = 1: dot's -T format (svg, png, pdf) */
    const char *event;  /* --event, NULL = the first event */
    const char *title;
    double node_thres, edge_thres;
    size_t max_nodes;
    const char **roots, **leaves;
    size_t nroots, nleaves;
    const char **files;
    int nfiles;
};

static void graph_usage(FILE *fp)
{
    fputs("usage: tally graph [OPTIONS] FILE...\n"
          "\n"
          "Draw the call graph of callgrind or contexts files (plain, gzip or zstd;\n"
          "'-' reads standard input; several files are added up; a program built\n"
          "with -pg followed by its gmon.out files gives gprof's graph) as Graphviz\n"
          "DOT text, or as SVG laid out by Graphviz's 'dot' program (Debian package\n"
          "graphviz). The contexts and callgrind files of one recording, given\n"
          "together, are joined, not added up.\n"
          "\n"
          "A box per function: its name, its inclusive share of the total, its self\n"
          "share in parentheses and the calls into it; an arrow per caller/callee\n"
          "pair: the inclusive share of those calls and their count. Functions in a\n"
          "recursion cycle are framed together; calls inside a recursion are dashed\n"
          "and show only their count. Colours run from pale (cheap) to dark (costly).\n"
          "\n"
          "Options:\n"
          "  -o, --output=OUT     write to OUT (atomically); OUT ending in .svg, .png or\n"
          "                       .pdf runs 'dot -Tsvg', '-Tpng' or '-Tpdf'; any other\n"
          "                       name (.dot, .gv) gets DOT text; default: DOT text on\n"
          "                       standard output; OUT may not be one of the inputs\n"
          "  --format=dot|svg|png|pdf  choose the output kind whatever OUT is called\n"
          "  --event=EV           the event to draw: base, derived, built-in (CEst,\n"
          "                       ...) or NAME=FORMULA (see below); default: the\n"
          "                       first event of the profile\n"
          "  --node-thres=PCT     hide functions whose inclusive share is below PCT\n"
          "                       percent (default 0.5)\n"
          "  --edge-thres=PCT     hide calls whose inclusive share is below PCT\n"
          "                       percent (default 0.1)\n"
          "  --max-nodes=N        draw at most N functions above --node-thres, the\n"
          "                       largest first (default 400; 0: no limit)\n"
          "  --root=REGEX         keep only functions reachable from a function whose\n"
          "                       name matches REGEX (PCRE2, unanchored); repeatable\n"
          "  --leaf=REGEX         keep only functions from which a function whose name\n"
          "                       matches REGEX is reachable; repeatable\n"
          "  --title=TEXT         first line of the graph's label (default: the command)\n"
          "  -h, --help           show this help\n"
          "\n"
          "Functions matched by --root or --leaf are drawn whatever their share.\n"
          "\n"
          "Exit status: 0 on success, 1 when an input cannot be read, a regex matches\n"
          "nothing, 'dot' is missing or fails, or the output cannot be written;\n"
          "2 on a usage error.\n"
          "\n",
          fp);
    fputs(cli_formula_help, fp);
}

/* A percentage in [0, 100]. Returns 0, or -1. */
static int parse_pct(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= 100)) return -1;
    *out = v;
    return 0;
}

/* graph's own options (cli_parse_args). */
static enum cli_opt graph_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct graph_options *o = ctx;
    const char *a = argv[*i], *v;
    if ((v = cli_optval(argc, argv, i, "--format", missing))) {
        if (strcmp(v, "dot") == 0) {
            o->svg = 0;
        } else if (strcmp(v, "svg") == 0 || strcmp(v, "png") == 0 || strcmp(v, "pdf") == 0) {
            o->svg = 1;
            o->fmt = v;
        } else {
            cli_errorf("graph: unknown format '%s' (use dot, svg, png or pdf)", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && cli_event_title(argc, argv, i, missing, &o->event, &o->title)) {
        /* stored */
    } else if (!*missing &&
               ((v = cli_optval(argc, argv, i, "--node-thres", missing)) ||
                (!*missing && (v = cli_optval(argc, argv, i, "--edge-thres", missing))))) {
        int node = strncmp(a, "--node", 6) == 0;
        if (parse_pct(v, node ? &o->node_thres : &o->edge_thres)) {
            cli_errorf("graph: --%s-thres wants a percentage from 0 to 100, not '%s'",
                       node ? "node" : "edge", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--max-nodes", missing))) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (!*v || *end || *v == '-' || errno || n > 1000000) {
            cli_errorf("graph: --max-nodes wants a count from 0 to 1000000, not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->max_nodes = (size_t)n;
    } else if (!*missing && ((v = cli_optval(argc, argv, i, "--root", missing)) ||
                             (!*missing && (v = cli_optval(argc, argv, i, "--leaf", missing))))) {
        struct tally_error err;
        tally_error_clear(&err);
        int root = strncmp(a, "--root", 6) == 0;
        if (dot_check_regex(v, &err)) {
            cli_errorf("graph: --%s: %s", root ? "root" : "leaf", err.msg);
            return CLI_OPT_BAD;
        }
        if (root)
            o->roots[o->nroots++] = v;
        else
            o->leaves[o->nleaves++] = v;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

static int graph_parse_args(int argc, char **argv, struct graph_options *o)
{
    o->roots = xcalloc((size_t)argc + 1, sizeof(*o->roots));
    o->leaves = xcalloc((size_t)argc + 1, sizeof(*o->leaves));
    struct cli_args a = {.cmd = "graph", .usage = graph_usage};
    int rc = cli_parse_args(argc, argv, &a, graph_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc) return rc;
    if (o->nfiles == 0) {
        cli_errorf("graph: no input files; see 'tally graph --help'");
        return 2;
    }
    return 0;
}

int cli_event_column(const struct profile *p, const char *event, struct event_expr *out,
                     const char **name, struct tally_error *err)
{
    const struct eventset *es = &p->parts[0]->events;
    if (event && strchr(event, '='))
        return tally_error_set(err, NULL, 0,
                               "--event=%s defines an event (NAME=FORMULA), which is not one "
                               "this command can show: name an event of the profile",
                               event);
    if (!event) {
        if (es->n == 0) return tally_error_set(err, p->path, 0, "the profile counts no events");
        event = es->names[0];
    }
    if (eventset_lookup(es, event, out)) {
        char *all = eventset_join(es);
        tally_error_set(err, p->path, 0, "no event '%s' in the profile (it has: %s)", event, all);
        free(all);
        return -1;
    }
    *name = event;
    return 0;
}

/* The format dot lays OUT out in, from its name: "svg", "png", "pdf", or NULL (DOT text). */
static const char *format_of_name(const char *s)
{
    static const char *const kinds[] = {"svg", "png", "pdf"};
    size_t n = strlen(s);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (n >= 4 && s[n - 4] == '.' && strcasecmp(s + n - 3, kinds[k]) == 0) return kinds[k];
    return NULL;
}

/* What tally graph writes: the DOT text, or (fmt set) what dot makes of it. */
struct graph_out {
    const struct callgraph *g;
    const struct dot_options *dopt;
    const struct dot_selection *sel;
    const char *fmt; /* dot's -T format, or NULL for the DOT text */
    const char *text;
    size_t len;
};

static int write_graph(FILE *fp, void *ctx, struct tally_error *err)
{
    const struct graph_out *go = ctx;
    if (!go->fmt) return dot_write(fp, go->g, go->dopt, go->sel, err);
    if (fflush(fp)) return -1;
    return dot_run(go->text, go->len, go->fmt, fileno(fp), err);
}

int cmd_graph(int argc, char **argv)
{
    struct graph_options o;
    memset(&o, 0, sizeof(o));
    o.svg = -1;
    o.node_thres = 0.5;
    o.max_nodes = DOT_MAX_NODES;
    o.edge_thres = 0.1;
    int status = graph_parse_args(argc, argv, &o);
    if (status) {
        free(o.files);
        free(o.roots);
        free(o.leaves);
        return status == 1 ? 0 : 2;
    }
    status = 1;
    if (o.svg < 0) {
        o.fmt = o.output ? format_of_name(o.output) : NULL;
        o.svg = o.fmt != NULL;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *p = NULL;
    struct callgraph g;
    memset(&g, 0, sizeof(g));
    struct dot_selection sel;
    memset(&sel, 0, sizeof(sel));
    struct event_expr col = {0, NULL};
    char *text = NULL;
    size_t len = 0;
    char prog[4096];
    if (o.svg && strcmp(o.fmt, "svg") != 0 && (!o.output || !strcmp(o.output, "-")) && isatty(1)) {
        cli_errorf("graph: %s output is binary: not writing it to a terminal (use -o FILE.%s)",
                   o.fmt, o.fmt);
        status = 2;
        goto out;
    }
    if (o.svg && !dot_find_program(prog, sizeof(prog))) {
        cli_errorf("graph: %s output needs the 'dot' program of Graphviz, which is not in "
                   "PATH; install the Debian package graphviz (apt-get install graphviz), or "
                   "write DOT text (-o FILE.dot) and lay it out elsewhere",
                   o.fmt);
        goto out;
    }
    struct cli_input_options in = {.drop_jumps = 1, .pair_runs = CLI_PAIR_JOIN};
    cli_progress_start((const char *const *)o.files, o.nfiles);
    p = cli_read_inputs((const char *const *)o.files, o.nfiles, &in, &err);
    cli_progress_stop();
    if (!p) goto fail;
    /* --event=NAME=FORMULA: NAME defined in every part, then drawn */
    const char *evname, *event = o.event;
    if (event && strchr(event, '=')) {
        if (cli_define_events(p, &event, 1, &err)) {
            status = 2;
            goto fail;
        }
        const struct eventset *es = &p->parts[0]->events;
        event = es->derived[es->nderived - 1].name;
    }
    if (cli_event_column(p, event, &col, &evname, &err)) {
        if (o.event) status = 2; /* --event names no event of the input: usage */
        goto fail;
    }
    if (callgraph_build(&g, p, 0, &col, 1, &err)) goto fail;
    struct dot_options dopt;
    dot_options_init(&dopt);
    dopt.event = evname;
    dopt.node_thres = o.node_thres;
    dopt.max_nodes = o.max_nodes;
    dopt.edge_thres = o.edge_thres;
    dopt.roots = o.roots;
    dopt.nroots = o.nroots;
    dopt.leaves = o.leaves;
    dopt.nleaves = o.nleaves;
    dopt.title = o.title ? o.title : p->parts[0]->cmd;
    if (dot_select(&g, &dopt, &sel, &err)) goto fail;

    if (o.svg && !(text = dot_text(&g, &dopt, &sel, &len, &err))) {
        if (!err.msg[0]) tally_error_set(&err, NULL, 0, "out of memory");
        goto fail;
    }
    struct graph_out go = {&g, &dopt, &sel, o.svg ? o.fmt : NULL, text, len};
    if (cli_write_output(o.output, write_graph, &go, &err)) goto fail;
    status = 0;
    goto out;
fail:
    cli_error(&err);
out:
    free(text);
    dot_selection_release(&sel);
    callgraph_release(&g);
    event_expr_release(&col);
    profile_free(p);
    free(o.files);
    free(o.roots);
    free(o.leaves);
    return status;
}
