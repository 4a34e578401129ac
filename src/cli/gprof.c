/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.c - `tally gprof`: GNU gprof's reports (flat profile, call graph
 * with cycles, index, execution counts, annotated source, orderings) from
 * an executable built with -pg and its gmon.out files, plus a callgrind
 * file of the same data. Options follow gprof 2.40's command summary.
 */
#include "cli.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/gprof_load.h"
#include "../formats/format.h"
#include "../report/gprof.h"
#include "../report/srcfile.h"
#include "../symbols/demangle.h"

#include <libiberty/libiberty.h>

#ifndef TALLY_VERSION
#define TALLY_VERSION "0.1.0"
#endif

enum {
    STYLE_FLAT = 1,
    STYLE_GRAPH = 2,
    STYLE_EXEC = 4,
    STYLE_ANNO = 8,
    STYLE_FUNC_ORDER = 16,
    STYLE_FILE_ORDER = 32,
    STYLE_SUM = 64,
    STYLE_INFO = 128,
    STYLE_CALLGRIND = 256,
};

/* What the command line asks for (gprof_parse_args). */
struct gprof_options {
    struct gprof_load_options load; /* the program, -a -D -O -l -R; load.specs = &specs */
    struct symspec_set specs;       /* the tables of -p -q -C -A -n -N -k -e... */
    struct strlist dirs;            /* -I and GPROF_PATH */
    unsigned style, user_specified; /* STYLE_* asked for / named on the command line */
    bool static_calls;              /* -c */
    bool brief, bsd, zeros;         /* -b, -T, -z */
    bool print_path, inline_names;  /* -L, --inline-file-names */
    bool all_lines, separate;       /* -x, -y */
    enum demangle_style dstyle;     /* --demangle, --no-demangle */
    unsigned long width, min_count, table_len; /* -w, -m, -t */
    const char *callgrind_out;                 /* --callgrind-out */
    const char *const *gmons;                  /* the gmon.out files (default "gmon.out") */
    const char *file_order_map;                /* -R MAP, or NULL */
    int ngmons;
};

static void usage(FILE *fp)
{
    fputs("usage: tally gprof [OPTIONS] [EXECUTABLE [GMON-FILE...]]\n"
          "\n"
          "Report on a program built with `gcc -pg`: the flat profile, the call\n"
          "graph with its cycles and the index, as GNU gprof 2.40 prints them (with\n"
          "-b byte for byte), or execution counts and annotated source. Without\n"
          "arguments the program is a.out and the profile gmon.out; several profile\n"
          "files are added together.\n"
          "\n"
          "Output (SPEC: file.c, function, line, file.c:function, file.c:line,\n"
          ":name; A/B names the calls from A to B):\n"
          "  -p[SPEC], --flat-profile[=SPEC]     flat profile (only of SPEC)\n"
          "  -P[SPEC], --no-flat-profile[=SPEC]  no flat profile (or leave SPEC out)\n"
          "  -q[SPEC], --graph[=SPEC]            call graph (only of SPEC); -B = -q\n"
          "  -Q[SPEC], --no-graph[=SPEC]         no call graph (or leave SPEC out)\n"
          "  -C[SPEC], --exec-counts[=SPEC]      execution counts per function/line\n"
          "  -Z[SPEC], --no-exec-counts[=SPEC]   no execution counts (or not of SPEC)\n"
          "  -A[SPEC], --annotated-source[=SPEC] source with call counts per line\n"
          "  -J[SPEC], --no-annotated-source[=SPEC]\n"
          "  -i, --file-info                     describe the profile files\n"
          "  -b, --brief                         no explanations\n"
          "  -T, --traditional                   BSD layout\n"
          "  -w N, --width=N                     width of the index [80]\n"
          "  -L, --print-path                    full source paths\n"
          "  -I DIRS, --directory-path=DIRS      where to find sources (also GPROF_PATH)\n"
          "  -x, --all-lines                     annotate every line (with -A)\n"
          "  -y, --separate-files                write FILE-ann files (with -A)\n"
          "  -t N, --table-length=N              top lines listed by -A [10]\n"
          "  -r, --function-ordering             suggested function order for linking\n"
          "  -R MAP, --file-ordering MAP         suggested object-file order\n"
          "  --demangle[=STYLE], --no-demangle   C++ names [on, auto]\n"
          "  --inline-file-names                 show file:line after names\n"
          "  --callgrind-out=FILE                also write the data as a callgrind\n"
          "                                      profile (tally annotate, KCachegrind);\n"
          "                                      not the program or a gmon.out file\n"
          "Analysis:\n"
          "  -a, --no-static                     hide static functions\n"
          "  -c, --static-call-graph             add calls found in the code (x86)\n"
          "  -D, --ignore-non-functions          only function symbols\n"
          "  -k FROM/TO                          drop the calls from FROM to TO\n"
          "  -l, --line                          per source line instead of function\n"
          "  -m N, --min-count=N                 lines run fewer times count as not run\n"
          "  -n[SPEC], --time[=SPEC]             propagate time only of SPEC\n"
          "  -N[SPEC], --no-time[=SPEC]          do not propagate time of SPEC\n"
          "  -z, --display-unused-functions      also list functions never used\n"
          "  -e F, -E F, -f F, -F F              old forms of -Q, -QN, -q, -qn\n"
          "Other:\n"
          "  -O FMT, --file-format=FMT           auto, bsd, 4.4bsd or magic\n"
          "  -s, --sum                           write the sum of the files to gmon.sum\n"
          "  @FILE                               read more options from FILE\n"
          "  -v, --version                       print the version\n"
          "  -h, --help                          this help\n"
          "\n"
          "See docs/tally-gprof.md.\n",
          fp);
}

enum {
    OPT_DEMANGLE = 1000,
    OPT_NO_DEMANGLE,
    OPT_INLINE_FILE_NAMES,
    OPT_CALLGRIND_OUT,
    OPT_HELP,
};

static const struct option long_opts[] = {
    {"annotated-source", optional_argument, NULL, 'A'},
    {"no-annotated-source", optional_argument, NULL, 'J'},
    {"brief", no_argument, NULL, 'b'},
    {"exec-counts", optional_argument, NULL, 'C'},
    {"no-exec-counts", optional_argument, NULL, 'Z'},
    {"file-info", no_argument, NULL, 'i'},
    {"directory-path", required_argument, NULL, 'I'},
    {"print-path", no_argument, NULL, 'L'},
    {"flat-profile", optional_argument, NULL, 'p'},
    {"no-flat-profile", optional_argument, NULL, 'P'},
    {"graph", optional_argument, NULL, 'q'},
    {"no-graph", optional_argument, NULL, 'Q'},
    {"separate-files", no_argument, NULL, 'y'},
    {"function-ordering", no_argument, NULL, 'r'},
    {"file-ordering", required_argument, NULL, 'R'},
    {"traditional", no_argument, NULL, 'T'},
    {"width", required_argument, NULL, 'w'},
    {"all-lines", no_argument, NULL, 'x'},
    {"table-length", required_argument, NULL, 't'},
    {"demangle", optional_argument, NULL, OPT_DEMANGLE},
    {"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
    {"inline-file-names", no_argument, NULL, OPT_INLINE_FILE_NAMES},
    {"no-static", no_argument, NULL, 'a'},
    {"static-call-graph", no_argument, NULL, 'c'},
    {"ignore-non-functions", no_argument, NULL, 'D'},
    {"line", no_argument, NULL, 'l'},
    {"min-count", required_argument, NULL, 'm'},
    {"time", required_argument, NULL, 'n'},
    {"no-time", required_argument, NULL, 'N'},
    {"display-unused-functions", no_argument, NULL, 'z'},
    {"debug", optional_argument, NULL, 'd'},
    {"external-symbol-table", required_argument, NULL, 'S'},
    {"file-format", required_argument, NULL, 'O'},
    {"sum", no_argument, NULL, 's'},
    {"version", no_argument, NULL, 'v'},
    {"callgrind-out", required_argument, NULL, OPT_CALLGRIND_OUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_uint(const char *s, unsigned long *out)
{
    char *end;
    if (!s || !*s) return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end) return -1;
    *out = v;
    return 0;
}

/* gprof -s: the arcs merged per symbol pair, parents in address order,
 * children in list order, symbol start addresses. */
static struct gmon_arc *sum_arcs(struct gprof *g, size_t *n)
{
    struct gmon_arc *v = xmalloc((g->nall_arcs + 1) * sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < g->nsyms; i++)
        for (struct gprof_arc *a = g->syms[i].children; a; a = a->next_child) {
            v[k].from_pc = a->parent->addr;
            v[k].self_pc = a->child->addr;
            v[k].count = a->count;
            k++;
        }
    *n = k;
    return v;
}

static const char *const default_gmons[] = {"gmon.out"};

static void gprof_options_init(struct gprof_options *o)
{
    memset(o, 0, sizeof(*o));
    symspec_set_init(&o->specs);
    o->load.flavour = GMON_FLAVOUR_AUTO;
    o->load.specs = &o->specs;
    o->dstyle = DEMANGLE_AUTO;
    o->width = 80;
    o->min_count = 1;
    o->table_len = 10;
    gprof_exclude_mcount(&o->specs);
}

static void gprof_options_release(struct gprof_options *o)
{
    symspec_set_release(&o->specs);
    strlist_release(&o->dirs);
}

/* Turn report STYLE on; with a spec (-pSPEC, -qSPEC, -CSPEC, -ASPEC) only
 * for that SPEC (added to table `kind`). */
static void style_on(struct gprof_options *o, unsigned style, const char *spec,
                     enum symspec_table_id kind)
{
    if (spec) symspec_set_add(&o->specs, spec, kind);
    o->style |= style;
    o->user_specified |= style;
}

/* Turn STYLE off (-P, -Q, -Z, -J), or with a spec leave SPEC out of it. */
static void style_off(struct gprof_options *o, unsigned style, const char *spec,
                      enum symspec_table_id kind)
{
    if (spec) {
        symspec_set_add(&o->specs, spec, kind);
        o->style |= style;
    } else {
        o->style &= ~style;
    }
    o->user_specified |= style;
}

/*
 * Parse the command line (after @FILE expansion) into o. Returns 0, 1
 * when there is nothing more to do (--help, --version) or 2 after a usage
 * error (reported here).
 */
static int gprof_parse_args(int argc, char **argv, struct gprof_options *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    optind = 0;
    opterr = 0;
    int c;
    while (
        (c = getopt_long(argc, argv,
                         ":aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::",
                         long_opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            o->load.elf.no_static = true;
            break;
        case 'A':
            style_on(o, STYLE_ANNO, optarg, SYMSPEC_INCL_ANNO);
            break;
        case 'J':
            style_off(o, STYLE_ANNO, optarg, SYMSPEC_EXCL_ANNO);
            break;
        case 'b':
            o->brief = true;
            break;
        case 'B': /* gprof's undocumented synonym of -q */
            style_on(o, STYLE_GRAPH, NULL, 0);
            break;
        case 'c':
            o->static_calls = true;
            break;
        case 'C':
            style_on(o, STYLE_EXEC, optarg, SYMSPEC_INCL_EXEC);
            break;
        case 'Z':
            style_off(o, STYLE_EXEC, optarg, SYMSPEC_EXCL_EXEC);
            break;
        case 'd':
            return cli_bad_usage("gprof", "%s",
                                 "-d/--debug (gprof's trace of its own internals) is not "
                                 "offered");
        case 'S':
            return cli_bad_usage("gprof", "%s",
                                 "-S/--external-symbol-table is not supported: the symbols "
                                 "come from the executable");
        case 'D':
            o->load.elf.static_funcs_only = true;
            break;
        case 'e':
            symspec_set_add(&o->specs, optarg, SYMSPEC_EXCL_GRAPH);
            break;
        case 'E':
            symspec_set_add(&o->specs, optarg, SYMSPEC_EXCL_GRAPH);
            symspec_set_add(&o->specs, optarg, SYMSPEC_EXCL_TIME);
            break;
        case 'f':
            symspec_set_add(&o->specs, optarg, SYMSPEC_INCL_GRAPH);
            break;
        case 'F':
            symspec_set_add(&o->specs, optarg, SYMSPEC_INCL_GRAPH);
            symspec_set_add(&o->specs, optarg, SYMSPEC_INCL_TIME);
            break;
        case 'h':
            usage(stdout);
            return 1;
        case 'i':
            style_on(o, STYLE_INFO, NULL, 0);
            break;
        case 'I':
            srcfile_dirs_add(&o->dirs, optarg);
            break;
        case 'k':
            if (!strchr(optarg, '/'))
                return cli_bad_usage("gprof", "-k needs FROM/TO, not '%s'", optarg);
            symspec_set_add(&o->specs, optarg, SYMSPEC_EXCL_ARCS);
            break;
        case 'l':
            o->load.line_mode = true;
            break;
        case 'L':
            o->print_path = true;
            break;
        case 'm':
            if (parse_uint(optarg, &o->min_count))
                return cli_bad_usage("gprof", "-m needs a number, not '%s'", optarg);
            break;
        case 'n':
            if (optarg) symspec_set_add(&o->specs, optarg, SYMSPEC_INCL_TIME);
            break;
        case 'N':
            if (optarg) symspec_set_add(&o->specs, optarg, SYMSPEC_EXCL_TIME);
            break;
        case 'O': {
            int f = gmon_flavour_from_name(optarg);
            if (f < 0)
                return cli_bad_usage("gprof", "unknown file format '%s' (auto, bsd, 4.4bsd, magic)",
                                     optarg);
            o->load.flavour = (enum gmon_flavour)f;
            break;
        }
        case 'p':
            style_on(o, STYLE_FLAT, optarg, SYMSPEC_INCL_FLAT);
            break;
        case 'P':
            style_off(o, STYLE_FLAT, optarg, SYMSPEC_EXCL_FLAT);
            break;
        case 'q':
            style_on(o, STYLE_GRAPH, optarg,
                     optarg && strchr(optarg, '/') ? SYMSPEC_INCL_ARCS : SYMSPEC_INCL_GRAPH);
            break;
        case 'Q':
            style_off(o, STYLE_GRAPH, optarg,
                      optarg && strchr(optarg, '/') ? SYMSPEC_EXCL_ARCS : SYMSPEC_EXCL_GRAPH);
            break;
        case 'r':
            style_on(o, STYLE_FUNC_ORDER, NULL, 0);
            break;
        case 'R':
            o->file_order_map = optarg;
            style_on(o, STYLE_FILE_ORDER, NULL, 0);
            break;
        case 's':
            style_on(o, STYLE_SUM, NULL, 0);
            o->load.line_mode = true;
            break;
        case 't':
            if (parse_uint(optarg, &o->table_len))
                return cli_bad_usage("gprof", "-t needs a number, not '%s'", optarg);
            break;
        case 'T':
            o->bsd = true;
            break;
        case 'v':
            printf("tally gprof (tally %s), reports as GNU gprof 2.40\n", TALLY_VERSION);
            return 1;
        case 'w':
            if (parse_uint(optarg, &o->width) || o->width < 4)
                return cli_bad_usage("gprof", "-w needs a width, not '%s'", optarg);
            break;
        case 'x':
            o->all_lines = true;
            break;
        case 'y':
            o->separate = true;
            break;
        case 'z':
            o->zeros = true;
            break;
        case OPT_DEMANGLE:
            if (optarg && demangle_style_parse(optarg, &o->dstyle, &err)) {
                cli_error(&err);
                return 2;
            }
            if (!optarg) o->dstyle = DEMANGLE_AUTO;
            break;
        case OPT_NO_DEMANGLE:
            o->dstyle = DEMANGLE_NONE;
            break;
        case OPT_INLINE_FILE_NAMES:
            o->inline_names = true;
            break;
        case OPT_CALLGRIND_OUT:
            o->callgrind_out = optarg;
            o->style |= STYLE_CALLGRIND;
            break;
        case ':':
            return cli_bad_usage("gprof", "option '%s' needs a value", argv[optind - 1]);
        default:
            cli_unknown_option("gprof", argv[optind - 1], usage);
            return 2;
        }
    }
    if ((o->style & STYLE_FUNC_ORDER) && (o->style & STYLE_FILE_ORDER))
        return cli_bad_usage("gprof", "%s",
                             "--function-ordering and --file-ordering exclude each other");
    srcfile_dirs_add(&o->dirs, getenv("GPROF_PATH"));

    o->load.exe = optind < argc ? argv[optind++] : "a.out";
    o->gmons = optind < argc ? (const char *const *)argv + optind : default_gmons;
    o->ngmons = optind < argc ? argc - optind : 1;
    /* --callgrind-out onto the program or a gmon.out file would destroy it */
    const char *ins[2] = {o->load.exe, NULL};
    if (cli_check_output(o->callgrind_out, ins, 1, &err) ||
        cli_check_output(o->callgrind_out, o->gmons, o->ngmons, &err)) {
        cli_error(&err);
        return 2;
    }
    return 0;
}

/* gprof -i: what each file read held. */
static void print_file_info(const struct gprof_options *o, const struct gprof_load *L)
{
    if (!(o->style & STYLE_INFO)) return;
    for (size_t i = 0; i < L->ninfo; i++) {
        const struct gmon_file_info *fi = &L->info[i];
        printf("File `%s' (version %d) contains:\n", o->gmons[i], fi->version);
        printf("\t%lu histogram record%s\n", fi->nhist, fi->nhist == 1 ? "" : "s");
        printf("\t%lu call-graph record%s\n", fi->narcs, fi->narcs == 1 ? "" : "s");
        printf("\t%lu basic-block count record%s\n", fi->nbb, fi->nbb == 1 ? "" : "s");
    }
}

/* gprof -s: the sum of the files, with the arcs merged per symbol pair, to gmon.sum. */
static int write_sum(struct gprof_load *L, struct tally_error *err)
{
    struct gmon_write_opts wo = {0};
    wo.flavour = L->ropts.flavour;
    wo.layout = L->ropts.layout;
    wo.hertz = L->ropts.hertz;
    size_t na = 0;
    struct gmon_arc *arcs = sum_arcs(&L->g, &na);
    wo.arcs = arcs;
    wo.narcs = na;
    int rc = gmon_write(&L->gm, "gmon.sum", &wo, err);
    free(arcs);
    return rc;
}

/* --callgrind-out: the analysis as a callgrind profile. */
static int write_callgrind(const struct gprof_options *o, const struct gprof_load *L,
                           struct tally_error *err)
{
    struct profile *p = gprof_to_profile(&L->g, &L->img, o->load.exe, err);
    if (!p) {
        snprintf(err->file, sizeof(err->file), "%s", o->callgrind_out);
        return -1;
    }
    int rc = profile_write(p, PROFILE_FORMAT_CALLGRIND, o->callgrind_out, err);
    profile_free(p);
    return rc;
}

/* The reports asked for, on standard output. Returns 0 or 1 (reported). */
static int print_reports(const struct gprof_options *o, struct gprof_load *L, unsigned style)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct gprof *g = &L->g;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
    struct gprof_report rep = {0};
    rep.out = stdout;
    rep.brief = o->brief;
    rep.bsd = o->bsd;
    rep.ignore_zeros = !o->zeros;
    rep.line_mode = o->load.line_mode;
    rep.print_path = o->print_path;
    rep.inline_file_names = o->inline_names;
    rep.demangle = o->dstyle;
    rep.width = (int)o->width;
    rep.dimen = L->gm.dimen[0] ? L->gm.dimen : "seconds";
    rep.dimen_abbrev = L->gm.dimen_abbrev ? L->gm.dimen_abbrev : 's';
    rep.first_output = true;
    rep.specs = &o->specs;

    if (o->bsd) {
        if (style & STYLE_GRAPH) gprof_print_graph(&rep, g);
        if (style & STYLE_FLAT) gprof_print_flat(&rep, g);
    } else {
        if (style & STYLE_FLAT) gprof_print_flat(&rep, g);
        if (style & STYLE_GRAPH) gprof_print_graph(&rep, g);
    }
    if (style & STYLE_GRAPH) gprof_print_index(&rep, g);
    if (style & STYLE_EXEC) gprof_print_exec_counts(&rep, g);
    if (style & STYLE_ANNO) {
        struct gprof_anno_opts aopts = {0};
        aopts.dirs = &o->dirs;
        aopts.all_lines = o->all_lines;
        aopts.separate_files = o->separate;
        aopts.min_count = o->min_count;
        aopts.top_lines = (int)o->table_len;
        if (gprof_print_annotated(&rep, g, &aopts, &err)) {
            fflush(stdout);
            cli_error(&err);
            return 1;
        }
    }
    if (style & STYLE_FUNC_ORDER) gprof_print_function_ordering(&rep, g);
    if (style & STYLE_FILE_ORDER) {
        const char **files = xmalloc((L->nmap + 1) * sizeof(*files));
        for (size_t i = 0; i < L->nmap; i++)
            files[i] = L->map[i].file;
        gprof_print_file_ordering(&rep, g, files, L->nmap);
        free(files);
    }
    if (fflush(stdout) != 0) {
        cli_errorf("error writing the report");
        return 1;
    }
    return 0;
}

/* Load, analyse, write and print what o asks for. Returns the exit status. */
static int gprof_run(struct gprof_options *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct gprof_load L;
    gprof_load_init(&L);
    int rc = 1;
    if (o->file_order_map &&
        !(o->load.map = gprof_map_read(o->file_order_map, &o->load.nmap, &err))) {
        cli_error(&err);
        goto out;
    }
    o->load.max_records = cli_gmon_max_records;
    int loaded = gprof_load(&L, &o->load, &err);
    o->load.map = NULL; /* L has it */
    o->load.nmap = 0;
    /* each file is opened when its turn comes: errors come in the order of the files */
    for (int i = 0; loaded == 0 && i < o->ngmons; i++) {
        struct input in;
        loaded = cli_open_input(&in, o->gmons[i], &err);
        if (loaded == 0) {
            loaded = gprof_load_gmon(&L, &o->load, &in, &err);
            input_close(&in);
        }
    }
    if (loaded) {
        print_file_info(o, &L);
        cli_error(&err);
        goto out;
    }
    print_file_info(o, &L);
    for (size_t i = 0; i < L.gm.warnings.n; i++)
        fprintf(stderr, "tally: warning: %s\n", L.gm.warnings.items[i]);

    /* no report named: those the files have data for */
    unsigned style = o->style;
    if ((style & ~(unsigned)STYLE_CALLGRIND) == 0) {
        if (L.gm.input & (GMON_INPUT_HIST | GMON_INPUT_ARCS)) {
            if (L.gm.input & GMON_INPUT_HIST) style |= STYLE_FLAT;
            if (L.gm.input & GMON_INPUT_ARCS) style |= STYLE_GRAPH;
        } else {
            style |= STYLE_EXEC;
        }
        style &= ~o->user_specified;
    }
    if ((style & STYLE_SUM) && write_sum(&L, &err)) {
        cli_error(&err);
        goto out;
    }
    if ((style & STYLE_FLAT) && !(L.gm.input & GMON_INPUT_HIST)) {
        cli_errorf("%s: gmon.out file is missing histogram", o->gmons[0]);
        goto out;
    }
    if ((style & STYLE_GRAPH) && !(L.gm.input & GMON_INPUT_ARCS)) {
        cli_errorf("%s: gmon.out file is missing call-graph data", o->gmons[0]);
        goto out;
    }
    gprof_load_finish(&L, &o->specs, o->static_calls);
    if (o->callgrind_out && write_callgrind(o, &L, &err)) {
        cli_error(&err);
        goto out;
    }
    rc = print_reports(o, &L, style);
out:
    gprof_load_release(&L);
    gprof_map_free(o->load.map, o->load.nmap);
    return rc;
}

int cmd_gprof(int argc, char **argv)
{
    char **argv_in = argv;
    struct gprof_options o;
    gprof_options_init(&o);
    /* @FILE arguments are replaced by the options written in FILE (quoted
     * and backslash-escaped words), as gprof does */
    expandargv(&argc, &argv);
    int rc = gprof_parse_args(argc, argv, &o);
    rc = rc == 0 ? gprof_run(&o) : rc == 1 ? 0 : 2;
    gprof_options_release(&o);
    if (argv != argv_in) freeargv(argv);
    return rc;
}
