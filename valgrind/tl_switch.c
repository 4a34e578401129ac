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
 * visits: their goroutine's frames close (the goroutine comes back later
 * by a jump, perhaps on another thread, perhaps on a stack that grew).
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "tl_global.h"

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
        while (t->depth >= b)
            pop_call(t);
        return True;
    }
    return False;
}

/* The functions that visit the system stack, by their symbols' names
 * (Go's ABI0 symbols carry the suffix ".abi0"). */
UChar sw_name_flags(const HChar *name)
{
    static const HChar *const visits[] = {"runtime.systemstack", "runtime.systemstack.abi0",
                                          "runtime.asmcgocall", "runtime.asmcgocall.abi0"};
    if (name[0] != 'r') return 0;
    for (UInt k = 0; k < sizeof visits / sizeof visits[0]; k++)
        if (VG_(strcmp)(name, visits[k]) == 0) return FNF_SWCALL;
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
