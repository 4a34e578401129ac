/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - `tally report`: a self-contained HTML report in a directory.
 * See docs/tally-report.md.
 *
 * Callgrind/cachegrind inputs are added up into one profile; the page is
 * written by html_report_write() with the flame graph (flame.h, estimated
 * or exact stacks) and the call graph (dot.h, when `dot` is installed)
 * inline. aprof inputs get the complexity ranking (complexity.h) with
 * its plots written beside the page, in DIR/complexity/.
 */
#include "cli.h"
#include "../analysis/callgraph.h"
#include "../analysis/complexity.h"
#include "../analysis/stacks.h"
#include "../formats/aprof.h"
#include "../formats/format.h"
#include "../io/input.h"
#include "../io/outfile.h"
#include "../report/complexity.h"
#include "../report/dot.h"
#include "../report/flame.h"
#include "../report/html.h"
#include "../report/xmltext.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPORT_FLAME_MAX_NODES 5000

struct report_options {
    const char *dir;   /* -o */
    const char *event; /* --event: the pictures' event */
    const char *title;
    size_t max_functions, max_source;
    int no_callgraph, no_flame;
    struct strlist include;
    const char **files;
    int nfiles;
};

static void report_usage(FILE *fp)
{
    fputs("usage: tally report -o DIR [OPTIONS] [FILE...]\n"
          "\n"
          "Write DIR/index.html (or NAME.html for -o NAME.html): one self-contained\n"
          "page (styles, scripts and data\n"
          "inline; nothing is fetched) about callgrind, cachegrind or contexts files\n"
          "(several are added up), a program built with -pg followed by its gmon.out\n"
          "files, and aprof reports. Open it from the disk in any browser. The\n"
          "contexts and callgrind files of one recording, given together, are\n"
          "joined: exact flame graph and annotated source. With no FILE, the newest\n"
          "tally.out.*, callgrind.out.* or cachegrind.out.* of the current directory\n"
          "is read (a note says which).\n"
          "\n"
          "The page: the command, events and totals; a sortable, searchable table\n"
          "of the functions (self and inclusive cost of every event); for the\n"
          "selected function its callers and callees (calls and costs; click to\n"
          "walk) and its annotated source when the file is found; the flame graph;\n"
          "the call graph (needs Graphviz's 'dot'); for aprof reports the complexity\n"
          "ranking with its plots (in DIR/complexity/).\n"
          "\n"
          "Options:\n"
          "  -o, --output=DIR       the directory to write (created when missing);\n"
          "                         a name ending in .html is one file instead\n"
          "  --event=EV             the event of the flame and call graphs (default:\n"
          "                         the first event)\n"
          "  --max-functions=N      ship the N functions with the largest inclusive\n"
          "                         share (over every event) and the calls between\n"
          "                         them (default 2000)\n"
          "  --max-source=N         annotated source for the first N of them\n"
          "                         (default 300; 0 = none)\n"
          "  -I, --include=DIR      also look for source files in DIR (repeatable)\n"
          "  --title=TEXT           the page's title\n"
          "  --no-callgraph         leave the call graph out (no 'dot' run)\n"
          "  --no-flame             leave the flame graph out\n"
          "  -h, --help             show this help\n"
          "\n"
          "Exit status: 0 on success (a missing 'dot' only warns), 1 when an input\n"
          "cannot be read or the page cannot be written, 2 on a usage error.\n",
          fp);
}

static int parse_count(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || s[0] == '-' || v > SIZE_MAX / 2) return -1;
    *out = (size_t)v;
    return 0;
}

/* report's own options (cli_parse_args). */
static enum cli_opt report_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct report_options *o = ctx;
    const char *a = argv[*i], *v;
    if ((v = cli_optval(argc, argv, i, "--include", missing)) ||
        (!*missing && (v = cli_shortval(argc, argv, i, "-I", missing)))) {
        strlist_push(&o->include, v);
    } else if (!*missing && cli_event_title(argc, argv, i, missing, &o->event, &o->title)) {
        /* stored */
    } else if (!*missing &&
               ((v = cli_optval(argc, argv, i, "--max-functions", missing)) ||
                (!*missing && (v = cli_optval(argc, argv, i, "--max-source", missing))))) {
        int fn = strncmp(a, "--max-f", 7) == 0;
        size_t n;
        if (parse_count(v, &n) || (fn && n == 0)) {
            cli_errorf("report: --max-%s wants a %s number, not '%s'", fn ? "functions" : "source",
                       fn ? "positive" : "whole", v);
            return CLI_OPT_BAD;
        }
        if (fn)
            o->max_functions = n;
        else
            o->max_source = n;
    } else if (strcmp(a, "--no-callgraph") == 0) {
        o->no_callgraph = 1;
    } else if (strcmp(a, "--no-flame") == 0) {
        o->no_flame = 1;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

static int report_parse_args(int argc, char **argv, struct report_options *o)
{
    struct cli_args a = {.cmd = "report", .usage = report_usage};
    int rc = cli_parse_args(argc, argv, &a, report_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->dir = a.output;
    if (rc) return rc;
    if (!o->dir) {
        cli_errorf("report: no output directory (-o DIR); see 'tally report --help'");
        return 2;
    }
    if (o->nfiles == 0) {
        /* room for argc entries: one more fits */
        if (!(o->files[0] = cli_newest_profile("report"))) return 2;
        o->nfiles = 1;
    }
    return 0;
}

/* Read everything a memory stream collected into a string; NULL on failure. */
static char *svg_fragment(char *text)
{
    if (!text) return NULL;
    char *s = strstr(text, "<svg");
    if (!s) {
        free(text);
        return NULL;
    }
    memmove(text, s, strlen(s) + 1);
    return text;
}

/* The call graph as inline SVG, or NULL with a note. */
static char *make_callgraph(const struct profile *p, const struct event_expr *col,
                            const char *evname, char **note)
{
    char prog[4096];
    if (!dot_find_program(prog, sizeof(prog))) {
        *note = xstrdup("No call graph: Graphviz's 'dot' program is not installed (Debian "
                        "package graphviz).");
        fprintf(stderr, "tally: warning: report: no call graph: the 'dot' program is not "
                        "installed (install the Debian package graphviz)\n");
        return NULL;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct callgraph g;
    struct dot_selection sel;
    memset(&sel, 0, sizeof(sel));
    char *text = NULL, *svg = NULL;
    size_t len = 0;
    FILE *tmp = NULL;
    if (callgraph_build(&g, p, 0, col, 1, &err)) goto fail;
    struct dot_options dopt;
    dot_options_init(&dopt);
    dopt.event = evname;
    dopt.title = p->parts[0]->cmd;
    if (dot_select(&g, &dopt, &sel, &err)) goto fail;
    if (!(text = dot_text(&g, &dopt, &sel, &len, &err))) goto fail;
    tmp = tmpfile();
    if (!tmp || dot_run(text, len, "svg", fileno(tmp), &err)) goto fail;
    long size;
    if (fseek(tmp, 0, SEEK_END) || (size = ftell(tmp)) < 0 || fseek(tmp, 0, SEEK_SET)) goto fail;
    svg = xmalloc((size_t)size + 1);
    if (fread(svg, 1, (size_t)size, tmp) != (size_t)size) goto fail;
    svg[size] = 0;
    svg = svg_fragment(svg);
    fclose(tmp);
    free(text);
    dot_selection_release(&sel);
    callgraph_release(&g);
    return svg;
fail:
    if (!err.msg[0]) tally_error_set(&err, NULL, 0, "cannot lay out the call graph");
    {
        char buf[2048];
        const char *m = tally_error_format(&err, buf, sizeof(buf));
        fprintf(stderr, "tally: warning: report: no call graph: %s\n", m);
        *note = xasprintf("No call graph: %s", m);
    }
    if (tmp) fclose(tmp);
    free(text);
    free(svg);
    dot_selection_release(&sel);
    callgraph_release(&g);
    return NULL;
}

/* The flame graph as inline SVG, or NULL with a note. */
static char *make_flame(const struct profile *p, const char *evname, char **note)
{
    struct tally_error err;
    tally_error_clear(&err);
    int ev = eventset_index(&p->parts[0]->events, evname);
    if (ev < 0) {
        *note = xasprintf("No flame graph: '%s' is a derived event; flame graphs show base "
                          "events (use --event).",
                          evname);
        return NULL;
    }
    if (p->signed_costs) {
        *note = xstrdup("No flame graph: the profile holds differences (signed costs).");
        return NULL;
    }
    struct stack_tree t;
    /* frames under a pixel of the 1200-pixel picture are left out, and the
       tree is capped: the page must stay small on any profile */
    struct stack_options so = {
        .part = 0, .event = ev, .prune = 1.0 / 1180.0, .max_nodes = REPORT_FLAME_MAX_NODES};
    if (stacks_build(&t, p, &so, &err)) {
        *note = xasprintf("No flame graph: %s", err.msg);
        return NULL;
    }
    struct flame_options fo;
    memset(&fo, 0, sizeof(fo));
    fo.fragment = 1;
    fo.title = "Flame graph";
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc = mem ? flame_write_svg(&t, &fo, mem, &err) : -1;
    if (mem) fclose(mem);
    stacks_release(&t);
    if (rc) {
        free(text);
        *note = xasprintf("No flame graph: %s", err.msg[0] ? err.msg : "out of memory");
        return NULL;
    }
    return svg_fragment(text);
}

/*
 * The complexity section for aprof reports: writes DIR/complexity/, or with
 * `single` (-o NAME.html) puts the plots in the section itself. NULL after
 * printing.
 */
static char *make_complexity(const char *dir, int single, const char **files, struct input *ins,
                             int n, int *failed)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct isprof ip;
    isprof_init(&ip);
    struct complexity c;
    memset(&c, 0, sizeof(c));
    struct complexity_options an;
    complexity_options_init(&an);
    char *html = NULL, *text = NULL, *sub = NULL;
    size_t len = 0;
    if (cli_read_aprofs(files, ins, n, &ip, &err)) goto fail;
    if (complexity_analyse(&ip, &an, &c, &err)) goto fail;
    struct complexity_report_options ro = {.sources = files, .nsources = (size_t)n, .filters = &an};
    char *plots = NULL;
    size_t plen = 0;
    if (single) {
        FILE *pm = open_memstream(&plots, &plen);
        if (!pm) goto fail;
        int bad = complexity_write_html_inline(&c, &ip, &ro, pm, &err);
        fclose(pm);
        if (bad) {
            free(plots);
            goto fail;
        }
    } else {
        sub = xasprintf("%s/complexity", dir);
        if (complexity_write_plots(&c, &ip, &ro, sub, &err)) goto fail;
    }
    FILE *mem = open_memstream(&text, &len);
    if (!mem) goto fail;
    int rc = complexity_write_text(&c, &ip, &ro, mem, &err);
    fclose(mem);
    if (rc) {
        free(plots);
        goto fail;
    }
    {
        char *esc = NULL;
        size_t elen = 0;
        FILE *em = open_memstream(&esc, &elen);
        if (!em) {
            free(plots);
            goto fail;
        }
        xml_text(em, text, SIZE_MAX);
        fclose(em);
        if (single)
            html = xasprintf("<details id=\"complexity-section\" open><summary>Complexity (aprof)"
                             "</summary>\n<div>\n<pre id=\"complexity\">%s</pre>\n"
                             "%s</div></details>\n",
                             esc, plots);
        else
            html =
                xasprintf("<details id=\"complexity-section\" open><summary>Complexity (aprof)"
                          "</summary>\n<div class=\"picture\"><p><a href=\"complexity/index.html\">"
                          "Every plot</a></p>\n<pre id=\"complexity\">%s</pre>\n<iframe "
                          "src=\"complexity/index.html\" title=\"complexity plots\" "
                          "style=\"width:100%%;height:80vh;border:0\"></iframe></div></details>\n",
                          esc);
        free(esc);
        free(plots);
    }
    free(text);
    free(sub);
    complexity_release(&c);
    isprof_release(&ip);
    return html;
fail:
    cli_error(&err);
    *failed = 1;
    free(text);
    free(sub);
    complexity_release(&c);
    isprof_release(&ip);
    return NULL;
}

struct report_out {
    const struct profile *p;
    const struct html_options *ho;
};

static int write_report(FILE *fp, void *ctx, struct tally_error *err)
{
    const struct report_out *ro = ctx;
    return html_report_write(fp, ro->p, ro->ho, err);
}

int cmd_report(int argc, char **argv)
{
    struct report_options o;
    memset(&o, 0, sizeof(o));
    o.max_source = SIZE_MAX;
    int status = report_parse_args(argc, argv, &o);
    if (status) {
        free(o.files);
        strlist_release(&o.include);
        return status == 1 ? 0 : 2;
    }
    status = 1;
    struct tally_error err;
    tally_error_clear(&err);
    struct html_options ho;
    html_options_init(&ho);
    struct profile *p = NULL;
    struct event_expr col = {0, NULL};
    char *callgraph_svg = NULL, *callgraph_note = NULL, *fl = NULL, *flnote = NULL, *cx = NULL,
         *path = NULL;
    const char **aprofs = xcalloc((size_t)o.nfiles + 1, sizeof(*aprofs));
    const char **profs = xcalloc((size_t)o.nfiles + 1, sizeof(*profs));
    /* every input is opened once (a pipe cannot be opened again): its
       first bytes say aprof report or profile, its reader starts there */
    struct input *aprof_in = xcalloc((size_t)o.nfiles + 1, sizeof(*aprof_in));
    struct input *prof_in = xcalloc((size_t)o.nfiles + 1, sizeof(*prof_in));
    int naprof = 0, nprof = 0, made_dir = 0;
    if (cli_sort_inputs(o.files, o.nfiles, aprofs, aprof_in, &naprof, profs, prof_in, &nprof, &err))
        goto fail;
    /* -o NAME.html: that one file; any other name is a directory */
    size_t dl = strlen(o.dir);
    int single = dl > 5 && strcasecmp(o.dir + dl - 5, ".html") == 0;
    struct stat st;
    if (single) {
        /* nothing to create */
    } else if (stat(o.dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            tally_error_set(&err, o.dir, 0, "exists and is not a directory");
            goto fail;
        }
    } else if (mkdir(o.dir, 0777) && errno != EEXIST) {
        tally_error_set(&err, o.dir, 0, "cannot create the directory: %s", strerror(errno));
        goto fail;
    } else {
        made_dir = 1; /* removed again if the report cannot be made */
    }
    if (nprof) {
        struct cli_input_options in = {
            .drop_jumps = 1, .pair_runs = CLI_PAIR_JOIN, .opened = prof_in};
        prof_in = NULL;
        cli_progress_start(profs, nprof);
        p = cli_read_inputs(profs, nprof, &in, &err);
        cli_progress_stop();
        if (!p) goto fail;
        const char *evname;
        if (cli_event_column(p, o.event, &col, &evname, &err)) {
            if (o.event) status = 2; /* --event names no event of the input: usage */
            goto fail;
        }
        if (!o.no_callgraph) callgraph_svg = make_callgraph(p, &col, evname, &callgraph_note);
        if (!o.no_flame) fl = make_flame(p, evname, &flnote);
    }
    if (naprof) {
        int failed = 0;
        cx = make_complexity(o.dir, single, aprofs, aprof_in, naprof, &failed);
        if (failed) {
            status = 1;
            goto out;
        }
    }
    for (int i = 0; i < o.nfiles; i++)
        strlist_push(&ho.inputs, o.files[i]);
    strlist_append(&ho.include, &o.include);
    ho.title = o.title;
    ho.max_functions = o.max_functions;
    ho.max_source = o.max_source;
    ho.callgraph_svg = callgraph_svg;
    ho.callgraph_note = o.no_callgraph   ? "Call graph left out (--no-callgraph)."
                        : callgraph_note ? callgraph_note
                        : nprof          ? NULL
                                         : "No call graph: no callgrind or cachegrind input.";
    ho.flame_svg = fl;
    ho.flame_note = o.no_flame ? "Flame graph left out (--no-flame)."
                    : flnote   ? flnote
                    : nprof    ? NULL
                               : "No flame graph: no callgrind or cachegrind input.";
    ho.extra_html = cx;
    path = single ? xstrdup(o.dir) : xasprintf("%s/index.html", o.dir);
    struct report_out ro = {p, &ho};
    if (cli_write_output(path, write_report, &ro, &err)) goto fail;
    status = 0;
    goto out;
fail:
    cli_error(&err);
out:
    if (status && made_dir) {
        /* a refused input leaves no directory behind (only emptied ones go) */
        char *sub = xasprintf("%s/complexity", o.dir);
        rmdir(sub);
        free(sub);
        rmdir(o.dir);
    }
    for (int i = 0; i < o.nfiles; i++) {
        if (prof_in) input_close(&prof_in[i]);
        input_close(&aprof_in[i]);
    }
    free(prof_in);
    free(aprof_in);
    free(path);
    free(callgraph_svg);
    free(callgraph_note);
    free(fl);
    free(flnote);
    free(cx);
    free(aprofs);
    free(profs);
    event_expr_release(&col);
    profile_free(p);
    html_options_release(&ho);
    strlist_release(&o.include);
    free(o.files);
    return status;
}
