/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - `tally report`: tally view's application as one HTML page
 * that needs no server. See docs/tally-report.md.
 *
 * The inputs make the same session as tally view's (viewload.c); the
 * page (view/page.h) carries a snapshot of the answers of its API for the
 * costliest functions (view/snapshot.h), and says what it left out.
 */
#include "cli.h"
#include "../report/dot.h"
#include "../view/page.h"
#include "../view/session.h"
#include "../view/snapshot.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct report_options {
    const char *dir;   /* -o */
    const char *event; /* --event: the pictures' event */
    const char *title, *editor;
    struct view_snapshot_options snap;
    struct strlist include, base;
    const char **files;
    int nfiles;
};

static void report_usage(FILE *fp)
{
    fputs("usage: tally report -o DIR [OPTIONS] [FILE...]\n"
          "\n"
          "Write DIR/index.html (or NAME.html for -o NAME.html): tally view's page\n"
          "as one self-contained file, with the answers about the costliest\n"
          "functions inside it (nothing is fetched; open it from the disk in any\n"
          "browser, attach it to a CI run, mail it). It reads what tally view\n"
          "reads: callgrind, cachegrind and contexts files (several are added up),\n"
          "the contexts and callgrind files of one recording (joined: exact flame\n"
          "graph), per-thread sets, a program built with -pg followed by its\n"
          "gmon.out files, and aprof reports of the run (the complexity view). With\n"
          "no FILE, the newest tally.out.*, callgrind.out.* or cachegrind.out.* of\n"
          "the current directory is read (a note says which).\n"
          "\n"
          "The page: the table of the functions it holds (sort, regex search), and\n"
          "for the selected one its callers and callees, the call graph around it,\n"
          "its source with the cost of each line, its flame graph and sandwich, and\n"
          "the flame graph of the whole run. It says what it left out; tally view\n"
          "on the same files shows everything.\n"
          "\n"
          "Options:\n"
          "  -o, --output=DIR       the directory to write (created when missing);\n"
          "                         a name ending in .html is the page itself\n"
          "  --event=EV             the event the page opens on and its pictures\n"
          "                         show (a base event; default: the first)\n"
          "  --max-functions=N      hold the N functions with the largest inclusive\n"
          "                         share, over every event (default 2000)\n"
          "  --max-source=N         the source of the first N of them (default 300)\n"
          "  --max-graphs=N         the call graph around the first N (default 50)\n"
          "  --max-trees=N          the flame graph and sandwich of the first N\n"
          "                         (default 200)\n"
          "  --no-callgraph         no call graph (no 'dot' run)\n"
          "  --no-flame             no flame graph or sandwich\n"
          "  --base=FILE            compare with FILE (repeatable: added up), as\n"
          "                         tally view --base does\n"
          "  -I, --include=DIR      also look for source files in DIR (repeatable)\n"
          "  --editor=TEMPLATE      link each source line to an editor ({path} and\n"
          "                         {line} are replaced)\n"
          "  --title=TEXT           the page's title\n"
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

/* --max-NAME=N into *out; 1 when argv[*i] is one of them. */
static int max_option(int argc, char **argv, int *i, int *missing, const char *name, size_t *out,
                      int positive, enum cli_opt *res)
{
    char opt[32];
    snprintf(opt, sizeof(opt), "--max-%s", name);
    const char *v = cli_optval(argc, argv, i, opt, missing);
    if (!v) return *missing;
    size_t n;
    *res = CLI_OPT_TAKEN;
    if (parse_count(v, &n) || (positive && n == 0)) {
        cli_errorf("report: %s wants a %s number, not '%s'", opt, positive ? "positive" : "whole",
                   v);
        *res = CLI_OPT_BAD;
    }
    *out = n;
    return 1;
}

/* report's own options (cli_parse_args). */
static enum cli_opt report_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct report_options *o = ctx;
    const char *a = argv[*i], *v;
    enum cli_opt res = CLI_OPT_TAKEN;
    if ((v = cli_optval(argc, argv, i, "--include", missing)) ||
        (!*missing && (v = cli_shortval(argc, argv, i, "-I", missing)))) {
        strlist_push(&o->include, v);
    } else if (!*missing && cli_event_title(argc, argv, i, missing, &o->event, &o->title)) {
        /* stored */
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--base", missing))) {
        strlist_push(&o->base, v);
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--editor", missing))) {
        if (!strstr(v, "{path}")) {
            cli_errorf("report: --editor wants a template with {path} (and {line}), not '%s'", v);
            return CLI_OPT_BAD;
        }
        o->editor = v;
    } else if (!*missing &&
               (max_option(argc, argv, i, missing, "functions", &o->snap.max_functions, 1, &res) ||
                max_option(argc, argv, i, missing, "source", &o->snap.max_source, 0, &res) ||
                max_option(argc, argv, i, missing, "graphs", &o->snap.max_graphs, 0, &res) ||
                max_option(argc, argv, i, missing, "trees", &o->snap.max_trees, 0, &res))) {
        return *missing ? CLI_OPT_TAKEN : res;
    } else if (!*missing && strcmp(a, "--no-callgraph") == 0) {
        o->snap.no_graph = 1;
    } else if (!*missing && strcmp(a, "--no-flame") == 0) {
        o->snap.no_flame = 1;
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

/* --event as the index of a base event of part 0; -1 with err. */
static int report_event(const struct profile *p, const char *event, size_t *ev,
                        struct tally_error *err)
{
    *ev = 0;
    if (!event) return 0;
    const struct eventset *es = &p->parts[0]->events;
    int i = eventset_index(es, event);
    if (i >= 0) {
        *ev = (size_t)i;
        return 0;
    }
    struct event_expr col = {0, NULL};
    const char *name;
    if (cli_event_column(p, event, &col, &name, err)) return -1;
    event_expr_release(&col);
    return tally_error_set(err, NULL, 0,
                           "--event=%s: the page's pictures show a base event, and %s is "
                           "derived",
                           event, event);
}

static int write_page(FILE *fp, void *ctx, struct tally_error *err)
{
    const char *snap = ctx;
    size_t len;
    char *page = view_page(snap, &len);
    size_t put = fwrite(page, 1, len, fp);
    free(page);
    if (put != len)
        return tally_error_set(err, NULL, 0, "cannot write the page: %s", strerror(errno));
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_options o = {.snap = VIEW_SNAPSHOT_OPTIONS_INIT};
    int status = report_parse_args(argc, argv, &o);
    if (status) {
        free(o.files);
        strlist_release(&o.include);
        strlist_release(&o.base);
        return status == 1 ? 0 : 2;
    }
    status = 1;
    struct tally_error err;
    tally_error_clear(&err);
    char *snap = NULL, *path = NULL;
    int made_dir = 0;
    /* -o NAME.html: that one file; any other name is a directory */
    size_t dl = strlen(o.dir);
    int single = dl > 5 && strcasecmp(o.dir + dl - 5, ".html") == 0;
    struct cli_view_load lo = {
        .title = o.title, .editor = o.editor, .include = o.include, .base = &o.base};
    struct view_session *s = cli_view_load(o.files, o.nfiles, &lo, &err);
    if (!s) goto fail;
    if (report_event(s->p, o.event, &o.snap.ev, &err)) {
        status = 2; /* --event names no base event of the input: usage */
        goto fail;
    }
    char prog[4096];
    if (!o.snap.no_graph && !dot_find_program(prog, sizeof(prog))) {
        fprintf(stderr, "tally: warning: report: no call graph: the 'dot' program is not "
                        "installed (install the Debian package graphviz)\n");
        o.snap.no_graph = 1;
        o.snap.graph_note = "no call graph: Graphviz's 'dot' was not installed";
    } else if (o.snap.no_graph) {
        o.snap.graph_note = "no call graph (--no-callgraph)";
    }
    if (o.snap.no_flame)
        o.snap.flame_note = "no flame graph (--no-flame)";
    else if (s->p->signed_costs) {
        o.snap.no_flame = 1;
        o.snap.flame_note = "no flame graph: the profile holds differences";
    }
    if (!(snap = view_snapshot(s, &o.snap, &err))) goto fail;
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
        made_dir = 1; /* removed again if the page cannot be written */
    }
    path = single ? xstrdup(o.dir) : xasprintf("%s/index.html", o.dir);
    if (cli_write_output(path, write_page, snap, &err)) goto fail;
    status = 0;
    goto out;
fail:
    cli_error(&err);
out:
    if (status && made_dir) rmdir(o.dir);
    free(path);
    free(snap);
    view_session_free(s);
    strlist_release(&o.include);
    strlist_release(&o.base);
    free(o.files);
    return status;
}
