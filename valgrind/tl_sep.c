/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_sep.c - Callgrind's options that change which calls are recorded and
 * under which names: --fn-skip, --skip-direct-rec, --separate-recs[N] and
 * --separate-callers[N] (and --skip-plt, whose only value tally has is
 * yes). tl_main.c's push_call asks sep_callee for the name a call gets.
 *
 * Names, as Callgrind 3.19 writes them: a function entered while K-1
 * activations of it are on the thread's stack is `fn'K` (K at most its
 * --separate-recs, default 1 in tally, 2 in Callgrind); with
 * --separate-callers=N it is followed by the names of up to N callers,
 * innermost first, each `'caller` (runs of one function, a direct
 * recursion, count as one caller; skipped functions are not callers).
 * With --skip-direct-rec=yes, a function that calls itself directly calls
 * the same name (no new level). Each such name is a function of its own
 * in the file: the code of fib that runs for fib'2 is fib'2's, and
 * "already on the stack" (the rule that only a recursion's outermost call
 * charges its arc) is asked of that name: fib'2 calling fib'2 adds no cost
 * to the inner arc, fib calling fib'2 does.
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

Bool sep_on;     /* names other than the function's own can be given */
Bool sep_skip_given; /* --fn-skip */
Bool clo_skip_plt = True; /* no: a PLT stub is a function "0x... [PLT]" */
static Long clo_recs = 1, clo_callers = 0;
static Bool clo_skip_direct = False; /* Callgrind 3.19's real default */

/* --separate-recs<N>=FUNC and --separate-callers<N>=FUNC, in order */
typedef struct sepfn {
    struct sepfn *next;
    Bool callers;
    UInt n;
    HChar *pat;
    UInt matched;
} sepfn;

static sepfn *sepfns, **sepfns_end = &sepfns;

/* "--separate-recs12=f*": N and the pattern; False when arg is not one */
static Bool per_fn_opt(const HChar *arg, const HChar *name, Bool callers)
{
    SizeT l = VG_(strlen)(name);
    if (VG_(strncmp)(arg, name, l) != 0) return False;
    const HChar *p = arg + l;
    if (*p < '0' || *p > '9') return False;
    UInt n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (UInt)(*p - '0');
        if (n > 1000) VG_(fmsg_bad_option)(arg, "at most 1000\n");
        p++;
    }
    if (*p != '=' || !p[1]) VG_(fmsg_bad_option)(arg, "it needs =FUNCTION\n");
    if (!callers && n < 1) VG_(fmsg_bad_option)(arg, "the level must be at least 1\n");
    sepfn *s = VG_(malloc)("tl.sepfn", sizeof *s);
    s->next = NULL;
    s->callers = callers;
    s->n = n;
    s->pat = VG_(strdup)("tl.sepfn", p + 1);
    s->matched = 0;
    *sepfns_end = s;
    sepfns_end = &s->next;
    sep_on = True;
    return True;
}

Bool sep_process_option(const HChar *arg)
{
    const HChar *s;
    if VG_STR_CLO (arg, "--fn-skip", s) {
        if (!*s) VG_(fmsg_bad_option)(arg, "it needs a function name\n");
        fnpat_add(FNP_SKIP, "--fn-skip", s);
        sep_skip_given = True;
    } else if VG_BOOL_CLO (arg, "--skip-plt", clo_skip_plt) {
    } else if VG_BOOL_CLO (arg, "--skip-direct-rec", clo_skip_direct) {
        sep_on = True;
    } else if VG_BINT_CLO (arg, "--separate-recs", clo_recs, 1, 1000) {
        sep_on = True;
    } else if VG_BINT_CLO (arg, "--separate-callers", clo_callers, 0, 1000) {
        sep_on = True;
    } else if (per_fn_opt(arg, "--separate-recs", False) ||
               per_fn_opt(arg, "--separate-callers", True)) {
    } else
        return False;
    return True;
}

void sep_print_usage(void)
{
    VG_(printf)
    ("    --fn-skip=<fn>            calls into functions matching <fn> are not recorded:\n"
     "                              their code is their caller's (repeatable)\n"
     "    --skip-plt=yes|no         calls through PLT stubs go to their target; no:\n"
     "                              a stub is a function 0x... [PLT] of its own [yes]\n"
     "    --skip-direct-rec=yes|no  a function calling itself directly keeps its\n"
     "                              name (no new --separate-recs level) [no]\n"
     "    --separate-recs=<n>       name recursion levels up to <n>: f'2, f'3 [1]\n"
     "    --separate-recs<n>=<fn>   the same for the functions matching <fn>\n"
     "    --separate-callers=<n>    name functions with <n> callers: f'caller [0]\n"
     "    --separate-callers<n>=<fn>  the same for the functions matching <fn>\n");
}

Bool sep_post_clo_init(void)
{
    /* the default names need nothing done per call */
    if (clo_recs == 1 && clo_callers == 0 && !clo_skip_direct && !sepfns) sep_on = False;
    return sep_on || sep_skip_given;
}

/* A function's levels and callers, decided once (the last matching
 * per-function option wins, else the global ones). */
static void decide(fnact *b)
{
    b->recs = (UShort)clo_recs;
    b->callers = (UShort)clo_callers;
    for (sepfn *s = sepfns; s; s = s->next) {
        if (!fnpat_match(s->pat, b->fn->s)) continue;
        s->matched++;
        if (s->callers)
            b->callers = (UShort)s->n;
        else
            b->recs = (UShort)s->n;
    }
    b->sep_decided = True;
}

static HChar name_buf[4096];
static SizeT name_len;

static void put(const HChar *s)
{
    while (*s && name_len + 1 < sizeof name_buf)
        name_buf[name_len++] = *s++;
    name_buf[name_len] = 0;
}

/* The instr a call into `callee` records as its target: callee itself, or
 * the same instruction of the function `fn'K'caller...`. `bdepth` is the
 * callee's function's depth on t's stack before this call; the frames
 * t->stack[0 .. t->depth-1] are the callers (the new frame is not pushed
 * yet). *level gets the call's recursion level. */
instrcc *sep_callee(thread *t, instrcc *callee, fnact *base, UInt bdepth, UInt *level)
{
    if (!base->sep_decided) decide(base);
    const frame *top = NULL;
    for (UInt d = t->depth; d > 0; d--)
        if (!t->stack[d - 1].skip) {
            top = &t->stack[d - 1];
            break;
        }
    if (clo_skip_direct && top && !top->sig && top->base == base) {
        *level = top->level;
        linecc *o = top->owner;
        return o == callee->line ? callee : get_instrcc(callee->addr, callee->len, callee->addr, o, True);
    }
    UInt k = bdepth + 1 < base->recs ? bdepth + 1 : base->recs;
    *level = k;
    if (k <= 1 && base->callers == 0) return callee;
    name_len = 0;
    put(base->fn->s);
    if (k > 1) {
        HChar num[16];
        VG_(sprintf)(num, "'%u", k);
        put(num);
    }
    istr *last = base->fn;
    UInt n = 0;
    for (UInt d = t->depth; d > 0 && n < base->callers; d--) {
        const frame *f = &t->stack[d - 1];
        if (f->sig) break;
        if (f->skip || f->base->fn == last) continue;
        last = f->base->fn;
        put("'");
        put(last->s);
        n++;
    }
    linecc *l = callee->line;
    linecc *o = get_linecc(l->file, intern(name_buf), l->obj, l->cgfn, l->line);
    return get_instrcc(callee->addr, callee->len, callee->addr, o, True);
}

void sep_report(void)
{
    if (VG_(clo_verbosity) == 0) return; /* -q */
    for (sepfn *s = sepfns; s; s = s->next)
        if (!s->matched)
            VG_(umsg)("tally: warning: --separate-%s%u=%s matched no function that was called\n",
                      s->callers ? "callers" : "recs", s->n, s->pat);
}
