/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgraph.h - the call graph of one part of a profile, one node per
 * function, for the pictures (`tally graph`, `tally report`).
 *
 * A node is a function of the model (object, file, name) that has a self
 * cost or takes part in a call arc. Its costs are summed over every cost
 * record of the part, per *column*: any list of event expressions (base or
 * derived events), as int64 values (signed profiles, i.e. diff results,
 * are read as two's complement). Arcs are summed per (caller, callee) over
 * every call site: call count and the inclusive cost of those calls.
 *
 * Inclusive costs and cycles come from incl_compute() (inclusive.h): right
 * under recursion, cycles are the strongly connected components of two or
 * more nodes. `total` is the sum of the self costs of every node, the
 * denominator of every share.
 *
 * Memory: everything is owned by the graph and freed by callgraph_release;
 * the profile must outlive the graph (names are looked up in it).
 */
#ifndef TALLY_CALLGRAPH_H
#define TALLY_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"
#include "inclusive.h"

struct callgraph {
    const struct profile *p;
    size_t ncols;
    size_t nnodes;
    uint32_t *fn;       /* [nnodes] profile function id of each node */
    tally_wide *self;   /* [nnodes * ncols] */
    uint64_t *calls;    /* [nnodes] calls into the node, not from inside a recursion */
    uint64_t *reccalls; /* [nnodes] calls into it from itself or from its own cycle */
    size_t narcs;
    uint32_t *from, *to;   /* [narcs] node indices, in first-seen order */
    uint64_t *count;       /* [narcs] */
    tally_wide *cost;      /* [narcs * ncols] inclusive cost of the calls */
    struct incl_result ir; /* ir.incl[nnodes * ncols], ir.cycle[nnodes], ... */
    tally_wide *total;     /* [ncols] sum of the self costs */
    /* adjacency: arcs out of node v are out_arcs[out_start[v] .. out_start[v+1]) */
    size_t *out_start, *in_start; /* [nnodes + 1] */
    uint32_t *out_arcs, *in_arcs; /* [narcs] arc indices */
};

/*
 * Build the graph of part `part` of `p` with the given columns. Returns 0,
 * or -1 with err (a sum overflows, no such part).
 */
int callgraph_build(struct callgraph *g, const struct profile *p, size_t part,
                    const struct event_expr *cols, size_t ncols, struct tally_error *err);
void callgraph_release(struct callgraph *g);

static inline const tally_wide *callgraph_incl(const struct callgraph *g, size_t v)
{
    return g->ir.incl + v * g->ncols;
}

/* Is arc a inside a recursion (a self-call, or both ends in one cycle)? */
static inline int callgraph_arc_recursive(const struct callgraph *g, size_t a)
{
    uint32_t f = g->from[a], t = g->to[a];
    return f == t || (g->ir.cycle[f] && g->ir.cycle[f] == g->ir.cycle[t]);
}

/* value / total as a percentage (0 when total is 0). */
double callgraph_share(const struct callgraph *g, size_t col, tally_wide value);

#endif
