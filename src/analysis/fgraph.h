/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgraph.h - the function graph of one part of a profile: self costs per
 * function, call arcs summed per (caller, callee) with their counts and
 * inclusive costs, and the strongly connected components (recursion).
 *
 * fgraph_build() sums the records of a part into nodes and arcs, for the
 * JSON export (every function a node, the base events as columns) and the
 * pictures' call graph (callgraph.h: only the functions with a record,
 * any event expressions as columns) and the estimated stacks
 * (stacks_estimated.c: one graph per part, base events picked by a column
 * map, calls to self left out). Costs are summed in 128 bits
 * (tally_wide) with checked sums, so no file a reader accepts overflows
 * them; a signed profile (a diff) is read as two's complement.
 *
 * fgraph_scc() is the one walk that finds recursion, for the inclusive
 * costs (inclusive.c) and the estimated stacks (stacks_estimated.c).
 *
 * The graph is given as adjacency lists: node v's successors are
 * adj[start[v] .. start[v + 1]). The walk is Tarjan's algorithm with an
 * explicit stack (no recursion, so deep graphs cannot overflow the C
 * stack); roots are taken in node order and successors in list order, so
 * the numbering is deterministic. Components come out callees first
 * (reverse topological order of the condensed graph).
 */
#ifndef TALLY_ANALYSIS_FGRAPH_H
#define TALLY_ANALYSIS_FGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/profile.h"

struct fgraph_options {
    /* the columns: event expressions evaluated on each cost vector, or
       NULL for the part's base events, one column each */
    const struct event_expr *cols;
    size_t ncols; /* with cols or colmap */
    /* without cols: column c is base event colmap[c] (ncols columns), as
       in a selection of parts whose event lists differ; NULL = the part's
       own events in order */
    const size_t *colmap;
    int raw_costs; /* the base events read unsigned even in a signed profile */
    /* leave out the calls of a function to itself (their count and cost,
       and in a compact graph the node they alone would make) */
    int no_self_calls;
    /* nodes: 0 = every function of the profile, node = function index;
       1 = only the functions with a record, in the order first seen (the
       cost records, then the caller and the callee of each call) */
    int compact;
    /* what err says when a sum overflows: a self cost, a call count, the
       cost of a call */
    const char *msg_self, *msg_count, *msg_cost;
};

struct fgraph {
    size_t nnodes, ncols;
    uint32_t *fn;        /* [nnodes] function index of each node */
    tally_wide *self;    /* [nnodes * ncols] */
    size_t narcs;        /* arcs in the order their first call record comes */
    uint32_t *from, *to; /* [narcs] node indices */
    uint64_t *count;     /* [narcs] calls */
    tally_wide *cost;    /* [narcs * ncols] inclusive cost of the calls */
};

/*
 * Sum part `pt` of `p` into g (every array allocated, even when empty).
 * Returns 0, or -1 with err (file = p->path) at the first sum that
 * overflows; g is then to be released all the same.
 */
int fgraph_build(struct fgraph *g, const struct profile *p, const struct part *pt,
                 const struct fgraph_options *o, struct tally_error *err);
void fgraph_release(struct fgraph *g);

/*
 * The arcs by one of their ends: the arcs a whose end[a] is v are
 * list[start[v] .. start[v + 1]), in arc order (start has n + 1 entries,
 * list na; both malloc'd).
 */
void fgraph_adjacency(size_t n, size_t na, const uint32_t *end, size_t **startp, uint32_t **listp);

/*
 * Number the components of the n-node graph: comp[v] = its component
 * (0, 1, ... in the order they are completed). When order is not NULL it
 * receives the n nodes as the walk pops them off its stack: component 0's
 * members, then component 1's, and so on. Returns the number of
 * components.
 */
size_t fgraph_scc(size_t n, const size_t *start, const uint32_t *adj, uint32_t *comp,
                  uint32_t *order);

#endif
