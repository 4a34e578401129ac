/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aprof.c - aprof report reader (versions 1-6) and writer (v4, or v6 for
 * DRMS). The layout is described in docs/internals/aprof.md.
 */
#include "aprof.h"

#include <stdlib.h>
#include <string.h>

#include "../io/input.h"
#include "../io/outfile.h"
#include "../io/parse.h"

/* ---- reading ---- */

struct xline { /* an x line, resolved at the end */
    uint32_t routine, ctx;
    int64_t parent; /* -1 = top level */
    unsigned long line;
    size_t made; /* context index, ISPROF_NONE until created */
    int state;   /* 0 new, 1 being resolved, 2 done */
};

struct qline { /* a q line, added once its context exists */
    uint32_t ctx;
    unsigned long line;
    struct isprof_tuple t;
};

struct reader {
    struct isprof *ip;
    const char *path;
    unsigned long line;
    struct tally_error *err;
    int have_version;
    int saw_tuple;
    unsigned tuple_fields; /* AND of the field masks of the tuple lines */
    struct xline *xs;
    size_t nx, capx;
    struct qline *qs;
    size_t nq, capq;
};

static int fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tally_error_vset(rd->err, rd->path, rd->line, fmt, ap);
    va_end(ap);
    return -1;
}

/* Put the reader's position on an error filled by the model (which knows no file). */
static int relocate(struct reader *rd, unsigned long line)
{
    if (rd->err) {
        snprintf(rd->err->file, sizeof rd->err->file, "%s", rd->path);
        rd->err->line = line;
    }
    return -1;
}

static int parse_u128(const char **p, const char *end, isprof_u128 *out)
{
    const char *s = *p;
    isprof_u128 v = 0, limit = ~(isprof_u128)0;
    while (s < end && (unsigned)(*s - '0') < 10) {
        unsigned x = (unsigned)(*s - '0');
        if (v > (limit - x) / 10) return PARSE_OVERFLOW;
        v = v * 10 + x;
        s++;
    }
    if (s == *p) return PARSE_NONE;
    *p = s;
    *out = v;
    return PARSE_OK;
}

/* One space-separated unsigned field; `what` names it in messages. */
static int field_u64(struct reader *rd, const char **p, const char *end, uint64_t *out,
                     const char *what)
{
    parse_skip_space(p, end);
    const char *s = *p;
    int rc = parse_u64(p, end, out);
    if (rc == PARSE_NONE) return fail(rd, "expected a number (%s)", what);
    if (rc == PARSE_OVERFLOW) return fail(rd, "number too large (%s)", what);
    if (*p < end && !parse_is_space(**p))
        return fail(rd, "bad number '%.*s' (%s)", (int)(*p - s + 1), s, what);
    return 0;
}

static int field_u32(struct reader *rd, const char **p, const char *end, uint32_t *out,
                     const char *what)
{
    uint64_t v;
    if (field_u64(rd, p, end, &v, what)) return -1;
    if (v > UINT32_MAX)
        return fail(rd, "%s %llu does not fit in 32 bits", what, (unsigned long long)v);
    *out = (uint32_t)v;
    return 0;
}

static int field_u128(struct reader *rd, const char **p, const char *end, isprof_u128 *out,
                      const char *what)
{
    parse_skip_space(p, end);
    int rc = parse_u128(p, end, out);
    if (rc == PARSE_NONE) return fail(rd, "expected a number (%s)", what);
    if (rc == PARSE_OVERFLOW) return fail(rd, "number too large (%s)", what);
    if (*p < end && !parse_is_space(**p)) return fail(rd, "bad number (%s)", what);
    return 0;
}

static int at_end(struct reader *rd, const char *p, const char *end)
{
    parse_skip_space(&p, end);
    if (p != end)
        return fail(rd, "unexpected text at the end of the line: '%.*s'",
                    (int)(end - p > 40 ? 40 : end - p), p);
    return 0;
}

static int count_fields(const char *p, const char *end)
{
    int n = 0;
    while (p < end) {
        parse_skip_space(&p, end);
        if (p == end) break;
        n++;
        while (p < end && !parse_is_space(*p))
            p++;
    }
    return n;
}

static char *dup_text(const char *p, const char *end)
{
    return xstrndup(p, (size_t)(end - p));
}

static void set_text(char **dst, const char *p, const char *end)
{
    free(*dst);
    *dst = dup_text(p, end);
}

static int valid_resolution(uint64_t k)
{
    return k == 1 || k == 2 || k == 4 || k == 8 || k == 16;
}

static int is_number(const char *p, const char *end)
{
    if (p == end) return 0;
    for (; p < end; p++)
        if ((unsigned)(*p - '0') >= 10) return 0;
    return 1;
}

static int set_resolution(struct reader *rd, const char *p, const char *end)
{
    uint64_t k;
    if (field_u64(rd, &p, end, &k, "memory resolution") || at_end(rd, p, end)) return -1;
    if (!valid_resolution(k))
        return fail(rd, "memory resolution %llu is not 1, 2, 4, 8 or 16", (unsigned long long)k);
    rd->ip->resolution = (unsigned)k;
    return 0;
}

static int word_is(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - p) == n && !memcmp(p, w, n);
}

/* Blanks around values: what the writer drops (a stray \r counts as one). */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* A `c` line, seen as the writer would write it back (line breaks as
 * spaces, no blanks at either end), so that what is metadata, banner or
 * comment does not change between a read and a re-read. */
static int read_comment_text(struct reader *rd, const char *p, const char *end);

static int read_comment(struct reader *rd, const char *p, const char *end)
{
    while (p < end && (is_blank(*p) || *p == '\n'))
        p++;
    while (end > p && (is_blank(end[-1]) || end[-1] == '\n'))
        end--;
    char *text = dup_text(p, end);
    size_t n = (size_t)(end - p);
    for (size_t i = 0; i < n; i++)
        if (text[i] == '\r' || text[i] == '\n') text[i] = ' ';
    int rc = read_comment_text(rd, text, text + n);
    free(text);
    return rc;
}

/* A normalised `c` line: tally's metadata or a plain comment. */
static int read_comment_text(struct reader *rd, const char *p, const char *end)
{
    struct isprof *ip = rd->ip;
    if (parse_prefix(p, (size_t)(end - p), "tally ", 6)) {
        const char *k = p + 6, *ke = k;
        while (ke < end && !is_blank(*ke))
            ke++;
        const char *v = ke;
        while (v < end && is_blank(*v))
            v++;
        if (word_is(k, ke, "input")) {
            if (word_is(v, end, "rms"))
                ip->input = ISPROF_INPUT_RMS;
            else if (word_is(v, end, "drms"))
                ip->input = ISPROF_INPUT_DRMS;
            else
                return fail(rd, "unknown input metric '%.*s'", (int)(end - v), v);
            return 0;
        }
        if (word_is(k, ke, "resolution")) return set_resolution(rd, v, end);
        if (word_is(k, ke, "cost")) {
            if (word_is(v, end, "bb"))
                ip->cost = ISPROF_COST_BB;
            else if (word_is(v, end, "instr"))
                ip->cost = ISPROF_COST_INSTR;
            else if (word_is(v, end, "time"))
                ip->cost = ISPROF_COST_TIME;
            else
                return fail(rd, "unknown cost metric '%.*s'", (int)(end - v), v);
            return 0;
        }
        if (word_is(k, ke, "thread")) {
            if (word_is(v, end, "all")) {
                ip->thread = -1;
                return 0;
            }
            uint64_t n;
            if (field_u64(rd, &v, end, &n, "thread") || at_end(rd, v, end)) return -1;
            if (n < 1 || n > 0x7fffffff)
                return fail(rd, "bad thread number %llu", (unsigned long long)n);
            ip->thread = (long)n;
            return 0;
        }
        if (word_is(k, ke, "created")) {
            set_text(&ip->created, v, end);
            return 0;
        }
    }
    /* The banner lines are the writer's own; do not keep them as comments. */
    const char *d = p;
    while (d < end && *d == '-')
        d++;
    if ((d == end && end - p >= 3) ||
        parse_prefix(p, (size_t)(end - p), "report generated by ", 20))
        return 0;
    strlist_push(&ip->comments, "");
    free(ip->comments.items[ip->comments.n - 1]);
    ip->comments.items[ip->comments.n - 1] = dup_text(p, end);
    return 0;
}

/* Find `" "` in [p, end). */
static const char *find_sep(const char *p, const char *end)
{
    for (; end - p >= 3; p++)
        if (p[0] == '"' && p[1] == ' ' && p[2] == '"') return p;
    return NULL;
}

static int read_routine(struct reader *rd, const char *p, const char *end)
{
    if (p == end || *p != '"') return fail(rd, "r line: expected \"name\" \"image\" id");
    const char *name = p + 1;
    const char *sep = find_sep(name, end);
    if (!sep) return fail(rd, "r line: expected \"name\" \"image\" id");
    const char *image = sep + 3, *last = NULL;
    for (const char *q = image; q < end; q++)
        if (*q == '"') last = q;
    if (!last) return fail(rd, "r line: unterminated image name");
    const char *q = last + 1;
    if (q == end || !parse_is_space(*q)) return fail(rd, "r line: expected a routine id");
    uint32_t id = 0;
    if (field_u32(rd, &q, end, &id, "routine id")) return -1;
    parse_skip_space(&q, end);
    if (q < end) { /* 2013 development reports: number of distinct input sizes */
        uint64_t ignored;
        if (field_u64(rd, &q, end, &ignored, "distinct input sizes")) return -1;
        if (at_end(rd, q, end)) return -1;
    }
    char *n = dup_text(name, sep), *i = dup_text(image, last);
    size_t r = isprof_add_routine(rd->ip, id, n, i, rd->err);
    free(n);
    free(i);
    return r == ISPROF_NONE ? relocate(rd, rd->line) : 0;
}

/* u and d lines: ID "text" */
static int read_name(struct reader *rd, const char *p, const char *end, int full)
{
    uint32_t id = 0;
    if (field_u32(rd, &p, end, &id, "routine id")) return -1;
    size_t r = isprof_routine_by_id(rd->ip, id);
    if (r == ISPROF_NONE) return fail(rd, "routine id %u has no r line before it", (unsigned)id);
    parse_skip_space(&p, end);
    while (end > p && parse_is_space(end[-1]))
        end--;
    if (end - p < 2 || *p != '"' || end[-1] != '"')
        return fail(rd, "%c line: expected a quoted name", full ? 'd' : 'u');
    if (full)
        isprof_set_fullname(rd->ip, r, p + 1, (size_t)(end - p - 2));
    else
        isprof_set_mangled(rd->ip, r, p + 1, (size_t)(end - p - 2));
    return 0;
}

/* The fields of a p or q line after the owner id; fills t and returns its field mask. */
static int read_tuple(struct reader *rd, const char *p, const char *end, struct isprof_tuple *t,
                      unsigned *mask)
{
    memset(t, 0, sizeof *t);
    t->line = rd->line;
    unsigned v = rd->ip->version;
    int n = count_fields(p, end);
    int want;
    switch (v) {
    case 1:
        want = 6;
        break;
    case 2:
        want = 7;
        break;
    case 3:
        want = 9;
        break;
    case 4:
        want = 11;
        break;
    default:
        want = n == 13 || n == 17 ? n : 11;
        break;
    }
    if (n != want) {
        if (v >= 5)
            return fail(rd,
                        "expected 11, 13 or 17 numbers after the id in a version %u tuple, "
                        "found %d",
                        v, n);
        return fail(rd, "expected %d numbers after the id in a version %u tuple, found %d", want, v,
                    n);
    }
    if (field_u64(rd, &p, end, &t->input, "input size") || field_u64(rd, &p, end, &t->min, "min") ||
        field_u64(rd, &p, end, &t->max, "max") || field_u64(rd, &p, end, &t->sum, "sum"))
        return -1;
    if (v == 1) {
        if (field_u128(rd, &p, end, &t->sqr, "sum of squares") ||
            field_u64(rd, &p, end, &t->calls, "calls"))
            return -1;
        *mask = ISPROF_F_SQR;
    } else if (v == 2 || v == 3) {
        if (field_u64(rd, &p, end, &t->calls, "calls") ||
            field_u64(rd, &p, end, &t->real_sum, "real sum") ||
            field_u64(rd, &p, end, &t->self_sum, "self sum"))
            return -1;
        *mask = ISPROF_F_REAL | ISPROF_F_SELF;
        if (v == 3) {
            if (field_u64(rd, &p, end, &t->self_min, "self min") ||
                field_u64(rd, &p, end, &t->self_max, "self max"))
                return -1;
            *mask |= ISPROF_F_SELFMM;
        }
    } else {
        if (field_u128(rd, &p, end, &t->sqr, "sum of squares") ||
            field_u64(rd, &p, end, &t->calls, "calls") ||
            field_u64(rd, &p, end, &t->real_sum, "real sum") ||
            field_u64(rd, &p, end, &t->self_sum, "self sum") ||
            field_u64(rd, &p, end, &t->self_min, "self min") ||
            field_u64(rd, &p, end, &t->self_max, "self max") ||
            field_u128(rd, &p, end, &t->self_sqr, "self sum of squares"))
            return -1;
        *mask = ISPROF_F_V4;
        if (n >= 13) {
            if (field_u64(rd, &p, end, &t->rms_sum, "rms sum") ||
                field_u128(rd, &p, end, &t->rms_sqr, "rms sum of squares"))
                return -1;
            *mask |= ISPROF_F_RMSSTAT;
        }
        if (n == 17) {
            if (field_u64(rd, &p, end, &t->cumul_syscall, "syscall-induced input") ||
                field_u64(rd, &p, end, &t->cumul_thread, "thread-induced input") ||
                field_u64(rd, &p, end, &t->self_syscall, "self syscall-induced input") ||
                field_u64(rd, &p, end, &t->self_thread, "self thread-induced input"))
                return -1;
            *mask |= ISPROF_F_INDUCED;
        }
    }
    if (at_end(rd, p, end)) return -1;
    if (!t->calls) return fail(rd, "tuple with 0 calls");
    if (t->min > t->max)
        return fail(rd, "tuple with min %llu above max %llu", (unsigned long long)t->min,
                    (unsigned long long)t->max);
    if ((*mask & ISPROF_F_SELFMM) && t->self_min > t->self_max)
        return fail(rd, "tuple with self min %llu above self max %llu",
                    (unsigned long long)t->self_min, (unsigned long long)t->self_max);
    if (!(*mask & ISPROF_F_SELFMM)) {
        /* unknown: fold-neutral values so merging keeps them meaningless but harmless */
        t->self_min = 0;
        t->self_max = 0;
    }
    return 0;
}

static int read_p(struct reader *rd, const char *p, const char *end)
{
    uint32_t id = 0;
    if (field_u32(rd, &p, end, &id, "routine id")) return -1;
    size_t r = isprof_routine_by_id(rd->ip, id);
    if (r == ISPROF_NONE) return fail(rd, "routine id %u has no r line before it", (unsigned)id);
    struct isprof_tuple t;
    unsigned mask;
    if (read_tuple(rd, p, end, &t, &mask)) return -1;
    rd->tuple_fields &= mask;
    rd->saw_tuple = 1;
    if (!isprof_add(rd->ip, ISPROF_ROUTINE, r, &t, rd->err)) return relocate(rd, rd->line);
    return 0;
}

static int read_q(struct reader *rd, const char *p, const char *end)
{
    uint32_t ctx = 0;
    if (field_u32(rd, &p, end, &ctx, "context id")) return -1;
    struct qline q = {.ctx = ctx, .line = rd->line};
    unsigned mask;
    if (read_tuple(rd, p, end, &q.t, &mask)) return -1;
    rd->tuple_fields &= mask;
    rd->saw_tuple = 1;
    rd->qs = xgrow(rd->qs, &rd->capq, rd->nq + 1, sizeof *rd->qs);
    rd->qs[rd->nq++] = q;
    return 0;
}

static int read_x(struct reader *rd, const char *p, const char *end)
{
    struct xline x = {.line = rd->line, .made = ISPROF_NONE};
    if (field_u32(rd, &p, end, &x.routine, "routine id") ||
        field_u32(rd, &p, end, &x.ctx, "context id"))
        return -1;
    parse_skip_space(&p, end);
    int rc = parse_i64(&p, end, &x.parent);
    if (rc != PARSE_OK || x.parent < -1 || x.parent > (int64_t)UINT32_MAX)
        return fail(rd, "x line: expected a parent context id or -1");
    if (at_end(rd, p, end)) return -1;
    if (isprof_routine_by_id(rd->ip, x.routine) == ISPROF_NONE)
        return fail(rd, "routine id %u has no r line before it", (unsigned)x.routine);
    rd->xs = xgrow(rd->xs, &rd->capx, rd->nx + 1, sizeof *rd->xs);
    rd->xs[rd->nx++] = x;
    return 0;
}

static int cmp_xline(const void *a, const void *b)
{
    const struct xline *x = a, *y = b;
    return (x->ctx > y->ctx) - (x->ctx < y->ctx);
}

static struct xline *find_x(struct reader *rd, uint32_t ctx)
{
    struct xline key = {.ctx = ctx};
    return bsearch(&key, rd->xs, rd->nx, sizeof *rd->xs, cmp_xline);
}

static int cmp_xline_line(const void *a, const void *b)
{
    const struct xline *x = *(struct xline *const *)a, *y = *(struct xline *const *)b;
    return (x->line > y->line) - (x->line < y->line);
}

/* Create the contexts of the x lines, parents first. */
static int build_contexts(struct reader *rd)
{
    if (!rd->nx) return 0;
    qsort(rd->xs, rd->nx, sizeof *rd->xs, cmp_xline);
    for (size_t i = 1; i < rd->nx; i++)
        if (rd->xs[i].ctx == rd->xs[i - 1].ctx) {
            unsigned long l =
                rd->xs[i].line > rd->xs[i - 1].line ? rd->xs[i].line : rd->xs[i - 1].line;
            return tally_error_set(rd->err, rd->path, l, "context id %u defined twice",
                                   (unsigned)rd->xs[i].ctx);
        }
    /* Process in file order so that the model's order follows the file's. */
    struct xline **order = xmalloc(rd->nx * sizeof *order);
    for (size_t i = 0; i < rd->nx; i++)
        order[i] = &rd->xs[i];
    struct xline **chain = xmalloc(rd->nx * sizeof *chain);
    int rc = 0;
    qsort(order, rd->nx, sizeof *order, cmp_xline_line);
    size_t k;
    for (size_t o = 0; o < rd->nx && !rc; o++) {
        k = 0;
        struct xline *x = order[o];
        /* Walk up while the parent is not made yet. */
        while (x && x->state != 2) {
            if (x->state == 1) {
                rc = tally_error_set(rd->err, rd->path, x->line, "context %u is its own ancestor",
                                     (unsigned)x->ctx);
                break;
            }
            x->state = 1;
            chain[k++] = x;
            if (x->parent < 0) break;
            struct xline *par = find_x(rd, (uint32_t)x->parent);
            if (!par) {
                rc = tally_error_set(rd->err, rd->path, x->line,
                                     "context %u: parent context %lld has no x line",
                                     (unsigned)x->ctx, (long long)x->parent);
                break;
            }
            x = par;
        }
        while (!rc && k--) {
            struct xline *c = chain[k];
            size_t parent = ISPROF_NONE;
            if (c->parent >= 0) parent = find_x(rd, (uint32_t)c->parent)->made;
            size_t r = isprof_routine_by_id(rd->ip, c->routine);
            c->made = isprof_add_context(rd->ip, c->ctx, r, parent, rd->err);
            if (c->made == ISPROF_NONE) rc = relocate(rd, c->line);
            c->state = 2;
        }
    }
    free(order);
    free(chain);
    return rc;
}

static int finish(struct reader *rd)
{
    struct isprof *ip = rd->ip;
    if (!rd->have_version)
        return tally_error_set(rd->err, rd->path, 0,
                               "not an aprof report (no v line; version 0 reports are not "
                               "supported)");
    if (build_contexts(rd)) return -1;
    for (size_t i = 0; i < rd->nq; i++) {
        size_t c = isprof_context_by_id(ip, rd->qs[i].ctx);
        if (c == ISPROF_NONE)
            return tally_error_set(rd->err, rd->path, rd->qs[i].line, "context %u has no x line",
                                   (unsigned)rd->qs[i].ctx);
        if (!isprof_add(ip, ISPROF_CONTEXT, c, &rd->qs[i].t, rd->err))
            return relocate(rd, rd->qs[i].line);
    }
    if (isprof_aggregate_contexts(ip, rd->err)) return relocate(rd, 0);
    if (rd->saw_tuple) ip->fields = rd->tuple_fields;
    if (!ip->resolution) { /* aprof's file names end in _K.aprof */
        size_t n = strlen(rd->path);
        const char *suf = ".aprof";
        if (n > 6 && !strcmp(rd->path + n - 6, suf)) {
            const char *e = rd->path + n - 6, *s = e;
            while (s > rd->path && (unsigned)(s[-1] - '0') < 10)
                s--;
            if (s < e && s > rd->path && s[-1] == '_' && e - s <= 2) {
                unsigned k = (unsigned)atoi(s);
                if (valid_resolution(k)) ip->resolution = k;
            }
        }
    }
    return 0;
}

static int read_line(struct reader *rd, const char *line, size_t len)
{
    struct isprof *ip = rd->ip;
    const char *end = line + len, *p = line;
    while (end > p && is_blank(end[-1]))
        end--;
    while (p < end && is_blank(*p))
        p++;
    if (p == end) return 0;
    const char *tag = p;
    while (p < end && !is_blank(*p))
        p++;
    size_t tl = (size_t)(p - tag);
    const char *vt = p; /* the value: the rest of the line, without leading blanks */
    while (vt < end && is_blank(*vt))
        vt++;

    if (tl == 1 && *tag == 'c') return read_comment(rd, vt, end);
    if (tl == 1 && *tag == 'v') {
        if (rd->have_version) return fail(rd, "second v line");
        uint64_t n;
        if (field_u64(rd, &vt, end, &n, "version") || at_end(rd, vt, end)) return -1;
        if (n == 0) return fail(rd, "version 0 reports are not supported");
        if (n > 6)
            return fail(rd, "unsupported report version %llu (tally reads 1 to 6)",
                        (unsigned long long)n);
        ip->version = (unsigned)n;
        rd->have_version = 1;
        rd->tuple_fields = n == 1   ? ISPROF_F_SQR
                           : n == 2 ? ISPROF_F_REAL | ISPROF_F_SELF
                           : n == 3 ? ISPROF_F_REAL | ISPROF_F_SELF | ISPROF_F_SELFMM
                           : n == 4 ? ISPROF_F_V4
                                    : ISPROF_F_V4 | ISPROF_F_RMSSTAT | ISPROF_F_INDUCED;
        return 0;
    }
    if (!rd->have_version)
        return fail(rd, "'%.*s' line before the v line (version 0 reports are not supported)",
                    (int)(tl > 20 ? 20 : tl), tag);
    if (tl == 1) {
        switch (*tag) {
        case 'e':
            set_text(&ip->exe_mtime, vt, end);
            return 0;
        case 'f':
            set_text(&ip->cmdline, vt, end);
            return 0;
        case 'a':
            set_text(&ip->app, vt, end);
            return 0;
        case 't':
            if (ip->version >= 6 && is_number(vt, end)) return set_resolution(rd, vt, end);
            set_text(&ip->created, vt, end);
            return 0;
        case 'g': {
            int n = count_fields(vt, end);
            if (n == 1) return set_resolution(rd, vt, end);
            if (n == 3) {
                uint64_t x;
                for (int i = 0; i < 3; i++)
                    if (field_u64(rd, &vt, end, &x, "g line")) return -1;
                return 0;
            }
            return fail(rd, "g line: expected 1 or 3 numbers");
        }
        case 'm':
            if (isprof_cost_parse(vt, (size_t)(end - vt), &ip->cost))
                return fail(rd, "unknown cost metric '%.*s'", (int)(end - vt), vt);
            return 0;
        case 'i':
            if (word_is(vt, end, "rms"))
                ip->input = ISPROF_INPUT_RMS;
            else if (word_is(vt, end, "drms") || word_is(vt, end, "rvms"))
                ip->input = ISPROF_INPUT_DRMS;
            else
                return fail(rd, "unknown input metric '%.*s'", (int)(end - vt), vt);
            return 0;
        case 'k':
            if (field_u64(rd, &vt, end, &ip->total, "total cost") || at_end(rd, vt, end)) return -1;
            ip->has_total = 1;
            ip->total_line = rd->line;
            return 0;
        case 'r':
            return read_routine(rd, vt, end);
        case 'u':
            return read_name(rd, vt, end, 0);
        case 'd':
            return read_name(rd, vt, end, 1);
        case 'p':
            return read_p(rd, vt, end);
        case 'q':
            return read_q(rd, vt, end);
        case 'x':
            return read_x(rd, vt, end);
        default:
            break;
        }
    }
    if (tl == 3 && !memcmp(tag, "fav", 3)) {
        strlist_push(&ip->favourites, "");
        free(ip->favourites.items[ip->favourites.n - 1]);
        ip->favourites.items[ip->favourites.n - 1] = dup_text(vt, end);
        return 0;
    }
    return fail(rd, "unknown tag '%.*s'", (int)(tl > 20 ? 20 : tl), tag);
}

static int read_input(struct isprof *ip, struct input *in, const char *path,
                      struct tally_error *err)
{
    struct reader rd = {.ip = ip, .path = path, .err = err};
    const char *line;
    size_t len;
    int rc, result = 0;
    while ((rc = input_getline(in, &line, &len, err)) == 1) {
        rd.line = in->lineno;
        if (memchr(line, '\0', len)) {
            result = fail(&rd, "NUL byte in a text line");
            break;
        }
        if (read_line(&rd, line, len)) {
            result = -1;
            break;
        }
    }
    if (rc < 0) result = -1;
    if (!result) result = finish(&rd);
    free(rd.xs);
    free(rd.qs);
    return result;
}

int aprof_read(struct isprof *ip, const char *path, struct tally_error *err)
{
    struct input in;
    if (input_open(&in, path, err)) return -1;
    int rc = read_input(ip, &in, path, err);
    input_close(&in);
    return rc;
}

int aprof_read_input(struct isprof *ip, struct input *in, struct tally_error *err)
{
    return read_input(ip, in, in->path, err);
}

int aprof_read_mem(struct isprof *ip, const char *name, const void *data, size_t size,
                   struct tally_error *err)
{
    struct input in;
    if (input_open_mem(&in, name, data, size, err)) return -1;
    int rc = read_input(ip, &in, name, err);
    input_close(&in);
    return rc;
}

int aprof_detect(const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = p;
        parse_skip_space(&s, le);
        if (s < le) {
            if (le - s >= 2 && s[1] != ' ' && s[1] != '\t' && s[1] != '\r') return 0;
            if (*s != 'c') return *s == 'v';
        }
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

/* ---- writing ---- */

static void put_u128(FILE *fp, isprof_u128 v)
{
    char buf[48], *p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = (char)('0' + (unsigned)(v % 10));
        v /= 10;
    } while (v);
    fputs(p, fp);
}

/*
 * A string as it may appear on one line: line breaks become spaces, and
 * leading and trailing blanks are dropped (the reader drops them too), so
 * what is written reads back as written.
 */
static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void put_text(FILE *fp, const char *s)
{
    const char *e = s + strlen(s);
    while (s < e && blank(*s))
        s++;
    while (e > s && blank(e[-1]))
        e--;
    for (; s < e; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

/* A name between quotes: only line breaks are replaced. */
static void put_name(FILE *fp, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

static void put_tuple(FILE *fp, char tag, uint32_t owner, const struct isprof_tuple *t, int v6)
{
    fprintf(fp, "%c %u %llu %llu %llu %llu ", tag, (unsigned)owner, (unsigned long long)t->input,
            (unsigned long long)t->min, (unsigned long long)t->max, (unsigned long long)t->sum);
    put_u128(fp, t->sqr);
    fprintf(fp, " %llu %llu %llu %llu %llu ", (unsigned long long)t->calls,
            (unsigned long long)t->real_sum, (unsigned long long)t->self_sum,
            (unsigned long long)t->self_min, (unsigned long long)t->self_max);
    put_u128(fp, t->self_sqr);
    if (v6) {
        fprintf(fp, " %llu ", (unsigned long long)t->rms_sum);
        put_u128(fp, t->rms_sqr);
        fprintf(fp, " %llu %llu %llu %llu", (unsigned long long)t->cumul_syscall,
                (unsigned long long)t->cumul_thread, (unsigned long long)t->self_syscall,
                (unsigned long long)t->self_thread);
    }
    fputc('\n', fp);
}

static int cmp_tuple_ptr(const void *a, const void *b)
{
    const struct isprof_tuple *x = *(struct isprof_tuple *const *)a;
    const struct isprof_tuple *y = *(struct isprof_tuple *const *)b;
    return (x->input > y->input) - (x->input < y->input);
}

static void put_tuples(FILE *fp, char tag, uint32_t owner, const struct isprof_tuples *l, int v6,
                       struct isprof_tuple ***scratch, size_t *cap)
{
    *scratch = xgrow(*scratch, cap, l->n ? l->n : 1, sizeof **scratch);
    if (l->n) memcpy(*scratch, l->items, l->n * sizeof **scratch); /* items may be NULL */
    if (!l->sorted) qsort(*scratch, l->n, sizeof **scratch, cmp_tuple_ptr);
    for (size_t i = 0; i < l->n; i++)
        put_tuple(fp, tag, owner, (*scratch)[i], v6);
}

void aprof_write_fp(const struct isprof *ip, FILE *fp)
{
    int v6 = ip->input == ISPROF_INPUT_DRMS;
    static const char *const cost_words[] = {"bb", "instr", "time"};
    fputs("c -------------------------------------\n"
          "c report generated by tally\n"
          "c -------------------------------------\n",
          fp);
    fprintf(fp, "c tally input %s\n", v6 ? "drms" : "rms");
    if (ip->resolution) fprintf(fp, "c tally resolution %u\n", ip->resolution);
    fprintf(fp, "c tally cost %s\n", cost_words[(unsigned)ip->cost < 3 ? ip->cost : 0]);
    if (ip->thread > 0) fprintf(fp, "c tally thread %ld\n", ip->thread);
    if (ip->thread < 0) fputs("c tally thread all\n", fp);
    if (v6 && ip->created) {
        fputs("c tally created ", fp);
        put_text(fp, ip->created);
        fputc('\n', fp);
    }
    for (size_t i = 0; i < ip->comments.n; i++) {
        fputs("c ", fp);
        put_text(fp, ip->comments.items[i]);
        fputc('\n', fp);
    }
    fprintf(fp, "v %d\n", v6 ? 6 : 4);
    if (ip->exe_mtime) {
        fputs("e ", fp);
        put_text(fp, ip->exe_mtime);
        fputc('\n', fp);
    }
    if (v6 && ip->resolution) fprintf(fp, "t %u\n", ip->resolution);
    if (!v6 && ip->created) {
        fputs("t ", fp);
        put_text(fp, ip->created);
        fputc('\n', fp);
    }
    if (ip->cmdline) {
        fputs("f ", fp);
        put_text(fp, ip->cmdline);
        fputc('\n', fp);
    }
    if (ip->app) {
        fputs("a ", fp);
        put_text(fp, ip->app);
        fputc('\n', fp);
    }
    fprintf(fp, "m %s\n", isprof_cost_name(ip->cost));
    if (v6) fputs("i drms\n", fp);
    if (ip->has_total) fprintf(fp, "k %llu\n", (unsigned long long)ip->total);

    /* contexts grouped by routine (counting sort, keeping index order) */
    size_t *start = xcalloc(ip->nroutines + 1, sizeof *start);
    size_t *byr = xmalloc((ip->ncontexts ? ip->ncontexts : 1) * sizeof *byr);
    for (size_t c = 0; c < ip->ncontexts; c++)
        start[ip->contexts[c].routine + 1]++;
    for (size_t r = 0; r < ip->nroutines; r++)
        start[r + 1] += start[r];
    {
        size_t *fill = xmalloc((ip->nroutines + 1) * sizeof *fill);
        memcpy(fill, start, (ip->nroutines + 1) * sizeof *fill);
        for (size_t c = 0; c < ip->ncontexts; c++)
            byr[fill[ip->contexts[c].routine]++] = c;
        free(fill);
    }
    struct isprof_tuple **scratch = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < ip->nroutines; r++) {
        const struct isprof_routine *rt = &ip->routines[r];
        fputs("r \"", fp);
        put_name(fp, strtab_str(&ip->names, rt->name));
        fputs("\" \"", fp);
        put_name(fp, strtab_str(&ip->names, rt->image));
        fprintf(fp, "\" %u\n", (unsigned)rt->id);
        if (rt->mangled) {
            fprintf(fp, "u %u \"", (unsigned)rt->id);
            put_name(fp, strtab_str(&ip->names, rt->mangled));
            fputs("\"\n", fp);
        }
        if (rt->fullname) {
            fprintf(fp, "d %u \"", (unsigned)rt->id);
            put_name(fp, strtab_str(&ip->names, rt->fullname));
            fputs("\"\n", fp);
        }
        if (!rt->from_contexts) put_tuples(fp, 'p', rt->id, &rt->tuples, v6, &scratch, &cap);
        for (size_t i = start[r]; i < start[r + 1]; i++) {
            const struct isprof_context *cx = &ip->contexts[byr[i]];
            put_tuples(fp, 'q', cx->id, &cx->tuples, v6, &scratch, &cap);
        }
    }
    free(scratch);
    free(start);
    free(byr);
    for (size_t c = 0; c < ip->ncontexts; c++) {
        const struct isprof_context *cx = &ip->contexts[c];
        fprintf(fp, "x %u %u ", (unsigned)ip->routines[cx->routine].id, (unsigned)cx->id);
        if (cx->parent == ISPROF_NONE)
            fputs("-1\n", fp);
        else
            fprintf(fp, "%u\n", (unsigned)ip->contexts[cx->parent].id);
    }
    for (size_t i = 0; i < ip->favourites.n; i++) {
        fputs("fav ", fp);
        put_text(fp, ip->favourites.items[i]);
        fputc('\n', fp);
    }
}

int aprof_write(const struct isprof *ip, const char *path, struct tally_error *err)
{
    struct outfile of;
    if (outfile_open(&of, path, err)) return -1;
    aprof_write_fp(ip, of.fp);
    return outfile_commit(&of, err);
}
