/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacks.h - a tree of stacks with costs, for flame graphs, folded
 * stacks, speedscope and pprof output.
 *
 * stacks_build() makes the tree for one part of a profile (or all parts
 * summed) and one event (or all of them):
 *   - EXACT when the profile carries a calling-context tree (p->cct, read
 *     from a contexts file): the nodes are the recorded stacks, whole (a
 *     function may be in a stack several times).
 *   - ESTIMATED otherwise, from the call arcs. Each arc g->h carries the
 *     measured inclusive cost of g's calls of h (per event), so h's cost
 *     is split among its callers in proportion to those costs: a node for
 *     h under a node of g with share s (per event) gets the share
 *     s * cost(g->h) / cost of h's component, and its total is
 *     s * cost(g->h). Where each function's callers are distinct, this is
 *     the exact tree. When no arc has a cost (gmon data), call counts
 *     stand in (gprof's assumption: every call of a function costs the
 *     same): share(g) * calls(g->h) / calls into h's component; `method`
 *     says which rule was used. The split is made on the graph of strongly
 *     connected components (recursion = a cycle that is treated as one
 *     unit, as gprof does). Inside a cycle, each member appears once per
 *     entry into the cycle (a spanning tree of the cycle from the entry
 *     member: by costs, each member under its heaviest caller inside the
 *     cycle), so no stack holds a function twice (recursion folded). The
 *     cost of a component that its callers' arcs do not cover (by costs;
 *     by counts, the components nothing else calls) is a top-level node,
 *     entered at the component's first member.
 *     Profiles without calls (cachegrind) give one level: every function.
 * A node's self cost is share * self cost of its function; its total
 * (inclusive) cost is its self cost plus its children's totals plus what
 * was pruned below it. So in both kinds the root's total is the sum of
 * all self costs of the part(s), and `total >= self + sum(child totals)`
 * holds at every node (the difference is what was pruned or cut by the
 * depth limit). Estimated shares are whole counts that add up exactly:
 * when nothing is pruned or cut, each function's self cost is split among
 * its nodes by largest remainder (so its nodes add up to it) and totals
 * are summed from the leaves; otherwise totals are apportioned from the
 * root down by largest remainder.
 *
 * Limits keep the tree finite and small on huge profiles: `max_depth`
 * (frames below the root; deeper cost stays in the node at the limit, as
 * its total) and `prune` (a child whose total would be below
 * prune * root total, on the first selected event, is not made; its cost
 * stays in its parent's total). `max_nodes` is a last safety net: when
 * it is reached, remaining children are pruned the same way and
 * `truncated` is set.
 *
 * Node 0 is the root (fn = STACK_NO_FN): its children are the top-level
 * frames. Children are listed (first_child / next_sibling, 0 = none) in
 * order of function name, then file, so output is deterministic.
 *
 * Memory: everything belongs to the tree (stacks_release()). The tree
 * keeps a pointer to the profile (for names), which must outlive it.
 */
#ifndef TALLY_STACKS_H
#define TALLY_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/profile.h"

#define STACK_NO_FN UINT32_MAX

enum stack_kind {
    STACKS_EXACT = 1,     /* from a calling-context tree */
    STACKS_ESTIMATED = 2, /* from call arcs (their costs, else call counts) */
};

/*
 * A function graph of one event given whole by the caller
 * (stack_options.graph), for a view that keeps its own graph instead of
 * the records: the estimated tree is made from it as from the parts' arcs.
 */
struct stacks_graph {
    const char *event;    /* the event's name */
    const uint64_t *self; /* [profile_nfunctions(p)] self cost of each function */
    size_t narcs;         /* arcs (caller, callee); calls of a function to itself are left out */
    const uint32_t *from, *to; /* [narcs] function ids */
    const uint64_t *count;     /* [narcs] calls */
    const uint64_t *cost;      /* [narcs] inclusive cost of those calls */
    int unique;                /* no (caller, callee) pair twice: the arcs need no index */
};

struct stack_options {
    int part;            /* part index, or -1: all parts summed (events must match by name) */
    const size_t *parts; /* with nparts > 0: these parts summed (part is not read) */
    size_t nparts;
    const struct stacks_graph *graph; /* set: the estimated tree of this graph (part, parts
                                         and event are not read) */
    int event;                        /* base event index of the part, or -1: all base events */
    unsigned max_depth;               /* frames below the root; 0 = STACKS_DEFAULT_DEPTH */
    double prune;                     /* fraction of the root total (0 = keep everything) */
    size_t max_nodes;                 /* 0 = STACKS_DEFAULT_MAX_NODES */
};
#define STACKS_DEFAULT_DEPTH 256u
#define STACKS_DEFAULT_MAX_NODES ((size_t)4 << 20)

struct stack_node {
    uint32_t fn;           /* function index in the profile; STACK_NO_FN for the root */
    uint32_t parent;       /* parent index (the root's is 0) */
    uint32_t first_child;  /* 0 = none */
    uint32_t next_sibling; /* 0 = none */
    uint32_t depth;        /* root 0, top-level frames 1 */
    uint32_t cycle;        /* estimated: 1.. when fn is in a recursion cycle, else 0 */
    uint64_t calls;        /* times this stack was entered (estimated: rounded share) */
};

struct stack_tree {
    const struct profile *p;
    enum stack_kind kind;
    const char *method;    /* one line for pictures, e.g. "estimated from call arcs: ..." */
    size_t nev;            /* cost values per node */
    const char **ev_names; /* [nev] event names (owned by the profile's part) */
    size_t n, cap;
    struct stack_node *nodes;
    uint64_t *self;  /* [n * nev] */
    uint64_t *total; /* [n * nev] inclusive */
    int truncated;   /* max_nodes was reached */
};

/*
 * Build the tree. `opt` may be NULL: all parts summed, all events, default
 * limits (a zeroed struct means part 0, event 0, default limits). Returns 0, or -1 with err (no
 * such part or event, parts whose events differ, signed costs, overflow). On failure nothing needs
 * releasing.
 */
int stacks_build(struct stack_tree *t, const struct profile *p, const struct stack_options *opt,
                 struct tally_error *err);
void stacks_release(struct stack_tree *t);

/*
 * Make t, built for every event (stack_options.event = -1), a tree of one
 * event: the expression `e` of its events (a derived or defined event,
 * model/eventset.h), named `name` (which must outlive the tree). Each
 * node's self and total are e of the node's; with factors of no sign the
 * tree's rules (total >= self + children) still hold. Pruning was done on
 * the first event when the tree was built. Returns 0, or -1 with err (a
 * negative factor, a sum past 2^64-1) and t unchanged.
 */
int stacks_derive(struct stack_tree *t, const struct event_expr *e, const char *name,
                  struct tally_error *err);

static inline const uint64_t *stack_self(const struct stack_tree *t, uint32_t i)
{
    return t->self + (size_t)i * t->nev;
}
static inline const uint64_t *stack_total(const struct stack_tree *t, uint32_t i)
{
    return t->total + (size_t)i * t->nev;
}

/* Function name, file name and object name of node i ("" for the root or unknown). */
const char *stack_node_name(const struct stack_tree *t, uint32_t i);
const char *stack_node_file(const struct stack_tree *t, uint32_t i);
const char *stack_node_object(const struct stack_tree *t, uint32_t i);

/* The child of node i whose function has name `name` (first match), or 0. */
uint32_t stack_find_child(const struct stack_tree *t, uint32_t i, const char *name);

#endif
