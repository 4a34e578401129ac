/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_fnpat.c - the function patterns of the options that name functions
 * (--toggle-collect, and the kinds in tl_global.h's FNP_ list for the
 * others), as Callgrind reads them: the whole name must match, `*` stands
 * for any run of characters (none included), `?` for exactly one. Names
 * are the ones written in the file (demangled C++ with its parameters,
 * `0x...` for code without a symbol), as Callgrind matches them.
 *
 * Each function name is decided once, when the first line of code of that
 * function is found at translation (get_linecc): the verdicts go into the
 * interned name's `fnf` bits, so the run-time test is one flag test. A
 * pattern remembers how many functions it matched; at exit a pattern that
 * matched none is reported (not with -q).
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "tl_global.h"

typedef struct fnpat {
    struct fnpat *next;
    UInt kind;       /* FNP_... */
    const HChar *opt; /* the option's name, for the message */
    HChar *pat;
    UInt matched; /* functions whose name matched */
} fnpat;

static fnpat *pats, **pats_end = &pats;
static UInt kinds_given; /* FNF(kind) bits of the kinds given */

/* Does `s` match the pattern `p` as a whole? After a `*`, a mismatch
 * resumes one character further into `s` than the last try: linear in
 * practice, never worse than |p| * |s|. */
Bool fnpat_match(const HChar *p, const HChar *s)
{
    const HChar *star = NULL, *retry = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            retry = s;
        } else if (*p && (*p == '?' || *p == *s)) {
            p++;
            s++;
        } else if (star) {
            p = star;
            s = ++retry;
        } else {
            return False;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

void fnpat_add(UInt kind, const HChar *opt, const HChar *pattern)
{
    tl_assert(kind < N_FNP);
    fnpat *f = VG_(malloc)("tl.fnpat", sizeof *f);
    f->next = NULL;
    f->kind = kind;
    f->opt = opt;
    f->pat = VG_(strdup)("tl.fnpat", pattern);
    f->matched = 0;
    *pats_end = f;
    pats_end = &f->next;
    kinds_given |= FNF(kind);
}

Bool fnpat_given(UInt kind)
{
    return (kinds_given & FNF(kind)) != 0;
}

void fnpat_decide(istr *fn)
{
    UChar v = FNF_DECIDED;
    for (fnpat *f = pats; f; f = f->next) {
        if (!fnpat_match(f->pat, fn->s)) continue;
        f->matched++;
        v |= (UChar)FNF(f->kind);
    }
    fn->fnf = v;
}

void fnpat_report(void)
{
    if (VG_(clo_verbosity) == 0) return; /* -q */
    for (fnpat *f = pats; f; f = f->next)
        if (!f->matched)
            VG_(umsg)("tally: warning: %s=%s matched no function that ran\n", f->opt, f->pat);
}
