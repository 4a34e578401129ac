/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame.c - `tally flame`: an interactive SVG flame graph of one or more
 * profiles, or a differential one of two. See docs/tally-flame.md.
 */
#include "cli.h"
#include "../analysis/stacks.h"
#include "../formats/format.h"
#include "../io/outfile.h"
#include "../model/cct.h"
#include "../report/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct flame_cli {
    const char *output; /* NULL = standard output */
    const char *event;  /* NULL = the first event */
    const char *title, *subtitle;
    const char *minwidth; /* PX or PCT% */
    int icicle, diff, colors;
    int negate; /* --negate: widths from OLD */
    unsigned width, depth;
    const char **files;
    int nfiles;
    int split; /* with --diff: where NEW starts in files */
};

static void flame_usage(FILE *fp)
{
    fputs("usage: tally flame [OPTIONS] [FILE...]\n"
          "       tally flame [OPTIONS] --diff OLD NEW\n"
          "\n"
          "With no FILE, the newest tally.out.*, callgrind.out.* or cachegrind.out.*\n"
          "of the current directory is read (a note says which).\n"
          "Draw an interactive SVG flame graph: one box per stack of functions, as\n"
          "wide as the cost spent in it and below it, callers under callees (or above\n"
          "them with --icicle). Hover a box for its name, file, self and total cost\n"
          "and shares; click it to zoom in, 'Reset Zoom' to go back; 'Search' (or\n"
          "Ctrl-F) highlights functions matching a regular expression and shows the\n"
          "share of the total they cover; 'ic' toggles case-insensitive search.\n"
          "\n"
          "FILE is any profile tally reads (callgrind, cachegrind, contexts; plain,\n"
          "gzip or zstd; '-' reads standard input); several files are added up.\n"
          "A contexts file (tally record --contexts=yes) gives the exact stacks; from\n"
          "other files they are estimated from the call arcs (a function's cost is\n"
          "split among its callers in proportion to the inclusive costs of their\n"
          "calls; by call counts where the arcs have no costs), and the picture\n"
          "says which under its title. A program built with -pg followed by its\n"
          "gmon.out files is drawn from gprof's analysis (--event=Time), as\n"
          "'tally gprof --callgrind-out' writes it. The contexts and callgrind\n"
          "files of one recording, given together, are joined (exact stacks).\n"
          "\n"
          "Options:\n"
          "  -o, --output=OUT     write the SVG to OUT (atomically); default: standard\n"
          "                       output; OUT may not be one of the inputs\n"
          "  --event=EV           the event to draw: an event of the profile, a built-in\n"
          "                       one (CEst, ...) or NAME=FORMULA (see below; no\n"
          "                       negative factor); default: the first event\n"
          "  --icicle             top-down: the root at the top, callees below\n"
          "  --minwidth=PX|PCT%   leave out boxes narrower than PX pixels or PCT percent\n"
          "                       of the total (default 0.1 pixels)\n"
          "  --title=TEXT         the title (default 'Flame Graph' or 'Icicle Graph')\n"
          "  --subtitle=TEXT      a line under the title (before the method line)\n"
          "  --colors=module|cost colour by object file (default) or by self cost\n"
          "                       (deeper red = more self cost)\n"
          "  --width=PX           picture width (default 1200)\n"
          "  --depth=N            at most N frames per stack (default 256)\n"
          "  --diff               two inputs OLD NEW: widths from NEW, red = the self\n"
          "                       cost of that stack grew, blue = it shrank, deeper =\n"
          "                       larger relative change; an input is a profile or a\n"
          "                       program followed by its gmon.out files; a legend\n"
          "                       shows the shades\n"
          "  --negate             with --diff: widths from OLD, so stacks NEW lost are\n"
          "                       seen (colours still say how NEW differs from OLD)\n"
          "  -h, --help           this text\n"
          "\n",
          fp);
    fputs(cli_formula_help, fp);
}

static int parse_count(const char *v, const char *opt, unsigned *out)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || !*v || v[0] == '-' || n == 0 || n > 100000) {
        cli_errorf("flame: %s needs a positive number, not '%s'", opt, v);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

/* flame's own options (cli_parse_args). */
static enum cli_opt flame_option(void *ctx, int argc, char **argv, int *i, int *missing)
{
    struct flame_cli *o = ctx;
    const char *a = argv[*i], *v;
    if (cli_event_title(argc, argv, i, missing, &o->event, &o->title)) {
        /* stored */
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--subtitle", missing))) {
        o->subtitle = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--minwidth", missing))) {
        o->minwidth = v;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--colors", missing))) {
        if (strcmp(v, "module") == 0)
            o->colors = FLAME_COLORS_MODULE;
        else if (strcmp(v, "cost") == 0)
            o->colors = FLAME_COLORS_COST;
        else {
            cli_errorf("flame: --colors must be 'module' or 'cost', not '%s'", v);
            return CLI_OPT_BAD;
        }
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--width", missing))) {
        if (parse_count(v, "--width", &o->width)) return CLI_OPT_BAD;
    } else if (!*missing && (v = cli_optval(argc, argv, i, "--depth", missing))) {
        if (parse_count(v, "--depth", &o->depth)) return CLI_OPT_BAD;
    } else if (strcmp(a, "--icicle") == 0) {
        o->icicle = 1;
    } else if (strcmp(a, "--diff") == 0) {
        o->diff = 1;
    } else if (strcmp(a, "--negate") == 0) {
        o->negate = 1;
    } else {
        return CLI_OPT_UNKNOWN;
    }
    return CLI_OPT_TAKEN;
}

/* Returns 0, -1000 after --help, or 2 on a usage error. */
static int parse_args(int argc, char **argv, struct flame_cli *o)
{
    memset(o, 0, sizeof(*o));
    struct cli_args a = {.cmd = "flame", .usage = flame_usage};
    int rc = cli_parse_args(argc, argv, &a, flame_option, o);
    o->files = a.files;
    o->nfiles = a.nfiles;
    o->output = a.output;
    if (rc == 1) return 0 - 1000;
    if (rc) return rc;
    if (o->nfiles == 0 && o->diff) {
        cli_errorf("flame: no input files; see 'tally flame --help'");
        return 2;
    }
    if (o->nfiles == 0) {
        /* room for argc entries: one more fits */
        if (!(o->files[0] = cli_newest_profile("flame"))) return 2;
        o->nfiles = 1;
    }
    /* the picture is SVG: a name that promises another format is refused */
    static const char *const raster[] = {".png", ".pdf", ".jpg", ".jpeg", ".gif", ".webp", ".ps"};
    size_t on = o->output ? strlen(o->output) : 0;
    for (size_t k = 0; k < sizeof raster / sizeof raster[0]; k++) {
        size_t rn = strlen(raster[k]);
        if (on > rn && strcasecmp(o->output + on - rn, raster[k]) == 0) {
            cli_errorf("flame: '%s': tally flame writes SVG only (an interactive picture); name "
                       "the output %.*s.svg, and convert it if need be (e.g. rsvg-convert, or a "
                       "browser's screenshot)",
                       o->output, (int)(on - rn), o->output);
            return 2;
        }
    }
    if (o->negate && !o->diff) {
        cli_errorf("flame: --negate draws the widths of OLD: it needs --diff OLD NEW");
        return 2;
    }
    if (o->diff && (o->split = cli_split_two_inputs(o->files, o->nfiles)) < 0) {
        cli_errorf("flame: --diff takes exactly two inputs, OLD and NEW (a profile each, or "
                   "a program followed by its gmon.out files)");
        return 2;
    }
    return 0;
}

/* "PX" or "PCT%" -> options. Returns 0 or -1. */
static int parse_minwidth(const char *s, struct flame_options *fo)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0 && v <= 1e9)) return -1; /* also NaN and inf */
    if (*end == '%' && end[1] == 0) {
        if (v > 100) return -1;
        fo->minwidth_frac = v / 100.0;
        return 0;
    }
    if (*end) return -1;
    fo->minwidth_px = v;
    return 0;
}

/* Read and add up files (cli_read_inputs); a profile of differences cannot be drawn. */
static struct profile *read_inputs(const char **files, int n, struct tally_error *err)
{
    struct cli_input_options in = {.drop_jumps = 1, .drop_addr = 1, .pair_runs = CLI_PAIR_JOIN};
    struct profile *sum = cli_read_inputs(files, n, &in, err);
    if (sum && sum->signed_costs) {
        tally_error_set(err, n == 1 ? files[0] : NULL, 0,
                        "a profile with negative costs (a diff) cannot be drawn; give both "
                        "profiles to --diff instead");
        profile_free(sum);
        sum = NULL;
    }
    return sum;
}

/*
 * The event to draw: a base event (its index), or a derived, built-in or
 * defined one (-2, its expression in *e). Returns -1 with err when p has
 * no such event.
 */
static int event_index(const struct profile *p, const char *event, const char *file,
                       struct event_expr *e, struct tally_error *err)
{
    const struct eventset *es = &p->parts[0]->events;
    if (!event) return es->n ? 0 : -1;
    int k = eventset_index(es, event);
    if (k >= 0) return k;
    if (eventset_lookup(es, event, e) == 0) return -2;
    char *all = eventset_join(es);
    tally_error_set(err, file, 0, "no event '%s' (the profile has: %s)", event, all);
    free(all);
    return -1;
}

/* Build the tree of event `ev` (-2: the expression e, named name) of p. */
static int build_tree(struct stack_tree *t, const struct profile *p, struct stack_options so,
                      int ev, const struct event_expr *e, const char *name, struct tally_error *err)
{
    so.event = ev >= 0 ? ev : -1;
    if (stacks_build(t, p, &so, err)) return -1;
    if (ev >= 0 || !stacks_derive(t, e, name, err)) return 0;
    stacks_release(t);
    return -1;
}

struct flame_out {
    const struct stack_tree *t;
    const struct flame_options *fo;
};

static int write_flame(FILE *fp, void *ctx, struct tally_error *err)
{
    const struct flame_out *f = ctx;
    return flame_write_svg(f->t, f->fo, fp, err);
}

int cmd_flame(int argc, char **argv)
{
    struct flame_cli o;
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        free(o.files);
        return rc == -1000 ? 0 : rc;
    }
    struct flame_options fo;
    memset(&fo, 0, sizeof(fo));
    fo.title = o.title;
    fo.subtitle = o.subtitle;
    fo.icicle = o.icicle;
    fo.colors = o.colors;
    fo.width = o.width;
    if (o.minwidth && parse_minwidth(o.minwidth, &fo)) {
        cli_errorf("flame: --minwidth needs pixels (e.g. 0.5) or a percentage (e.g. 0.1%%), "
                   "not '%s'",
                   o.minwidth);
        free(o.files);
        return 2;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *newp = NULL, *oldp = NULL;
    struct stack_tree tnew, told;
    struct event_expr expr = {0, NULL}, oexpr = {0, NULL};
    int have_new = 0, have_old = 0;
    rc = 1;
    cli_progress_start(o.files, o.nfiles);
    if (o.diff) {
        oldp = read_inputs(o.files, o.split, &err);
        if (!oldp) goto out;
        newp = read_inputs(o.files + o.split, o.nfiles - o.split, &err);
    } else {
        newp = read_inputs(o.files, o.nfiles, &err);
    }
    cli_progress_stop();
    if (!newp) goto out;
    const char *newfile = o.files[o.diff ? o.split : 0], *oldfile = o.files[0];
    if (o.negate) {
        /* widths from OLD: OLD is the tree drawn, NEW the one compared */
        struct profile *swap = newp;
        newp = oldp;
        oldp = swap;
        newfile = o.files[0];
        oldfile = o.files[o.split];
        fo.negate = 1;
    }
    /* frames below the minimum width are not built at all */
    double draww = (o.width ? (o.width < 100 ? 100 : o.width) : 1200) - 20.0;
    double prune = fo.minwidth_frac > 0 ? fo.minwidth_frac
                   : fo.minwidth_px > 0 ? fo.minwidth_px / draww
                                        : 0.1 / draww;
    /* --event=NAME=FORMULA defines NAME in both profiles, then draws it */
    const char *evname = o.event;
    if (o.event && strchr(o.event, '=')) {
        if (cli_define_events(newp, &o.event, 1, &err) ||
            (oldp && cli_define_events(oldp, &o.event, 1, &err))) {
            rc = 2;
            goto out;
        }
        const struct eventset *nes = &newp->parts[0]->events;
        evname = nes->derived[nes->nderived - 1].name;
    }
    int ev = event_index(newp, evname, newfile, &expr, &err);
    if (ev == -1) {
        if (!err.msg[0]) tally_error_set(&err, newfile, 0, "the profile has no events");
        if (o.event) rc = 2; /* --event names no event of the input: usage */
        goto out;
    }
    if (!evname) evname = newp->parts[0]->events.names[ev];
    struct stack_options so = {.part = -1, .max_depth = o.depth, .prune = prune};
    if (build_tree(&tnew, newp, so, ev, &expr, evname, &err)) {
        if (ev < 0) rc = 2; /* a derived event that cannot be drawn: usage */
        goto out;
    }
    have_new = 1;
    if (oldp) {
        int oev = event_index(oldp, evname, oldfile, &oexpr, &err);
        if (oev == -1) goto out;
        struct stack_options so2 = so;
        so2.prune = prune / 100; /* stacks of NEW should find their OLD cost */
        if (build_tree(&told, oldp, so2, oev, &oexpr, evname, &err)) goto out;
        have_old = 1;
        fo.old = &told;
    }
    struct flame_out fout = {&tnew, &fo};
    if (cli_write_output(o.output ? o.output : "-", write_flame, &fout, &err)) goto out;
    rc = 0;
out:
    if (rc) cli_error(&err);
    if (have_new) stacks_release(&tnew);
    if (have_old) stacks_release(&told);
    event_expr_release(&expr);
    event_expr_release(&oexpr);
    profile_free(newp);
    profile_free(oldp);
    free(o.files);
    return rc;
}
