/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_switch.c - switches between stacks (swapcontext into a coroutine,
 * Go's gogo and mcall) for the call tracking of tl_main.c.
 *
 * The stack-pointer rule (a frame whose stack pointer is below the current
 * one has returned) reads a switch to a stack at higher addresses than
 * every frame of the thread as a return from all of them. Callgrind 3.19
 * does so too (its unwind_call_stack pops every frame whose SP is below
 * the new one; a switch is only recognised when a `ret` pops nothing, a
 * switch to a stack below). tally tells the two apart: a return, a
 * longjmp or an unwinding lands at most a few words above the thread's
 * outermost frame of the current stack; a transition that lands more
 * than SW_GAP bytes above it has switched stacks. Then a *switch mark*
 * (a skipped frame: no arc, its code the caller's) keeps the frames of the
 * stack left, with the range of stack pointers they were at, and the code
 * it lands in is called from the switch's site (`swapcontext ->
 * coroutine`). The mark and the call frame above it have the stack
 * pointer ~0, so nothing on the new stack pops them; a transition that
 * lands back in the range of a mark's stack (the `ret` of the
 * swapcontext that left it, or Go's mcall calling onto g0) pops
 * everything down to and with the mark, and the stack-pointer rule goes
 * on from there among the frames it kept.
 *
 * Go's runtime.systemstack (and runtime.asmcgocall, for C code) call a
 * function on the thread's system stack (g0) and then come back to the
 * goroutine's stack and return. When g0 lies above the goroutine's stack,
 * the stack-pointer rule would close the goroutine's frames at that call,
 * systemstack's among them, and its callee would be charged to an arc out
 * of a function no longer on the stack. Such a call (the function is
 * known by its name, FNF_SWCALL) is a *visit*: a switch mark keeps the
 * goroutine's frames, the callee is pushed with its real stack pointer
 * (its return pops it as usual), and only the return to the goroutine's
 * stack ends the visit; marks below it are not looked at meanwhile (the
 * function systemstack runs may not switch goroutines). runtime.mcall and
 * runtime.morestack, which leave the goroutine for the scheduler, are not
 * visits: the goroutine comes back later by a jump (gogo), perhaps on
 * another thread, perhaps on a stack that grew. Its frames close when
 * its stack is left, and are *parked*: kept aside under the stack pointer
 * the goroutine resumes at (mcall keeps its caller's: the innermost
 * frame's plus the return address). A jump that lands at that stack
 * pointer, in the function that called the innermost frame, resumes them
 * (resume_frames) above a switch mark, as the first switch into that
 * stack had them; without that, each of the goroutine's returns would
 * call the code it lands in (main.main -> runtime.main). A goroutine whose
 * stack grew (runtime.morestack: the runtime copies the stack and jumps
 * back at once, on the same thread, to the start of the function that
 * asked) comes back at another stack pointer: the thread's last frames
 * parked in morestack resume at the first jump into that function, their
 * stack pointers moved by the same distance.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "tl_global.h"

#include "rms.h" /* rms_on */

/* Leave the stack the thread is on (for one more than SW_GAP above it, or
 * by a visit): push the mark (the caller pushes the call) */
void sw_mark(thread *t, Addr sp, Bool visit)
{
    Addr lo = t->stack[t->depth - 1].sp, hi = lo;
    if (visit) {
        /* the frames on the stack left: down from the innermost while
         * they lie within SW_GAP of each other (below them may be frames
         * of the very stack the visit goes to, left by a jump down) */
        for (UInt d = t->depth - 1; d-- > t->sw_base && t->stack[d].sp >= hi &&
                                    t->stack[d].sp - hi <= SW_GAP;)
            hi = t->stack[d].sp;
    } else {
        for (UInt d = t->sw_base; d < t->depth; d++)
            if (t->stack[d].sp > hi) hi = t->stack[d].sp;
    }
    linecc *o = (linecc *)frame_owner(t);
    const frame *top = &t->stack[t->depth - 1];
    cct_node *node = top->node;
    fnact *base = top->base;
    frame *m = push_frame(t);
    m->skip = True;
    m->sw = True;
    m->sw_visit = visit;
    m->owner = o;
    m->base = base;
    m->node = node;
    m->sp = ~(Addr)0;
    m->alt_lo = lo;
    m->alt_hi = hi + SW_GAP;
    m->sw_prev = t->sw_base;
    m->sw_seg = t->seg_sp;
    t->sw_base = t->depth;
    t->seg_sp = sp;
    t->n_sw++;
}

/* Parked frames, by the stack pointer they resume at. */
typedef struct parked {
    struct parked *next;
    Addr key;
    UInt n;
    frame f[];
} parked;
#define PARK_SLOTS 1024
#define PARK_MAX (1u << 20)
static parked *park_slot[PARK_SLOTS];
UInt sw_n_parked;

static parked **park_chain(Addr key)
{
    return &park_slot[(key >> 4) & (PARK_SLOTS - 1)];
}

static parked **park_find(Addr key)
{
    parked **p = park_chain(key);
    while (*p && (*p)->key != key)
        p = &(*p)->next;
    return p;
}

/* By thread: the frames it parked last when they were left in
 * runtime.morestack (NULL: none, or they came back). */
static parked **grown;
static UInt n_grown;

static Bool is_morestack(const frame *f)
{
    return VG_(strncmp)(f->base->fn->s, "runtime.morestack", 17) == 0;
}

static void park_drop(parked *k)
{
    parked **p = park_find(k->key);
    while (*p && *p != k)
        p = &(*p)->next;
    if (*p) *p = k->next;
    for (UInt i = 0; i < n_grown; i++)
        if (grown[i] == k) grown[i] = NULL;
    sw_n_parked--;
}

/* The frames above the mark at index b-1 are about to close: keep them
 * when they are plain calls (a goroutine's; not with the options whose
 * state follows every call and return: --input-sensitive, the
 * --separate-* names, --toggle-collect, the dump hooks, and --contexts
 * with --separate-threads, whose trees are per thread). */
static void park(thread *t, UInt b)
{
    UInt n = t->depth - b;
    if (n < 2 || rms_on || sep_on || (clo_contexts && clo_separate)) return;
    for (UInt d = b; d < t->depth; d++) {
        const frame *f = &t->stack[d];
        if (f->sig || f->skip || f->sw || f->toggle || !f->a || f->base->hooks) return;
    }
    /* only a goroutine's, left by Go's runtime.mcall or runtime.morestack*
     * (FNF_SWLEAVE; other switches come back by a return, which calls the
     * code it lands in, as in Callgrind); at most PARK_MAX stacks wait at
     * once */
    const frame *top = &t->stack[t->depth - 1];
    if (top->sp == ~(Addr)0 || sw_n_parked >= PARK_MAX || !(top->base->fn->fnf & FNF_SWLEAVE))
        return;
    Addr key = top->sp + sizeof(Addr);
    parked **p = park_find(key);
    if (*p) { /* a stack left before at the same place that never came back */
        parked *old = *p;
        park_drop(old);
        VG_(free)(old);
    }
    parked *k = VG_(malloc)("tl.parked", sizeof *k + n * sizeof k->f[0]);
    k->key = key;
    k->n = n;
    VG_(memcpy)(k->f, &t->stack[b], n * sizeof k->f[0]);
    k->next = *park_chain(key);
    *park_chain(key) = k;
    sw_n_parked++;
    grown = grow_by_tid(grown, &n_grown, t->tid, "tl.grown");
    grown[t->tid] = is_morestack(top) ? k : NULL;
}

/* A jump lands at `sp` in block sb: when frames were parked there and the
 * block is in the function that called the innermost of them, put them
 * back above a switch mark that keeps the frames of the stack left. */
Bool sw_resume(thread *t, const sbinfo *sb, Addr sp)
{
    if (t->depth == 0) return False;
    const istr *fn = sb->first->line->fn;
    parked *k = *park_find(sp);
    if (!k || k->f[k->n - 1].site->line->fn != fn) {
        /* the stack grew: the function that asked goes on, elsewhere */
        k = t->tid < n_grown ? grown[t->tid] : NULL;
        if (!k) return False;
        UInt c = k->n - 1; /* the morestack frames' caller (morestack_noctxt calls morestack) */
        while (c > 0 && is_morestack(&k->f[c - 1]))
            c--;
        if (k->f[c].site->line->fn != fn) return False;
        Addr delta = sp - k->key; /* (modulo 2^64: the new stack may lie below) */
        for (UInt i = 0; i < k->n; i++)
            if (k->f[i].sp != ~(Addr)0) k->f[i].sp += delta;
    }
    park_drop(k);
    sw_mark(t, sp, False);
    resume_frames(t, k->f, k->n);
    VG_(free)(k);
    return True;
}

/* A transition to `sp`: when it lands in the range of the stack a mark
 * left, pop everything down to and with that mark and say so. */
Bool sw_back(thread *t, Addr sp)
{
    for (UInt b = t->sw_base; b > 0; b = t->stack[b - 1].sw_prev) {
        const frame *m = &t->stack[b - 1];
        if (sp < m->alt_lo || sp > m->alt_hi) {
            if (m->sw_visit) break;
            continue;
        }
        park(t, b);
        while (t->depth >= b)
            pop_call(t);
        return True;
    }
    return False;
}

/* Go's runtime functions that switch stacks, by their symbols' names (the
 * ABI0 symbols carry the suffix ".abi0"): those that visit the system stack
 * (FNF_SWCALL) and those that leave the goroutine for it (FNF_SWLEAVE,
 * park). */
UChar sw_name_flags(const HChar *name)
{
    static const HChar *const visits[] = {"runtime.systemstack", "runtime.systemstack.abi0",
                                          "runtime.asmcgocall", "runtime.asmcgocall.abi0"};
    if (name[0] != 'r') return 0;
    for (UInt k = 0; k < sizeof visits / sizeof visits[0]; k++)
        if (VG_(strcmp)(name, visits[k]) == 0) return FNF_SWCALL;
    if (VG_(strcmp)(name, "runtime.mcall") == 0 || VG_(strcmp)(name, "runtime.mcall.abi0") == 0 ||
        VG_(strncmp)(name, "runtime.morestack", 17) == 0)
        return FNF_SWLEAVE;
    return 0;
}

/* A call from `site` lands at `sp`: when it is a visit to another stack
 * (the site is in a visiting function whose frame is the innermost, and
 * the call's stack pointer is more than SW_GAP from that frame's), push
 * the mark and say so; the caller pushes the call. */
Bool sw_visit_call(thread *t, const instrcc *site, Addr sp)
{
    if (t->depth == 0 || !(site->line->fn->fnf & FNF_SWCALL)) return False;
    const frame *top = &t->stack[t->depth - 1];
    if (top->sig || top->skip || !top->owner || top->owner->fn != site->line->fn) return False;
    Addr d = sp > top->sp ? sp - top->sp : top->sp - sp;
    if (d <= SW_GAP) return False;
    sw_mark(t, sp, True);
    return True;
}

/* pop_call popped a switch mark */
void sw_popped(thread *t, const frame *m)
{
    t->n_sw--;
    t->sw_base = m->sw_prev;
    t->seg_sp = m->sw_seg;
}
