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
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "tl_global.h"

/* Leave the stack the thread is on for one more than SW_GAP above it:
 * push the mark (the caller pushes the call) */
void sw_mark(thread *t, Addr sp)
{
    Addr lo = t->stack[t->depth - 1].sp, hi = lo;
    for (UInt d = t->sw_base; d < t->depth; d++)
        if (t->stack[d].sp > hi) hi = t->stack[d].sp;
    linecc *o = (linecc *)frame_owner(t);
    const frame *top = &t->stack[t->depth - 1];
    cct_node *node = top->node;
    fnact *base = top->base;
    frame *m = push_frame(t);
    m->skip = True;
    m->sw = True;
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
        if (sp < m->alt_lo || sp > m->alt_hi) continue;
        while (t->depth >= b)
            pop_call(t);
        return True;
    }
    return False;
}

/* pop_call popped a switch mark */
void sw_popped(thread *t, const frame *m)
{
    t->n_sw--;
    t->sw_base = m->sw_prev;
    t->seg_sp = m->sw_seg;
}
