/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fgraph.c - strongly connected components of the function graph (fgraph.h). */
#include "fgraph.h"

#include <stdlib.h>

#include "../model/error.h"

size_t fgraph_scc(size_t n, const size_t *start, const uint32_t *adj, uint32_t *comp,
                  uint32_t *order)
{
    const uint32_t UNSEEN = UINT32_MAX;
    uint32_t *index = xmalloc((n ? n : 1) * sizeof(*index));
    uint32_t *low = xmalloc((n ? n : 1) * sizeof(*low));
    uint32_t *stack = xmalloc((n ? n : 1) * sizeof(*stack)); /* Tarjan's node stack */
    char *onstack = xcalloc(n ? n : 1, 1);
    uint32_t *cs_node = xmalloc((n ? n : 1) * sizeof(*cs_node)); /* the walk */
    size_t *cs_edge = xmalloc((n ? n : 1) * sizeof(*cs_edge));
    size_t sp = 0, next = 0, ncomp = 0, norder = 0;
    for (size_t v = 0; v < n; v++)
        index[v] = UNSEEN;
    for (size_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN) continue;
        size_t depth = 0;
        cs_node[depth] = (uint32_t)root;
        cs_edge[depth] = start[root];
        index[root] = low[root] = (uint32_t)next++;
        stack[sp++] = (uint32_t)root;
        onstack[root] = 1;
        depth = 1;
        while (depth) {
            uint32_t v = cs_node[depth - 1];
            if (cs_edge[depth - 1] < start[v + 1]) {
                uint32_t w = adj[cs_edge[depth - 1]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = (uint32_t)next++;
                    stack[sp++] = w;
                    onstack[w] = 1;
                    cs_node[depth] = w;
                    cs_edge[depth] = start[w];
                    depth++;
                } else if (onstack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            /* v is finished */
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    onstack[w] = 0;
                    comp[w] = (uint32_t)ncomp;
                    if (order) order[norder++] = w;
                } while (w != v);
                ncomp++;
            }
            depth--;
            if (depth) {
                uint32_t u = cs_node[depth - 1];
                if (low[v] < low[u]) low[u] = low[v];
            }
        }
    }
    free(index);
    free(low);
    free(stack);
    free(onstack);
    free(cs_node);
    free(cs_edge);
    return ncomp;
}
