/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_header.c - the callgrind reader's header lines: version:,
 * creator:, cmd:, pid:, part:, desc:, events:, event:, positions:,
 * summary: and totals:, and the start and end of each part. The body's
 * lines, the hot path, are in callgrind_read.c; the state both share is
 * in callgrind_rd.h.
 */
#include "callgrind_rd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rd_reset_context(struct rd *r)
{
    r->ob = r->fl = r->src = r->fnname = r->fn = 0;
    r->have_fn = r->fl_ahead = 0;
    r->fn_dirty = 1; /* the first cost line checks for a fn= */
    r->have_cob = r->have_cfile = r->have_cfn = 0;
    r->have_jfile = r->have_jfn = 0;
    r->pending = PEND_NONE;
    memset(r->last, 0, sizeof(r->last));
}

/*
 * The sums of the part's self costs, from its records: checked against its
 * `summary:` and `totals:` (part_check_totals()), and, while the bound of
 * the file's sums holds, added to them (see struct rd), before the part is
 * folded away. Within the bound no sum can overflow.
 */
static void part_sums(struct rd *r)
{
    struct part *pt = r->pt;
    size_t n = pt->events.n;
    int stated = pt->summary || pt->totals;
    if (!n || (r->sums.tot_exact && !stated)) return;
    uint64_t *self = xcalloc(n, sizeof(*self));
    /* a part read straight into part 0 (r->fold.direct) kept its sums itself */
    if (r->fold.direct) {
        memcpy(self, r->fold.psum, n * sizeof(*self));
    } else if (part_self_total(r->p, pt, self)) {
        part_check_totals(r->p, pt); /* says that it cannot check */
        free(self);
        return;
    }
    if (stated) {
        /*
         * `summary:` is checked only beside `totals:` (Callgrind and tally
         * write both): other producers' summaries are not sums of their
         * lines (xdebug's gives the run's time and its peak memory,
         * pyprof2calltree's the profiler's own total).
         */
        uint64_t *summary = pt->summary;
        if (!pt->totals) pt->summary = NULL;
        part_check_totals_of(r->p, pt, self);
        pt->summary = summary;
    }
    if (!r->sums.tot_exact && !r->p->signed_costs)
        for (size_t i = 0; i < n; i++)
            r->sums.tot[r->sums.tot_of[i]] += self[i];
    free(self);
}

int rd_finish_part(struct rd *r)
{
    if (!r->pt) return 0;
    if (r->pending) {
        r->lineno = r->pending_line;
        return rd_fail(r, "'%s' line is not followed by a position line",
                       r->pending == PEND_CALL ? "calls=" : "jump=");
    }
    if (!r->body) return rd_fail(r, "part has no 'events:' line");
    part_sums(r);
    r->had_total = xgrow(r->had_total, &r->had_cap, r->nread + 1, 1);
    r->had_total[r->nread++] = r->pt->totals != NULL;
    int direct = r->fold.direct, sum_empty = r->fold.sum_empty;
    r->fold.ndirect += direct;
    r->pt = r->fold.dst = NULL;
    r->fold.direct = 0;
    r->body = 0;
    r->fast = FAST_NONE;
    if (direct) {
        /* its records are in part 0 already: its metadata follows them, as
           if they had been added with it (PART_ACC_DST_EMPTY) */
        struct tally_error e;
        unsigned what = PART_ACC_META | (sum_empty ? PART_ACC_DST_EMPTY : 0);
        if (profile_fold_last_part_some(r->p, what, &e))
            r->fold.fold_off = 1; /* cannot happen: the events are the same */
        r->fold.last_n[0] = r->fold.last_n[1] = r->fold.last_n[2] = 0;
    } else if (!r->opt->merge_parts && r->opt->part_done) {
        r->opt->part_done(r->opt->part_done_ctx, r->p, r->p->nparts - 1);
    } else if (r->opt->merge_parts && !r->fold.fold_off && r->p->nparts > 1) {
        /* the same additions as profile_merge_parts() later, in the same order;
           on failure that call meets the same error again and reports it */
        struct tally_error e;
        const struct part *last = r->p->parts[r->p->nparts - 1];
        r->fold.last_n[0] = last->costs.count;
        r->fold.last_n[1] = last->calls.count;
        r->fold.last_n[2] = last->jumps.count;
        if (profile_fold_last_part(r->p, &e)) r->fold.fold_off = 1;
    }
    return 0;
}

/* The part that a header line belongs to (starting a new one after a body). */
static int header_part(struct rd *r)
{
    if (r->pt && r->body && rd_finish_part(r)) return -1;
    if (r->pt) return 0;
    struct part *prev = r->p->nparts ? r->p->parts[r->p->nparts - 1] : NULL;
    struct part *pt = profile_add_part(r->p);
    if (prev) {
        /* Callgrind's --combine-dumps writes pid:/cmd: only for the first part */
        pt->has_pid = prev->has_pid;
        pt->pid = prev->pid;
        pt->has_thread = prev->has_thread;
        pt->thread = prev->thread;
        if (prev->cmd) pt->cmd = xstrdup(prev->cmd);
    }
    if (r->opt->callgrind.call_counts_only) part_keep_call_counts_only(r->p, pt); /* no calls yet */
    pt->counts_complete = 1; /* until a line leaves a count out */
    if (r->fold.last_n[0] + r->fold.last_n[1] + r->fold.last_n[2]) {
        /* the parts of a file are often alike (--dump-every-bb, concatenated
           runs): the index of a part to fold starts at the size of the last
           one rather than growing to it again */
        rectab_reserve(&pt->costs, r->fold.last_n[0]);
        rectab_reserve(&pt->calls, r->fold.last_n[1]);
        rectab_reserve(&pt->jumps, r->fold.last_n[2]);
    }
    r->pt = r->fold.dst = pt;
    r->fold.direct = 0;
    r->body = 0;
    r->fast = FAST_NONE;
    r->npos = 1;
    r->poskind[0] = SP_LINE;
    rd_reset_context(r);
    return 0;
}

static int parse_costs_text(struct rd *r, const char *what, const char *v, size_t len,
                            uint64_t **out)
{
    const char *s = v, *end = v + len;
    uint64_t *c = xcalloc(r->nev ? r->nev : 1, sizeof(*c));
    size_t n = 0;
    for (;;) {
        skip_sp(&s, end);
        if (s >= end) break;
        uint64_t x = 0;
        int neg = 0;
        if (*s == '-') {
            neg = 1;
            s++;
        }
        int rc = scan_num(&s, end, &x);
        if (rc != PARSE_OK || !is_sep(s, end)) {
            free(c);
            return rd_fail(r,
                           rc == PARSE_OVERFLOW ? "'%s:' value does not fit in 64 bits"
                                                : "expected a number in the '%s:' line",
                           what);
        }
        if (n == r->nev) {
            free(c);
            return rd_fail(r, "too many values in the '%s:' line for %zu events", what, r->nev);
        }
        if (neg && x && !r->p->signed_costs && rd_go_signed(r, c, n)) {
            free(c);
            return -1;
        }
        if (r->p->signed_costs && x > (uint64_t)INT64_MAX + neg) {
            free(c);
            return rd_fail(r, "'%s:' value does not fit in a signed 64-bit count", what);
        }
        c[n++] = neg ? 0 - x : x;
    }
    free(*out);
    *out = c;
    return 0;
}

/* summary: / totals: (k = 0 / 1) */
static int total_line(struct rd *r, int k, const char *v, size_t len)
{
    static const char *const what[2] = {"summary", "totals"};
    if (!r->body) {
        if (header_part(r)) return -1;
        free(r->pend_text[k]);
        r->pend_text[k] = xstrndup(v, len);
        r->pend_line[k] = r->lineno;
        return 0;
    }
    uint64_t **dst = k ? &r->pt->totals : &r->pt->summary;
    if (parse_costs_text(r, what[k], v, len, dst)) return -1;
    if (k)
        r->pt->totals_line = r->lineno;
    else
        r->pt->summary_line = r->lineno;
    return 0;
}

static int eventset_fail(struct rd *r, const char *what)
{
    char msg[sizeof(r->err->msg)];
    snprintf(msg, sizeof(msg), "%s", r->err ? r->err->msg : "bad event definition");
    return rd_fail(r, "%s: %s", what, msg);
}

uint32_t rd_total_of(struct rd *r, const char *name)
{
    uint32_t k = strtab_intern(&r->sums.tot_names, name, strlen(name));
    if (k >= r->sums.tot_cap) {
        size_t old = r->sums.tot_cap;
        r->sums.tot_cap = (size_t)k * 2 + 16;
        r->sums.tot = xrealloc(r->sums.tot, r->sums.tot_cap * sizeof(*r->sums.tot));
        memset(r->sums.tot + old, 0, (r->sums.tot_cap - old) * sizeof(*r->sums.tot));
    }
    return k;
}

/*
 * Where the records of the part whose body starts go (struct rd's dst): to
 * part 0 when they would be folded into it as they are (no sum there can
 * pass 2^64-1: the file's self costs and call counts are kept under it,
 * sumbound.h), else to the part itself.
 */
static void choose_dst(struct rd *r)
{
    struct part *pt = r->pt, *sum = r->p->parts[0];
    r->fold.dst = pt;
    r->fold.direct = 0;
    if (!r->opt->merge_parts || r->fold.fold_off || r->p->nparts != 2 || sum == pt) return;
    if (!r->opt->drop_jumps || !pt->call_counts_only || !sum->call_counts_only) return;
    if (r->p->signed_costs || !eventset_same(&sum->events, &pt->events)) return;
    r->fold.dst = sum;
    r->fold.direct = 1;
    r->fold.sum_empty = !sum->costs.count && !sum->calls.count;
    if (r->nev > r->fold.psum_cap) {
        free(r->fold.psum);
        r->fold.psum_cap = r->nev;
        r->fold.psum = xmalloc(2 * r->fold.psum_cap *
                               sizeof(*r->fold.psum)); /* psum, then cost_run()'s base */
    }
    memset(r->fold.psum, 0, r->nev * sizeof(*r->fold.psum));
}

static int events_line(struct rd *r, const char *v, size_t len)
{
    if (header_part(r)) return -1;
    struct part *pt = r->pt;
    if (eventset_set_base(&pt->events, v, len, r->err)) return eventset_fail(r, "'events:'");
    if (eventset_finish(&pt->events, r->err)) return eventset_fail(r, "'events:'");
    r->nev = pt->events.n;
    r->sums.tot_of = xrealloc(r->sums.tot_of, (r->nev ? r->nev : 1) * sizeof(*r->sums.tot_of));
    for (size_t i = 0; i < r->nev; i++)
        r->sums.tot_of[i] = rd_total_of(r, pt->events.names[i]);
    if (r->nev > r->cost_cap) {
        free(r->cost);
        r->cost_cap = r->nev;
        r->cost = xcalloc(r->cost_cap, sizeof(*r->cost));
    }
    r->body = 1;
    r->header_open = 1;
    choose_dst(r);
    if (r->p->signed_costs)
        r->fast = FAST_NONE; /* the fast paths add without signed checks */
    else if (r->npos == 1 && r->poskind[0] == SP_LINE)
        r->fast = FAST_LINE;
    else if (r->npos == 2 && r->poskind[0] == SP_ADDR && r->poskind[1] == SP_LINE)
        r->fast = FAST_INSTR_LINE;
    unsigned long here = r->lineno;
    for (int k = 0; k < 2; k++)
        if (r->pend_text[k]) {
            r->lineno = r->pend_line[k];
            int rc = total_line(r, k, r->pend_text[k], strlen(r->pend_text[k]));
            free(r->pend_text[k]);
            r->pend_text[k] = NULL;
            if (rc) return -1;
        }
    r->lineno = here;
    return 0;
}

static int positions_line(struct rd *r, const char *v, size_t len)
{
    if (header_part(r)) return -1;
    const char *s = v, *end = v + len;
    unsigned n = 0, bits = 0;
    for (;;) {
        skip_sp(&s, end);
        if (s >= end) break;
        const char *w = s;
        while (s < end && !parse_is_space(*s))
            s++;
        size_t wl = (size_t)(s - w);
        unsigned k, bit;
        if (wl == 5 && !memcmp(w, "instr", 5)) {
            k = SP_ADDR;
            bit = POS_INSTR;
        } else if (wl == 4 && !memcmp(w, "addr", 4)) {
            k = SP_ADDR;
            bit = POS_INSTR;
        } else if (wl == 4 && !memcmp(w, "line", 4)) {
            k = SP_LINE;
            bit = POS_LINE;
        } else if (wl == 2 && !memcmp(w, "bb", 2)) {
            k = SP_BB;
            bit = POS_BB;
        } else {
            return rd_fail(r, "unknown position kind '%.*s' (expected instr, bb or line)",
                           SHOW(w, wl));
        }
        if (bits & bit) return rd_fail(r, "position kind '%.*s' given twice", SHOW(w, wl));
        bits |= bit;
        r->poskind[n++] = (unsigned char)k;
    }
    if (!n) return rd_fail(r, "'positions:' line names no position kind");
    r->npos = n;
    r->pt->positions = bits;
    return 0;
}

static int number_value(struct rd *r, const char *what, const char *v, size_t len, uint64_t *out)
{
    rd_trim(&v, &len);
    const char *s = v, *end = v + len;
    int rc = scan_num(&s, end, out);
    if (rc != PARSE_OK || s != end)
        return rd_fail(r,
                       rc == PARSE_OVERFLOW ? "'%s:' value does not fit in 64 bits"
                                            : "expected a number after '%s:'",
                       what);
    return 0;
}

/*
 * `version:` is read as callgrind_annotate reads it: its leading number is
 * the major version and the rest is ignored (xdebug 2 writes "0.9.6"). A
 * major version of 2 or more is refused; a value that does not start with
 * a number is ignored with a warning.
 */
static int version_line(struct rd *r, const char *v, size_t vl)
{
    rd_trim(&v, &vl);
    const char *s = v, *end = v + vl;
    uint64_t ver = 0;
    int big = 0;
    while (s < end && (unsigned)(*s - '0') < 10) {
        big |= ver > 1;
        ver = ver * 10 + (uint64_t)(*s++ - '0'); /* no overflow: big once past 1 */
        if (big) ver = 2;
    }
    if (s == v) {
        profile_warn(r->p, "%s:%lu: ignoring 'version:' line without a number: '%.*s'", r->path,
                     r->lineno, SHOW(v, vl));
        return 0;
    }
    if (ver >= 2)
        return rd_fail(r, "callgrind format version %.*s is not supported (only 1)",
                       (int)(s - v > 40 ? 40 : s - v), v);
    r->p->version = (int)ver;
    return 0;
}

/* Header lines: `key: value`. Returns 1 if the key is not known. */
int rd_header_line(struct rd *r, const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    size_t kl = (size_t)(colon - line);
    const char *v = colon + 1;
    size_t vl = len - kl - 1;
#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(line, s, sizeof(s) - 1))
    if (KEY("events")) return events_line(r, v, vl);
    if (KEY("summary")) return total_line(r, 0, v, vl);
    if (KEY("totals")) return total_line(r, 1, v, vl);
    if (KEY("version")) {
        if (r->pt && r->body && rd_finish_part(r)) return -1;
        return version_line(r, v, vl);
    }
    if (KEY("creator")) {
        if (r->pt && r->body && rd_finish_part(r)) return -1;
        rd_trim(&v, &vl);
        /* the first dump's, as its cmd: and pid: are (concatenated files) */
        if (!r->p->creator) r->p->creator = xstrndup(v, vl);
        return 0;
    }
    if (KEY("pid") || KEY("thread") || KEY("part")) {
        uint64_t x = 0;
        if (header_part(r) || number_value(r,
                                           KEY("pid")    ? "pid"
                                           : KEY("part") ? "part"
                                                         : "thread",
                                           v, vl, &x))
            return -1;
        if (KEY("pid")) {
            r->pt->has_pid = 1;
            r->pt->pid = x;
        } else if (KEY("thread")) {
            r->pt->has_thread = 1;
            r->pt->thread = x;
        } else {
            r->pt->has_part = 1;
            r->pt->part_no = x;
        }
        return 0;
    }
    if (KEY("cmd")) {
        if (header_part(r)) return -1;
        rd_trim(&v, &vl);
        free(r->pt->cmd);
        r->pt->cmd = xstrndup(v, vl);
        return 0;
    }
    if (KEY("desc")) {
        if (header_part(r)) return -1;
        /* kept verbatim but for the leading blanks: Callgrind writes "I1 cache: " */
        while (vl && parse_is_space(*v)) {
            v++;
            vl--;
        }
        if (vl && v[vl - 1] == '\r') vl--;
        char *d = xstrndup(v, vl);
        strlist_push(&r->pt->desc, d);
        free(d);
        return 0;
    }
    if (KEY("positions")) return positions_line(r, v, vl);
    if (KEY("event")) {
        /* `event:` and `events:` may come in any order in a part's header */
        if (r->body && r->header_open) {
            if (eventset_define(&r->pt->events, v, vl, r->err) ||
                eventset_finish(&r->pt->events, r->err))
                return eventset_fail(r, "'event:'");
            return 0;
        }
        if (header_part(r)) return -1;
        if (eventset_define(&r->pt->events, v, vl, r->err)) return eventset_fail(r, "'event:'");
        return 0;
    }
#undef KEY
    return 1;
}
