/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgraph.h - the function graph's strongly connected components: the one
 * walk that finds recursion, for the inclusive costs (inclusive.c) and the
 * estimated stacks (stacks_estimated.c).
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
