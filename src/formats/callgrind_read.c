/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_read.c - the callgrind profile format: reader.
 *
 * The reader is a line-driven state machine that dispatches on the first
 * byte of each line. Cost lines (the overwhelming majority of any real
 * file) are parsed straight out of the mapped input without finding the
 * end of the line first. See docs/internals/callgrind.md for the design,
 * the choices made for other producers, and the speed tricks.
 */
#include "callgrind_rd.h"
#include "format.h"
#include "../io/parse.h"
#include "../model/hash.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Name compression: compressed id -> interned name id, one map per kind.  */

static const char *const kind_word[NAME_KINDS] = {"object", "file", "function"};

static void idmap_release(struct idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = hash_mix64(key) & mask;
    while (m->vals[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

/* Name id for a compressed id, or UINT32_MAX when undefined. */
static uint32_t idmap_get(const struct idmap *m, uint64_t key)
{
    if (!m->cap) return UINT32_MAX;
    size_t i = idmap_slot(m, key);
    return m->vals[i] ? m->vals[i] - 1 : UINT32_MAX;
}

static void idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct idmap g = {0};
        g.cap = m->cap ? m->cap * 2 : 256;
        g.keys = xmalloc(g.cap * sizeof(*g.keys));
        g.vals = xzalloc_written(g.cap, sizeof(*g.vals));
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i]) {
                size_t j = idmap_slot(&g, m->keys[i]);
                g.keys[j] = m->keys[i];
                g.vals[j] = m->vals[i];
                g.n++;
            }
        idmap_release(m);
        *m = g;
    }
    size_t i = idmap_slot(m, key);
    if (!m->vals[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val + 1;
}

int rd_fail(struct rd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tally_error_vset(r->err, r->path, r->lineno, fmt, ap);
    va_end(ap);
    return -1;
}

int rd_go_signed(struct rd *r, const uint64_t *vals, size_t n)
{
    if (r->split.spec) return rd_spec_fail(r); /* the first reader decides, alone */
    for (size_t i = 0; i < n; i++)
        if (vals[i] > INT64_MAX)
            return rd_fail(r, "a count above 2^63-1 cannot be mixed with negative counts");
    struct tally_error e;
    if (profile_make_signed(r->p, &e)) return rd_fail(r, "%s", e.msg);
    r->fast = FAST_NONE;
    return 0;
}

/*
 * Counts are unsigned 64-bit, and so is every sum of them: the self costs
 * of one event, over the whole file, must stay at or under 2^64-1, so that
 * every command can add them up in 64 bits. The line that would take one
 * past it is refused (call costs are inclusive and are not counted here).
 * Checked through a bound (sumbound.h), which costs the hot path nothing
 * (see fast_cost_line()); the sums are kept line by line only once the
 * bound fails (totals_exact()).
 */
static __attribute__((noinline)) int totals_fail(struct rd *r, const uint64_t *cost, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (r->sums.tot[r->sums.tot_of[i]] + cost[i] < cost[i])
            return rd_fail(r, SUMBOUND_PAST, strtab_str(&r->sums.tot_names, r->sums.tot_of[i]));
    return rd_fail(r, "costs sum past 2^64-1");
}

/*
 * Add a line's costs to the totals; -1 (nothing added) when one would pass
 * 2^64-1. One pass adds; the rare overflow takes the sums back (modulo 2^64
 * the subtraction undoes the addition exactly; the events of a part have
 * distinct names, so tot_of never sends two costs to one total).
 */
static inline int add_totals(struct rd *r, const uint64_t *cost, size_t n)
{
    uint64_t *tot = r->sums.tot;
    const uint32_t *of = r->sums.tot_of;
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= __builtin_add_overflow(tot[of[i]], cost[i], &tot[of[i]]);
    if (__builtin_expect(bad, 0)) {
        for (size_t i = 0; i < n; i++)
            tot[of[i]] -= cost[i];
        return -1;
    }
    return 0;
}

/*
 * The self costs of the current line (r->lineno), when the bound has
 * failed: the first time, the sums of the file so far are completed with
 * the current part's (its records hold the sums of its lines: the bound
 * held for each of them, so no sum, and no record, passed 2^64-1); from
 * then on every line is added. Returns 0, or -1 (the line is refused).
 */
static __attribute__((noinline)) int totals_exact(struct rd *r, const uint64_t *cost, size_t n)
{
    if (!r->sums.tot_exact) {
        size_t ne = r->pt->events.n;
        uint64_t *self = xcalloc(ne ? ne : 1, sizeof(*self));
        if (r->fold.direct)
            memcpy(self, r->fold.psum, ne * sizeof(*self));
        else
            part_self_total(r->p, r->pt, self);
        for (size_t i = 0; i < ne; i++)
            r->sums.tot[r->sums.tot_of[i]] += self[i];
        free(self);
        r->sums.tot_exact = 1;
    }
    if (add_totals(r, cost, n)) return totals_fail(r, cost, n);
    return 0;
}

/* The costs of a line (not parsed by fast_cost_line) into the bound. */
static void totals_or(struct rd *r, const uint64_t *cost, size_t n)
{
    uint64_t acc = r->sums.tot_or;
    for (size_t i = 0; i < n; i++)
        acc |= cost[i];
    r->sums.tot_or = acc;
}

HOT void make_pos(const struct rd *r, const uint64_t v[SP_KINDS], uint32_t file,
                  struct position *pos)
{
    pos->file = file;
    pos->line = r->drop_line ? 0 : v[SP_LINE];
    pos->addr = r->drop_addr ? 0 : v[SP_ADDR];
    pos->bb = v[SP_BB];
}

/*
 * profile_function(), remembering the functions last found in a small
 * table indexed by name id: calls and jumps name the same callees again and
 * again, and one slot is cheaper than the function table's hash lookup.
 * The table has a fixed size (RD_FCACHE slots, indexed by the low bits of
 * the name id) rather than a slot per name, so its memory does not grow
 * with the names of the file.
 */
static uint32_t rd_function(struct rd *r, uint32_t obj, uint32_t file, uint32_t name)
{
    if (!r->fcache) r->fcache = xcalloc(RD_FCACHE, sizeof(*r->fcache));
    struct rd_fcache *c = &r->fcache[name & (RD_FCACHE - 1)];
    if (c->fn && c->name == name && c->obj == obj && c->file == file) return c->fn - 1;
    uint32_t fn = profile_function(r->p, obj, file, name);
    *c = (struct rd_fcache){name, obj, file, fn + 1};
    return fn;
}

static int resolve_fn(struct rd *r)
{
    if (!r->have_fn) return rd_fail(r, "cost line before any 'fn=' line");
    r->fn = rd_function(r, r->ob, r->fl, r->fnname);
    r->fn_dirty = 0;
    return 0;
}

HOT int sep_fast(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Digits at s (the first one already in v), up to the first non-digit. */
HOT const char *fast_digits(const char *s, uint64_t *v)
{
    uint64_t x = *v;
    unsigned d;
    while ((d = (unsigned)(unsigned char)*s - '0') <= 9) {
        x = x * 10 + d;
        s++;
    }
    *v = x;
    return s;
}

/*
 * 1 to 16 hex digits at s: their end, or NULL. The digits are those of
 * parse_hexdigit() (io/parse.h), written out here rather than called, so
 * that this loop (every address of a --dump-instr file) is laid out as a
 * loop of its own.
 */
static inline const char *fast_hex(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    const char *q = s;
    for (;;) {
        unsigned c = (unsigned char)*q, d;
        if (c - '0' < 10)
            d = c - '0';
        else if ((c | 0x20) - 'a' < 6)
            d = (c | 0x20) - 'a' + 10;
        else
            break;
        x = x << 4 | d;
        q++;
    }
    if (q == s || q - s > 16) return NULL;
    *v = x;
    return q;
}

/* Why subpos() found no subposition. */
enum { SUBPOS_NONE = 1, SUBPOS_BIG, SUBPOS_BELOW };

/*
 * subpos()'s number when it is not short decimal or short hex: scan_num(),
 * up to the character after its last digit (a line ends with a '\n').
 */
static __attribute__((noinline)) const char *subpos_long(const char *t, uint64_t *v, int *why)
{
    const char *end = t;
    while (parse_hexdigit(*end) <= 15 || (*end | 0x20) == 'x')
        end++;
    int rc = scan_num(&t, end + 1, v);
    if (rc == PARSE_OK) return t;
    *why = rc == PARSE_OVERFLOW ? SUBPOS_BIG : SUBPOS_NONE;
    return NULL;
}

/*
 * The grammar of one subposition, in one place: at s, relative to base,
 * "*" (base), "+N", "-N" or "N", each number decimal or 0x-hex. Returns
 * its end with the position in *out, or NULL with the reason in *why
 * (SUBPOS_*; SUBPOS_BELOW leaves N in *out). A '\n' ends the line. Short numbers (up to 19 digits,
 * or 16 hex digits) are read here with a loop, others by scan_num(). The fast paths give up on
 * NULL; scan_position() words the errors.
 */
HOT const char *subpos(const char *s, uint64_t base, uint64_t *out, int *why)
{
    unsigned c = (unsigned char)*s;
    if (c == '*') {
        *out = base;
        return s + 1;
    }
    unsigned sign = c == '+' ? 1 : c == '-' ? 2 : 0;
    const char *t = s + (sign != 0);
    uint64_t v = (unsigned)(unsigned char)*t - '0';
    if (v > 9) {
        *why = SUBPOS_NONE;
        return NULL;
    }
    const char *e = fast_digits(t + 1, &v), *h;
    /* 19 digits cannot overflow; "0x": an address (the first of a function, call and jump
       targets) */
    if (__builtin_expect(e - t > 19, 0))
        e = subpos_long(t, &v, why);
    else if ((*e | 0x20) == 'x')
        e = e == t + 1 && !v && (h = fast_hex(e + 1, &v)) ? h : subpos_long(t, &v, why);
    if (!e) return NULL;
    if (sign == 1) {
        if (__builtin_add_overflow(base, v, out)) {
            *why = SUBPOS_BIG;
            return NULL;
        }
    } else if (sign == 2) {
        if (v > base) {
            *why = SUBPOS_BELOW;
            *out = v;
            return NULL;
        }
        *out = base - v;
    } else {
        *out = v;
    }
    return e;
}

/*
 * The subpositions at *ps into pos[SP_KINDS] (kinds not listed in
 * `positions:` are 0), relative to r->last, for a cost line and for the
 * target of calls=/jump=/jcnd=, through subpos(); every error text of a
 * position is here. Does not update r->last. A '\n' (after maybe blanks
 * and a '\r') ends the line. `target`: a call or jump target,
 * which does not teach a speculative reader a last position
 * (r->split.spec_abs). `end`: where a target's line ends without its
 * blanks (NULL for a cost line): an "0x" just before it was read as the
 * number 0 then an 'x', and its error says so (as it always did).
 */
HOT int scan_position(struct rd *r, const char **ps, uint64_t pos[SP_KINDS], int target,
                      const char *end)
{
    const char *s = *ps;
    pos[SP_ADDR] = pos[SP_BB] = pos[SP_LINE] = 0;
    for (unsigned i = 0; i < r->npos; i++) {
        unsigned k = r->poskind[i];
        while (*s == ' ' || *s == '\t')
            s++;
        char c = *s;
        if (__builtin_expect(r->split.spec_unknown != 0, 0)) {
            int rel = c == '*' || c == '+' || c == '-';
            if (rel && (r->split.spec_unknown >> k & 1)) return rd_spec_fail(r);
            if (!rel && !target) r->split.spec_abs |= 1u << k;
        }
        int why;
        uint64_t base = r->last[k];
        const char *e = subpos(s, base, &pos[k], &why);
        if (!e) {
            if (why == SUBPOS_BIG) return rd_fail(r, "position does not fit in 64 bits");
            if (why == SUBPOS_BELOW)
                return rd_fail(r,
                               "relative position -%" PRIu64 " goes below zero (from %" PRIu64 ")",
                               pos[k], base);
            const char *t = s + (c == '+' || c == '-');
            if (end && t + 2 == end && t[0] == '0' && (t[1] | 0x20) == 'x')
                return rd_fail(r, "unexpected character '%c' in a position", t[1]);
            if (c == '+' || c == '-')
                return rd_fail(r, "expected a number after '%c' in a position", c);
            if (c == '\n' || c == '\r')
                return rd_fail(r, "expected %u position%s, found %u", r->npos,
                               r->npos > 1 ? "s" : "", i);
            return rd_fail(r, "expected a position, found '%c'", c);
        }
        s = e;
        if (!sep_fast(*s)) return rd_fail(r, "unexpected character '%c' in a position", *s);
    }
    *ps = s;
    return 0;
}

static int too_many_costs(struct rd *r, const char *s, const char *end, size_t n)
{
    size_t total = n + 1;
    for (;;) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s >= end || *s == '\n') break;
        total++;
        while (s < end && !is_sep(s, end))
            s++;
    }
    return rd_fail(r, "too many costs (%zu) for %zu event%s", total, r->nev,
                   r->nev == 1 ? "" : "s");
}

/*
 * The general parser of a cost line (or of the line after calls=/jump=):
 * subpositions into pos, costs into r->cost[0..*pn). Parses from s up to
 * the end of the line ('\n' before lim) and returns that end in *next.
 * Every error of a cost line is reported from here.
 */
static int parse_cost_line(struct rd *r, const char *s, const char *lim, uint64_t pos[SP_KINDS],
                           size_t *pn, const char **next)
{
    if (!r->body) return rd_fail(r, "cost line before the 'events:' line");
    if (scan_position(r, &s, pos, 0, NULL)) return -1;
    size_t n = 0, nev = r->nev;
    uint64_t *cost = r->cost;
    for (;;) {
        char c = *s;
        if (c == ' ') {
            s++;
            /* runs of zero costs, common with cache simulation: 4 at a time */
            uint64_t w;
            if (*s == '0' && lim - s >= 8 && n + 4 <= nev &&
                (memcpy(&w, s, 8), w == 0x2030203020302030ULL)) {
                cost[n] = cost[n + 1] = cost[n + 2] = cost[n + 3] = 0;
                n += 4;
                s += 7;
            }
            continue;
        }
        uint64_t v;
        unsigned d = (unsigned)(unsigned char)c - '0';
        if (d <= 9 && (s[1] == ' ' || s[1] == '\n')) {
            /* most costs are a single digit */
            v = d;
            s++;
        } else {
            if (c == '\n') break;
            if (c == '\t' || c == '\r') {
                if (c == '\r' && s[1] == '\n') {
                    s++;
                    break;
                }
                s++;
                continue;
            }
            int neg = 0;
            if (c == '-') {
                neg = 1;
                s++;
            }
            int rc = scan_num(&s, lim, &v);
            if (rc != PARSE_OK) {
                if (rc == PARSE_OVERFLOW) return rd_fail(r, "cost does not fit in 64 bits");
                return rd_fail(r, "expected a cost, found '%c'", *s == '\n' ? ' ' : *s);
            }
            if (!sep_fast(*s)) return rd_fail(r, "unexpected character '%c' in a cost", *s);
            if (neg && v && !r->p->signed_costs && rd_go_signed(r, cost, n)) return -1;
            if (r->p->signed_costs) {
                if (v > (uint64_t)INT64_MAX + neg)
                    return rd_fail(r, "cost does not fit in a signed 64-bit count");
                if (neg) v = 0 - v;
            }
        }
        if (n == nev) return too_many_costs(r, s, lim, n);
        cost[n++] = v;
    }
    *next = s;
    *pn = n;
    return 0;
}

/*
 * The fast cost line parser. Nearly every line of a real file is written
 * by Callgrind in one shape: subpositions and costs separated by single
 * spaces, each a short decimal number, maybe after '+', '-' or '*'. For
 * the part's layout (chosen once per part, see FAST_*) this parses such a
 * line with the fewest instructions: no loop over subposition kinds, no
 * 8-byte tricks for subpositions (mostly "+N" with one digit, or '*'),
 * one 8-byte read for a cost of two or more digits, and no bounds checks
 * (the '\n' that ends the line stops every loop).
 *
 * The loops are plain byte loops, not branch-free word tricks: the
 * numbers are short, and a CPU predicts such short, regular loops well, so
 * running fewer instructions is what counts.
 *
 * Anything else (tabs, CR, hex or very long numbers, negative costs, too
 * many costs, errors of every kind) makes it give up before it changed
 * any state; the caller then parses the line again with parse_cost_line(),
 * which handles everything and reports errors exactly as before.
 */

#ifdef RD_WORD_DIGITS
/*
 * The rest of a cost after its first digit (in *v). Most costs are one
 * digit; longer ones (counts of a loop) vary in length, so up to 8 more
 * digits are read as one word (word_ndigits()). s + 8 must not pass lim.
 */
HOT const char *fast_more_digits(const char *s, const char *lim, uint64_t *v)
{
    static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    if ((unsigned)(unsigned char)*s - '0' > 9) return s; /* one digit */
    if (lim - s < 8) return fast_digits(s, v);
    uint64_t w;
    memcpy(&w, s, 8);
    unsigned len = word_ndigits(w);         /* 1..8 */
    if (len == 8) return fast_digits(s, v); /* 9 digits or more */
    *v = *v * pow10[len] + word_value(w, len);
    return s + len;
}
#else
HOT const char *fast_more_digits(const char *s, const char *lim, uint64_t *v)
{
    (void)lim;
    return fast_digits(s, v);
}
#endif

/*
 * Parse a cost line of the part's layout into pos and r->cost[0..*pn).
 * Returns 0 with the end of the line in *next, or 1 if the line must go
 * through parse_cost_line() (nothing was changed then but *orv, which may
 * have more bits: harmless to a bound).
 *
 * The bound of the file's sums (sumbound.h) costs nothing here: a cost of
 * at most 8 digits is within SUMBOUND_OR_8DIGITS, which r->sums.tot_or starts
 * from, and the rare longer ones are ORed into *orv, giving up on the line
 * when the bound fails for line `lines` (cost_run() passes the last line
 * it may reach, so it checks no bound per line).
 */
HOT int fast_cost_line(const struct rd *r, const char *s, const char *lim,
                       const uint64_t last[SP_KINDS], uint64_t pos[SP_KINDS], size_t *pn,
                       const char **next, uint64_t *orv, uint64_t lines)
{
    int why;
    pos[SP_ADDR] = pos[SP_BB] = 0;
    if (r->fast == FAST_INSTR_LINE) {
        s = subpos(s, last[SP_ADDR], &pos[SP_ADDR], &why);
        if (!s || *s != ' ') return 1;
        s++;
    }
    s = subpos(s, last[SP_LINE], &pos[SP_LINE], &why);
    if (!s) return 1;
    size_t n = 0, nev = r->nev;
    uint64_t *cost = r->cost;
    while (*s == ' ') {
        const char *t = s + 1;
        uint64_t v = (unsigned)(unsigned char)*t - '0';
        if (v > 9) {
            if (*t == '\n') { /* a space before the line end, as Callgrind writes after jumps */
                s = t;
                break;
            }
            return 1;
        }
        s = fast_more_digits(t + 1, lim, &v);
        if (__builtin_expect(s - t > 8, 0)) {
            if (s - t > 19) return 1;
            *orv |= v;
            if (!sumbound_holds(lines, *orv)) return 1;
        }
        if (n == nev) return 1;
        cost[n++] = v;
    }
    if (*s != '\n') return 1;
    *pn = n;
    *next = s;
    return 0;
}

/* What a run of lines added to record vec (from base) into the part's sums. */
static void settle_psum(uint64_t *psum, const uint64_t *vec, const uint64_t *base, size_t n)
{
    for (size_t i = 0; i < n; i++)
        psum[i] += vec[i] - base[i];
}

/* A line's self costs into the current part's sums (struct rd's direct; no sum passes 2^64-1). */
static void add_psum(struct rd *r, const uint64_t *cost, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r->fold.psum[i] += cost[i];
}

/*
 * Self costs of a signed profile: checked signed additions; the file's sums
 * are not bounded (the rule of 2^64-1 is for unsigned counts).
 */
static int signed_cost(struct rd *r, const struct position *p, const uint64_t *cost, size_t n)
{
    if (part_add_cost(r->p, r->fold.dst, r->fn, p, cost, n))
        return rd_fail(r, "costs overflow 64 bits when added up");
    if (r->fold.direct) add_psum(r, cost, n);
    return 0;
}

/*
 * A position without costs (`30`), or a jump's source line when jumps are
 * dropped: a line of the function all the same, of no cost (callgrind_annotate
 * annotates it). Returns 0.
 */
static __attribute__((cold, noinline)) int no_cost_line(struct rd *r, const struct position *p)
{
    part_cost_vector(r->fold.dst, r->fn, p);
    return 0;
}

/*
 * A cost line (or the line after calls=/jump=): subpositions then costs.
 * Parses from s up to the end of the line ('\n' before lim) and returns
 * the position of that end in *next.
 */
static int cost_line(struct rd *r, const char *s, const char *lim, const char **next)
{
    uint64_t pos[SP_KINDS];
    size_t n = 0;
    r->header_open = 0;
    /* the costs of a call are inclusive: not summed, and not in the bound */
    uint64_t acc = r->sums.tot_or;
    if (!r->fast || fast_cost_line(r, s, lim, r->last, pos, &n, next, &acc, r->lineno)) {
        if (parse_cost_line(r, s, lim, pos, &n, next)) return -1;
        if (r->pending != PEND_CALL && !r->p->signed_costs) totals_or(r, r->cost, n);
    } else if (r->pending != PEND_CALL) {
        r->sums.tot_or = acc;
    }
    uint64_t *cost = r->cost;
    if (n < r->nev) r->pt->counts_complete = 0; /* no costs (n 0) too: `.` */
    if (r->fn_dirty && resolve_fn(r)) return -1;
    struct position p;
    make_pos(r, pos, r->src, &p);
    r->last[SP_ADDR] = pos[SP_ADDR];
    r->last[SP_BB] = pos[SP_BB];
    r->last[SP_LINE] = pos[SP_LINE];
    if (__builtin_expect(r->split.spec_unknown != 0, 0)) {
        /* a speculative reader learns the positions it starts without */
        r->split.spec_unknown &= ~r->split.spec_abs;
        r->split.spec_abs = 0;
        if (!r->split.spec_unknown) r->fast = r->split.spec_fast;
    }
    int sg = r->p->signed_costs;
    if (r->pending == PEND_NONE) {
        if (!n) return no_cost_line(r, &p);
        if (sg) return signed_cost(r, &p, cost, n);
        if (!sumbound_holds(r->lineno, r->sums.tot_or) && totals_exact(r, cost, n)) return -1;
        uint64_t *v = part_cost_vector(r->fold.dst, r->fn, &p);
        int bad = 0;
        for (size_t i = 0; i < n; i++)
            bad |= __builtin_add_overflow(v[i], cost[i], &v[i]);
        if (bad) return rd_fail(r, "costs overflow 64 bits when added up");
        if (r->fold.direct) add_psum(r, cost, n);
        return 0;
    }
    if (r->pending == PEND_CALL) {
        r->pending = PEND_NONE;
        if (__builtin_add_overflow(r->sums.calls, r->call_count, &r->sums.calls)) {
            r->lineno = r->pending_line;
            return rd_fail(r, "the call counts of the file sum past 2^64-1 (the largest count)");
        }
        if (part_add_call(r->p, r->fold.dst, r->fn, &p, r->callee, &r->target, r->call_count, cost,
                          n))
            return rd_fail(r, "call costs overflow 64 bits when added up");
        return 0;
    }
    /* the source position of a jump; costs here (not written by Callgrind) are self costs */
    r->pending = PEND_NONE;
    int zero = 1;
    for (size_t i = 0; i < n; i++)
        zero &= cost[i] == 0;
    if (!zero && sg && signed_cost(r, &p, cost, n)) return -1;
    if (!zero && !sg && !sumbound_holds(r->lineno, r->sums.tot_or) && totals_exact(r, cost, n))
        return -1;
    if (!zero && !sg && part_add_cost(r->p, r->fold.dst, r->fn, &p, cost, n))
        return rd_fail(r, "costs overflow 64 bits when added up");
    if (!zero && !sg && r->fold.direct) add_psum(r, cost, n);
    /* the source line is one of the function's lines (a line of no cost for
       callgrind_annotate): the jump keeps it, or when jumps are dropped a record */
    if (zero && r->opt->drop_jumps) no_cost_line(r, &p);
    if (!r->opt->drop_jumps && part_add_jump(r->p, r->fold.dst, r->fn, &p, r->jtarget_fn,
                                             &r->target, r->jcond, r->jexec, r->jtaken))
        return rd_fail(r, "jump counts overflow 64 bits when added up");
    return 0;
}

/*
 * A run of plain cost lines (no call or jump pending, function known) at
 * s, all in the fast layout, each ending with a '\n' before tail. This is
 * where nearly all the lines of a file go: the state that every line needs
 * (last positions, function, file, the cost vector of the previous line)
 * stays in registers for the whole run instead of being loaded, checked
 * and stored once per line. Returns the first line it did not take (maybe
 * s itself; the general path handles it), or NULL with the error set.
 */
static const char *cost_run(struct rd *r, const char *s, const char *tail)
{
    uint64_t last[SP_KINDS] = {r->last[SP_ADDR], r->last[SP_BB], r->last[SP_LINE]};
    const int drop_addr = r->drop_addr, drop_line = r->drop_line;
    struct part *pt = r->fold.dst;
    /* direct (struct rd): what the run adds to a record is added to the part's
       sums when it moves on to another record, not line by line */
    uint64_t *psum = r->fold.direct ? r->fold.psum : NULL,
             *pbase = psum ? psum + r->fold.psum_cap : NULL;
    uint32_t fn = r->fn, src = r->src;
    unsigned long lineno = r->lineno;
    const uint64_t *cost = r->cost;
    /* the previous line's cost vector: consecutive instructions share a line */
    uint64_t *vec = NULL, vec_line = 0, vec_addr = 0;
    /* fewer counts on a line take the test below: while the part's lines gave every
       count, one that leaves some out clears counts_complete (struct part) */
    size_t nmin = r->pt->counts_complete ? r->nev : 1;
    /* back to read_all() now and then, which gives parsed pages back */
    const unsigned long stop = lineno + 65536;
    /* the bound of the file's sums (sumbound.h), for every line up to stop;
       when it fails, cost_line() checks each line */
    uint64_t acc = r->sums.tot_or;
    if (!sumbound_holds(stop, acc)) return s;
    while (s < tail && lineno < stop) {
        uint64_t pos[SP_KINDS];
        size_t n;
        const char *eol;
        if (fast_cost_line(r, s, tail, last, pos, &n, &eol, &acc, stop)) break;
        if (n < nmin) {    /* no costs, or the first line that leaves some out */
            if (!n) break; /* left to cost_line(): its record is a line of no cost */
            r->pt->counts_complete = 0;
            nmin = 1;
        }
        lineno++;
        last[SP_ADDR] = pos[SP_ADDR];
        last[SP_LINE] = pos[SP_LINE];
        s = eol + 1;
        uint64_t addr = drop_addr ? 0 : pos[SP_ADDR];
        uint64_t line = drop_line ? 0 : pos[SP_LINE];
        if (!vec || line != vec_line || addr != vec_addr) {
            struct position p = {.file = src, .line = line, .addr = addr, .bb = 0};
            if (psum && vec) settle_psum(psum, vec, pbase, r->nev);
            vec = part_cost_vector(pt, fn, &p);
            if (psum) memcpy(pbase, vec, r->nev * sizeof(*pbase));
            vec_line = line;
            vec_addr = addr;
        }
        /* within the bound no sum of the file's self costs passes 2^64-1, nor
           then a record's: plain additions, with no overflow check */
        for (size_t i = 0; i < n; i++)
            vec[i] += cost[i];
    }
    if (psum && vec) settle_psum(psum, vec, pbase, r->nev);
    r->last[SP_ADDR] = last[SP_ADDR];
    r->last[SP_LINE] = last[SP_LINE];
    r->lineno = lineno;
    r->sums.tot_or = acc;
    return s;
}

/* ------------------------------------------------------------------------ */
/* Header and context lines (given without the line end).                   */

/* A speculative reader's stand-in for a name defined before it started. */
static uint32_t spec_placeholder(struct rd *r, int kind, uint64_t id)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%c%d%" PRIu64, RD_PLACEHOLDER, kind, id);
    uint32_t nid = profile_intern(r->p, buf, (size_t)n);
    idmap_put(&r->names[kind], id, nid);
    return nid;
}

/*
 * A compressed id used before (or without) its definition: old Callgrind
 * versions wrote `cob=(8)` for an object defined in an earlier dump.
 * callgrind_annotate reads such a name as empty (all of them as one);
 * tally names it after the reference itself, "(8)", warns once per id,
 * and keeps that name for the id until a definition replaces it.
 */
static uint32_t undefined_id(struct rd *r, int kind, uint64_t id, const char *ref, size_t len)
{
    uint32_t nid = profile_intern(r->p, ref, len);
    idmap_put(&r->names[kind], id, nid);
    profile_warn(r->p, "%s:%lu: undefined compressed %s id (%" PRIu64 "): named '%.*s'", r->path,
                 r->lineno, kind_word[kind], id, (int)len, ref);
    return nid;
}

/* `(id) name`, `(id)` or `name` -> interned name id. */
static int name_value(struct rd *r, int kind, const char *v, size_t len, uint32_t *out)
{
    rd_trim(&v, &len);
    if (len >= 2 && v[0] == '(' && (unsigned)(v[1] - '0') < 10) {
        const char *s = v + 1, *end = v + len;
        uint64_t id;
        int rc = scan_num(&s, end, &id);
        if (rc == PARSE_OVERFLOW) return rd_fail(r, "compressed %s id too large", kind_word[kind]);
        if (rc == PARSE_OK && s < end && *s == ')') {
            s++;
            skip_sp(&s, end);
            if (s == end) {
                uint32_t nid = idmap_get(&r->names[kind], id);
                if (nid == UINT32_MAX && r->split.spec) nid = spec_placeholder(r, kind, id);
                if (nid == UINT32_MAX) nid = undefined_id(r, kind, id, v, (size_t)(s - v));
                *out = nid;
                return 0;
            }
            if (r->split.spec && *s == RD_PLACEHOLDER) return rd_spec_fail(r);
            *out = profile_intern(r->p, s, (size_t)(end - s));
            idmap_put(&r->names[kind], id, *out);
            return 0;
        }
        /* not a compressed form, e.g. "(anonymous namespace)::f": a plain name */
    }
    if (r->split.spec && len && *v == RD_PLACEHOLDER) return rd_spec_fail(r);
    *out = profile_intern(r->p, v, len);
    return 0;
}

/* The keys of `key=value` lines. */
enum {
    K_FN,
    K_FL,
    K_FI,
    K_FE,
    K_OB,
    K_COB,
    K_CFI,
    K_CFN,
    K_JFI,
    K_JFN,
    K_CALLS,
    K_RCALLS,
    K_JUMP,
    K_JCND,
    K_UNKNOWN
};

static int key_code(const char *k, size_t kl)
{
    if (kl == 2) {
        if (k[0] == 'f' && k[1] == 'n') return K_FN;
        if (k[0] == 'f' && k[1] == 'l') return K_FL;
        if (k[0] == 'f' && k[1] == 'i') return K_FI;
        if (k[0] == 'f' && k[1] == 'e') return K_FE;
        if (k[0] == 'o' && k[1] == 'b') return K_OB;
    } else if (kl == 3) {
        if (k[0] == 'c' && k[1] == 'o' && k[2] == 'b') return K_COB;
        if (k[0] == 'c' && k[1] == 'f' && (k[2] == 'i' || k[2] == 'l')) return K_CFI;
        if (k[0] == 'c' && k[1] == 'f' && k[2] == 'n') return K_CFN;
        if (k[0] == 'j' && k[1] == 'f' && k[2] == 'i') return K_JFI;
        if (k[0] == 'j' && k[1] == 'f' && k[2] == 'n') return K_JFN;
    }
    if (kl == 5 && !memcmp(k, "calls", 5)) return K_CALLS;
    if (kl == 6 && !memcmp(k, "rcalls", 6)) return K_RCALLS;
    if (kl == 4 && !memcmp(k, "jump", 4)) return K_JUMP;
    if (kl == 4 && !memcmp(k, "jcnd", 4)) return K_JCND;
    return K_UNKNOWN;
}

/* The name kind that the value of a name key (K_FN..K_JFN) refers to. */
static int key_name_kind(int key)
{
    return key == K_FN || key == K_CFN || key == K_JFN ? NAME_FN
           : key == K_OB || key == K_COB               ? NAME_OB
                                                       : NAME_FL;
}

/* A name key (K_FN..K_JFN) with its interned name id: the context changes. */
static void set_name(struct rd *r, int key, uint32_t id)
{
    switch (key) {
    case K_FN:
        r->fnname = id;
        r->have_fn = 1;
        r->src = r->fl;
        r->fl_ahead = 0;
        r->fn = rd_function(r, r->ob, r->fl, id);
        profile_mention_function(r->p, r->fn);
        r->fn_dirty = 0;
        break;
    case K_FL:
        /*
         * The file of the next fn=, which makes it the source file too. Cost
         * lines between the two stay with the function in force, in its
         * file, as callgrind_annotate 3.19 charges them (rather than to a
         * function of the old name in the new file, which no fn= made).
         */
        r->fl = id;
        if (!r->have_fn) r->src = id;
        r->fl_ahead = r->have_fn;
        break;
    case K_FI:
    case K_FE:
        r->src = id;
        r->fl_ahead = 0;
        break;
    case K_OB:
        r->ob = id;
        r->fn_dirty = 1;
        break;
    case K_COB:
        r->have_cob = 1;
        r->cob = id;
        break;
    case K_CFI:
        r->have_cfile = 1;
        r->cfile = id;
        break;
    case K_CFN:
        r->have_cfn = 1;
        r->cfn = id;
        break;
    case K_JFI:
        r->have_jfile = 1;
        r->jfile = id;
        break;
    default: /* K_JFN */
        r->have_jfn = 1;
        r->jfn = id;
        break;
    }
}

/*
 * A calls=/rcalls=/jump=/jcnd= line, parsed: counts a and b (`slash`: b
 * came after a '/') and the target position. The function is resolved.
 */
static int arc_line(struct rd *r, int key, uint64_t a, uint64_t b, int slash,
                    const uint64_t tpos[SP_KINDS])
{
    r->pending_line = r->lineno;
    if (key == K_CALLS || key == K_RCALLS) {
        if (key == K_RCALLS && r->split.spec) return rd_spec_fail(r); /* a warning to give once */
        if (key == K_RCALLS && !r->warned_rcalls) {
            r->warned_rcalls = 1;
            profile_warn(r->p, "%s:%lu: deprecated 'rcalls=' line read as 'calls='", r->path,
                         r->lineno);
        }
        if (!r->have_cfn) return rd_fail(r, "'calls=' line without a preceding 'cfn=' line");
        /* the file last named by fl=, fi= or fe=, as for callgrind_annotate */
        uint32_t cfile = r->have_cfile ? r->cfile : r->fl_ahead ? r->fl : r->src;
        r->callee = rd_function(r, r->have_cob ? r->cob : r->ob, cfile, r->cfn);
        make_pos(r, tpos, cfile, &r->target);
        r->call_count = a;
        r->have_cob = r->have_cfile = r->have_cfn = 0;
        r->pending = PEND_CALL;
        return 0;
    }
    int is_jcnd = key == K_JCND;
    uint32_t tfile = r->have_jfile ? r->jfile : r->src;
    r->jtarget_fn =
        r->have_jfn ? rd_function(r, r->ob, r->have_jfile ? r->jfile : r->fl, r->jfn) : r->fn;
    make_pos(r, tpos, tfile, &r->target);
    r->jcond = is_jcnd;
    if (!is_jcnd) {
        r->jexec = r->jtaken = a;
    } else if (slash) {
        r->jtaken = a; /* Callgrind: jcnd=FOLLOWED/EXECUTED */
        r->jexec = b;
    } else {
        r->jexec = a; /* the spec's grammar: jcnd=EXECUTED TAKEN */
        r->jtaken = b;
    }
    r->have_jfile = r->have_jfn = 0;
    r->pending = PEND_JUMP;
    return 0;
}

/* `cost_context=name` lines and calls/jumps; `eq` points at the '='. */
static int spec_line(struct rd *r, const char *line, size_t len, const char *eq)
{
    size_t kl = (size_t)(eq - line);
    const char *v = eq + 1;
    size_t vl = len - kl - 1;
    const char *k = line;
    if (!r->body) return rd_fail(r, "'%.*s=' line before the 'events:' line", SHOW(k, kl));
    r->header_open = 0;
    if (r->pending)
        return rd_fail(r, "expected the position line of the '%s' on line %lu, found '%.*s='",
                       r->pending == PEND_CALL ? "calls=" : "jump=", r->pending_line, SHOW(k, kl));
    int key = key_code(k, kl);
    if (key == K_UNKNOWN) return rd_fail(r, "unknown line type '%.*s='", SHOW(k, kl));
    if (key <= K_JFN) {
        uint32_t id = 0;
        if (name_value(r, key_name_kind(key), v, vl, &id)) return -1;
        set_name(r, key, id);
        return 0;
    }
    int is_jcnd = key == K_JCND;
    if (r->fn_dirty || !r->have_fn) {
        if (resolve_fn(r)) return -1;
    }
    const char *s = v, *end = v + vl;
    uint64_t a, b = 0;
    skip_sp(&s, end);
    int rc = scan_num(&s, end, &a);
    if (rc != PARSE_OK)
        return rd_fail(r,
                       rc == PARSE_OVERFLOW ? "count after '%.*s=' does not fit in 64 bits"
                                            : "expected a number after '%.*s='",
                       SHOW(k, kl));
    int slash = 0;
    if (is_jcnd) {
        if (s < end && *s == '/') {
            slash = 1;
            s++;
        } else {
            skip_sp(&s, end);
        }
        rc = scan_num(&s, end, &b);
        if (rc != PARSE_OK)
            return rd_fail(r, rc == PARSE_OVERFLOW ? "count after 'jcnd=' does not fit in 64 bits"
                                                   : "expected two counts after 'jcnd=' "
                                                     "(TAKEN/EXECUTED or EXECUTED TAKEN)");
    }
    if (!is_sep(s, end))
        return rd_fail(r, "unexpected character '%c' after the count of '%.*s='", *s, SHOW(k, kl));
    uint64_t tpos[SP_KINDS];
    if (scan_position(r, &s, tpos, 1, end)) return -1;
    /* anything after the target (xdebug writes an extra field) is ignored */
    return arc_line(r, key, a, b, slash, tpos);
}

/*
 * Can a speculative reader take this line (not blank, not a comment, not a
 * cost line)? Header lines but `totals:` and `summary:` start parts or
 * change the layout, which only the first reader can tell.
 */
static int spec_line_ok(const char *line, size_t len)
{
    const char *s = line, *end = line + len;
    while (s < end && *s != '=' && *s != ':' && *s != ' ' && *s != '\t')
        s++;
    if (s < end && *s == '=') return 1;
    size_t kl = (size_t)(s - line);
    return s < end && *s == ':' &&
           ((kl == 6 && !memcmp(line, "totals", 6)) || (kl == 7 && !memcmp(line, "summary", 7)));
}

/* Everything that is not a cost line. `line` has no line end. */
static int other_line(struct rd *r, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r') len--;
    size_t full = len;
    while (len && parse_is_space(line[len - 1]))
        len--;
    /* desc: values keep their trailing blanks (Callgrind writes "desc: I1 cache: ") */
    if (len >= 5 && !memcmp(line, "desc:", 5)) len = full;
    if (!len || line[0] == '#') return 0;
    if (memchr(line, '\0', len)) return rd_fail(r, "NUL byte in a line: not a text file");
    if (line[0] == ' ' || line[0] == '\t') {
        const char *s = line;
        skip_sp(&s, line + len);
        return rd_fail(r, "unexpected indented line '%.*s'", SHOW(s, len - (size_t)(s - line)));
    }
    if ((r->split.spec & SPEC_CONT) && !spec_line_ok(line, len)) return rd_spec_fail(r);
    if (len >= 4 && !memcmp(line, "====", 4)) {
        /* xdebug: "==== NEW PROFILING FILE ====" between appended runs */
        return r->pt && r->body ? rd_finish_part(r) : 0;
    }
    /* the key ends at the first '=' or ':' */
    const char *s = line, *end = line + len;
    int spaced = 0;
    while (s < end && *s != '=' && *s != ':') {
        spaced |= *s == ' ' || *s == '\t';
        s++;
    }
    if (s < end && *s == '=' && !spaced) return spec_line(r, line, len, s);
    if (s < end && *s == ':') {
        int rc = rd_header_line(r, line, len);
        if (rc <= 0) return rc;
        /* KCachegrind's "arch:", "timeframe (BB):" and the like */
        profile_warn(r->p, "%s:%lu: ignoring unknown header line '%.*s'", r->path, r->lineno,
                     SHOW(line, len));
        return 0;
    }
    return rd_fail(r, "unknown line '%.*s'", SHOW(line, len));
}

static inline int is_cost_start(char c)
{
    return (unsigned)(c - '0') < 10 || c == '+' || c == '-' || c == '*';
}

/*
 * The common `key=value` lines of a Callgrind file, parsed without finding
 * the line end first and without the general checks of other_line(): a
 * name reference "KEY=(N)", and calls=, jump= or jcnd=A/B with a target
 * in the part's fast layout. They are a fifth of the lines of a file.
 * Returns 0 (done, the line end in *eol), 1 (give up: other_line() parses
 * the line again and reports any error; nothing was changed) or -1.
 */
static int fast_key_line(struct rd *r, const char *s, const char **eol)
{
    int why;
    if (!r->fast || r->pending) return 1;
    const char *q = s;
    while ((unsigned)(*q - 'a') < 26)
        q++;
    if (*q != '=') return 1;
    int key = key_code(s, (size_t)(q - s));
    const char *v = q + 1, *e;
    if (key <= K_JFN) {
        if (*v != '(') return 1; /* (v may be the '\n' that ends the input) */
        uint64_t id = (unsigned)(unsigned char)v[1] - '0';
        if (id > 9) return 1;
        e = fast_digits(v + 2, &id);
        if (e - v > 20 || e[0] != ')' || e[1] != '\n') return 1;
        uint32_t nid = idmap_get(&r->names[key_name_kind(key)], id);
        if (nid == UINT32_MAX) return 1;
        set_name(r, key, nid);
        *eol = e + 1;
        return 0;
    }
    if (key == K_UNKNOWN || key == K_RCALLS || r->fn_dirty || !r->have_fn) return 1;
    uint64_t a = (unsigned)(unsigned char)*v - '0', b = 0;
    if (a > 9) return 1;
    e = fast_digits(v + 1, &a);
    if (e - v > 19) return 1;
    if (key == K_JCND) {
        if (*e != '/') return 1;
        const char *t = e + 1;
        b = (unsigned)(unsigned char)*t - '0';
        if (b > 9) return 1;
        e = fast_digits(t + 1, &b);
        if (e - t > 19) return 1;
    }
    if (*e != ' ') return 1;
    uint64_t tpos[SP_KINDS] = {0, 0, 0};
    e++;
    if (r->fast == FAST_INSTR_LINE) {
        e = subpos(e, r->last[SP_ADDR], &tpos[SP_ADDR], &why);
        if (!e || *e != ' ') return 1;
        e++;
    }
    e = subpos(e, r->last[SP_LINE], &tpos[SP_LINE], &why);
    if (!e) return 1;
    if (*e == ' ') e++; /* Callgrind ends these lines with a space */
    if (*e != '\n') return 1;
    if (arc_line(r, key, a, b, key == K_JCND, tpos)) return -1;
    *eol = e;
    return 0;
}

/* A line for other_line(), within the line limit (kept out of the inlined one_line()). */
static __attribute__((noinline)) int slow_line(struct rd *r, const char *s, const char *lim,
                                               const char **eol)
{
    const char *e = memchr(s, '\n', (size_t)(lim - s));
    *eol = e;
    if ((size_t)(e - s) > r->in->max_line)
        return input_line_too_long(r->path, r->lineno, r->in->max_line, r->err);
    return other_line(r, s, (size_t)(e - s));
}

/* One line at s, ended by a '\n' before lim; returns that '\n' in *eol. */
static inline int one_line(struct rd *r, const char *s, const char *lim, const char **eol)
{
    if (is_cost_start(*s)) return cost_line(r, s, lim, eol);
    if ((unsigned)(*s - 'a') < 26) {
        int rc = fast_key_line(r, s, eol);
        if (rc <= 0) return rc;
    }
    return slow_line(r, s, lim, eol);
}

/* A line that has no '\n' after it in memory: copy it and add one. */
static int copied_line(struct rd *r, const char *line, size_t len)
{
    if (len + 16 > r->copy_cap) {
        free(r->copy);
        r->copy_cap = len + 16 + len / 2;
        r->copy = xmalloc(r->copy_cap);
    }
    memcpy(r->copy, line, len);
    memset(r->copy + len, '\n', 9); /* the line end, and padding for 8-byte loads */
    const char *eol;
    return one_line(r, r->copy, r->copy + len + 9, &eol);
}

/*
 * The lines from s to end: whole lines in place, a last one without a
 * '\n' copied. Parsed pages of a mapped file are given back as it goes.
 */
int rd_read_lines(struct rd *r, const char *s, const char *end)
{
    const char *tail = end;
    while (tail > s && tail[-1] != '\n')
        tail--;
    const char *kept = s; /* nothing before it was given back yet */
    while (s < tail) {
        if (r->fast && !r->pending && !r->fn_dirty) {
            s = cost_run(r, s, tail);
            if (!s) return -1;
            if (s >= tail) break;
        }
        r->lineno++;
        const char *eol;
        if (one_line(r, s, end, &eol)) return -1;
        s = eol + 1;
        /* give parsed pages back so the mapping does not stay resident */
        if (s - kept >= 1 << 18) {
            if (!r->split.spec) {
                input_discard_before(r->in, s);
            } else {
                if (worker_job_stopping(r->split.spec_job)) return rd_spec_fail(r);
                input_discard_range(r->in, kept, s);
            }
            kept = s;
        }
    }
    if (s < end) {
        r->lineno++;
        size_t len = (size_t)(end - s);
        if (len > r->in->max_line)
            return input_line_too_long(r->path, r->lineno, r->in->max_line, r->err);
        if (len && s[len - 1] == '\r') len--;
        if (copied_line(r, s, len)) return -1;
    }
    return 0;
}

/* A mapped file is one block; a stream comes in blocks, read ahead by a thread. */
static int read_all(struct rd *r)
{
    const char *data;
    size_t len;
    int rc;
    while ((rc = input_chunk(r->in, r->lineno, &data, &len, r->err)) == 1) {
        /* a whole mapped file may be read on two threads */
        int split = r->in->pos == r->in->size && r->in->data ? rd_read_split(r, data, len) : 1;
        if (split < 0 || (split > 0 && rd_read_lines(r, data, data + len))) return -1;
    }
    r->in->lineno = r->lineno;
    return rc;
}

/*
 * Callgrind and tally end every part with `totals:`; a part of such a file
 * without one was cut short (at a line boundary, or the reader would have
 * failed). Files of other producers (xdebug, pprof -callgrind) may have no
 * `totals:` at all: the check applies when the creator is Callgrind or
 * tally, or when some part of the file has `totals:`.
 */
static void warn_truncated(struct rd *r)
{
    const struct profile *p = r->p;
    size_t first = 0, missing = 0, have = 0, nparts = r->nread;
    for (size_t i = 0; i < nparts; i++) {
        if (r->had_total[i]) {
            have++;
        } else if (!missing++) {
            first = i;
        }
    }
    const char *c = p->creator ? p->creator : "";
    int always = !strncmp(c, "callgrind", 9) || !strncmp(c, "tally", 5);
    if (!missing || (!have && !always)) return;
    if (nparts == 1)
        profile_warn(r->p, "%s: no 'totals:' line at the end: the file looks truncated", r->path);
    else
        profile_warn(r->p,
                     "%s: part %zu of %zu%s ends without a 'totals:' line: the file looks "
                     "truncated",
                     r->path, first + 1, nparts, missing > 1 ? " (and others)" : "");
}

void rd_init(struct rd *r, struct input *in, struct profile *p, const struct read_options *opt,
             struct tally_error *err)
{
    static const struct read_options defaults;
    memset(r, 0, sizeof(*r));
    r->in = in;
    r->p = p;
    r->opt = opt ? opt : &defaults;
    r->drop_line = r->opt->drop_line;
    r->drop_addr = r->opt->drop_addr || r->drop_line;
    r->err = err;
    r->path = in->path ? in->path : "(input)";
    r->lineno = in->lineno;
    strtab_init(&r->sums.tot_names);
    r->sums.tot_or = SUMBOUND_OR_8DIGITS;
}

void rd_release(struct rd *r)
{
    rd_drop_maps(r);
    free(r->pend_text[0]);
    free(r->pend_text[1]);
    free(r->had_total);
    free(r->cost);
    strtab_release(&r->sums.tot_names);
    free(r->sums.tot);
    free(r->sums.tot_of);
    free(r->fold.psum);
}

void rd_drop_maps(struct rd *r)
{
    for (int k = 0; k < NAME_KINDS; k++)
        idmap_release(&r->names[k]);
    free(r->fcache);
    r->fcache = NULL;
    free(r->copy);
    r->copy = NULL;
    r->copy_cap = 0;
}

uint32_t rd_name_of(const struct rd *r, int kind, uint64_t id)
{
    return idmap_get(&r->names[kind], id);
}

int callgrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                   struct tally_error *err)
{
    struct rd r;
    rd_init(&r, in, p, opt, err);
    p->format = PROFILE_FORMAT_CALLGRIND;
    if (r.opt->callgrind.split_out) *r.opt->callgrind.split_out = READ_SPLIT_NONE;
    int rc = read_all(&r);
    if (!rc) rc = rd_finish_part(&r);
    if (!rc && !p->nparts) rc = rd_fail(&r, "no 'events:' line: not a callgrind profile");
    if (!rc) warn_truncated(&r);
    if (r.opt->callgrind.direct_out) *r.opt->callgrind.direct_out = r.fold.ndirect;
    rd_release(&r);
    return rc;
}
