/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "eventset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *len)
{
    while (*len && is_space(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && (is_space((*s)[*len - 1]) || (*s)[*len - 1] == '\r'))
        (*len)--;
}

void eventset_init(struct eventset *es)
{
    memset(es, 0, sizeof(*es));
}

void event_expr_release(struct event_expr *e)
{
    free(e->terms);
    e->terms = NULL;
    e->nterms = 0;
}

void eventset_release(struct eventset *es)
{
    for (size_t i = 0; i < es->n; i++) {
        free(es->names[i]);
        free(es->long_names[i]);
    }
    free(es->names);
    free(es->long_names);
    for (size_t i = 0; i < es->nderived; i++) {
        free(es->derived[i].name);
        free(es->derived[i].long_name);
        free(es->derived[i].formula);
        event_expr_release(&es->derived[i].expr);
    }
    free(es->derived);
    strlist_release(&es->pending_names);
    strlist_release(&es->pending_long);
    memset(es, 0, sizeof(*es));
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void eventset_copy(struct eventset *dst, const struct eventset *src)
{
    eventset_init(dst);
    dst->n = src->n;
    dst->names = xcalloc(src->n, sizeof(char *));
    dst->long_names = xcalloc(src->n, sizeof(char *));
    for (size_t i = 0; i < src->n; i++) {
        dst->names[i] = xstrdup(src->names[i]);
        dst->long_names[i] = dup_or_null(src->long_names[i]);
    }
    dst->nderived = dst->derived_cap = src->nderived;
    dst->derived = xcalloc(src->nderived, sizeof(*dst->derived));
    for (size_t i = 0; i < src->nderived; i++) {
        const struct derived_event *s = &src->derived[i];
        struct derived_event *d = &dst->derived[i];
        d->name = xstrdup(s->name);
        d->long_name = dup_or_null(s->long_name);
        d->formula = dup_or_null(s->formula);
        d->expr.nterms = s->expr.nterms;
        d->expr.terms = xcalloc(s->expr.nterms, sizeof(*d->expr.terms));
        memcpy(d->expr.terms, s->expr.terms, s->expr.nterms * sizeof(*d->expr.terms));
    }
    for (size_t i = 0; i < src->pending_names.n; i++) {
        strlist_push(&dst->pending_names, src->pending_names.items[i]);
        strlist_push(&dst->pending_long, src->pending_long.items[i]);
    }
}

static int valid_name(const char *s, size_t len)
{
    if (!len) return 0;
    for (size_t i = 0; i < len; i++)
        if (is_space(s[i]) || s[i] == '=' || s[i] == ':' || s[i] == '+' || s[i] == '*') return 0;
    return 1;
}

int eventset_define(struct eventset *es, const char *text, size_t len, struct tally_error *err)
{
    trim(&text, &len);
    const char *colon = memchr(text, ':', len);
    const char *eq = memchr(text, '=', len);
    if (eq && colon && colon < eq) eq = NULL; /* '=' inside the long name */
    size_t name_end = eq ? (size_t)(eq - text) : colon ? (size_t)(colon - text) : len;
    const char *name = text;
    size_t nlen = name_end;
    trim(&name, &nlen);
    if (!valid_name(name, nlen))
        return tally_error_set(err, NULL, 0, "bad event name in 'event:' line");
    char *long_name = NULL;
    if (colon) {
        const char *l = colon + 1;
        size_t llen = len - (size_t)(l - text);
        trim(&l, &llen);
        if (llen) long_name = xstrndup(l, llen);
    }
    char *nm = xstrndup(name, nlen);
    if (eq) {
        const char *f = eq + 1;
        size_t flen = (colon ? (size_t)(colon - f) : len - (size_t)(f - text));
        trim(&f, &flen);
        if (!flen) {
            free(nm);
            free(long_name);
            return tally_error_set(err, NULL, 0, "empty formula for event '%.*s'", (int)nlen, name);
        }
        for (size_t i = 0; i < es->nderived; i++)
            if (strcmp(es->derived[i].name, nm) == 0) {
                free(nm);
                free(long_name);
                return tally_error_set(err, NULL, 0, "event '%.*s' defined twice", (int)nlen, name);
            }
        es->derived = xgrow(es->derived, &es->derived_cap, es->nderived + 1, sizeof(*es->derived));
        struct derived_event *d = &es->derived[es->nderived++];
        memset(d, 0, sizeof(*d));
        d->name = nm;
        d->long_name = long_name;
        d->formula = xstrndup(f, flen);
        return 0;
    }
    /* plain long-name definition of a (base) event */
    strlist_push(&es->pending_names, nm);
    strlist_push(&es->pending_long, long_name ? long_name : "");
    free(nm);
    free(long_name);
    return 0;
}

int eventset_set_base(struct eventset *es, const char *text, size_t len, struct tally_error *err)
{
    if (es->n) return tally_error_set(err, NULL, 0, "second 'events:' line in the same part");
    const char *p = text, *end = text + len;
    size_t cap = 0;
    while (p < end) {
        while (p < end && (is_space(*p) || *p == '\r'))
            p++;
        const char *w = p;
        while (p < end && !is_space(*p) && *p != '\r')
            p++;
        if (p == w) break;
        if (!valid_name(w, (size_t)(p - w)))
            return tally_error_set(err, NULL, 0, "bad event name '%.*s'", (int)(p - w), w);
        for (size_t i = 0; i < es->n; i++)
            if (strlen(es->names[i]) == (size_t)(p - w) &&
                !memcmp(es->names[i], w, (size_t)(p - w)))
                return tally_error_set(err, NULL, 0, "event '%.*s' listed twice", (int)(p - w), w);
        es->names = xgrow(es->names, &cap, es->n + 1, sizeof(char *));
        es->long_names = xrealloc(es->long_names, cap * sizeof(char *));
        es->names[es->n] = xstrndup(w, (size_t)(p - w));
        es->long_names[es->n] = NULL;
        es->n++;
    }
    if (!es->n) return tally_error_set(err, NULL, 0, "'events:' line names no event");
    return 0;
}

int eventset_index(const struct eventset *es, const char *name)
{
    for (size_t i = 0; i < es->n; i++)
        if (strcmp(es->names[i], name) == 0) return (int)i;
    return -1;
}

static int derived_index(const struct eventset *es, const char *name, size_t len)
{
    for (size_t i = 0; i < es->nderived; i++)
        if (strlen(es->derived[i].name) == len && !memcmp(es->derived[i].name, name, len))
            return (int)i;
    return -1;
}

static void expr_add(struct event_expr *e, int64_t factor, size_t event)
{
    for (size_t i = 0; i < e->nterms; i++)
        if (e->terms[i].event == event) {
            e->terms[i].factor += factor;
            return;
        }
    e->terms = xrealloc(e->terms, (e->nterms + 1) * sizeof(*e->terms));
    e->terms[e->nterms].factor = factor;
    e->terms[e->nterms].event = event;
    e->nterms++;
}

int eventset_finish(struct eventset *es, struct tally_error *err)
{
    for (size_t i = 0; i < es->pending_names.n; i++) {
        int b = eventset_index(es, es->pending_names.items[i]);
        const char *ln = es->pending_long.items[i];
        if (b >= 0 && ln[0]) {
            free(es->long_names[b]);
            es->long_names[b] = xstrdup(ln);
        }
    }
    for (size_t i = 0; i < es->nderived; i++) {
        struct derived_event *d = &es->derived[i];
        if (eventset_index(es, d->name) >= 0)
            return tally_error_set(err, NULL, 0, "derived event '%s' is also a base event",
                                   d->name);
        event_expr_release(&d->expr);
        if (eventset_formula_expr(es, d->name, d->formula, &d->expr, err)) return -1;
    }
    return 0;
}

int eventset_same(const struct eventset *a, const struct eventset *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->names[i], b->names[i]) != 0) return 0;
    return 1;
}

int eventset_lookup(const struct eventset *es, const char *name, struct event_expr *out)
{
    memset(out, 0, sizeof(*out));
    int b = eventset_index(es, name);
    if (b >= 0) {
        expr_add(out, 1, (size_t)b);
        return 0;
    }
    int d = derived_index(es, name, strlen(name));
    if (d < 0) return eventset_builtin_expr(es, name, out, NULL);
    const struct event_expr *e = &es->derived[d].expr;
    for (size_t i = 0; i < e->nterms; i++)
        expr_add(out, e->terms[i].factor, e->terms[i].event);
    return 0;
}

int event_expr_eval(const struct event_expr *e, const uint64_t *costs, int is_signed,
                    tally_wide *out)
{
    /* most columns are one base event as it is: no product, no overflow */
    if (e->nterms == 1 && e->terms[0].factor == 1) {
        uint64_t c = costs[e->terms[0].event];
        *out = is_signed ? (tally_wide)(int64_t)c : (tally_wide)c;
        return 0;
    }
    __int128 sum = 0;
    for (size_t i = 0; i < e->nterms; i++) {
        uint64_t c = costs[e->terms[i].event];
        __int128 v = is_signed ? (__int128)(int64_t)c : (__int128)c;
        /* |v| < 2^64 and 0 <= factor < 2^63: the product fits */
        __int128 t = v * e->terms[i].factor;
        if (__builtin_add_overflow(sum, t, &sum)) return -1;
    }
    *out = sum;
    return 0;
}

char *tally_wide_str(tally_wide v, char *buf)
{
    char d[TALLY_WIDE_DIGITS];
    unsigned __int128 u =
        v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    size_t n = 0;
    while (u > UINT64_MAX) { /* 128-bit division is a slow library call */
        d[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    }
    uint64_t w = (uint64_t)u;
    do {
        d[n++] = (char)('0' + (int)(w % 10));
        w /= 10;
    } while (w);
    char *o = buf;
    if (v < 0) *o++ = '-';
    while (n)
        *o++ = d[--n];
    *o = '\0';
    return buf;
}

char *eventset_join(const struct eventset *es)
{
    size_t len = 1;
    for (size_t i = 0; i < es->n; i++)
        len += strlen(es->names[i]) + 1;
    char *s = xmalloc(len), *p = s;
    for (size_t i = 0; i < es->n; i++) {
        if (i) *p++ = ' ';
        size_t l = strlen(es->names[i]);
        memcpy(p, es->names[i], l);
        p += l;
    }
    *p = '\0';
    return s;
}

char *eventset_join_brief(const struct eventset *es)
{
    char buf[256];
    size_t len = 0, i;
    buf[0] = '\0';
    for (i = 0; i < es->n && len < 160; i++) {
        const char *nm = es->names[i];
        int cut = strlen(nm) > 40;
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%.*s%s", i ? " " : "",
                                cut ? 37 : 40, nm, cut ? "..." : "");
    }
    if (i < es->n) snprintf(buf + len, sizeof(buf) - len, " ... (%zu events)", es->n);
    return xstrdup(buf);
}
