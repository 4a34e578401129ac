/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_src.c - the annotated source part of `tally annotate`: each
 * source file (found by srcfile.h's SRCFILE_PREFIX rule, read once) with
 * the cost of every line and the calls made from it, context lines around
 * them, the warnings callgrind_annotate prints (source newer than the
 * profile, lines past the end), the files that could not be found, and
 * the count of annotated events. The rest of the report is annotate.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate_rep.h"
#include "srcfile.h"
#include "textfmt.h"

/* ------------------------------------------------------ source annotation */

static int cmp_line_keys(const void *pa, const void *pb, void *ctx)
{
    const struct rectab *t = ctx;
    const uint64_t *a = rectab_at(t, *(const size_t *)pa), *b = rectab_at(t, *(const size_t *)pb);
    for (int i = 0; i < 2; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static size_t *sorted_index(const struct rectab *t)
{
    size_t *ix = xmalloc((t->count ? t->count : 1) * sizeof(size_t));
    for (size_t i = 0; i < t->count; i++)
        ix[i] = i;
    qsort_r(ix, t->count, sizeof(size_t), cmp_line_keys, (void *)t);
    return ix;
}

/* [*lo, *hi) of the entries of file f in a sorted index. */
static void file_range(const struct rectab *t, const size_t *ix, uint64_t f, size_t *lo, size_t *hi)
{
    size_t a = 0, b = t->count;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (rectab_at(t, ix[m])[0] < f)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    b = t->count;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (rectab_at(t, ix[m])[0] <= f)
            a = m + 1;
        else
            b = m;
    }
    *hi = a;
}

struct annfile {
    const char *name;
    int user;
};

static int cmp_annfiles(const void *pa, const void *pb)
{
    const struct annfile *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : b->user - a->user;
}

static int cmp_strs(const void *pa, const void *pb)
{
    return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* srcfile_find's test: the file reads whole (into the srcfile_text ctx). */
static int read_source(const char *path, void *ctx)
{
    return srcfile_text_read(ctx, path, SIZE_MAX) == 0;
}

static void warn_newer(struct annrep *r, const char *name)
{
    fprintf(r->out,
            ATS
            "@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@\n" ATS
            "@ Source file '%s' is more recent than input file '%s'.\n"
            "@ Annotations may not be correct.\n" ATS "\n",
            name, r->o->inputs.n ? r->o->inputs.items[0] : "");
}

static void warn_past_end(struct annrep *r, const char *name, int newer)
{
    FILE *out = r->out;
    fputs(ATS
          "@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@\n" ATS
          "@@\n",
          out);
    fprintf(out, "@@ Information recorded about lines past the end of '%s'.\n", name);
    fputs("@@\n@@ Probable cause and solution:\n", out);
    size_t n = strlen(name);
    if (newer) {
        fprintf(out, "@@ cause:    '%s' has changed since information was gathered.\n", name);
        fputs("@@           If so, a warning will have already been issued about this.\n"
              "@@ solution: Recompile program and rerun under \"valgrind --cachesim=yes\" to \n"
              "@@           gather new information.\n",
              out);
    } else if (n >= 2 && !strcmp(name + n - 2, ".h")) {
        fputs("@@ cause:    bug in the Valgrind's debug info reader that screws up with .h\n"
              "@@           files sometimes\n"
              "@@ solution: none, sorry\n",
              out);
    } else {
        fputs("@@ cause:    not sure, sorry\n", out);
    }
    fputs("@@\n" ATS, out);
}

static int sum_into(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

static const tally_wide *line_cost(const struct annrep *r, size_t rec, uint32_t *ndef)
{
    const uint64_t *v = rectab_val(&r->ft.lines, rec);
    *ndef = (uint32_t)v[0];
    return (const tally_wide *)(v + 1);
}

static uint64_t line_no(const struct annrep *r, size_t rec)
{
    return rectab_at(&r->ft.lines, rec)[1];
}

/* Calls made from line `line` of file f: entries [*cp, ...) of csorted. */
static void print_line_calls(struct annrep *r, uint64_t line, size_t *cp, size_t cend,
                             const size_t *w)
{
    const struct rectab *t = &r->ft.line_calls;
    while (*cp < cend && rectab_at(t, r->csorted[*cp])[1] < line)
        (*cp)++;
    size_t n = 0;
    while (*cp + n < cend && rectab_at(t, r->csorted[*cp + n])[1] == line)
        n++;
    if (!n) return;
    struct varc *v = xmalloc(n * sizeof(*v));
    for (size_t k = 0; k < n; k++) {
        size_t rec = r->csorted[*cp + k];
        uint64_t ak = rectab_at(t, rec)[2];
        const uint64_t *val = rectab_val(t, rec);
        v[k].caller = (uint32_t)(ak >> 32);
        v[k].other = (uint32_t)ak;
        v[k].count = val[0];
        v[k].ndef = (uint32_t)val[1];
        v[k].cost = (const tally_wide *)(val + 2);
        /* ordered by the whole arc's cost, as callgrind_annotate orders them */
        const uint64_t *av = rectab_find(&r->ft.arcs, &ak);
        v[k].order = av ? (const tally_wide *)(av + 2) : v[k].cost;
        v[k].order_ndef = av ? (uint32_t)av[1] : v[k].ndef;
    }
    qsort_r(v, n, sizeof(*v), annrep_cmp_varcs, r);
    char num[64];
    for (size_t k = 0; k < n; k++) {
        annrep_print_cc(r, v[k].cost, v[k].ndef, w);
        fprintf(r->out, " => %s (%sx)\n", r->rowname[v[k].other],
                textfmt_commify((tally_wide)v[k].count, num));
    }
    free(v);
    *cp += n;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Whether canonical file fid is a function's file (an `fl=` before `fn=`):
 * the originals know such a file even when no cost line is in it.
 */
static int file_named(struct annrep *r, uint32_t fid)
{
    size_t nfn = profile_nfunctions(r->p);
    for (size_t f = 0; f < nfn; f++)
        if (func_canon_file(&r->ft, profile_function_at(r->p, (uint32_t)f).file) == fid) return 1;
    return 0;
}

static int annotate_one(struct annrep *r, const char *name, int user, struct strlist *unfound,
                        int *did)
{
    FILE *out = r->out;
    const struct annotate_options *o = r->o;
    struct srcfile_text src;
    struct srcfile_found found;
    if (!srcfile_find(name, &o->include_dirs, SRCFILE_PREFIX, read_source, &src, &found)) {
        strlist_push(unfound, name);
        return 0;
    }
    char *opened = found.path;
    char *shown = found.dir ? xasprintf("%s + %s", o->include_dirs.items[found.dir - 1], name)
                            : xstrdup(name);
    fputs(RULE, out);
    fprintf(out, "-- %s-annotated source: %s\n", user ? "User" : "Auto", shown);
    fputs(RULE, out);
    uint32_t fid = func_find_name(&r->ft, name, strlen(name));
    size_t lo = 0, hi = 0, clo = 0, chi = 0;
    if (fid != UINT32_MAX) {
        file_range(&r->ft.lines, r->lsorted, fid, &lo, &hi);
        file_range(&r->ft.line_calls, r->csorted, fid, &clo, &chi);
    }
    if (lo == hi) {
        if (fid != UINT32_MAX && file_named(r, fid)) {
            /* a file of the profile with no line: the originals print the header alone */
            size_t *w = xmalloc((r->ncols ? r->ncols : 1) * sizeof(size_t));
            annrep_widths_init(r, w);
            annrep_print_events(r, w);
            fputs("\n\n\n", out);
            free(w);
            *did = 1; /* and the count of annotated events follows */
        } else {
            fprintf(out, "  No information has been collected for %s\n\n", name);
        }
        srcfile_text_release(&src);
        free(opened);
        free(shown);
        return 0;
    }
    *did = 1;
    int newer = 0;
    struct stat ss, ds;
    if (o->inputs.n && strcmp(o->inputs.items[0], "-") != 0 && stat(opened, &ss) == 0 &&
        stat(o->inputs.items[0], &ds) == 0 && ss.st_mtime > ds.st_mtime) {
        newer = 1;
        warn_newer(r, name);
    }
    size_t nc = r->ncols;
    size_t *w = xmalloc((nc ? nc : 1) * sizeof(size_t));
    annrep_widths_init(r, w);
    for (size_t k = lo; k < hi; k++) {
        uint32_t nd;
        const tally_wide *v = line_cost(r, r->lsorted[k], &nd);
        annrep_widths_add(r, w, v, nd);
    }
    annrep_print_events(r, w);
    fputs("\n\n", out);

    /* source lines */
    size_t nlines = src.nlines;
    const size_t *ls = src.line_off;
    const char *data = src.text;

    size_t k = lo, line0 = SIZE_MAX;
    if (line_no(r, r->lsorted[k]) == 0) line0 = r->lsorted[k++];
    int rc = 0;
    if (k < hi) {
        uint64_t ctx = (uint64_t)o->context;
        size_t cur = 0, cp = clo;
        size_t j = k;
        int first = 1;
        while (j < hi) {
            uint64_t l0 = line_no(r, r->lsorted[j]);
            uint64_t low = l0 > ctx ? l0 - ctx : 0;
            while (j + 1 < hi &&
                   sat_add(line_no(r, r->lsorted[j]), 2 * ctx) >= line_no(r, r->lsorted[j + 1]))
                j++;
            uint64_t high = sat_add(line_no(r, r->lsorted[j]), ctx);
            j++;
            if (first && low < 1) low = 1;
            first = 0;
            while (cur + 1 < low && cur < nlines)
                cur++;
            if (low != 1) fprintf(out, "-- line %llu " DASHES40 "\n", (unsigned long long)low);
            int got = 0;
            while (cur < high) {
                if (cur >= nlines) {
                    got = 0;
                    break;
                }
                cur++;
                got = 1;
                if (k < hi && line_no(r, r->lsorted[k]) == cur) {
                    uint32_t nd;
                    const tally_wide *v = line_cost(r, r->lsorted[k], &nd);
                    annrep_print_cc(r, v, nd, w);
                    if (sum_into(r->printed, v, nc)) rc = -1;
                    r->printed_ndef = func_ndef_join(&r->ft, r->printed_ndef, nd);
                    k++;
                } else {
                    annrep_print_cc(r, NULL, 0, w);
                }
                putc(' ', out);
                fwrite(data + ls[cur - 1], 1, ls[cur] - ls[cur - 1], out);
                print_line_calls(r, cur, &cp, chi, w);
            }
            if (!got) break;
            fprintf(out, "-- line %llu " DASHES40 "\n", (unsigned long long)high);
        }
    }
    if (k < hi) {
        for (; k < hi; k++) {
            uint32_t nd;
            const tally_wide *v = line_cost(r, r->lsorted[k], &nd);
            annrep_print_cc(r, v, nd, w);
            fprintf(out, " <bogus line %llu>\n", (unsigned long long)line_no(r, r->lsorted[k]));
        }
        putc('\n', out);
        warn_past_end(r, name, newer);
    }
    putc('\n', out);
    if (line0 != SIZE_MAX) {
        uint32_t nd;
        const tally_wide *v = line_cost(r, line0, &nd);
        annrep_print_cc(r, v, nd, w);
        fprintf(out, " <counts for unidentified lines in %s>\n\n", name);
    }
    free(w);
    srcfile_text_release(&src);
    free(opened);
    free(shown);
    return rc;
}

/*
 * The per-line tables of the files that will be annotated: those that open
 * (annotate_one() reads them again, and tells the rest apart). Most files
 * a profile names are not on the machine; their lines are not summed.
 */
static int line_tables(struct annrep *r, const struct annfile *files, size_t nf,
                       struct tally_error *err)
{
    size_t nnames = func_nnames(&r->ft);
    unsigned char *want = xcalloc(nnames ? nnames : 1, 1);
    int any = 0;
    for (size_t i = 0; i < nf; i++) {
        if (i && !strcmp(files[i].name, files[i - 1].name)) continue;
        uint32_t fid = func_find_name(&r->ft, files[i].name, strlen(files[i].name));
        if (fid == UINT32_MAX) continue; /* no information: nothing to sum */
        struct srcfile_found found;
        if (!srcfile_find(files[i].name, &r->o->include_dirs, SRCFILE_PREFIX, srcfile_opens, NULL,
                          &found))
            continue;
        free(found.path);
        want[fid] = 1;
        any = 1;
    }
    int rc = any ? func_table_lines(&r->ft, r->fo, want, nnames, err) : 0;
    free(want);
    return rc;
}

int annrep_sources(struct annrep *r, struct tally_error *err)
{
    const struct annotate_options *o = r->o;
    FILE *out = r->out;
    size_t nf = 0;
    struct annfile *files = xmalloc((o->user_files.n + r->nfile_printed + 1) * sizeof(*files));
    for (size_t i = 0; i < o->user_files.n; i++)
        files[nf++] = (struct annfile){o->user_files.items[i], 1};
    if (o->auto_annotate)
        for (size_t f = 0; f < func_nnames(&r->ft); f++)
            if (r->file_printed[f] && strcmp(func_str(&r->ft, (uint32_t)f), "???") != 0)
                files[nf++] = (struct annfile){func_str(&r->ft, (uint32_t)f), 0};
    qsort(files, nf, sizeof(*files), cmp_annfiles);
    if (line_tables(r, files, nf, err)) {
        free(files);
        return -1;
    }
    r->lsorted = sorted_index(&r->ft.lines);
    r->csorted = sorted_index(&r->ft.line_calls);
    r->printed = xcalloc(r->ncols ? r->ncols : 1, sizeof(tally_wide));
    struct strlist unfound = {0};
    int did = 0, rc = 0;
    for (size_t i = 0; i < nf && !rc; i++) {
        if (i && !strcmp(files[i].name, files[i - 1].name)) continue;
        rc = annotate_one(r, files[i].name, files[i].user, &unfound, &did);
    }
    free(files);
    if (rc) {
        strlist_release(&unfound);
        return tally_error_set(err, NULL, 0, "annotated cost too large");
    }
    if (unfound.n) {
        qsort(unfound.items, unfound.n, sizeof(char *), cmp_strs);
        fputs(RULE "The following files chosen for auto-annotation could not be found:\n" RULE,
              out);
        for (size_t i = 0; i < unfound.n; i++)
            fprintf(out, "  %s\n", unfound.items[i]);
        putc('\n', out);
    }
    strlist_release(&unfound);
    if (did) {
        if (!r->cg) {
            /* profiles whose self costs do not add up (e.g. xtree memory): show 100% */
            for (size_t c = 0; c < r->ncols; c++) {
                tally_wide s = annrep_defined(r, c, r->summary_ndef) ? r->summary[c] : 0;
                tally_wide pv = annrep_defined(r, c, r->printed_ndef) ? r->printed[c] : 0;
                if (s == 0 || pv > s) r->summary[c] = pv;
            }
        }
        size_t *w = xmalloc((r->ncols ? r->ncols : 1) * sizeof(size_t));
        annrep_widths_init(r, w);
        annrep_widths_add(r, w, r->printed, r->printed_ndef);
        fputs(RULE, out);
        annrep_print_events(r, w);
        fputs("\n" RULE, out);
        annrep_print_cc(r, r->printed, r->printed_ndef, w);
        fputs(" events annotated\n\n", out);
        free(w);
    }
    return 0;
}
