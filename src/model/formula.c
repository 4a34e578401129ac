/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * formula.c - cost formulas: the one parser of `NAME = FORMULA` for the
 * `event:` lines of callgrind files, the --event options of every command
 * and the built-in events (eventset.h, docs/internals/model.md "Events").
 *
 * A formula is read by recursive descent into a linear form: a constant
 * and one integer factor per base event. Sums, differences and products
 * combine those forms; a product of two forms that both name events, and
 * a constant left over at the end, are refused: only a weighted sum of
 * events adds up over lines, functions and calls as a cost must.
 */
#include "eventset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The built-in events: KCachegrind's (libcore/globalconfig.cpp, knownFormula), and Cyc, tally's
   first name of CEst. */
static const struct {
    const char *name, *formula, *long_name;
} builtins[] = {
    {"L1m", "I1mr + D1mr + D1mw", "L1 Miss Sum"},
    {"L2m", "I2mr + D2mr + D2mw", "L2 Miss Sum"},
    {"LLm", "ILmr + DLmr + DLmw", "Last-level Miss Sum"},
    {"Bm", "Bim + Bcm", "Mispredicted Branch"},
    {"CEst", "Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm", "Cycle Estimation"},
    {"Cyc", "Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm", "Cycle Estimation"},
};
enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

const char *eventset_builtin_formula(size_t i, const char **name, const char **long_name)
{
    if (i >= NBUILTINS) return NULL;
    if (name) *name = builtins[i].name;
    if (long_name) *long_name = builtins[i].long_name;
    return builtins[i].formula;
}

static int builtin_index(const char *name, size_t len)
{
    for (size_t i = 0; i < NBUILTINS; i++)
        if (strlen(builtins[i].name) == len && !memcmp(builtins[i].name, name, len)) return (int)i;
    return -1;
}

/* A linear form: c + sum f[i] * event i (f has nf entries). */
struct lin {
    int64_t c;
    int64_t *f;
    int has; /* some f[i] may be non-zero (an event was named) */
};

struct fparse {
    const struct eventset *es; /* NULL: syntax only, every name is one event */
    size_t nf;                 /* entries of a form's f */
    const char *p;             /* the position in the text being read */
    const char *what;          /* the event being defined, for messages */
    const char *formula;       /* the text being read, for messages */
    int lenient;               /* names the profile lacks count 0 (built-in formulas) */
    int depth;
    size_t known; /* names found in the profile (built-ins need one) */
    struct strlist *absent;
    struct tally_error *err;
};

static void lin_init(struct fparse *fp, struct lin *l)
{
    l->c = 0;
    l->f = xcalloc(fp->nf ? fp->nf : 1, sizeof(int64_t));
    l->has = 0;
}

static int fp_fail(struct fparse *fp, const char *why)
{
    return tally_error_set(fp->err, NULL, 0, "event '%s': %s in '%s'", fp->what, why, fp->formula);
}

static int overflow(struct fparse *fp)
{
    return fp_fail(fp, "a factor is too large");
}

/* a += m * b */
static int lin_add(struct fparse *fp, struct lin *a, const struct lin *b, int64_t m)
{
    int64_t t;
    if (__builtin_mul_overflow(b->c, m, &t) || __builtin_add_overflow(a->c, t, &a->c))
        return overflow(fp);
    for (size_t i = 0; i < fp->nf; i++)
        if (__builtin_mul_overflow(b->f[i], m, &t) || __builtin_add_overflow(a->f[i], t, &a->f[i]))
            return overflow(fp);
    a->has |= b->has;
    return 0;
}

static void skip_space(struct fparse *fp)
{
    while (*fp->p == ' ' || *fp->p == '\t')
        fp->p++;
}

static int is_op(char c)
{
    return c == '+' || c == '-' || c == '*' || c == '(' || c == ')' || c == ' ' || c == '\t' ||
           c == '\0' || c == '\r';
}

/*
 * The length of the event name at s: the longest name of the set that s
 * starts with and that an operator or the end follows (so `Time_(10ns)`,
 * `L1-miss` and `1stLevel` work: known_len()), else the run of characters
 * up to an operator.
 */
static size_t known_len(const struct eventset *es, const char *s)
{
    size_t best = 0;
    if (es) {
        for (size_t i = 0; i < es->n + es->nderived; i++) {
            const char *nm = i < es->n ? es->names[i] : es->derived[i - es->n].name;
            size_t l = strlen(nm);
            if (l > best && !strncmp(s, nm, l) && is_op(s[l]) && strspn(nm, "0123456789") < l)
                best = l; /* (a name of digits alone is read as the number) */
        }
    }
    return best;
}

static size_t name_len(const struct eventset *es, const char *s)
{
    size_t best = known_len(es, s);
    if (best) return best;
    while (!is_op(s[best]))
        best++;
    return best;
}

static int parse_text(struct fparse *fp, const char *text, struct lin *out);

/* The value of the event `name` (len bytes) as a form. */
static int resolve(struct fparse *fp, const char *name, size_t len, struct lin *out)
{
    const struct eventset *es = fp->es;
    if (!es) {
        out->f[0] = 1;
        out->has = 1;
        return 0;
    }
    for (size_t i = 0; i < es->n; i++)
        if (strlen(es->names[i]) == len && !memcmp(es->names[i], name, len)) {
            out->f[i] = 1;
            out->has = 1;
            fp->known++;
            return 0;
        }
    const char *sub = NULL;
    int sub_lenient = 0;
    for (size_t i = 0; i < es->nderived && !sub; i++)
        if (strlen(es->derived[i].name) == len && !memcmp(es->derived[i].name, name, len))
            sub = es->derived[i].formula;
    int b = sub ? -1 : builtin_index(name, len);
    if (b >= 0) {
        sub = builtins[b].formula;
        sub_lenient = 1;
    }
    if (!sub) {
        if (fp->lenient) {
            if (fp->absent) {
                char *nm = xstrndup(name, len);
                size_t k = 0;
                while (k < fp->absent->n && strcmp(fp->absent->items[k], nm))
                    k++;
                if (k == fp->absent->n) strlist_push(fp->absent, nm);
                free(nm);
            }
            return 0;
        }
        if (strlen(fp->what) == len && !memcmp(fp->what, name, len))
            return tally_error_set(fp->err, NULL, 0, "event '%s' is defined in terms of itself",
                                   fp->what);
        char *all = eventset_join_brief(es);
        tally_error_set(fp->err, NULL, 0, "event '%s': no event '%.*s' (the profile has: %s)",
                        fp->what, (int)len, name, all);
        free(all);
        return -1;
    }
    if (fp->depth > (int)(es->nderived + NBUILTINS))
        return tally_error_set(fp->err, NULL, 0, "event '%s' is defined in terms of itself",
                               fp->what);
    struct fparse in = *fp;
    in.depth++;
    in.lenient = fp->lenient || sub_lenient;
    in.known = 0;
    int rc = parse_text(&in, sub, out);
    fp->known += in.known;
    if (!rc && sub_lenient && !in.known && !fp->lenient) {
        /* a built-in none of whose events the profile has */
        char *all = eventset_join_brief(es);
        tally_error_set(fp->err, NULL, 0,
                        "event '%s': the profile has none of the events of '%.*s = %s' "
                        "(it has: %s)",
                        fp->what, (int)len, name, sub, all);
        free(all);
        return -1;
    }
    return rc;
}

static int parse_sum(struct fparse *fp, struct lin *out);

static int parse_primary(struct fparse *fp, struct lin *out)
{
    skip_space(fp);
    const char *s = fp->p;
    size_t known = known_len(fp->es, s); /* a name of the set first: `1stLevel`, `Time_(10ns)` */
    if (known) {
        fp->p += known;
        return resolve(fp, s, known, out);
    }
    if (*s == '(') {
        fp->p++;
        if (parse_sum(fp, out)) return -1;
        skip_space(fp);
        if (*fp->p != ')') return fp_fail(fp, "a '(' is not closed");
        fp->p++;
        return 0;
    }
    if (*s >= '0' && *s <= '9') {
        int64_t v = 0;
        while (*fp->p >= '0' && *fp->p <= '9') {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *fp->p - '0', &v))
                return overflow(fp);
            fp->p++;
        }
        if (*fp->p == '.' || *fp->p == 'e' || *fp->p == 'E')
            return fp_fail(fp, "factors are whole numbers");
        out->c = v;
        return 0;
    }
    size_t n = name_len(fp->es, s);
    if (!n) {
        if (!*s) return fp_fail(fp, "an event or a number is missing at the end");
        char why[64];
        snprintf(why, sizeof why, "an event or a number is missing before '%c'", *s);
        return fp_fail(fp, why);
    }
    fp->p += n;
    return resolve(fp, s, n, out);
}

static int parse_unary(struct fparse *fp, struct lin *out)
{
    skip_space(fp);
    if (*fp->p == '-' || *fp->p == '+') {
        int neg = *fp->p == '-';
        fp->p++;
        struct lin v;
        lin_init(fp, &v);
        int rc = parse_unary(fp, &v);
        if (!rc) rc = lin_add(fp, out, &v, neg ? -1 : 1);
        free(v.f);
        return rc;
    }
    return parse_primary(fp, out);
}

/* Does a factor start here (for products written `10 I1mr`, as callgrind files do)? */
static int starts_factor(const struct fparse *fp)
{
    char c = *fp->p;
    return c == '(' || (c && !is_op(c));
}

static int parse_product(struct fparse *fp, struct lin *out)
{
    if (parse_unary(fp, out)) return -1;
    for (;;) {
        skip_space(fp);
        if (*fp->p == '*')
            fp->p++;
        else if (!starts_factor(fp))
            return 0;
        struct lin r;
        lin_init(fp, &r);
        int rc = parse_unary(fp, &r);
        if (!rc && out->has && r.has)
            rc = fp_fail(fp, "a product of two events is no cost (costs add up only in sums "
                             "of N*EVENT)");
        if (!rc) {
            /* one side is a number: scale the other by it */
            struct lin *num = out->has ? &r : out, *ev = out->has ? out : &r;
            struct lin prod;
            lin_init(fp, &prod);
            rc = lin_add(fp, &prod, ev, num->c);
            if (!rc) {
                free(out->f);
                *out = prod;
            } else {
                free(prod.f);
            }
        }
        free(r.f);
        if (rc) return -1;
    }
}

static int parse_sum(struct fparse *fp, struct lin *out)
{
    if (parse_product(fp, out)) return -1;
    for (;;) {
        skip_space(fp);
        if (*fp->p != '+' && *fp->p != '-') return 0;
        int64_t m = *fp->p == '-' ? -1 : 1;
        fp->p++;
        struct lin r;
        lin_init(fp, &r);
        int rc = parse_product(fp, &r);
        if (!rc) rc = lin_add(fp, out, &r, m);
        free(r.f);
        if (rc) return -1;
    }
}

static int parse_text(struct fparse *fp, const char *text, struct lin *out)
{
    const char *save_p = fp->p, *save_f = fp->formula;
    fp->p = text;
    fp->formula = text;
    int rc = parse_sum(fp, out);
    if (!rc) {
        skip_space(fp);
        while (*fp->p == '\r')
            fp->p++;
        if (*fp->p == ')')
            rc = fp_fail(fp, "a ')' has no '('");
        else if (*fp->p)
            rc = fp_fail(fp, "an operator is missing");
        else if (out->c)
            rc = fp_fail(fp, "a number alone is no cost (multiply an event by it)");
    }
    fp->p = save_p;
    fp->formula = save_f;
    return rc;
}

/* The form of `formula` as an expression of es's base events. */
static int formula_expr(const struct eventset *es, const char *what, const char *formula,
                        int lenient, struct strlist *absent, struct event_expr *out, size_t *known,
                        struct tally_error *err)
{
    struct fparse fp = {.es = es,
                        .nf = es ? es->n : 1,
                        .what = what,
                        .lenient = lenient,
                        .absent = absent,
                        .err = err};
    struct lin l;
    lin_init(&fp, &l);
    memset(out, 0, sizeof(*out));
    int rc = parse_text(&fp, formula, &l);
    if (!rc && es) {
        out->terms = xcalloc(es->n ? es->n : 1, sizeof(*out->terms));
        for (size_t i = 0; i < es->n; i++)
            if (l.f[i]) {
                out->terms[out->nterms].factor = l.f[i];
                out->terms[out->nterms].event = i;
                out->nterms++;
            }
    }
    if (known) *known = fp.known;
    free(l.f);
    return rc;
}

int eventset_formula_expr(const struct eventset *es, const char *name, const char *formula,
                          struct event_expr *out, struct tally_error *err)
{
    return formula_expr(es, name, formula, 0, NULL, out, NULL, err);
}

int eventset_builtin_expr(const struct eventset *es, const char *name, struct event_expr *out,
                          struct strlist *absent)
{
    memset(out, 0, sizeof(*out));
    int b = builtin_index(name, strlen(name));
    if (b < 0) return -1;
    struct tally_error err;
    size_t known = 0;
    struct strlist miss = {0};
    int rc = formula_expr(es, name, builtins[b].formula, 1, &miss, out, &known, &err);
    if (rc || !known) {
        event_expr_release(out);
        strlist_release(&miss);
        return -1;
    }
    if (absent) strlist_append(absent, &miss);
    strlist_release(&miss);
    return 0;
}

/* Split "NAME=FORMULA": the name's bounds and the formula's start, or -1. */
static int split_definition(const char *text, size_t *nb, size_t *ne, const char **formula)
{
    const char *eq = strchr(text, '=');
    if (!eq) return -1;
    size_t b = 0, e = (size_t)(eq - text);
    while (b < e && (text[b] == ' ' || text[b] == '\t'))
        b++;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t'))
        e--;
    if (b == e) return -1;
    for (size_t i = b; i < e; i++)
        if (is_op(text[i]) || text[i] == ':' || text[i] == ',') return -1;
    if (strspn(text + b, "0123456789") >= e - b) return -1; /* a number is no name */
    *nb = b;
    *ne = e;
    *formula = eq + 1;
    return 0;
}

int event_definition_check(const char *text, struct tally_error *err)
{
    size_t nb, ne;
    const char *f;
    if (split_definition(text, &nb, &ne, &f))
        return tally_error_set(err, NULL, 0,
                               "'%s' is no definition: write NAME=FORMULA, a sum of "
                               "[N*]EVENT terms (e.g. 'Cyc=Ir+10*I1mr+100*ILmr')",
                               text);
    while (*f == ' ' || *f == '\t')
        f++;
    if (!*f)
        return tally_error_set(err, NULL, 0, "event '%.*s': the formula is empty", (int)(ne - nb),
                               text + nb);
    return 0;
}

int event_definition_name(const char *text, char **name)
{
    size_t nb, ne;
    const char *f;
    if (split_definition(text, &nb, &ne, &f)) return -1;
    *name = xstrndup(text + nb, ne - nb);
    return 0;
}

int eventset_add_definition(struct eventset *es, const char *text, struct tally_error *err)
{
    size_t nb, ne;
    const char *f;
    if (event_definition_check(text, err)) return -1;
    split_definition(text, &nb, &ne, &f);
    char *name = xstrndup(text + nb, ne - nb);
    int clash = eventset_index(es, name) >= 0;
    for (size_t i = 0; i < es->nderived && !clash; i++)
        clash = !strcmp(es->derived[i].name, name);
    if (clash) {
        tally_error_set(err, NULL, 0, "event '%s' is already an event of the profile", name);
        free(name);
        return -1;
    }
    struct event_expr e;
    if (formula_expr(es, name, f, 0, NULL, &e, NULL, err)) {
        free(name);
        return -1;
    }
    while (*f == ' ' || *f == '\t')
        f++;
    size_t fl = strlen(f);
    while (fl && (f[fl - 1] == ' ' || f[fl - 1] == '\t'))
        fl--;
    es->derived = xgrow(es->derived, &es->derived_cap, es->nderived + 1, sizeof(*es->derived));
    struct derived_event *d = &es->derived[es->nderived++];
    memset(d, 0, sizeof(*d));
    d->name = name;
    d->formula = xstrndup(f, fl);
    d->expr = e;
    return 0;
}
