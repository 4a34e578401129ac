/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.c - `tally gprof`: GNU gprof's reports (flat profile, call graph
 * with cycles, index, execution counts, annotated source, orderings) from
 * an executable built with -pg and its gmon.out files, plus a callgrind
 * file of the same data. Options follow gprof 2.40's command summary.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/gprof.h"
#include "../analysis/gprof_callgrind.h"
#include "../analysis/symspec.h"
#include "../formats/gmon.h"
#include "../report/gprof.h"
#include "../report/srcfile.h"
#include "../symbols/demangle.h"
#include "../symbols/elfsyms.h"
#include "../symbols/lines.h"

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

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("tally: gprof: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\ntry 'tally gprof --help'\n", stderr);
    return 2;
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

static const char *const default_excluded[] = {
    "_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal", "__mcleanup"};

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

struct map_entry {
    char *file, *func;
};

static int cmp_map_func(const void *a, const void *b)
{
    const struct map_entry *x = a, *y = b;
    return strcmp(x->func, y->func);
}

/* Read an `nm -A`-style map ("file.o:... name" per line; "No symbols in"
 * lines skipped). Returns the entries sorted by function name, or NULL
 * with err. */
static struct map_entry *read_map(const char *path, size_t *n, struct tally_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        tally_error_set(err, path, 0, "%s", strerror(errno));
        return NULL;
    }
    struct map_entry *v = NULL;
    size_t cnt = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    while ((len = getline(&line, &lcap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || !strncmp(line, "No symbols in ", 14)) continue;
        char *colon = strchr(line, ':');
        char *sp = strrchr(line, ' ');
        if (!colon || !sp || !sp[1]) {
            tally_error_set(err, path, lineno, "not a line of `nm -A` output");
            for (size_t i = 0; i < cnt; i++) {
                free(v[i].file);
                free(v[i].func);
            }
            free(v);
            free(line);
            fclose(fp);
            return NULL;
        }
        v = xgrow(v, &cap, cnt + 1, sizeof(*v));
        v[cnt].file = xstrndup(line, (size_t)(colon - line));
        v[cnt].func = xstrdup(sp + 1);
        cnt++;
    }
    free(line);
    fclose(fp);
    if (cnt) qsort(v, cnt, sizeof(*v), cmp_map_func);
    *n = cnt;
    return v ? v : xcalloc(1, sizeof(*v));
}

int cmd_gprof(int argc, char **argv)
{
    char **argv_in = argv;
    struct symspec_set specs;
    symspec_set_init(&specs);
    struct strlist dirs = {0};
    struct elf_image_options eopts = {0};
    struct gmon_read_opts ropts = {0};
    struct gprof_report rep = {0};
    struct gprof_anno_opts aopts = {0};
    unsigned style = 0, user_specified = 0;
    bool line_mode = false, static_calls = false, brief = false, bsd = false, zeros = false;
    bool print_path = false, inline_names = false, all_lines = false, separate = false;
    enum demangle_style dstyle = DEMANGLE_AUTO;
    unsigned long width = 80, min_count = 1, table_len = 10;
    const char *callgrind_out = NULL, *file_order_map = NULL;
    int rc = 1;
    struct tally_error err;
    tally_error_clear(&err);

    ropts.flavour = GMON_FLAVOUR_AUTO;
    for (size_t i = 0; i < sizeof(default_excluded) / sizeof(default_excluded[0]); i++) {
        symspec_set_add(&specs, default_excluded[i], SYMSPEC_EXCL_TIME);
        symspec_set_add(&specs, default_excluded[i], SYMSPEC_EXCL_GRAPH);
        symspec_set_add(&specs, default_excluded[i], SYMSPEC_EXCL_FLAT);
    }

    /* @FILE arguments are replaced by the options written in FILE (quoted
     * and backslash-escaped words), as gprof does */
    expandargv(&argc, &argv);

    optind = 0;
    opterr = 0;
    int c;
    while (
        (c = getopt_long(argc, argv,
                         ":aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::",
                         long_opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            eopts.no_static = true;
            break;
        case 'A':
            if (optarg) symspec_set_add(&specs, optarg, SYMSPEC_INCL_ANNO);
            style |= STYLE_ANNO;
            user_specified |= STYLE_ANNO;
            break;
        case 'J':
            if (optarg) {
                symspec_set_add(&specs, optarg, SYMSPEC_EXCL_ANNO);
                style |= STYLE_ANNO;
            } else {
                style &= ~(unsigned)STYLE_ANNO;
            }
            user_specified |= STYLE_ANNO;
            break;
        case 'b':
            brief = true;
            break;
        case 'B': /* gprof's undocumented synonym of -q */
            style |= STYLE_GRAPH;
            user_specified |= STYLE_GRAPH;
            break;
        case 'c':
            static_calls = true;
            break;
        case 'C':
            if (optarg) symspec_set_add(&specs, optarg, SYMSPEC_INCL_EXEC);
            style |= STYLE_EXEC;
            user_specified |= STYLE_EXEC;
            break;
        case 'Z':
            if (optarg) {
                symspec_set_add(&specs, optarg, SYMSPEC_EXCL_EXEC);
                style |= STYLE_EXEC;
            } else {
                style &= ~(unsigned)STYLE_EXEC;
            }
            user_specified |= STYLE_EXEC;
            break;
        case 'd':
            rc = bad_usage("%s", "-d/--debug (gprof's trace of its own internals) is not "
                                 "offered");
            goto out;
        case 'S':
            rc = bad_usage("%s", "-S/--external-symbol-table is not supported: the symbols "
                                 "come from the executable");
            goto out;
        case 'D':
            eopts.static_funcs_only = true;
            break;
        case 'e':
            symspec_set_add(&specs, optarg, SYMSPEC_EXCL_GRAPH);
            break;
        case 'E':
            symspec_set_add(&specs, optarg, SYMSPEC_EXCL_GRAPH);
            symspec_set_add(&specs, optarg, SYMSPEC_EXCL_TIME);
            break;
        case 'f':
            symspec_set_add(&specs, optarg, SYMSPEC_INCL_GRAPH);
            break;
        case 'F':
            symspec_set_add(&specs, optarg, SYMSPEC_INCL_GRAPH);
            symspec_set_add(&specs, optarg, SYMSPEC_INCL_TIME);
            break;
        case 'h':
            usage(stdout);
            rc = 0;
            goto out;
        case 'i':
            style |= STYLE_INFO;
            user_specified |= STYLE_INFO;
            break;
        case 'I':
            srcfile_dirs_add(&dirs, optarg);
            break;
        case 'k':
            if (!strchr(optarg, '/')) {
                rc = bad_usage("-k needs FROM/TO, not '%s'", optarg);
                goto out;
            }
            symspec_set_add(&specs, optarg, SYMSPEC_EXCL_ARCS);
            break;
        case 'l':
            line_mode = true;
            break;
        case 'L':
            print_path = true;
            break;
        case 'm':
            if (parse_uint(optarg, &min_count)) {
                rc = bad_usage("-m needs a number, not '%s'", optarg);
                goto out;
            }
            break;
        case 'n':
            if (optarg) symspec_set_add(&specs, optarg, SYMSPEC_INCL_TIME);
            break;
        case 'N':
            if (optarg) symspec_set_add(&specs, optarg, SYMSPEC_EXCL_TIME);
            break;
        case 'O': {
            int f = gmon_flavour_from_name(optarg);
            if (f < 0) {
                rc = bad_usage("unknown file format '%s' (auto, bsd, 4.4bsd, magic)", optarg);
                goto out;
            }
            ropts.flavour = (enum gmon_flavour)f;
            break;
        }
        case 'p':
            if (optarg) symspec_set_add(&specs, optarg, SYMSPEC_INCL_FLAT);
            style |= STYLE_FLAT;
            user_specified |= STYLE_FLAT;
            break;
        case 'P':
            if (optarg) {
                symspec_set_add(&specs, optarg, SYMSPEC_EXCL_FLAT);
                style |= STYLE_FLAT;
            } else {
                style &= ~(unsigned)STYLE_FLAT;
            }
            user_specified |= STYLE_FLAT;
            break;
        case 'q':
            if (optarg)
                symspec_set_add(&specs, optarg,
                                strchr(optarg, '/') ? SYMSPEC_INCL_ARCS : SYMSPEC_INCL_GRAPH);
            style |= STYLE_GRAPH;
            user_specified |= STYLE_GRAPH;
            break;
        case 'Q':
            if (optarg) {
                symspec_set_add(&specs, optarg,
                                strchr(optarg, '/') ? SYMSPEC_EXCL_ARCS : SYMSPEC_EXCL_GRAPH);
                style |= STYLE_GRAPH;
            } else {
                style &= ~(unsigned)STYLE_GRAPH;
            }
            user_specified |= STYLE_GRAPH;
            break;
        case 'r':
            style |= STYLE_FUNC_ORDER;
            user_specified |= STYLE_FUNC_ORDER;
            break;
        case 'R':
            file_order_map = optarg;
            style |= STYLE_FILE_ORDER;
            user_specified |= STYLE_FILE_ORDER;
            break;
        case 's':
            style |= STYLE_SUM;
            user_specified |= STYLE_SUM;
            line_mode = true;
            break;
        case 't':
            if (parse_uint(optarg, &table_len)) {
                rc = bad_usage("-t needs a number, not '%s'", optarg);
                goto out;
            }
            break;
        case 'T':
            bsd = true;
            break;
        case 'v':
            printf("tally gprof (tally %s), reports as GNU gprof 2.40\n", TALLY_VERSION);
            rc = 0;
            goto out;
        case 'w':
            if (parse_uint(optarg, &width) || width < 4) {
                rc = bad_usage("-w needs a width, not '%s'", optarg);
                goto out;
            }
            break;
        case 'x':
            all_lines = true;
            break;
        case 'y':
            separate = true;
            break;
        case 'z':
            zeros = true;
            break;
        case OPT_DEMANGLE:
            if (optarg && demangle_style_parse(optarg, &dstyle, &err)) {
                cli_error(&err);
                rc = 2;
                goto out;
            }
            if (!optarg) dstyle = DEMANGLE_AUTO;
            break;
        case OPT_NO_DEMANGLE:
            dstyle = DEMANGLE_NONE;
            break;
        case OPT_INLINE_FILE_NAMES:
            inline_names = true;
            break;
        case OPT_CALLGRIND_OUT:
            callgrind_out = optarg;
            style |= STYLE_CALLGRIND;
            break;
        case ':':
            rc = bad_usage("option '%s' needs a value", argv[optind - 1]);
            goto out;
        default:
            cli_unknown_option("gprof", argv[optind - 1], usage);
            rc = 2;
            goto out;
        }
    }
    if ((style & STYLE_FUNC_ORDER) && (style & STYLE_FILE_ORDER)) {
        rc = bad_usage("%s", "--function-ordering and --file-ordering exclude each other");
        goto out;
    }
    srcfile_dirs_add(&dirs, getenv("GPROF_PATH"));

    const char *exe = optind < argc ? argv[optind++] : "a.out";
    const char *default_gmon = "gmon.out";
    char **gmons = optind < argc ? argv + optind : (char **)&default_gmon;
    int ngmons = optind < argc ? argc - optind : 1;
    {
        /* --callgrind-out onto the program or a gmon.out file would destroy it */
        const char *ins[2] = {exe, NULL};
        if (cli_check_output(callgrind_out, ins, 1, &err) ||
            cli_check_output(callgrind_out, (const char *const *)gmons, ngmons, &err)) {
            cli_error(&err);
            rc = 2;
            goto out;
        }
    }

    struct elf_image img;
    memset(&img, 0, sizeof(img));
    struct line_table lt;
    memset(&lt, 0, sizeof(lt));
    struct gmon gm;
    gmon_init(&gm);
    struct gprof g;
    memset(&g, 0, sizeof(g));
    struct map_entry *map = NULL;
    size_t nmap = 0;
    struct elf_sym *own_syms = NULL;

    if (elf_image_open(&img, exe, &eopts, &err)) {
        cli_error(&err);
        goto cleanup;
    }
    if (line_table_open(&lt, &img, &err)) {
        cli_error(&err);
        goto cleanup;
    }
    line_table_annotate(&lt, &img);
    if (line_mode) line_table_make_line_syms(&lt, &img);
    struct elf_sym *syms = img.syms;
    size_t nsyms = img.nsyms;
    bool *mapped = NULL;
    if (file_order_map) {
        map = read_map(file_order_map, &nmap, &err);
        if (!map) {
            cli_error(&err);
            goto cleanup;
        }
        /* each object file keeps its first (lowest) function, renamed to
         * the file; its other functions merge into the symbol before */
        own_syms = xmalloc((img.nsyms + 1) * sizeof(*own_syms));
        mapped = xcalloc(img.nsyms + 1, sizeof(*mapped));
        nsyms = 0;
        for (size_t i = 0; i < img.nsyms; i++) {
            struct map_entry key = {NULL, (char *)img.syms[i].name};
            struct map_entry *m = bsearch(&key, map, nmap, sizeof(*map), cmp_map_func);
            if (m) {
                bool seen = false;
                for (size_t k = 0; k < nsyms && !seen; k++)
                    seen = mapped[k] && !strcmp(own_syms[k].name, m->file);
                if (seen) {
                    if (nsyms) own_syms[nsyms - 1].end_addr = img.syms[i].end_addr;
                    continue;
                }
            }
            own_syms[nsyms] = img.syms[i];
            if (m) {
                own_syms[nsyms].name = m->file;
                mapped[nsyms] = true;
            }
            nsyms++;
        }
        syms = own_syms;
    }
    gprof_init(&g, syms, nsyms, line_mode);
    if (mapped)
        for (size_t i = 0; i < nsyms; i++)
            g.syms[i].mapped = mapped[i];
    free(mapped);
    {
        struct symspec_sym *ss = xmalloc((nsyms + 1) * sizeof(*ss));
        for (size_t i = 0; i < nsyms; i++) {
            ss[i].name = syms[i].name;
            ss[i].file = syms[i].file;
            ss[i].line = syms[i].line;
            ss[i].addr = syms[i].addr;
            ss[i].end_addr = syms[i].end_addr;
        }
        symspec_set_resolve(&specs, ss, nsyms);
        free(ss);
    }

    ropts.layout.addr_size = img.elf_class == 32 ? 4 : 8;
    ropts.layout.big_endian = img.big_endian;
    {
        long t = sysconf(_SC_CLK_TCK);
        ropts.hertz = t > 0 ? (unsigned)t : 0;
    }
    size_t arcs_done = 0;
    for (int i = 0; i < ngmons; i++) {
        size_t hists_before = gm.nhists;
        if (gmon_read(&gm, gmons[i], &ropts, &err) ||
            cli_gmon_check_hists(&gm, hists_before, &img, exe, gmons[i], &err)) {
            cli_error(&err);
            goto cleanup;
        }
        for (; arcs_done < gm.narcs; arcs_done++)
            gprof_tally(&g, gm.arcs[arcs_done].from_pc, gm.arcs[arcs_done].self_pc,
                        gm.arcs[arcs_done].count, &specs);
        if (style & STYLE_INFO) {
            const struct gmon_file_info *fi = &gm.last;
            printf("File `%s' (version %d) contains:\n", gmons[i], fi->version);
            printf("\t%lu histogram record%s\n", fi->nhist, fi->nhist == 1 ? "" : "s");
            printf("\t%lu call-graph record%s\n", fi->narcs, fi->narcs == 1 ? "" : "s");
            printf("\t%lu basic-block count record%s\n", fi->nbb, fi->nbb == 1 ? "" : "s");
        }
    }
    for (size_t i = 0; i < gm.warnings.n; i++)
        fprintf(stderr, "tally: warning: %s\n", gm.warnings.items[i]);

    if ((style & ~(unsigned)STYLE_CALLGRIND) == 0) {
        if (gm.input & (GMON_INPUT_HIST | GMON_INPUT_ARCS)) {
            if (gm.input & GMON_INPUT_HIST) style |= STYLE_FLAT;
            if (gm.input & GMON_INPUT_ARCS) style |= STYLE_GRAPH;
        } else {
            style |= STYLE_EXEC;
        }
        style &= ~user_specified;
    }

    if (style & STYLE_SUM) {
        struct gmon_write_opts wo = {0};
        wo.flavour = ropts.flavour;
        wo.layout = ropts.layout;
        wo.hertz = ropts.hertz;
        size_t na = 0;
        struct gmon_arc *arcs = sum_arcs(&g, &na);
        wo.arcs = arcs;
        wo.narcs = na;
        int wr = gmon_write(&gm, "gmon.sum", &wo, &err);
        free(arcs);
        if (wr) {
            cli_error(&err);
            goto cleanup;
        }
    }

    if ((style & STYLE_FLAT) && !(gm.input & GMON_INPUT_HIST)) {
        cli_errorf("%s: gmon.out file is missing histogram", gmons[0]);
        goto cleanup;
    }
    if ((style & STYLE_GRAPH) && !(gm.input & GMON_INPUT_ARCS)) {
        cli_errorf("%s: gmon.out file is missing call-graph data", gmons[0]);
        goto cleanup;
    }

    gprof_assign_hist(&g, &gm, &specs);
    if (gm.input & GMON_INPUT_BB) gprof_add_bbs(&g, &gm);
    if (gm.input & GMON_INPUT_ARCS) gprof_assemble(&g, &specs, static_calls ? &img : NULL);

    if (callgrind_out && gprof_write_callgrind(&g, &img, exe, callgrind_out, &err)) {
        cli_error(&err);
        goto cleanup;
    }

    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
    rep.out = stdout;
    rep.brief = brief;
    rep.bsd = bsd;
    rep.ignore_zeros = !zeros;
    rep.line_mode = line_mode;
    rep.print_path = print_path;
    rep.inline_file_names = inline_names;
    rep.demangle = dstyle;
    rep.width = (int)width;
    rep.dimen = gm.dimen[0] ? gm.dimen : "seconds";
    rep.dimen_abbrev = gm.dimen_abbrev ? gm.dimen_abbrev : 's';
    rep.first_output = true;
    rep.specs = &specs;

    if (bsd) {
        if (style & STYLE_GRAPH) gprof_print_graph(&rep, &g);
        if (style & STYLE_FLAT) gprof_print_flat(&rep, &g);
    } else {
        if (style & STYLE_FLAT) gprof_print_flat(&rep, &g);
        if (style & STYLE_GRAPH) gprof_print_graph(&rep, &g);
    }
    if (style & STYLE_GRAPH) gprof_print_index(&rep, &g);
    if (style & STYLE_EXEC) gprof_print_exec_counts(&rep, &g);
    if (style & STYLE_ANNO) {
        aopts.dirs = &dirs;
        aopts.all_lines = all_lines;
        aopts.separate_files = separate;
        aopts.min_count = min_count;
        aopts.top_lines = (int)table_len;
        if (gprof_print_annotated(&rep, &g, &aopts, &err)) {
            fflush(stdout);
            cli_error(&err);
            goto cleanup;
        }
    }
    if (style & STYLE_FUNC_ORDER) gprof_print_function_ordering(&rep, &g);
    if (style & STYLE_FILE_ORDER) {
        const char **files = xmalloc((nmap + 1) * sizeof(*files));
        for (size_t i = 0; i < nmap; i++)
            files[i] = map[i].file;
        gprof_print_file_ordering(&rep, &g, files, nmap);
        free(files);
    }
    if (fflush(stdout) != 0) {
        cli_errorf("error writing the report");
        goto cleanup;
    }
    rc = 0;

cleanup:
    gprof_release(&g);
    for (size_t i = 0; i < nmap; i++) {
        free(map[i].file);
        free(map[i].func);
    }
    free(map);
    free(own_syms);
    gmon_release(&gm);
    line_table_close(&lt);
    elf_image_close(&img);
out:
    symspec_set_release(&specs);
    strlist_release(&dirs);
    if (argv != argv_in) freeargv(argv);
    return rc;
}
