/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacks_impl.h - what stacks.c (the tree, exact stacks) and
 * stacks_estimated.c share; not for other modules (use stacks.h).
 */
#ifndef TALLY_ANALYSIS_STACKS_IMPL_H
#define TALLY_ANALYSIS_STACKS_IMPL_H

#include "stacks.h"

/* The parts a tree is built from, and where its events are in each. */
struct sel {
    size_t nparts;
    const struct part **parts;
    size_t **colmap; /* [part][col] -> base event index of that part */
};

/* The children of node i, in list order, into *buf (grown as needed); returns their number. */
size_t stacks_children(const struct stack_tree *t, uint32_t i, uint32_t **buf, size_t *cap);

/* Append a node for function fn under parent (costs 0); returns its index. */
uint32_t stacks_tree_add(struct stack_tree *t, uint32_t parent, uint32_t fn);

static inline uint64_t *tself(struct stack_tree *t, uint32_t i)
{
    return t->self + (size_t)i * t->nev;
}
static inline uint64_t *ttotal(struct stack_tree *t, uint32_t i)
{
    return t->total + (size_t)i * t->nev;
}

/* *dst += v; -1 (dst unchanged) when it would overflow. */
static inline int add_checked(uint64_t *dst, uint64_t v)
{
    if (*dst + v < *dst) return -1;
    *dst += v;
    return 0;
}

/* Build t (t->p, t->nev and t->ev_names set) from the call arcs of the
 * selected parts (opt->prune). Returns 0, or -1 with err. */
int stacks_build_estimated(struct stack_tree *t, const struct stack_options *opt, struct sel *s,
                           unsigned maxdepth, size_t maxnodes, struct tally_error *err);

#endif
