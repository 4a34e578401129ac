/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cachegrind.c - the cachegrind profile format: reader and writer.
 *
 * The format (Valgrind 3.19 and 3.21+) is a header of `desc:` lines, one
 * `cmd:` line and one `events:` line, then a body of `fl=` (file), `fn=`
 * (function) and count lines `LINE c1 c2 ...`, and a final `summary:`
 * line. See docs/internals/cachegrind.md for what this reader accepts and
 * how the writer lays a profile out.
 */
#include "format.h"
#include "sumbound.h"
#include "../io/parse.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Reader                                                                   */
/* ------------------------------------------------------------------------ */

enum cg_state { CG_HEADER, CG_BODY, CG_DONE };

struct cg_reader {
    struct input *in;
    struct profile *p;
    struct part *pt;
    struct tally_error *err;
    enum cg_state state;
    int have_cmd, have_events;
    size_t nev;
    uint32_t file, name; /* current fl= and fn= ids */
    uint32_t fn;         /* function of (file, name), valid when fn_ok */
    int fn_ok;
    /* opt->cachegrind.fl_unspecified: the id of "<unspecified>", else 0 */
    uint32_t unspecified;
    int drop_line;   /* opt->drop_line: every line counts as line 0 */
    int unindexed;   /* opt->cachegrind.unindexed: cost records appended, not looked up */
    uint64_t *costs; /* [nev] scratch for one count line */
    /* the file's costs of each event, summed (see count_line) */
    uint64_t *sum;   /* [nev] while the bound holds (tot_exact 0): no sum passed 2^64-1 */
    __int128 *tot;   /* [nev] from the line where it failed, or the file became signed */
    uint64_t tot_or; /* at least every count so far (SUMBOUND_OR_8DIGITS | longer ones) */
    int tot_exact;   /* tot is in use */
};

/* Report an error at the current line. */
static int cg_fail(struct cg_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cg_fail(struct cg_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tally_error_vset(r->err, r->in->path, r->in->lineno, fmt, ap);
    va_end(ap);
    return -1;
}

/* Copy an error from a helper (which knows no position) and add ours. */
static int cg_relay(struct cg_reader *r, const struct tally_error *e)
{
    return cg_fail(r, "%s", e->msg);
}

/* Printable excerpt of a line for messages. */
static void excerpt(char *buf, size_t size, const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 4 < size; i++)
        buf[n++] = (s[i] >= 32 && s[i] < 127) ? s[i] : '?';
    if (len > n) {
        buf[n++] = '.';
        buf[n++] = '.';
        buf[n++] = '.';
    }
    buf[n] = '\0';
}

static int is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* Is the text free of NUL bytes (names are C strings once written)? */
static int check_no_nul(struct cg_reader *r, const char *s, size_t len)
{
    if (memchr(s, '\0', len)) return cg_fail(r, "NUL byte in line");
    return 0;
}

/*
 * Appended cost records (opt->cachegrind.unindexed) made one per position, as the
 * indexed reader makes them, and the rest of the file read indexed: for a
 * file that becomes signed, whose checks look at each position's sum, and
 * for a file that has appended UNINDEXED_MAX records (memory bounded by the
 * distinct positions). The sums cannot overflow: the file's totals stayed
 * under 2^64.
 */
/* Records a file may append before the reader indexes them (32768: about
   4 MiB with 4 key words and 13 events); the merge of many small files
   stays unindexed, a long file costs its distinct positions. */
#define UNINDEXED_MAX ((size_t)1 << 15)

static void index_costs(struct cg_reader *r)
{
    struct rectab *old = &r->pt->costs, t;
    rectab_init(&t, old->key_words, old->val_words);
    for (size_t i = 0; i < old->count; i++) {
        const uint64_t *rec = rectab_at(old, i);
        uint64_t *v = rectab_get(&t, rec, NULL);
        for (size_t e = 0; e < old->val_words; e++)
            v[e] += rec[old->key_words + e];
    }
    rectab_release(old);
    *old = t;
    r->unindexed = 0;
}

/* The file became signed: counts already parsed on this line must fit. */
static int go_signed(struct cg_reader *r, const uint64_t *pending, size_t k)
{
    struct tally_error e;
    for (size_t i = 0; i < k; i++)
        if (pending[i] > INT64_MAX)
            return cg_fail(r, "a count above 2^63-1 cannot be mixed with negative counts");
    if (r->unindexed) index_costs(r);
    if (profile_make_signed(r->p, &e)) return cg_relay(r, &e);
    return 0;
}

/*
 * Parse counts from s to end into out[] (at most max of them): whitespace
 * separated decimal numbers, '.' for zero, and negative numbers (which
 * make the profile signed). Sets *count. Returns 0 or -1.
 */
static int parse_counts(struct cg_reader *r, const char *s, const char *end, uint64_t *out,
                        size_t max, size_t *count)
{
    size_t k = 0;
    for (;;) {
        while (s < end && parse_is_space(*s))
            s++;
        if (s == end) break;
        const char *tok = s;
        uint64_t v = 0;
        int neg = 0;
        if (*s == '.') {
            s++;
            r->pt->counts_complete = 0; /* a count the line leaves undefined */
        } else {
            if (*s == '-') {
                neg = 1;
                s++;
            }
            if (s == end || !is_digit(*s)) goto bad;
            int over = 0;
            while (s < end && is_digit(*s)) {
                unsigned d = (unsigned)(*s - '0');
                if (v > (UINT64_MAX - d) / 10) over = 1;
                v = v * 10 + d;
                s++;
            }
            if (over || (neg && v > (uint64_t)INT64_MAX + 1))
                return cg_fail(r, "count '%.*s' does not fit in 64 bits",
                               (int)(s - tok > 40 ? 40 : s - tok), tok);
        }
        if (s < end && !parse_is_space(*s)) goto bad;
        if (k == max)
            return cg_fail(r, "too many counts: %zu event%s but more counts on the line", max,
                           max == 1 ? "" : "s");
        if (neg) {
            if (!r->p->signed_costs && v && go_signed(r, out, k)) return -1;
            v = 0 - v;
        } else if (r->p->signed_costs && v > INT64_MAX) {
            return cg_fail(r, "count %" PRIu64 " is above 2^63-1 in a file with negative counts",
                           v);
        }
        out[k++] = v;
        continue;
    bad:
        while (s < end && !parse_is_space(*s))
            s++;
        char buf[64];
        excerpt(buf, sizeof(buf), tok, (size_t)(s - tok));
        return cg_fail(r, "bad count '%s'", buf);
    }
    *count = k;
    return 0;
}

/*
 * The usual count line after its line number: " N N N", counts of at
 * most 19 digits (no overflow) each after one space. Returns 1 with the
 * counts, or 0 when the line has anything else (parse_counts() then reads
 * it and names what is wrong). The counts that parse_digits8() does not
 * read (8 digits or more, or near the end of the line) are ORed into *orv;
 * the others have 7 digits at most, within SUMBOUND_OR_8DIGITS.
 */
static int fast_counts(const char *s, const char *end, uint64_t *out, size_t max, int is_signed,
                       size_t *count, uint64_t *orv)
{
    size_t k = 0;
    while (s < end) {
        if (*s++ != ' ') return 0;
        if (s == end) break; /* one space at the end */
        uint64_t v = 0;
        unsigned n = end - s >= 8 ? parse_digits8(s, &v) : 8;
        if (n < 8) {
            if (n == 0) return 0;
            s += n;
        } else {
            const char *t = s;
            unsigned d;
            while (s < end && (d = (unsigned)(unsigned char)*s - '0') <= 9) {
                v = v * 10 + d;
                s++;
            }
            if (s == t || s - t > 19) return 0;
            *orv |= v; /* into the bound (sumbound.h) */
        }
        if (k == max || (is_signed && v > INT64_MAX)) return 0;
        out[k++] = v;
    }
    *count = k;
    return 1;
}

/*
 * Counts are 64-bit, and so is every sum of them: the file's costs of one
 * event stay at or under 2^64-1 (between -2^63 and 2^63-1 once negative
 * counts made the file signed), so that every command can add them up;
 * the line that would pass that is refused. Checked through a bound
 * (sumbound.h): while it holds, count_line() adds the sums without a check;
 * from the line where it fails, or once the file is signed, they are added
 * here in 128 bits (from the 64-bit sums so far, which are exact). (A
 * negative count is ORed in as 2^64 minus it, which fails the bound too.)
 */
static __attribute__((noinline)) int sums_exact(struct cg_reader *r, size_t k)
{
    if (!r->tot_exact) {
        for (size_t i = 0; i < r->nev; i++)
            r->tot[i] = r->sum[i];
        r->tot_exact = 1;
    }
    int sg = r->p->signed_costs;
    for (size_t i = 0; i < k; i++) {
        __int128 t = r->tot[i] + (sg ? (__int128)(int64_t)r->costs[i] : (__int128)r->costs[i]);
        if (sg ? t > INT64_MAX || t < INT64_MIN : t > (__int128)UINT64_MAX)
            return cg_fail(r, "the costs of event %s sum past %s", r->pt->events.names[i],
                           sg ? "a signed 64-bit count (the file has negative counts)"
                              : "2^64-1 (the largest count)");
        r->tot[i] = t; /* after a failure the reading stops: no need to undo */
    }
    return 0;
}

/* `LINE c1 c2 ...` (s points at the first digit). */
static int count_line(struct cg_reader *r, const char *s, const char *end)
{
    uint64_t line = 0;
    const char *start = s;
    unsigned n = end - s >= 8 ? parse_digits8(s, &line) : 8;
    if (n < 8)
        s += n; /* the usual short line number; else the loop below */
    else
        line = 0;
    while (s < end && is_digit(*s)) {
        unsigned d = (unsigned)(*s - '0');
        if (line > (UINT64_MAX - d) / 10) return cg_fail(r, "line number too large");
        line = line * 10 + d;
        s++;
    }
    if (s < end && !parse_is_space(*s)) {
        char buf[64];
        const char *w = s;
        while (w < end && !parse_is_space(*w))
            w++;
        excerpt(buf, sizeof(buf), start, (size_t)(w - start));
        return cg_fail(r, "bad line number '%s'", buf);
    }
    size_t k;
    if (!fast_counts(s, end, r->costs, r->nev, r->p->signed_costs, &k, &r->tot_or)) {
        if (parse_counts(r, s, end, r->costs, r->nev, &k)) return -1;
        for (size_t i = 0; i < k; i++)
            r->tot_or |= r->costs[i];
    }
    if (k < r->nev) r->pt->counts_complete = 0; /* the missing counts are undefined */
    if (!r->fn_ok) {
        r->fn = profile_function(r->p, 0, r->file, r->name);
        r->fn_ok = 1;
    }
    if (__builtin_expect(r->p->signed_costs || !sumbound_holds(r->in->lineno, r->tot_or), 0)) {
        if (sums_exact(r, k)) return -1;
    } else {
        uint64_t *sum = r->sum;
        const uint64_t *c = r->costs;
        for (size_t i = 0; i < k; i++)
            sum[i] += c[i]; /* within the bound: no sum passes 2^64-1 */
    }
    struct position pos = {r->file, r->drop_line ? 0 : line, 0, 0};
    if (r->unindexed) {
        /* a new record each line: the sum looks it up (no overflow here,
           as the file's totals above stay in range) */
        memcpy(part_cost_append(r->pt, r->fn, &pos), r->costs, k * sizeof(*r->costs));
        /* memory stays bounded by the distinct positions: a long file (one
           with repeated positions) is indexed from here on */
        if (r->pt->costs.count >= UNINDEXED_MAX) index_costs(r);
        return 0;
    }
    if (part_add_cost(r->p, r->pt, r->fn, &pos, r->costs, k))
        return cg_fail(r, "costs of line %" PRIu64 " overflow 64 bits when added up", line);
    return 0;
}

/* Leaving the header: check it is complete and fix the event set. */
static int start_body(struct cg_reader *r)
{
    if (!r->have_cmd) return cg_fail(r, "missing 'cmd:' line before the cost lines");
    if (!r->have_events) return cg_fail(r, "missing 'events:' line before the cost lines");
    struct tally_error e;
    if (eventset_finish(&r->pt->events, &e)) return cg_relay(r, &e);
    r->nev = r->pt->events.n;
    r->costs = xcalloc(r->nev, sizeof(*r->costs));
    r->tot = xcalloc(r->nev ? r->nev : 1, sizeof(*r->tot));
    r->sum = xcalloc(r->nev ? r->nev : 1, sizeof(*r->sum));
    r->state = CG_BODY;
    r->pt->counts_complete = 1; /* until a line leaves a count out or gives '.' */
    /* a mapped file's size says about how many lines it has (real files:
       55 bytes a line with 9 events): no growing of the table on the way */
    if (!r->unindexed && r->in->kind == INPUT_MAP && r->in->size / 48 > 1024) {
        size_t guess = r->in->size / 48;
        rectab_reserve(&r->pt->costs, guess < ((size_t)1 << 24) ? guess : (size_t)1 << 24);
    }
    return 0;
}

static const char *skip_ws(const char *s, const char *end)
{
    while (s < end && parse_is_space(*s))
        s++;
    return s;
}

static int header_line(struct cg_reader *r, const char *s, size_t len)
{
    const char *end = s + len;
    if (parse_prefix(s, len, "desc:", 5)) {
        if (check_no_nul(r, s, len)) return -1;
        const char *v = skip_ws(s + 5, end);
        char *d = xstrndup(v, (size_t)(end - v));
        strlist_push(&r->pt->desc, d);
        free(d);
        return 0;
    }
    if (parse_prefix(s, len, "cmd:", 4)) {
        if (r->have_cmd) return cg_fail(r, "second 'cmd:' line");
        if (check_no_nul(r, s, len)) return -1;
        const char *v = skip_ws(s + 4, end);
        r->pt->cmd = xstrndup(v, (size_t)(end - v));
        r->have_cmd = 1;
        return 0;
    }
    if (parse_prefix(s, len, "events:", 7)) {
        if (check_no_nul(r, s, len)) return -1;
        struct tally_error e;
        if (eventset_set_base(&r->pt->events, s + 7, len - 7, &e)) return cg_relay(r, &e);
        r->have_events = 1;
        return 0;
    }
    return 1; /* not a header line */
}

static int summary_line(struct cg_reader *r, const char *s, const char *end)
{
    uint64_t *sum = xcalloc(r->nev, sizeof(*sum));
    size_t k;
    int rc = parse_counts(r, s, end, sum, r->nev, &k);
    if (rc == 0 && k != r->nev)
        rc = cg_fail(r, "'summary:' line has %zu count%s for %zu event%s", k, k == 1 ? "" : "s",
                     r->nev, r->nev == 1 ? "" : "s");
    if (rc) {
        free(sum);
        return -1;
    }
    r->pt->summary = sum;
    r->pt->summary_line = r->in->lineno;
    r->state = CG_DONE;
    return 0;
}

static int body_line(struct cg_reader *r, const char *s, size_t len)
{
    const char *end = s + len;
    if (is_digit(*s)) return count_line(r, s, end);
    if (len >= 3 && s[2] == '=' && s[0] == 'f') {
        if (s[1] == 'n' || s[1] == 'l') {
            if (check_no_nul(r, s, len)) return -1;
            uint32_t id = profile_intern(r->p, s + 3, len - 3);
            if (s[1] == 'n') {
                /* the function exists from its fn= line, counts or not:
                   cg_annotate lists one without counts (--threshold=0) */
                r->name = id;
                r->fn = profile_function(r->p, 0, r->file, r->name);
                r->fn_ok = 1;
            } else if (r->unspecified) {
                /* cg_annotate 3.21+: the file's "<unspecified>" function until fn= */
                r->file = id;
                r->name = r->unspecified;
                r->fn = profile_function(r->p, 0, r->file, r->name);
                r->fn_ok = 1;
            } else {
                r->file = id;
                r->fn_ok = 0;
            }
            return 0;
        }
    }
    if (parse_prefix(s, len, "summary:", 8)) return summary_line(r, s + 8, end);
    if (*s == '-' && len > 1 && is_digit(s[1])) return cg_fail(r, "negative line number");
    if (parse_prefix(s, len, "desc:", 5) || parse_prefix(s, len, "cmd:", 4) ||
        parse_prefix(s, len, "events:", 7))
        return cg_fail(r, "header line after the cost lines");
    char buf[64];
    excerpt(buf, sizeof(buf), s, len);
    return cg_fail(r, "unrecognised line '%s'", buf);
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!parse_is_space(s[i])) return 0;
    return 1;
}

int cachegrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                    struct tally_error *err)
{
    struct cg_reader r;
    memset(&r, 0, sizeof(r));
    r.drop_line = opt && opt->drop_line;
    r.unindexed = opt && opt->cachegrind.unindexed;
    r.in = in;
    r.p = p;
    r.err = err;
    r.pt = profile_add_part(p);
    r.pt->positions = POS_LINE;
    p->format = PROFILE_FORMAT_CACHEGRIND;
    r.file = r.name = profile_intern(p, "???", 3);
    if (opt && opt->cachegrind.fl_unspecified)
        r.unspecified = profile_intern(p, "<unspecified>", 13);
    r.tot_or = SUMBOUND_OR_8DIGITS;
    int rc = 0;
    for (;;) {
        const char *s;
        size_t len;
        int g = input_getline(in, &s, &len, err);
        if (g < 0) {
            rc = -1;
            break;
        }
        if (g == 0) break;
        /* stray carriage returns end a line too (names keep no '\r') */
        while (len && s[len - 1] == '\r')
            len--;
        /* the hot path first: a count line in the body */
        if (r.state == CG_BODY && len && is_digit(*s)) {
            if (count_line(&r, s, s + len)) {
                rc = -1;
                break;
            }
            continue;
        }
        if (len == 0 || *s == '#' || is_blank(s, len)) continue;
        if (r.state == CG_DONE) {
            rc = cg_fail(&r, "content after the 'summary:' line");
            break;
        }
        if (r.state == CG_HEADER) {
            int h = header_line(&r, s, len);
            if (h < 0) {
                rc = -1;
                break;
            }
            if (h == 0) continue;
            if (start_body(&r)) {
                rc = -1;
                break;
            }
        }
        if (body_line(&r, s, len)) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && r.state != CG_DONE) {
        if (!r.have_cmd)
            rc = cg_fail(&r, "missing 'cmd:' line");
        else if (!r.have_events)
            rc = cg_fail(&r, "missing 'events:' line");
        else
            rc = cg_fail(&r, "missing 'summary:' line");
    }
    if (rc == 0 && !p->signed_costs && r.tot) {
        /* the sums of the count lines, kept on the way, are those of the
           records (unsigned: no partial sum can overflow where they did not) */
        for (size_t i = 0; i < r.nev; i++)
            r.costs[i] = r.tot_exact ? (uint64_t)r.tot[i] : r.sum[i];
        part_check_totals_of(p, r.pt, r.costs);
    } else if (rc == 0) {
        part_check_totals(p, r.pt);
    }
    free(r.costs);
    free(r.tot);
    free(r.sum);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/* ------------------------------------------------------------------------ */

/* One cost record to write: its output group, line and record index. */
struct cg_item {
    uint32_t group;
    uint32_t rec; /* record index */
    uint64_t line;
};

static int item_cmp(const void *a, const void *b)
{
    const struct cg_item *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* Decimal text of v (two's complement int64 when is_signed) at the end of buf[24]. */
static char *fmt_num(char *end, uint64_t v, int is_signed)
{
    int neg = is_signed && (int64_t)v < 0;
    if (neg) v = 0 - v;
    char *s = end;
    do {
        *--s = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg) *--s = '-';
    return s;
}

/* Append " c1 c2 ... cN" to the line buffer; returns the new end. */
static char *put_costs(char *o, const uint64_t *c, size_t n, int is_signed)
{
    char num[24];
    for (size_t e = 0; e < n; e++) {
        char *s = fmt_num(num + sizeof(num), c[e], is_signed);
        size_t l = (size_t)(num + sizeof(num) - s);
        *o++ = ' ';
        memcpy(o, s, l);
        o += l;
    }
    return o;
}

static void put_name(FILE *fp, const char *key, const struct profile *p, uint32_t id)
{
    fputs(key, fp);
    fwrite(profile_str(p, id), 1, strtab_len(&p->names, id), fp);
    fputc('\n', fp);
}

int cachegrind_write(const struct profile *p, FILE *fp, struct tally_error *err)
{
    if (p->nparts == 0) return tally_error_set(err, NULL, 0, "the profile holds no data to write");
    if (p->nparts > 1)
        return tally_error_set(err, NULL, 0,
                               "the profile has %zu parts but the cachegrind format holds one; "
                               "merge the parts first",
                               p->nparts);
    const struct part *pt = p->parts[0];
    size_t n = pt->events.n;
    if (n == 0) return tally_error_set(err, NULL, 0, "the profile has no events to write");
    size_t nrec = part_ncosts(pt);
    if (nrec > UINT32_MAX)
        return tally_error_set(err, NULL, 0, "too many cost records for the cachegrind writer");
    int sg = p->signed_costs;

    uint64_t *total = xcalloc(n, sizeof(*total));
    if (part_self_total(p, pt, total)) {
        free(total);
        return tally_error_set(err, NULL, 0, "the total cost overflows 64 bits");
    }

    /*
     * Groups are (file, function name) pairs in output order: functions in
     * first-seen order, each with its own file first and then the files of
     * code inlined into it. Records are bucketed by function to get there.
     */
    size_t nfn = profile_nfunctions(p);
    uint32_t *start = xcalloc(nfn + 1, sizeof(*start));
    uint32_t *order = xmalloc((nrec ? nrec : 1) * sizeof(*order));
    for (size_t i = 0; i < nrec; i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        start[c.fn + 1]++;
    }
    for (size_t f = 0; f < nfn; f++)
        start[f + 1] += start[f];
    uint32_t *fill = xmalloc((nfn ? nfn : 1) * sizeof(*fill));
    memcpy(fill, start, nfn * sizeof(*fill));
    for (size_t i = 0; i < nrec; i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        order[fill[c.fn]++] = (uint32_t)i;
    }
    free(fill);

    struct rectab groups;
    rectab_init(&groups, 1, 0);
    struct cg_item *items = xmalloc((nrec ? nrec : 1) * sizeof(*items));
    size_t ni = 0;
    uint64_t last_key = UINT64_MAX; /* no file/name pair has two UINT32_MAX ids */
    size_t last_group = 0;
    int sorted = 1;
    for (size_t f = 0; f < nfn; f++) {
        struct function fun = profile_function_at(p, (uint32_t)f);
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t j = start[f]; j < start[f + 1]; j++) {
                struct cost_rec c;
                part_cost_get(pt, order[j], &c);
                if ((c.pos.file == fun.file) != (pass == 0)) continue;
                uint64_t key = (uint64_t)c.pos.file << 32 | fun.name;
                if (key != last_key) {
                    last_group = rectab_get_index(&groups, &key, NULL);
                    last_key = key;
                }
                items[ni].group = (uint32_t)last_group;
                items[ni].line = c.pos.line;
                items[ni].rec = order[j];
                if (ni && sorted && item_cmp(&items[ni - 1], &items[ni]) > 0) sorted = 0;
                ni++;
            }
        }
    }
    free(start);
    free(order);
    if (!sorted) qsort(items, ni, sizeof(*items), item_cmp);

    for (size_t i = 0; i < pt->desc.n; i++)
        fprintf(fp, "desc: %s\n", pt->desc.items[i]);
    fprintf(fp, "cmd: %s\n", pt->cmd ? pt->cmd : "");
    fputs("events:", fp);
    for (size_t e = 0; e < n; e++)
        fprintf(fp, " %s", pt->events.names[e]);
    fputc('\n', fp);

    int rc = 0;
    uint64_t *acc = xcalloc(n, sizeof(*acc));
    char *buf = xmalloc(32 + 22 * n);
    uint32_t cur_file = 0, cur_name = 0;
    int have_file = 0;
    for (size_t i = 0; i < ni && rc == 0;) {
        const uint64_t *key = rectab_at(&groups, items[i].group);
        uint32_t gfile = (uint32_t)(*key >> 32), gname = (uint32_t)*key;
        if (!have_file || gfile != cur_file) put_name(fp, "fl=", p, gfile);
        if (!have_file || gfile != cur_file || gname != cur_name) put_name(fp, "fn=", p, gname);
        have_file = 1;
        cur_file = gfile;
        cur_name = gname;
        /* every record of this group at this line, summed */
        size_t j = i;
        memset(acc, 0, n * sizeof(*acc));
        for (; j < ni && items[j].group == items[i].group && items[j].line == items[i].line; j++) {
            struct cost_rec c;
            part_cost_get(pt, items[j].rec, &c);
            if (cost_add(acc, c.cost, n, sg)) {
                rc = tally_error_set(err, NULL, 0,
                                     "costs of line %" PRIu64 " overflow 64 bits when added up",
                                     items[i].line);
                break;
            }
        }
        char num[24];
        char *s = fmt_num(num + sizeof(num), items[i].line, 0);
        size_t l = (size_t)(num + sizeof(num) - s);
        memcpy(buf, s, l);
        char *o = put_costs(buf + l, acc, n, sg);
        *o++ = '\n';
        fwrite(buf, 1, (size_t)(o - buf), fp);
        i = j;
    }
    if (rc == 0) {
        char *o = put_costs(buf, total, n, sg);
        *o++ = '\n';
        fputs("summary:", fp);
        fwrite(buf, 1, (size_t)(o - buf), fp);
        if (fflush(fp) || ferror(fp))
            rc = tally_error_set(err, NULL, 0, "write error on the output stream");
    }
    free(buf);
    free(acc);
    free(items);
    free(total);
    rectab_release(&groups);
    return rc;
}
