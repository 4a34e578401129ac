/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c - the text, Markdown and JSON outputs of `tally check` (check.h).
 */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../io/utf8.h"
#include "textfmt.h"

/* "+1,234", "-5", "0". */
static const char *signed_count(int64_t v, char *buf)
{
    char tmp[40];
    textfmt_commify(v, tmp);
    snprintf(buf, 48, "%s%s", v > 0 ? "+" : "", tmp);
    return buf;
}

static const char *count(int64_t v, char *buf)
{
    return textfmt_commify(v, buf);
}

/* "+2.00%", "-100.00%", "new" (from nothing), "0.00%". */
static const char *change(double pct, char *buf)
{
    if (isinf(pct))
        snprintf(buf, 32, "%s", pct > 0 ? "new" : "-new");
    else if (pct == 0)
        snprintf(buf, 32, "0.00%%");
    else
        snprintf(buf, 32, "%+.2f%%", pct);
    return buf;
}

/* The limit's bound as text: "+10%", "<= 5,000,000,000". */
static const char *bound(const struct check_limit *l, char *buf)
{
    if (l->kind == CHECK_PERCENT)
        snprintf(buf, 64, "%+g%%", l->value);
    else if (l->value < 9.2e18 && l->value == floor(l->value))
        snprintf(buf, 64, "<= %s", textfmt_commify((int64_t)l->value, (char[40]){0}));
    else
        snprintf(buf, 64, "<= %g", l->value);
    return buf;
}

/* How many functions changed in column 0. */
static size_t nchanged(const struct check_result *res)
{
    size_t n = 0;
    for (size_t f = 0; f < res->nfuncs; f++)
        if (res->funcs[f].base[0] != res->funcs[f].new_[0]) n++;
    return n;
}

static void list_files(FILE *fp, const char *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s%s", i ? " + " : "", files[i]);
}

/* ---- text ----------------------------------------------------------------- */

static void write_text(FILE *fp, const struct check_result *res,
                       const struct check_report_options *opt)
{
    char a[48], b[48], c[48], d[48];
    fputs("base: ", fp);
    list_files(fp, opt->base_files, opt->nbase);
    fputs("\nnew:  ", fp);
    list_files(fp, opt->new_files, opt->nnew);
    fputs("\n\n", fp);
    size_t w = 5;
    for (size_t k = 0; k < res->ncols; k++)
        if (strlen(res->cols[k]) > w) w = strlen(res->cols[k]);
    fprintf(fp, "%-*s %18s %18s %18s %10s\n", (int)w, "event", "base", "new", "delta", "change");
    for (size_t k = 0; k < res->ncols; k++)
        fprintf(fp, "%-*s %18s %18s %18s %10s\n", (int)w, res->cols[k],
                count(res->base_total[k], a), count(res->new_total[k], b),
                signed_count(res->new_total[k] - res->base_total[k], c),
                change(check_percent(res->base_total[k], res->new_total[k]), d));
    for (size_t k = 0; k < res->ncols; k++)
        if (res->formulas[k][0]) fprintf(fp, "  %s = %s\n", res->cols[k], res->formulas[k]);

    size_t top = nchanged(res);
    if (top > opt->top) top = opt->top;
    if (top) {
        fprintf(fp, "\nFunctions that changed most (%s%s):\n", res->cols[0],
                res->inclusive ? ", inclusive" : "");
        fprintf(fp, "%18s %18s %18s %10s  %s\n", "base", "new", "delta", "change", "function");
        for (size_t f = 0; f < top; f++) {
            const struct check_func *fn = &res->funcs[f];
            fprintf(fp, "%18s %18s %18s %10s  %s\n", count(fn->base[0], a), count(fn->new_[0], b),
                    signed_count(fn->new_[0] - fn->base[0], c),
                    change(check_percent(fn->base[0], fn->new_[0]), d), fn->name);
        }
    }

    fputs("\nLimits:\n", fp);
    for (size_t l = 0; l < res->nlimits; l++) {
        const struct check_outcome *o = &res->outcomes[l];
        const struct check_limit *lim = o->limit;
        char bd[64];
        if (!lim->func_regex) {
            const struct check_hit *h = &o->hits[0];
            fprintf(fp, "  %-8s %s: total %s %s -> %s (%s; limit %s)\n",
                    o->exceeded ? "EXCEEDED" : "ok", lim->text, lim->event, count(h->base, a),
                    count(h->new_, b), change(h->percent, d), bound(lim, bd));
        } else if (!o->exceeded) {
            fprintf(fp, "  %-8s %s: %zu function%s within %s\n", "ok", lim->text, o->checked,
                    o->checked == 1 ? "" : "s", bound(lim, bd));
        } else {
            fprintf(fp, "  %-8s %s: %zu of %zu function%s beyond %s\n", "EXCEEDED", lim->text,
                    o->nhits, o->checked, o->checked == 1 ? "" : "s", bound(lim, bd));
            for (size_t h = 0; h < o->nhits && h < opt->top; h++)
                fprintf(fp, "           %s: %s %s -> %s (%s)\n", o->hits[h].fn->name, lim->event,
                        count(o->hits[h].base, a), count(o->hits[h].new_, b),
                        change(o->hits[h].percent, d));
            if (o->nhits > opt->top)
                fprintf(fp, "           and %zu more (--top=N shows N)\n", o->nhits - opt->top);
        }
    }
    for (size_t i = 0; i < res->notes.n; i++)
        fprintf(fp, "note: %s\n", res->notes.items[i]);
    if (res->nexceeded)
        fprintf(fp, "\nFAILED: %zu of %zu limit%s exceeded\n", res->nexceeded, res->nlimits,
                res->nlimits == 1 ? "" : "s");
    else
        fprintf(fp, "\nPASSED: %zu limit%s, none exceeded\n", res->nlimits,
                res->nlimits == 1 ? "" : "s");
}

/* ---- Markdown --------------------------------------------------------------- */

/* s as Markdown code in a table cell: backticks become ', pipes are escaped. */
static void md_code(FILE *fp, const char *s)
{
    fputc('`', fp);
    for (; *s; s++) {
        if (*s == '`')
            fputc('\'', fp);
        else if (*s == '|')
            fputs("\\|", fp);
        else if ((unsigned char)*s < 0x20)
            fputc('?', fp);
        else
            fputc(*s, fp);
    }
    fputc('`', fp);
}

static void write_markdown(FILE *fp, const struct check_result *res,
                           const struct check_report_options *opt)
{
    char a[48], b[48], c[48], d[48];
    if (res->nexceeded)
        fprintf(fp, "### tally check: FAILED (%zu of %zu limit%s exceeded)\n\n", res->nexceeded,
                res->nlimits, res->nlimits == 1 ? "" : "s");
    else
        fprintf(fp, "### tally check: passed (%zu limit%s)\n\n", res->nlimits,
                res->nlimits == 1 ? "" : "s");
    fputs("Base: ", fp);
    for (size_t i = 0; i < opt->nbase; i++) {
        if (i) fputs(", ", fp);
        md_code(fp, opt->base_files[i]);
    }
    fputs("  \nNew: ", fp);
    for (size_t i = 0; i < opt->nnew; i++) {
        if (i) fputs(", ", fp);
        md_code(fp, opt->new_files[i]);
    }
    fputs("\n\n| event | base | new | delta | change |\n|---|---:|---:|---:|---:|\n", fp);
    for (size_t k = 0; k < res->ncols; k++) {
        fputs("| ", fp);
        md_code(fp, res->cols[k]);
        fprintf(fp, " | %s | %s | %s | %s |\n", count(res->base_total[k], a),
                count(res->new_total[k], b),
                signed_count(res->new_total[k] - res->base_total[k], c),
                change(check_percent(res->base_total[k], res->new_total[k]), d));
    }
    for (size_t k = 0; k < res->ncols; k++)
        if (res->formulas[k][0]) {
            fputs("\n", fp);
            md_code(fp, res->cols[k]);
            fputs(" = ", fp);
            md_code(fp, res->formulas[k]);
            fputs("\n", fp);
        }

    size_t top = nchanged(res);
    if (top > opt->top) top = opt->top;
    if (top) {
        fprintf(fp, "\n**Functions that changed most (%s%s)**\n\n", res->cols[0],
                res->inclusive ? ", inclusive" : "");
        fputs("| function | base | new | delta | change |\n|---|---:|---:|---:|---:|\n", fp);
        for (size_t f = 0; f < top; f++) {
            const struct check_func *fn = &res->funcs[f];
            fputs("| ", fp);
            md_code(fp, fn->name);
            fprintf(fp, " | %s | %s | %s | %s |\n", count(fn->base[0], a), count(fn->new_[0], b),
                    signed_count(fn->new_[0] - fn->base[0], c),
                    change(check_percent(fn->base[0], fn->new_[0]), d));
        }
    }

    fputs("\n**Limits**\n\n| limit | status | where | base | new | change |\n"
          "|---|---|---|---:|---:|---:|\n",
          fp);
    for (size_t l = 0; l < res->nlimits; l++) {
        const struct check_outcome *o = &res->outcomes[l];
        const struct check_limit *lim = o->limit;
        if (!lim->func_regex) {
            fputs("| ", fp);
            md_code(fp, lim->text);
            fprintf(fp, " | %s | total | %s | %s | %s |\n", o->exceeded ? "**exceeded**" : "ok",
                    count(o->hits[0].base, a), count(o->hits[0].new_, b),
                    change(o->hits[0].percent, d));
        } else if (!o->exceeded) {
            fputs("| ", fp);
            md_code(fp, lim->text);
            fprintf(fp, " | ok | %zu function%s | | | |\n", o->checked, o->checked == 1 ? "" : "s");
        } else {
            for (size_t h = 0; h < o->nhits && h < opt->top; h++) {
                fputs("| ", fp);
                md_code(fp, lim->text);
                fputs(" | **exceeded** | ", fp);
                md_code(fp, o->hits[h].fn->name);
                fprintf(fp, " | %s | %s | %s |\n", count(o->hits[h].base, a),
                        count(o->hits[h].new_, b), change(o->hits[h].percent, d));
            }
            if (o->nhits > opt->top) {
                fputs("| ", fp);
                md_code(fp, lim->text);
                fprintf(fp, " | **exceeded** | %zu more functions | | | |\n", o->nhits - opt->top);
            }
        }
    }
    if (res->notes.n) fputs("\n", fp);
    for (size_t i = 0; i < res->notes.n; i++)
        fprintf(fp, "- note: %s\n", res->notes.items[i]);
}

/* ---- JSON ------------------------------------------------------------------- */

/* A JSON string; bytes that are not well-formed UTF-8 become U+FFFD. */
static void js(FILE *fp, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', fp);
    while (*s) {
        size_t n = utf8_len(s);
        if (*s == '"' || *s == '\\')
            fprintf(fp, "\\%c", *s);
        else if (*s < 0x20 || *s == 0x7f)
            fprintf(fp, "\\u%04x", *s);
        else if (n == 0)
            fputs("\\ufffd", fp);
        else
            fwrite(s, 1, n, fp);
        s += n ? n : 1;
    }
    fputc('"', fp);
}

/* A percentage, or null when the base is 0 and the new value is not. */
static void jpct(FILE *fp, double pct)
{
    if (isinf(pct) || isnan(pct))
        fputs("null", fp);
    else
        fprintf(fp, "%.6g", pct);
}

static void jhit(FILE *fp, const struct check_hit *h)
{
    fputs("{\"function\": ", fp);
    if (h->fn)
        js(fp, h->fn->name);
    else
        fputs("null", fp);
    fprintf(fp,
            ", \"base\": %" PRId64 ", \"new\": %" PRId64 ", \"delta\": %" PRId64 ", \"percent\": ",
            h->base, h->new_, h->new_ - h->base);
    jpct(fp, h->percent);
    fprintf(fp, ", \"exceeded\": %s}", h->exceeded ? "true" : "false");
}

static void jfiles(FILE *fp, const char *const *files, size_t n)
{
    fputc('[', fp);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", fp);
        js(fp, files[i]);
    }
    fputc(']', fp);
}

static void write_json(FILE *fp, const struct check_result *res,
                       const struct check_report_options *opt)
{
    fprintf(fp, "{\n  \"schema\": %d,\n  \"status\": \"%s\",\n  \"exceeded\": %zu,\n",
            CHECK_JSON_SCHEMA, res->nexceeded ? "exceeded" : "ok", res->nexceeded);
    fputs("  \"base\": ", fp);
    jfiles(fp, opt->base_files, opt->nbase);
    fputs(",\n  \"new\": ", fp);
    jfiles(fp, opt->new_files, opt->nnew);
    fputs(",\n  \"totals\": [", fp);
    for (size_t k = 0; k < res->ncols; k++) {
        fputs(k ? ",\n    {\"event\": " : "\n    {\"event\": ", fp);
        js(fp, res->cols[k]);
        fputs(", \"formula\": ", fp);
        if (res->formulas[k][0])
            js(fp, res->formulas[k]);
        else
            fputs("null", fp);
        fprintf(fp,
                ", \"base\": %" PRId64 ", \"new\": %" PRId64 ", \"delta\": %" PRId64
                ", \"percent\": ",
                res->base_total[k], res->new_total[k], res->new_total[k] - res->base_total[k]);
        jpct(fp, check_percent(res->base_total[k], res->new_total[k]));
        fputc('}', fp);
    }
    fprintf(fp, "\n  ],\n  \"inclusive\": %s,\n  \"functions\": [",
            res->inclusive ? "true" : "false");
    size_t top = nchanged(res);
    if (top > opt->top) top = opt->top;
    for (size_t f = 0; f < top; f++) {
        const struct check_func *fn = &res->funcs[f];
        fputs(f ? ",\n    {\"name\": " : "\n    {\"name\": ", fp);
        js(fp, fn->name);
        fputs(", \"file\": ", fp);
        js(fp, fn->file);
        const char *keys[] = {"base", "new", "delta", "percent"};
        for (int kk = 0; kk < 4; kk++) {
            fprintf(fp, ", \"%s\": {", keys[kk]);
            for (size_t k = 0; k < res->ncols; k++) {
                if (k) fputs(", ", fp);
                js(fp, res->cols[k]);
                fputs(": ", fp);
                int64_t bv = fn->base[k], nv = fn->new_[k];
                if (kk == 0) fprintf(fp, "%" PRId64, bv);
                if (kk == 1) fprintf(fp, "%" PRId64, nv);
                if (kk == 2) fprintf(fp, "%" PRId64, nv - bv);
                if (kk == 3) jpct(fp, check_percent(bv, nv));
            }
            fputc('}', fp);
        }
        fputc('}', fp);
    }
    fputs(top ? "\n  ],\n  \"limits\": [" : "],\n  \"limits\": [", fp);
    for (size_t l = 0; l < res->nlimits; l++) {
        const struct check_outcome *o = &res->outcomes[l];
        const struct check_limit *lim = o->limit;
        fputs(l ? ",\n    {\"limit\": " : "\n    {\"limit\": ", fp);
        js(fp, lim->text);
        fputs(", \"event\": ", fp);
        js(fp, lim->event);
        fprintf(fp, ", \"kind\": \"%s\", \"value\": %.17g, \"functions\": ",
                lim->kind == CHECK_PERCENT ? "percent" : "absolute", lim->value);
        if (lim->func_regex)
            js(fp, lim->func_regex);
        else
            fputs("null", fp);
        fprintf(fp, ", \"checked\": %zu, \"status\": \"%s\", \"hits\": [", o->checked,
                o->exceeded ? "exceeded" : "ok");
        for (size_t h = 0; h < o->nhits; h++) {
            fputs(h ? ",\n      " : "\n      ", fp);
            jhit(fp, &o->hits[h]);
        }
        fputs(o->nhits ? "\n    ]}" : "]}", fp);
    }
    fputs(res->nlimits ? "\n  ],\n  \"notes\": [" : "],\n  \"notes\": [", fp);
    for (size_t i = 0; i < res->notes.n; i++) {
        if (i) fputs(", ", fp);
        js(fp, res->notes.items[i]);
    }
    fputs("]\n}\n", fp);
}

void check_write(FILE *fp, const struct check_result *res, enum check_format fmt,
                 const struct check_report_options *opt)
{
    if (fmt == CHECK_MARKDOWN)
        write_markdown(fp, res, opt);
    else if (fmt == CHECK_JSON)
        write_json(fp, res, opt);
    else
        write_text(fp, res, opt);
}
