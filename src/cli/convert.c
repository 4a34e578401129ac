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

#include "../analysis/gprof.h"
#include "../analysis/gprof_callgrind.h"
#include "../analysis/stacks.h"
#include "../analysis/symspec.h"
#include "../formats/folded.h"
#include "../formats/format.h"
#include "../formats/gmon.h"
#include "../formats/json.h"
#include "../formats/pprof.h"
#include "../formats/speedscope.h"
#include "../io/outfile.h"
#include "../model/cct.h"
#include "../symbols/elfsyms.h"
#include "../symbols/lines.h"

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
          "Several inputs are added together first, as 'tally merge' does.\n"
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
          "the call arcs, and the output and standard error say so.\n"
          "\n"
          "Options:\n"
          "  --to=FORMAT        the output format (required)\n"
          "  -o, --output=OUT   write to OUT (atomically) instead of standard output;\n"
          "                     pprof output is binary and never goes to a terminal\n"
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

/* Parse the command line. Returns 0, 1 after --help, or 2 on a usage error. */
static int convert_parse_args(int argc, char **argv, struct convert_options *o)
{
    int only_files = 0;
    o->files = xcalloc((size_t)argc + 1, sizeof(*o->files));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            o->files[o->nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            convert_usage(stdout);
            return 1;
        }
        if (strcmp(a, "--lines") == 0) {
            o->lines = 1;
            continue;
        }
        int missing = 0;
        const char *v;
        if ((v = cli_optval(argc, argv, &i, "--output", &missing)) ||
            (v = cli_optval(argc, argv, &i, "-o", &missing))) {
            o->output = v;
            continue;
        }
        if (!missing && strncmp(a, "-o", 2) == 0 && a[2]) {
            o->output = a + 2; /* -oOUT */
            continue;
        }
        if (!missing && (v = cli_optval(argc, argv, &i, "--to", &missing))) {
            o->to = CONV_NONE;
            for (size_t k = 0; k < sizeof(convert_formats) / sizeof(convert_formats[0]); k++)
                if (strcmp(v, convert_formats[k].name) == 0) o->to = convert_formats[k].f;
            if (o->to == CONV_NONE) {
                cli_errorf("convert: unknown format '%s' (use callgrind, cachegrind, json, "
                           "folded, speedscope or pprof)",
                           v);
                return 2;
            }
            continue;
        }
        if (!missing && (v = cli_optval(argc, argv, &i, "--event", &missing))) {
            o->event = v;
            continue;
        }
        if (missing) {
            cli_errorf("convert: option '%s' needs a value", a);
            return 2;
        }
        cli_errorf("convert: unknown option '%s'; see 'tally convert --help'", a);
        return 2;
    }
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

/* What the first bytes of a file say it is. */
enum convert_input { INPUT_PROFILE, INPUT_ELF, INPUT_GMON };

static enum convert_input convert_input_kind(const char *path)
{
    if (strcmp(path, "-") == 0) return INPUT_PROFILE;
    FILE *fp = fopen(path, "rb");
    if (!fp) return INPUT_PROFILE; /* profile_read reports the error */
    unsigned char b[4] = {0};
    size_t n = fread(b, 1, 4, fp);
    fclose(fp);
    if (n == 4 && memcmp(b, "\177ELF", 4) == 0) return INPUT_ELF;
    if (n == 4 && memcmp(b, "gmon", 4) == 0) return INPUT_GMON;
    return INPUT_PROFILE;
}

static const char *const gprof_excluded[] = {"_gprof_mcount",     "mcount",     "_mcount",
                                             "__mcount_internal", "__mcleanup", "__mcount"};

/*
 * The gprof analysis of program `exe` and its gmon files as a profile:
 * the callgrind file gprof_write_callgrind() makes, in a temporary file
 * that is read back and removed. Returns NULL with err on failure.
 */
static struct profile *read_gmon(const char *exe, const char **gmons, int ngmons,
                                 struct tally_error *err)
{
    struct profile *p = NULL;
    struct elf_image img;
    memset(&img, 0, sizeof(img));
    struct line_table lt;
    memset(&lt, 0, sizeof(lt));
    struct gmon gm;
    gmon_init(&gm);
    struct gprof g;
    memset(&g, 0, sizeof(g));
    int have_g = 0;
    struct symspec_set specs;
    symspec_set_init(&specs);
    struct elf_image_options eopts = {0};
    struct gmon_read_opts ropts = {0};
    char tmp[] = "/tmp/tally-convert-XXXXXX";
    int fd = -1;

    for (size_t i = 0; i < sizeof(gprof_excluded) / sizeof(gprof_excluded[0]); i++) {
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_TIME);
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_GRAPH);
        symspec_set_add(&specs, gprof_excluded[i], SYMSPEC_EXCL_FLAT);
    }
    if (elf_image_open(&img, exe, &eopts, err)) goto out;
    if (line_table_open(&lt, &img, err)) goto out;
    line_table_annotate(&lt, &img);
    gprof_init(&g, img.syms, img.nsyms, false);
    have_g = 1;
    {
        struct symspec_sym *ss = xmalloc((img.nsyms + 1) * sizeof(*ss));
        for (size_t i = 0; i < img.nsyms; i++) {
            ss[i].name = img.syms[i].name;
            ss[i].file = img.syms[i].file;
            ss[i].line = img.syms[i].line;
            ss[i].addr = img.syms[i].addr;
            ss[i].end_addr = img.syms[i].end_addr;
        }
        symspec_set_resolve(&specs, ss, img.nsyms);
        free(ss);
    }
    ropts.flavour = GMON_FLAVOUR_AUTO;
    ropts.layout.addr_size = img.elf_class == 32 ? 4 : 8;
    ropts.layout.big_endian = img.big_endian;
    long hz = sysconf(_SC_CLK_TCK);
    ropts.hertz = hz > 0 ? (unsigned)hz : 0;
    size_t arcs_done = 0;
    for (int i = 0; i < ngmons; i++) {
        if (gmon_read(&gm, gmons[i], &ropts, err)) goto out;
        for (; arcs_done < gm.narcs; arcs_done++)
            gprof_tally(&g, gm.arcs[arcs_done].from_pc, gm.arcs[arcs_done].self_pc,
                        gm.arcs[arcs_done].count, &specs);
    }
    for (size_t i = 0; i < gm.warnings.n; i++)
        fprintf(stderr, "tally: warning: %s\n", gm.warnings.items[i]);
    gprof_assign_hist(&g, &gm, &specs);
    if (gm.input & GMON_INPUT_BB) gprof_add_bbs(&g, &gm);
    if (gm.input & GMON_INPUT_ARCS) gprof_assemble(&g, &specs, NULL);

    fd = mkstemp(tmp);
    if (fd < 0) {
        tally_error_set(err, NULL, 0, "cannot create a temporary file in /tmp");
        goto out;
    }
    close(fd);
    if (gprof_write_callgrind(&g, &img, exe, tmp, err) == 0) {
        struct read_options ro = {.merge_parts = 1};
        p = profile_read(tmp, &ro, err);
        if (p) {
            free(p->path);
            p->path = xstrdup(gmons[0]);
        } else {
            snprintf(err->file, sizeof(err->file), "%s", gmons[0]);
        }
    }
    unlink(tmp);
out:
    if (have_g) gprof_release(&g);
    gmon_release(&gm);
    line_table_close(&lt);
    elf_image_close(&img);
    symspec_set_release(&specs);
    return p;
}

/*
 * Add the calling-context tree of `src` into that of `dst` (both profiles
 * have one part and the same base events, maybe in another order):
 * functions are matched by (object, file, name), nodes by their stack.
 * Returns 0, or -1 with err on overflow.
 */
static int convert_merge_cct(struct profile *dst, const struct profile *src,
                             struct tally_error *err)
{
    struct cct *d = dst->cct;
    const struct cct *s = src->cct;
    const struct eventset *des = &dst->parts[0]->events, *ses = &src->parts[0]->events;
    size_t ne = s->nevents;
    size_t *emap = xcalloc(ne + 1, sizeof(*emap));
    uint32_t *nmap = xcalloc(s->n + 1, sizeof(*nmap));
    int rc = 0;
    for (size_t e = 0; e < ne; e++) {
        int k = eventset_index(des, ses->names[e]);
        if (k < 0 || (size_t)k >= d->nevents) {
            rc = tally_error_set(err, src->path, 0, "event %s of the calling contexts is not in %s",
                                 ses->names[e], dst->path ? dst->path : "the first input");
            goto out;
        }
        emap[e] = (size_t)k;
    }
    for (uint32_t i = 0; i < s->n && rc == 0; i++) {
        const struct cct_node *sn = &s->nodes[i];
        uint32_t c = 0;
        if (i != CCT_ROOT) {
            struct function f = profile_function_at(src, sn->fn);
            const char *obj = profile_str(src, f.obj), *file = profile_str(src, f.file);
            const char *name = profile_str(src, f.name);
            uint32_t fn = profile_function(dst, profile_intern(dst, obj, strlen(obj)),
                                           profile_intern(dst, file, strlen(file)),
                                           profile_intern(dst, name, strlen(name)));
            c = cct_child(d, nmap[sn->parent], fn);
            if (c == UINT32_MAX) {
                rc = tally_error_set(err, src->path, 0, "too many calling contexts");
                break;
            }
            if (__builtin_add_overflow(d->nodes[c].calls, sn->calls, &d->nodes[c].calls))
                rc = tally_error_set(err, src->path, 0, "a context's call count overflows");
        }
        nmap[i] = c;
        const uint64_t *sc = cct_self(s, i);
        uint64_t *dc = cct_self(d, c);
        for (size_t e = 0; e < ne && rc == 0; e++)
            if (__builtin_add_overflow(dc[emap[e]], sc[e], &dc[emap[e]]))
                rc = tally_error_set(err, src->path, 0, "a context's cost overflows");
    }
out:
    free(emap);
    free(nmap);
    return rc;
}

/*
 * Add profile `src` (one part) into `dst` (one part), calling contexts
 * too when both have them. *dropped is set when only one has them (the
 * sum then has none). Returns 0 or -1.
 */
static int convert_merge_into(struct profile *dst, struct profile *src, int *dropped,
                              struct tally_error *err)
{
    if (src->signed_costs && profile_make_signed(dst, err)) return -1;
    if (dst->signed_costs && profile_make_signed(src, err)) return -1;
    if (part_accumulate(dst, dst->parts[0], src, src->parts[0], err)) return -1;
    if (dst->cct && src->cct) return convert_merge_cct(dst, src, err);
    if (dst->cct || src->cct) {
        *dropped = 1;
        cct_free(dst->cct);
        dst->cct = NULL;
    }
    return 0;
}

/* Read and add up every input. Returns the sum, or NULL after printing. */
static struct profile *convert_read_inputs(const struct convert_options *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    const char *exe = NULL;
    const char **gmons = xcalloc((size_t)o->nfiles + 1, sizeof(*gmons));
    const char **profs = xcalloc((size_t)o->nfiles + 1, sizeof(*profs));
    int ngmons = 0, nprofs = 0;
    struct profile *sum = NULL;
    int failed = 0, dropped = 0;
    for (int i = 0; i < o->nfiles; i++) {
        switch (convert_input_kind(o->files[i])) {
        case INPUT_ELF:
            if (exe) {
                cli_errorf("convert: two programs given (%s and %s); gmon.out files need "
                           "exactly one",
                           exe, o->files[i]);
                failed = 2;
            }
            exe = o->files[i];
            break;
        case INPUT_GMON:
            gmons[ngmons++] = o->files[i];
            break;
        default:
            profs[nprofs++] = o->files[i];
        }
    }
    if (!failed && ngmons && !exe) {
        cli_errorf("%s: a gmon.out file needs its program: give the executable built with "
                   "-pg as an input too",
                   gmons[0]);
        failed = 1;
    }
    if (!failed && exe && !ngmons) {
        cli_errorf("%s: a program is not a profile (give its gmon.out files after it)", exe);
        failed = 1;
    }
    if (!failed && ngmons) {
        sum = read_gmon(exe, gmons, ngmons, &err);
        if (!sum) failed = 1;
    }
    struct read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.merge_parts = 1;
    for (int i = 0; i < nprofs && !failed; i++) {
        struct profile *p = profile_read(profs[i], &ro, &err);
        if (!p) {
            failed = 1;
            break;
        }
        cli_warnings(p);
        if (!sum) {
            sum = p;
            continue;
        }
        if (convert_merge_into(sum, p, &dropped, &err)) {
            if (!err.file[0]) snprintf(err.file, sizeof(err.file), "%s", profs[i]);
            failed = 1;
        }
        profile_free(p);
    }
    if (failed == 1 && err.msg[0]) cli_error(&err);
    if (!failed && dropped)
        cli_errorf("warning: not every input has calling contexts: stacks of the sum are "
                   "estimated from call arcs");
    if (failed) {
        profile_free(sum);
        sum = NULL;
    }
    free(gmons);
    free(profs);
    return sum;
}

/*
 * Build the stack tree for the stack formats: every event, or only
 * `event` (folded). Says on stderr whether the stacks are exact.
 */
static int convert_stacks(struct stack_tree *t, const struct profile *p, int event,
                          struct tally_error *err)
{
    struct stack_options so = {.part = -1, .event = event};
    if (stacks_build(t, p, &so, err)) return -1;
    fprintf(stderr, "tally: convert: stacks %s\n", t->method);
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
    struct profile *p = convert_read_inputs(&o);
    if (!p) {
        free(o.files);
        return 1;
    }
    struct tally_error err;
    tally_error_clear(&err);
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
            return 1;
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
            rc = 1;
        } else if (outfile_commit(&of, &err))
            rc = 1;
    }
    if (rc) cli_error(&err);
    profile_free(p);
    free(o.files);
    return rc;
}
