/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate.c - `tally annotate`: the function table, call trees and
 * annotated source of one or more profiles (callgrind_annotate and
 * cg_annotate in one command). Options are parsed here; the report is
 * src/report/annotate.c.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/rename.h"
#include "../formats/format.h"
#include "../report/annotate.h"
#include "../report/srcfile.h"
#include "annotate_cg321.h"

static void usage(FILE *fp)
{
    fputs("usage: tally annotate [OPTIONS] [PROFILE...] [--] [SOURCE...]\n"
          "\n"
          "Print the program totals, the functions that cost the most, and the\n"
          "source files of those functions with a count beside every line.\n"
          "With no PROFILE, the newest tally.out.*, callgrind.out.* or\n"
          "cachegrind.out.* of the current directory is read (a note says which).\n"
          "Profiles are recognised by their content (callgrind, cachegrind, tally\n"
          "contexts; plain, gzip or zstd), as is a program built with -pg followed by\n"
          "its gmon.out files; several profiles with the same events are added together.\n"
          "A callgrind profile is shown as callgrind_annotate shows it, a cachegrind\n"
          "profile as cg_annotate (Valgrind 3.19) does; with --layout=3.21, a\n"
          "cachegrind profile as cg_annotate 3.21 and later do.\n"
          "\n"
          "Arguments: the first argument is always a profile. Later arguments are\n"
          "inputs when their content is one tally reads, source files to annotate\n"
          "otherwise; every argument after \"--\" is a source file.\n"
          "\n"
          "Options (defaults in brackets):\n"
          "  --layout=3.19|3.21     cg_annotate's layout of that Valgrind version [3.19];\n"
          "                         3.21 (since Valgrind 3.21; as 3.27.1) reads cachegrind\n"
          "                         profiles only, every argument is one, and they are\n"
          "                         added together (File:function and Function:file\n"
          "                         tables, source of the listed files, a threshold\n"
          "                         of 0 to 100 [0.1]); no inclusive costs, call trees,\n"
          "                         include directories nor source file arguments\n"
          "  --diff                 (3.21) the second profile minus the first\n"
          "  --show=EV,...          events to show, base, derived or built-in (CEst, ...)\n"
          "                         [all base events, then those of --event]\n"
          "  --event=NAME=FORMULA   define the event NAME (repeatable; see below)\n"
          "  --sort=EV[:PCT],...    sort by these events; PCT sets a threshold per event\n"
          "                         and replaces --threshold [the shown order]\n"
          "  --threshold=PCT        callgrind: stop listing functions once they add up\n"
          "                         to PCT% of the first sort event [99];\n"
          "                         cachegrind: list functions having at least PCT% of\n"
          "                         it [0.1]\n"
          "  --show-percs=yes|no    show a percentage after each count [yes]\n"
          "                         (--show-percs, --no-show-percs: the same)\n"
          "  --inclusive=yes|no     inclusive costs (callees included), with recursion\n"
          "                         and <cycle N> entries for mutual recursion [no]\n"
          "  --tree=none|caller|calling|both\n"
          "                         list each function's callers (<) and/or callees (>)\n"
          "                         with call counts [none]\n"
          "  --auto=yes|no          annotate the source of every listed function [yes]\n"
          "                         (--annotate, --no-annotate: the same)\n"
          "  --context=N            lines shown around each line with a count [8]\n"
          "  -I DIR, --include=DIR  look for source files in DIR too (repeatable;\n"
          "                         -IDIR and -I=DIR work as well)\n"
          "  --mod-filename=s/RE/REPL/[gi]  rename source files before grouping (3.21:\n"
          "                         the source is read from the file's own name)\n"
          "  --mod-funcname=s/RE/REPL/[gi]  rename functions before grouping\n"
          "  --group=object|file|class\n"
          "                         list groups of functions instead of functions and\n"
          "                         sources: by ELF object, by source file, or by C++\n"
          "                         class or namespace (templates' instances together,\n"
          "                         C functions in (none)); each with its self cost and\n"
          "                         its inclusive cost (while any of its functions is on\n"
          "                         the stack, counted once); sorted by self cost, or by\n"
          "                         inclusive cost with --inclusive=yes\n"
          "  --asm[=RE]             after the source, the machine code of every listed\n"
          "                         function (with =RE: of every function whose name\n"
          "                         the PCRE2 regex RE matches), disassembled from its\n"
          "                         object, with the costs, source lines, calls and\n"
          "                         jumps of each instruction; needs a profile recorded\n"
          "                         with --dump-instr=yes (and --collect-jumps=yes for\n"
          "                         jump counts)\n"
          "  --asm-syntax=intel|att instruction syntax of --asm [intel]\n"
          "  -h, --help             show this help\n"
          "\n"
          "See docs/tally-annotate.md for the differences from the Valgrind tools.\n"
          "\n",
          fp);
    fputs(cli_formula_help, fp);
}

/* "yes"/"no" -> 1/0, else -1 */
static int yes_no(const char *v)
{
    if (!strcmp(v, "yes")) return 1;
    if (!strcmp(v, "no")) return 0;
    return -1;
}

/*
 * A percentage as the Valgrind tools take it: digits and dots with an
 * optional '%'. Sets *text (malloc'd, without the '%') and returns 0, or -1.
 */
static int parse_pct(const char *v, char **text)
{
    size_t n = strlen(v);
    if (n && v[n - 1] == '%') n--;
    if (!n) return -1;
    int dots = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '.')
            dots++;
        else if (v[i] < '0' || v[i] > '9')
            return -1;
    }
    if (dots > 1 || (n == 1 && dots)) return -1;
    *text = xstrndup(v, n);
    double d = strtod(*text, NULL);
    if (d < 0 || d > 100) {
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

static void split_commas(struct strlist *l, const char *v)
{
    strlist_release(l);
    const char *s = v;
    for (;;) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if (n) {
            char *item = xstrndup(s, n);
            strlist_push(l, item);
            free(item);
        }
        if (!c) break;
        s = c + 1;
    }
}

static int parse_sort(struct annotate_options *o, const char *v)
{
    struct strlist items = {0};
    split_commas(&items, v);
    strlist_release(&o->sort);
    strlist_release(&o->sort_thresh);
    o->sort_has_thresholds = 0;
    int rc = 0;
    for (size_t i = 0; i < items.n && !rc; i++) {
        char *it = items.items[i];
        char *colon = strrchr(it, ':');
        char *t = NULL;
        if (colon && parse_pct(colon + 1, &t) == 0) {
            /* the event name ends at the first ':' */
            char *first = strchr(it, ':');
            char *name = xstrndup(it, (size_t)(first - it));
            strlist_push(&o->sort, name);
            strlist_push(&o->sort_thresh, t);
            o->sort_has_thresholds = 1;
            free(name);
            free(t);
        } else if (colon) {
            rc = -1;
        } else {
            strlist_push(&o->sort, it);
            strlist_push(&o->sort_thresh, "");
        }
    }
    strlist_release(&items);
    return rc;
}

static void add_include(struct annotate_options *o, const char *dir)
{
    size_t n = strlen(dir);
    if (n && dir[n - 1] == '/') n--;
    char *d = xstrndup(dir, n);
    strlist_pushf(&o->include_dirs, "%s/", d);
    free(d);
}

/*
 * Is this argument an input (a profile, a program or its gmon.out, an aprof
 * report: anything the format table recognises) rather than a source file?
 * Standard input, a pipe and a FIFO are inputs: a source file is never one.
 */
static int is_input(const char *path)
{
    enum profile_format f;
    return format_classify_path(path, &f) != FORMAT_OTHER;
}

/*
 * Is argv[*i] the option `name` (with its value in *v)? A missing value
 * also counts as a match, with *missing set, so the caller reports it.
 */
static int option(int argc, char **argv, int *i, const char *name, const char **v, int *missing)
{
    *v = cli_optval(argc, argv, i, name, missing);
    return *v != NULL || *missing;
}

static int source_found(const struct annotate_options *o, const char *name)
{
    struct srcfile_found found;
    int ok = srcfile_find(name, &o->include_dirs, SRCFILE_PREFIX, srcfile_access, NULL, &found);
    free(found.path);
    return ok;
}

int cmd_annotate(int argc, char **argv)
{
    struct annotate_options o;
    annotate_options_init(&o);
    struct strlist positional = {0}, after_dashes = {0}, defs = {0};
    const char *asm_syntax = NULL; /* --asm-syntax as given */
    /* the options that say what the function table and the source files show, for --group */
    const char *source_opt = NULL;
    const char *mod_file = NULL, *mod_fn = NULL;
    char *thr_text = NULL;
    const char *thr_raw = NULL; /* --threshold as given: each layout reads it its way */
    int layout321 = 0, diff = 0;
    struct tally_error err0;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int missing = 0;
        if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                strlist_push(&after_dashes, argv[i]);
            break;
        }
        if (a[0] != '-' || !strcmp(a, "-")) {
            strlist_push(&positional, a);
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = 0;
            goto out;
        }
        if (!strcmp(a, "--asm") || !strncmp(a, "--asm=", 6)) {
            o.asm_code = 1;
            o.asm_regex = a[5] ? a + 6 : NULL;
            if (o.asm_regex && annotate_asm_regex_check(o.asm_regex, &err0)) {
                rc = cli_bad_usage("annotate", "%s", err0.msg);
                goto out;
            }
            continue;
        }
        if (option(argc, argv, &i, "--asm-syntax", &v, &missing)) {
            if (missing) {
                rc = cli_bad_usage("annotate", "option '%s' needs a value", a);
                goto out;
            }
            if (strcmp(v, "intel") && strcmp(v, "att")) {
                rc = cli_bad_usage("annotate", "--asm-syntax takes intel or att, not '%s'", v);
                goto out;
            }
            o.asm_att = !strcmp(v, "att");
            asm_syntax = a;
            continue;
        }
        /* the flags of cg_annotate 3.21+ (--show-percs takes yes or no after it too) */
        int pv = i + 1 < argc && (!strcmp(argv[i + 1], "yes") || !strcmp(argv[i + 1], "no"));
        if (!strcmp(a, "--diff") || !strcmp(a, "--annotate") || !strcmp(a, "--no-annotate") ||
            !strcmp(a, "--no-show-percs") || (!strcmp(a, "--show-percs") && !pv)) {
            if (!strcmp(a, "--diff")) diff = 1;
            if (!strcmp(a, "--annotate")) o.auto_annotate = 1;
            if (!strcmp(a, "--no-annotate")) o.auto_annotate = 0;
            if (!strcmp(a, "--show-percs")) o.show_percs = 1;
            if (!strcmp(a, "--no-show-percs")) o.show_percs = 0;
            continue;
        }
        static const char *const valued[] = {
            "--show",         "--sort",  "--threshold", "--show-percs", "--inclusive",
            "--auto",         "--tree",  "--context",   "--include",    "--mod-filename",
            "--mod-funcname", "--event", "--group",     "--layout"};
        const char *name = NULL;
        for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !name; k++)
            if (option(argc, argv, &i, valued[k], &v, &missing)) name = valued[k];
        if (missing) {
            rc = cli_bad_usage("annotate", "option '%s' needs a value", a);
            goto out;
        }
        if (!name) {
            /* not an option with a value: handled below */
        } else if (!strcmp(name, "--show")) {
            split_commas(&o.show, v);
            if (!o.show.n) {
                rc = cli_bad_usage("annotate", "--show needs at least one event%s", "");
                goto out;
            }
        } else if (!strcmp(name, "--sort")) {
            if (parse_sort(&o, v) || !o.sort.n) {
                rc = cli_bad_usage("annotate", "bad --sort value '%s' (EVENT[:PERCENT],...)", v);
                goto out;
            }
        } else if (!strcmp(name, "--threshold")) {
            thr_raw = v;
        } else if (!strcmp(name, "--layout")) {
            if (strcmp(v, "3.19") && strcmp(v, "3.21")) {
                rc = cli_bad_usage("annotate", "--layout takes 3.19 or 3.21, not '%s'", v);
                goto out;
            }
            layout321 = !strcmp(v, "3.21");
        } else if (!strcmp(name, "--show-percs")) {
            if ((o.show_percs = yes_no(v)) < 0) {
                rc = cli_bad_usage("annotate", "--show-percs takes yes or no, not '%s'", v);
                goto out;
            }
        } else if (!strcmp(name, "--inclusive")) {
            if ((o.inclusive = yes_no(v)) < 0) {
                rc = cli_bad_usage("annotate", "--inclusive takes yes or no, not '%s'", v);
                goto out;
            }
        } else if (!strcmp(name, "--auto")) {
            if ((o.auto_annotate = yes_no(v)) == 1) source_opt = "--auto=yes";
            if (o.auto_annotate < 0) {
                rc = cli_bad_usage("annotate", "--auto takes yes or no, not '%s'", v);
                goto out;
            }
        } else if (!strcmp(name, "--tree")) {
            if (!strcmp(v, "none")) {
                o.tree_caller = o.tree_calling = 0;
            } else if (!strcmp(v, "caller")) {
                o.tree_caller = 1;
                o.tree_calling = 0;
            } else if (!strcmp(v, "calling")) {
                o.tree_caller = 0;
                o.tree_calling = 1;
            } else if (!strcmp(v, "both")) {
                o.tree_caller = o.tree_calling = 1;
            } else {
                rc = cli_bad_usage("annotate",
                                   "--tree takes none, caller, calling or both, not '%s'", v);
                goto out;
            }
        } else if (!strcmp(name, "--context")) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 0 || errno || n > 1000000) {
                rc = cli_bad_usage("annotate", "bad --context value '%s' (a number of lines)", v);
                goto out;
            }
            o.context = n;
            source_opt = "--context";
        } else if (!strcmp(name, "--include")) {
            add_include(&o, v);
            source_opt = "-I";
        } else if (!strcmp(name, "--group")) {
            if (group_kind_parse(v, &o.group_kind)) {
                rc = cli_bad_usage("annotate", "--group takes object, file or class, not '%s'", v);
                goto out;
            }
            o.group = 1;
        } else if (!strcmp(name, "--event")) {
            if (event_definition_check(v, &err0)) {
                rc = cli_bad_usage("annotate", "--event: %s", err0.msg);
                goto out;
            }
            strlist_push(&defs, v);
        } else if (!strcmp(name, "--mod-filename")) {
            mod_file = v;
        } else {
            mod_fn = v;
        }
        if (name) continue;
        if (!strncmp(a, "-I", 2)) {
            source_opt = "-I";
            if (a[2] == '=')
                add_include(&o, a + 3);
            else if (a[2])
                add_include(&o, a + 2);
            else if (i + 1 < argc)
                add_include(&o, argv[++i]);
            else
                missing = 1;
        } else {
            cli_unknown_option("annotate", a, usage);
            rc = 2;
            goto out;
        }
        if (missing) {
            rc = cli_bad_usage("annotate", "option '%s' needs a value", a);
            goto out;
        }
    }
    if (thr_raw && !layout321) {
        if (parse_pct(thr_raw, &thr_text)) {
            rc = cli_bad_usage("annotate", "bad --threshold value '%s' (a percentage, 0 to 100)",
                               thr_raw);
            goto out;
        }
        o.threshold = thr_text;
    }
    if (diff && !layout321) {
        rc = cli_bad_usage("annotate", "--diff is part of --layout=3.21 (%s)",
                           "or make a profile of differences with tally diff");
        goto out;
    }
    if (mod_file && !(o.mod_file = rename_compile(mod_file, &err0))) {
        rc = cli_bad_usage("annotate", "--mod-filename: %s", err0.msg);
        goto out;
    }
    if (mod_fn && !(o.mod_fn = rename_compile(mod_fn, &err0))) {
        rc = cli_bad_usage("annotate", "--mod-funcname: %s", err0.msg);
        goto out;
    }
    {
        /* an empty FILE with FILE-01, FILE-02 ... beside it: the per-thread set */
        int n = (int)positional.n;
        const char **list = xmalloc(((size_t)n + 1) * sizeof(*list));
        for (int k = 0; k < n; k++)
            list[k] = positional.items[k];
        const char **got = cli_thread_sets(list, &n);
        if (got != list) {
            struct strlist expanded = {0};
            for (int k = 0; k < n; k++)
                strlist_push(&expanded, got[k]);
            strlist_release(&positional);
            positional = expanded;
        }
        free(got);
    }
    if (!positional.n) {
        const char *newest = cli_newest_profile("annotate");
        if (!newest) goto out;
        strlist_push(&positional, newest);
    }
    if (asm_syntax && !o.asm_code) {
        rc = cli_bad_usage("annotate", "%s goes with --asm", asm_syntax);
        goto out;
    }
    if (layout321) {
        struct cga_cli x = {.o = &o,
                            .threshold = thr_raw,
                            .diff = diff,
                            .profiles = &positional,
                            .source_files = after_dashes.n > 0,
                            .defines = defs.n > 0,
                            .argc = argc,
                            .argv = argv};
        rc = annotate_cg321(&x);
        goto out;
    }
    /* profiles, then source files */
    strlist_push(&o.inputs, positional.items[0]);
    for (size_t k = 1; k < positional.n; k++) {
        if (is_input(positional.items[k]))
            strlist_push(&o.inputs, positional.items[k]);
        else
            strlist_push(&o.user_files, positional.items[k]);
    }
    for (size_t k = 0; k < after_dashes.n; k++)
        strlist_push(&o.user_files, after_dashes.items[k]);
    if (o.group) {
        /* the groups' table takes the place of the function table and the source files */
        if (!source_opt && (o.tree_caller || o.tree_calling)) source_opt = "--tree";
        if (!source_opt && thr_text) source_opt = "--threshold";
        if (!source_opt && o.user_files.n) source_opt = "a source file";
        if (!source_opt && mod_file) source_opt = "--mod-filename";
        if (!source_opt && mod_fn) source_opt = "--mod-funcname";
        if (source_opt) {
            rc = cli_bad_usage("annotate",
                               "--group shows every group and no function nor source file: "
                               "%s does not apply",
                               source_opt);
            goto out;
        }
        o.auto_annotate = 0;
    }
    rc = 1;
    for (size_t k = 0; k < o.user_files.n; k++)
        if (!source_found(&o, o.user_files.items[k])) {
            cli_errorf("%s: source file not found (looked in the current directory%s)",
                       o.user_files.items[k], o.include_dirs.n ? " and the -I directories" : "");
            goto out;
        }

    /* no addresses, no jumps (unless --asm shows them), no stacks; no lines when no source is
       annotated, and then call counts only when no call is shown (no --inclusive, no --tree) */
    int no_lines = !o.auto_annotate && !o.user_files.n && !o.asm_code;
    struct cli_input_options in = {.drop_addr = !o.asm_code,
                                   .drop_jumps = !o.asm_code,
                                   .drop_line = no_lines,
                                   .call_counts_only = no_lines && !o.inclusive && !o.group &&
                                                       !o.tree_caller && !o.tree_calling,
                                   .no_stacks = !o.group, /* exact group costs from stacks */
                                   .drop_index = 1,       /* the report reads records in order */
                                   .pair_runs = o.group ? CLI_PAIR_JOIN : CLI_PAIR_CALLGRIND};
    struct tally_error err;
    tally_error_clear(&err);
    cli_progress_start((const char *const *)o.inputs.items, (int)o.inputs.n);
    struct profile *p =
        cli_read_inputs((const char *const *)o.inputs.items, (int)o.inputs.n, &in, &err);
    cli_progress_stop();
    if (!p) {
        cli_error(&err);
        goto out;
    }
    if (cli_define_events(p, (const char *const *)defs.items, defs.n, &err)) {
        cli_error(&err);
        profile_free(p);
        rc = 2;
        goto out;
    }
    if (defs.n && !o.show.n && p->nparts) {
        /* the defined events are shown (and sort) after the base events, as if the file had them */
        const struct eventset *es = &p->parts[0]->events;
        for (size_t k = 0; k < es->n + defs.n; k++)
            strlist_push(&o.show, k < es->n ? es->names[k]
                                            : es->derived[es->nderived - es->n - defs.n + k].name);
        if (!o.sort.n)
            for (size_t k = 0; k < o.show.n; k++) {
                strlist_push(&o.sort, o.show.items[k]);
                strlist_push(&o.sort_thresh, "");
            }
    }
    if (o.asm_code && annotate_asm_check_profile(p, &err)) {
        cli_error(&err);
        profile_free(p);
        rc = 1;
        goto out;
    }
    if (annotate_check_events(p, &o, &err)) {
        fputs("tally: annotate: ", stderr);
        fprintf(stderr, "%s\n", err.msg);
        profile_free(p);
        rc = 2;
        goto out;
    }
    char cwd[4096];
    char *prefix = NULL;
    if (getcwd(cwd, sizeof(cwd))) prefix = xasprintf("%s/", strcmp(cwd, "/") ? cwd : "");
    o.cwd = prefix;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
    if (annotate_report(stdout, p, &o, &err)) {
        fflush(stdout);
        cli_error(&err);
        rc = 1;
    } else {
        rc = 0;
    }
    free(prefix);
    profile_free(p);
out:
    if (o.mod_file) rename_free((struct rename *)o.mod_file);
    if (o.mod_fn) rename_free((struct rename *)o.mod_fn);
    free(thr_text);
    strlist_release(&positional);
    strlist_release(&after_dashes);
    strlist_release(&defs);
    annotate_options_release(&o);
    return rc;
}
