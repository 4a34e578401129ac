/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inclusive.h - inclusive costs of the nodes of a call graph: the cost
 * spent while a node is on the stack, counted once, also under recursion.
 *
 * The graph: `nnodes` nodes (functions) with a self cost each, and arcs
 * (caller -> callee) carrying the inclusive cost of those calls as the
 * profiler measured it. Costs are vectors of `ncols` int64 values.
 *
 * The rule (see docs/internals/annotate.md):
 *   - the strongly connected components are found with an iterative
 *     Tarjan walk (no recursion, so deep graphs cannot overflow the stack);
 *   - a node outside any recursion gets callgrind_annotate's value: the sum
 *     of the costs of the calls into it if anything calls it, else its self
 *     cost plus the costs of the calls it makes;
 *   - a node whose component is itself with a self-call: the same, but
 *     ignoring the self-calls (they are already inside the outer call);
 *   - a component of several nodes is a cycle (KCachegrind's `<cycle N>`):
 *     the cycle's inclusive cost is the sum of the calls entering it from
 *     outside, or when nothing outside calls it, the members' self costs
 *     plus the calls leaving it;
 *   - a member's: the sum of the calls into it (from inside its cycle too),
 *     at most the cycle's. With `outermost` arcs (a call into a node
 *     already on the stack carries no cost: tally record's) that is exact.
 *     With nested arcs (Callgrind's) it is an estimate from above (nested
 *     calls only count the same time again), kept at least at what is
 *     sure: its calls from outside the cycle, its self cost plus its calls
 *     out of the cycle;
 *   - in a cycle nothing outside calls, the member whose own cost (self
 *     plus calls out of the cycle) most exceeds its calls in (by the first
 *     column) is taken to be at the bottom of the stack: it gets the
 *     cycle's cost (an estimate).
 * Calls into a non-recursive node (or into a cycle from outside) never
 * nest, so with consistent input no inclusive cost exceeds the total.
 *
 * Cycles are numbered 1.. in the order of their smallest member node.
 * Each cost may come with a "defined" count (how many leading base events
 * were recorded, see funcs.h); the result's is the largest of the costs
 * that were summed.
 */
#ifndef TALLY_INCLUSIVE_H
#define TALLY_INCLUSIVE_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/eventset.h"

struct incl_graph {
    size_t nnodes, ncols;
    const tally_wide *self;    /* [nnodes * ncols] */
    const uint32_t *self_ndef; /* [nnodes] or NULL */
    size_t narcs;
    const uint32_t *from, *to; /* [narcs] node indices */
    const tally_wide *cost;    /* [narcs * ncols] */
    const uint32_t *arc_ndef;  /* [narcs] or NULL */
    /* the arcs count only the outermost call of each recursion (a call of
     * a function already on the stack adds no cost): then every inclusive
     * cost is exact */
    int outermost;
    /* [nnodes] or NULL: the calls into these nodes never nest (see
     * incl_level_flags()), as if `outermost` held for them */
    const unsigned char *outer_in;
    /* [cycles] or NULL: the member at the bottom of each cycle nothing
     * outside calls, as incl_result.bottom gave it for this graph with
     * other columns (the costs of another event): the choice by the first
     * column of that computation holds for every event */
    const uint32_t *bottom;
};

struct incl_result {
    size_t nnodes, ncols, ncycles;
    uint32_t *cycle;         /* [nnodes]: 0, or the node's 1-based cycle number */
    tally_wide *incl;        /* [nnodes * ncols] */
    uint32_t *ndef;          /* [nnodes] */
    tally_wide *cycle_incl;  /* [ncycles * ncols] */
    tally_wide *cycle_self;  /* [ncycles * ncols]: the members' self costs summed */
    uint32_t *cycle_ndef;    /* [ncycles] */
    size_t *cycle_start;     /* [ncycles + 1]: members of cycle c (0-based) are */
    uint32_t *members;       /*   members[cycle_start[c] .. cycle_start[c + 1]) ascending */
    char *cycle_root;        /* [ncycles]: nothing outside the cycle calls it */
    uint32_t *bottom;        /* [ncycles]: the member taken to be at the bottom of such a cycle,
                                UINT32_MAX for a cycle something outside calls */
    unsigned char *outer_in; /* [nnodes]: the calls into it never nest */
};

/* Whether node v's inclusive cost is an estimate: it is in a cycle, and
 * the arcs add up nested calls or nothing outside calls the cycle (see
 * the rule above). */
static inline int incl_estimated(const struct incl_result *r, size_t v)
{
    return r->cycle[v] != 0 && (!r->outer_in[v] || r->cycle_root[r->cycle[v] - 1]);
}

/*
 * Callgrind's recursion levels. With --separate-recs=N (Callgrind's
 * default is 2) a call of a function already active at levels 1..k-1 is
 * made to NAME'k (k <= N; the deepest level takes every deeper call), so
 * NAME and NAME'k below the deepest level seen are never entered while
 * they are active: the calls into them never nest. Given the nodes'
 * names, returns [n] flags (malloc'd) that are 1 for those nodes: a name
 * NAME or NAME'k (k >= 2, digits only) for which NAME'j with j > k exists.
 */
unsigned char *incl_level_flags(const char *const *names, size_t n);

struct fgraph;
struct profile;
struct part;
/*
 * incl_compute() of the function graph fg (fgraph.h) of part pt of p: the
 * part's outermost marker (part_calls_outermost()) and, without it,
 * Callgrind's levels found by the nodes' function names.
 */
int incl_compute_fgraph(const struct fgraph *fg, const struct profile *p, const struct part *pt,
                        struct incl_result *r, struct tally_error *err);
/* Its two steps, for a caller that computes several graphs of the same
 * nodes (one event at a time): the flags it gives incl_compute() (NULL
 * when the part marks its arcs outermost; malloc'd), and the computation
 * with them. */
unsigned char *incl_fgraph_levels(const struct fgraph *fg, const struct profile *p,
                                  const struct part *pt);
int incl_compute_fgraph_with(const struct fgraph *fg, const struct part *pt,
                             const unsigned char *levels, const uint32_t *bottom,
                             struct incl_result *r, struct tally_error *err);

/* Compute everything. Returns 0, or -1 with err when a sum overflows. */
int incl_compute(const struct incl_graph *g, struct incl_result *r, struct tally_error *err);
void incl_result_release(struct incl_result *r);

#endif
