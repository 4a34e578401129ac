/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vgraph.h - the function graph `tally view` keeps: what
 * analysis/callgraph.h holds, in a form sized for profiles of hundreds of
 * megabytes (docs/internals/view.md, "Memory").
 *
 *   - costs are 64-bit words (the profile's own width: unsigned, or two's
 *     complement in a signed profile), not 128-bit sums; a function whose
 *     summed cost does not fit is refused when the graph is built;
 *   - inclusive costs follow analysis/inclusive.h exactly (the same
 *     incl_compute_fgraph()), computed one event at a time beside the
 *     first event, so the 128-bit graph of every event never exists at
 *     once;
 *   - it is made from the parts' packed records (vstore.h), not from the
 *     record tables (the session frees those);
 *   - an arc keeps its calls, not its costs: the cost of an arc is summed
 *     from the caller's call entries when it is asked for;
 *   - several parts are added up here, as the graph is made, so no part
 *     holding their sum is made (it would take as much memory as they).
 *
 * Nodes are the functions with a record, in the order they are first seen
 * (the parts in order, each as analysis/fgraph.h gives its nodes); `fn`
 * maps a node to its function id.
 */
#ifndef TALLY_VIEW_VGRAPH_H
#define TALLY_VIEW_VGRAPH_H
#include <stddef.h>
#include <stdint.h>
#include "../model/error.h"
#include "../model/profile.h"
#include "vstore.h"

struct vgraph {
    const struct profile *p;
    size_t nparts;
    const struct part **parts;    /* [nparts] added up (their events and metadata) */
    const struct vstore **stores; /* [nparts] their packed records */
    size_t **colmap;              /* [nparts][ncols]: the part's index of each event */
    size_t nnodes, ncols;         /* ncols = the first part's base events */
    int is_signed;
    uint32_t *fn;       /* [nnodes] */
    size_t nfn;         /* the profile's functions when the graph was made */
    uint32_t *node_of;  /* [nfn] the node of each function, or UINT32_MAX */
    uint64_t *self;     /* [nnodes * ncols] */
    uint64_t *incl;     /* [nnodes * ncols] */
    uint64_t *calls;    /* [nnodes] calls into it from outside its recursion */
    uint32_t *cycle;    /* [nnodes] 0, or its cycle number */
    unsigned char *est; /* [nnodes] its inclusive cost is an estimate */
    tally_wide *total;  /* [ncols] the self costs summed */
    size_t narcs;
    uint32_t *from, *to;          /* [narcs] */
    uint64_t *count;              /* [narcs] */
    size_t *out_start, *in_start; /* [nnodes + 1] */
    uint32_t *out_arcs, *in_arcs; /* [narcs] */
};

/*
 * Build the graph of the sum of parts[0 .. nparts) of p (they must count
 * the same events, in any order) from their packed records stores[part
 * index] (an array of p->nparts); the functions extra[0 .. nextra) are nodes too, of no cost
 * unless a part has them. Returns 0, or -1 with err.
 */
int vgraph_build(struct vgraph *g, const struct profile *p, const size_t *parts, size_t nparts,
                 const struct vstore *stores, const uint32_t *extra, size_t nextra,
                 struct tally_error *err);
void vgraph_release(struct vgraph *g);

/* A cost word as a number. */
static inline tally_wide vgraph_val(const struct vgraph *g, uint64_t w)
{
    return g->is_signed ? (tally_wide)(int64_t)w : (tally_wide)w;
}
static inline tally_wide vgraph_self(const struct vgraph *g, size_t v, size_t e)
{
    return vgraph_val(g, g->self[v * g->ncols + e]);
}
static inline tally_wide vgraph_incl(const struct vgraph *g, size_t v, size_t e)
{
    return vgraph_val(g, g->incl[v * g->ncols + e]);
}
/* value / total of event e in percent (0 when the total is 0) */
double vgraph_share(const struct vgraph *g, size_t e, tally_wide value);
/* Arc a inside a recursion (a self-call, or both ends in one cycle)? */
static inline int vgraph_arc_recursive(const struct vgraph *g, size_t a)
{
    uint32_t f = g->from[a], t = g->to[a];
    return f == t || (g->cycle[f] && g->cycle[f] == g->cycle[t]);
}
/* The arc from node u to node w, or SIZE_MAX. */
size_t vgraph_find_arc(const struct vgraph *g, uint32_t u, uint32_t w);
/* The inclusive cost of every arc's calls in event e, into out[narcs]
 * (one pass over the packed records). Returns 0, or -1 with err when a
 * cost does not fit in 64 bits. */
int vgraph_event_arc_costs(const struct vgraph *g, size_t e, uint64_t *out,
                           struct tally_error *err);
/* The inclusive costs of the calls of node u into each of its callees, in
 * out_arcs order: out[(out_start[u] + j - out_start[u]) * ncols ..] for the
 * j-th, every event (one pass over u's call entries). */
void vgraph_out_costs(const struct vgraph *g, uint32_t u, tally_wide *out);
/* The inclusive cost of arc a's calls, every event, into out[ncols]. */
void vgraph_arc_costs(const struct vgraph *g, size_t a, tally_wide *out);

#endif
