/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rename.c - `s/REGEX/REPL/FLAGS` name rewriting with PCRE2.
 *
 * The expression is split by hand (so that `\/` can stand for a slash),
 * the replacement is translated to PCRE2's extended substitution syntax
 * (`\N` becomes `${N}`), and both are checked at compile time so that
 * applying a rename to a name can only fail on a resource limit.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rename.h"

#include <pcre2.h>
#include "regex.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/bytebuf.h"

/* Enough for any sane REGEX; a runaway backtracking one fails instead of hanging. */
#define RENAME_MATCH_LIMIT 10000000u
#define RENAME_DEPTH_LIMIT 100000u

struct rename {
    char *expr; /* as given */
    char *repl; /* translated replacement (PCRE2 extended syntax) */
    size_t repl_len;
    uint32_t options; /* PCRE2_SUBSTITUTE_* */
    pcre2_code *code;
    pcre2_match_context *mctx;
};

static int fail(struct tally_error *err, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct tally_error *err, const char *expr, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return tally_error_set(err, NULL, 0, "bad substitution '%s': %s", expr, what);
}

/*
 * Copy one slash-terminated field starting at *pp into b, turning `\/`
 * into `/` and keeping every other backslash pair as it is. Returns 0 and
 * leaves *pp after the closing slash, or -1 when there is none.
 */
static int take_field(const char **pp, struct bytebuf *b)
{
    const char *p = *pp;
    bytebuf_add(b, "", 0);
    for (;;) {
        if (*p == '\0') return -1;
        if (*p == '/') {
            *pp = p + 1;
            return 0;
        }
        if (*p == '\\' && p[1] == '/') {
            bytebuf_addc(b, '/');
            p += 2;
        } else if (*p == '\\' && p[1] != '\0') {
            bytebuf_add(b, p, 2);
            p += 2;
        } else {
            bytebuf_addc(b, *p++);
        }
    }
}

/*
 * Translate the replacement to PCRE2 extended syntax and find the highest
 * numbered group it refers to.
 */
static void translate_repl(const char *s, size_t n, struct bytebuf *out, unsigned long *maxgroup)
{
    *maxgroup = 0;
    bytebuf_add(out, "", 0);
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\\' && i + 1 < n && s[i + 1] >= '1' && s[i + 1] <= '9') {
            char ref[8];
            snprintf(ref, sizeof(ref), "${%c}", s[i + 1]);
            bytebuf_add(out, ref, strlen(ref));
            if ((unsigned long)(s[i + 1] - '0') > *maxgroup)
                *maxgroup = (unsigned long)(s[i + 1] - '0');
            i += 2;
        } else if (c == '\\' && i + 1 < n) {
            bytebuf_add(out, s + i, 2);
            i += 2;
        } else if (c == '$' && i + 1 < n && s[i + 1] == '$') {
            bytebuf_add(out, "$$", 2);
            i += 2;
        } else if (c == '$') {
            /* $N or ${N}: note N; anything else is left to PCRE2 */
            size_t j = i + 1, brace = j < n && s[j] == '{';
            j += brace;
            unsigned long g = 0;
            size_t d = j;
            while (d < n && s[d] >= '0' && s[d] <= '9' && g < 100000)
                g = g * 10 + (unsigned long)(s[d++] - '0');
            if (d > j && (!brace || (d < n && s[d] == '}')) && g > *maxgroup) *maxgroup = g;
            bytebuf_addc(out, c);
            i++;
        } else {
            bytebuf_addc(out, c);
            i++;
        }
    }
}

/* Run the replacement once against an empty match to catch syntax errors. */
static int check_repl(const struct rename *r, struct tally_error *err)
{
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *empty = pcre2_compile((PCRE2_SPTR) "", 0, 0, &ec, &eo, NULL);
    if (!empty) return tally_error_set(err, NULL, 0, "PCRE2 cannot compile an empty pattern");
    char out[256];
    PCRE2_SIZE outlen = sizeof(out);
    int rc = pcre2_substitute(
        empty, (PCRE2_SPTR) "", 0, 0,
        r->options | PCRE2_SUBSTITUTE_UNKNOWN_UNSET | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, NULL, NULL,
        (PCRE2_SPTR)r->repl, r->repl_len, (PCRE2_UCHAR *)out, &outlen);
    pcre2_code_free(empty);
    if (rc >= 0 || rc == PCRE2_ERROR_NOMEMORY) return 0;
    char msg[256];
    regex_message(rc, msg, sizeof(msg));
    return fail(err, r->expr, "bad replacement: %s", msg);
}

struct rename *rename_compile(const char *expr, struct tally_error *err)
{
    if (!expr || expr[0] != 's' || expr[1] != '/') {
        fail(err, expr ? expr : "", "%s", "expected the form s/REGEX/REPLACEMENT/[g][i]");
        return NULL;
    }
    const char *p = expr + 2;
    struct bytebuf regex = {0}, repl = {0};
    struct rename *r = xcalloc(1, sizeof(*r));
    r->expr = xstrdup(expr);
    if (take_field(&p, &regex)) {
        fail(err, expr, "%s", "no closing '/' after REGEX (write \\/ for a slash)");
        goto bad;
    }
    if (take_field(&p, &repl)) {
        fail(err, expr, "%s", "no closing '/' after the replacement (write \\/ for a slash)");
        goto bad;
    }
    uint32_t copt = 0;
    r->options = PCRE2_SUBSTITUTE_EXTENDED | PCRE2_SUBSTITUTE_UNSET_EMPTY |
                 PCRE2_SUBSTITUTE_UNKNOWN_UNSET | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH;
    for (const char *f = p; *f; f++) {
        if (*f == 'g' && !(r->options & PCRE2_SUBSTITUTE_GLOBAL))
            r->options |= PCRE2_SUBSTITUTE_GLOBAL;
        else if (*f == 'i' && !(copt & PCRE2_CASELESS))
            copt |= PCRE2_CASELESS;
        else {
            fail(err, expr, "flags '%s' not understood (only g, i, or both)", p);
            goto bad;
        }
    }
    int ec;
    PCRE2_SIZE eo;
    r->code = pcre2_compile((PCRE2_SPTR)regex.s, regex.n, copt, &ec, &eo, NULL);
    if (!r->code) {
        char msg[256];
        regex_message(ec, msg, sizeof(msg));
        fail(err, expr, "bad regex: %s (at offset %zu of '%.100s')", msg, (size_t)eo, regex.s);
        goto bad;
    }
    uint32_t ngroups = 0;
    pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &ngroups);
    struct bytebuf tr = {0};
    unsigned long maxgroup;
    translate_repl(repl.s, repl.n, &tr, &maxgroup);
    r->repl = tr.s;
    r->repl_len = tr.n;
    if (maxgroup > ngroups) {
        fail(err, expr, "the replacement refers to group %lu, but the regex has %s%u", maxgroup,
             ngroups ? "only " : "", ngroups);
        goto bad;
    }
    if (check_repl(r, err)) goto bad;
    r->mctx = pcre2_match_context_create(NULL);
    if (!r->mctx) {
        tally_error_set(err, NULL, 0, "out of memory creating a PCRE2 match context");
        goto bad;
    }
    pcre2_set_match_limit(r->mctx, RENAME_MATCH_LIMIT);
    pcre2_set_depth_limit(r->mctx, RENAME_DEPTH_LIMIT);
    free(regex.s);
    free(repl.s);
    return r;
bad:
    free(regex.s);
    free(repl.s);
    rename_free(r);
    return NULL;
}

char *rename_apply(const struct rename *r, const char *name, struct tally_error *err)
{
    size_t len = strlen(name);
    PCRE2_SIZE cap = len * 2 + 64;
    for (int attempt = 0; attempt < 3; attempt++) {
        char *out = xmalloc(cap);
        PCRE2_SIZE outlen = cap;
        int rc = pcre2_substitute(r->code, (PCRE2_SPTR)name, len, 0, r->options, NULL, r->mctx,
                                  (PCRE2_SPTR)r->repl, r->repl_len, (PCRE2_UCHAR *)out, &outlen);
        if (rc >= 0) return out;
        free(out);
        if (rc == PCRE2_ERROR_NOMEMORY) {
            cap = outlen + 1; /* outlen is now the length needed */
            continue;
        }
        char msg[256];
        regex_message(rc, msg, sizeof(msg));
        tally_error_set(err, NULL, 0, "substitution '%s' failed on '%.200s': %s", r->expr, name,
                        msg);
        return NULL;
    }
    tally_error_set(err, NULL, 0, "substitution '%s' failed on '%.200s': result keeps growing",
                    r->expr, name);
    return NULL;
}

const char *rename_expr(const struct rename *r)
{
    return r->expr;
}

void rename_free(struct rename *r)
{
    if (!r) return;
    pcre2_code_free(r->code);
    pcre2_match_context_free(r->mctx);
    free(r->repl);
    free(r->expr);
    free(r);
}
