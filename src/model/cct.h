/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cct.h - the calling-context tree (CCT): one node per distinct stack of
 * functions, with the self cost spent in exactly that stack.
 *
 * Where it comes from: `tally record --contexts=yes` writes it (the
 * contexts format, docs/internals/contexts.md); formats/contexts.c reads
 * it into a profile whose `cct` points to the tree. Stack views
 * (analysis/stacks.h) use it to draw exact pictures.
 *
 * Shape: node 0 is the root (no function, no cost of its own unless a
 * writer put some there); every other node has a parent with a smaller
 * index, the function of the stack's innermost frame (a function index of
 * the owning profile, see profile_function()), how many times that stack
 * was entered, and `nevents` self costs in the event order of the
 * profile's part 0. A function may occur several times on one stack
 * (recursion through other functions keeps every frame; tally's writer
 * folds only direct self-recursion into one node). The inclusive cost of
 * a node is the sum of the self costs of its subtree (cct_inclusive());
 * the cost of a function while it is on the stack, counted once however
 * deeply it recurses, is that of its outermost nodes (cct_on_stack_costs()).
 *
 * Children of a node are a singly linked list (first_child/next_sibling,
 * 0 = none; node 0 is never a child) in insertion order. Finding the
 * child of a node for a function is a hash lookup (cct_child()).
 *
 * Memory: owned by the tree; cct_free() releases everything. A profile
 * that has a tree owns it (profile_free() frees it).
 */
#ifndef TALLY_CCT_H
#define TALLY_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rectab.h"

#define CCT_ROOT 0u
#define CCT_NO_FN UINT32_MAX /* the root's function */

struct cct_node {
    uint32_t parent;       /* index of the parent (the root's is 0) */
    uint32_t fn;           /* function index in the profile, CCT_NO_FN for the root */
    uint32_t first_child;  /* 0 = none */
    uint32_t next_sibling; /* 0 = none */
    uint32_t last_child;   /* 0 = none (appending keeps insertion order) */
    uint32_t depth;        /* root 0, top-level contexts 1 */
    uint64_t calls;        /* times this stack was entered */
};

struct cct {
    size_t nevents; /* cost values per node */
    size_t n, cap;  /* nodes in use (>= 1: the root) */
    struct cct_node *nodes;
    uint64_t *self;       /* [cap * nevents] self costs */
    struct rectab index;  /* (parent << 32 | fn) -> node index */
    unsigned depth_limit; /* `depth:` of the file (0 = none) */
    int has_thread;       /* the file named one thread */
    uint64_t thread;
};

/* A tree with only the root, for `nevents` events. */
struct cct *cct_new(size_t nevents);
void cct_free(struct cct *t);

/*
 * The child of `parent` for function fn, created (with zero calls and
 * costs) when new. Returns its index, or UINT32_MAX when the tree is full
 * (more than 2^32-2 nodes).
 */
uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t fn);
/* The child of `parent` for fn, or 0 when there is none. */
uint32_t cct_find(const struct cct *t, uint32_t parent, uint32_t fn);

/* Self costs of node i (nevents values, writable). */
static inline uint64_t *cct_self(const struct cct *t, uint32_t i)
{
    return t->self + (size_t)i * t->nevents;
}

/* Does fn occur on the stack of node i (node i included)? */
int cct_on_stack(const struct cct *t, uint32_t i, uint32_t fn);

/*
 * Inclusive costs of every node into out[n * nevents] (caller allocates).
 * Returns 0, or -1 with err when a sum overflows.
 */
int cct_inclusive(const struct cct *t, uint64_t *out, struct tally_error *err);

/*
 * Mark the outermost nodes: outer[i] = 1 when no ancestor of node i has
 * the function of node i, else 0 (outer[n] for the caller to allocate;
 * the root's is 0). `nfn` bounds the function indices (the profile's
 * number of functions). One depth-first walk with a count per function of
 * its nodes on the current path: linear in the number of nodes however
 * deep the tree is, no recursion. Returns 0, or -1 with err when a node's
 * function is not below nfn.
 */
int cct_outermost(const struct cct *t, size_t nfn, unsigned char *outer, struct tally_error *err);

/*
 * The cost spent while each function is on the stack, counted once: for
 * every function f < nfn, out[f * nevents + e] = the sum of the inclusive
 * costs of f's outermost nodes (out[nfn * nevents], caller allocates; 0
 * for a function without nodes). These subtrees are disjoint, so no sum
 * passes the root's inclusive cost. Linear (cct_inclusive() and
 * cct_outermost()). Returns 0, or -1 with err (overflow of an inclusive
 * cost, a function index not below nfn).
 */
int cct_on_stack_costs(const struct cct *t, size_t nfn, uint64_t *out, struct tally_error *err);

/*
 * Add every node of `src` (whose function indices belong to profile `sp`)
 * into `dst` (function indices of profile `dp`): functions are matched by
 * (object, file, name) and created in `dp` when new, nodes by their stack.
 * emap[e] is the event of dst for src's event e. Returns 0, or -1 with
 * err on overflow.
 */
struct profile;
int cct_add_tree(struct cct *dst, struct profile *dp, const struct cct *src,
                 const struct profile *sp, const size_t *emap, struct tally_error *err);
/* The same, with the functions given: src's function f is dp's fnmap[f]. */
int cct_add_tree_mapped(struct cct *dst, struct profile *dp, const struct cct *src,
                        const struct profile *sp, const size_t *emap, const uint32_t *fnmap,
                        struct tally_error *err);

#endif
