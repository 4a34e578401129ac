/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * onstack.c - every function's cost while it is on the stack, from a
 * contexts file, as the library computes it.
 *
 *   onstack CONTEXTS_FILE [EVENT]
 *
 * One line per function that has contexts: "ONSTACK ARCS TOP NAME", in
 * EVENT (default: the file's first event): its cost on the stack counted
 * once (cct_on_stack_costs()), the costs of the call arcs into it that the
 * reader derived from the tree, summed, and the inclusive costs of its
 * top-level contexts (which no arc enters). ARCS + TOP = ONSTACK is what
 * the reader promises. Used by tests/cli/contexts.sh; built there with
 *   cc -std=c17 -D_GNU_SOURCE -O2 -Isrc -o onstack tests/tools/onstack.c \
 *      build/libtally.a -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "model/cct.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: onstack CONTEXTS_FILE [EVENT]\n");
        return 2;
    }
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *p = profile_read(argv[1], NULL, &err);
    if (!p || !p->cct) {
        fprintf(stderr, "onstack: %s: %s\n", argv[1], p ? "no contexts" : err.msg);
        return 1;
    }
    const struct cct *c = p->cct;
    const struct part *pt = p->parts[0];
    size_t ne = c->nevents, nfn = profile_nfunctions(p), ev = 0;
    if (argc == 3) {
        int k = eventset_index(&pt->events, argv[2]);
        if (k < 0 || (size_t)k >= ne) {
            fprintf(stderr, "onstack: no event %s\n", argv[2]);
            return 1;
        }
        ev = (size_t)k;
    }
    uint64_t *on = calloc(nfn * ne + 1, sizeof(uint64_t));
    uint64_t *arcs = calloc(nfn + 1, sizeof(uint64_t)), *top = calloc(nfn + 1, sizeof(uint64_t));
    uint64_t *incl = calloc(c->n * ne + 1, sizeof(uint64_t));
    char *has = calloc(nfn + 1, 1);
    if (!on || !arcs || !top || !incl || !has) return 1;
    if (cct_on_stack_costs(c, nfn, on, &err) || cct_inclusive(c, incl, &err)) {
        fprintf(stderr, "onstack: %s\n", err.msg);
        return 1;
    }
    for (uint32_t i = 1; i < c->n; i++) {
        has[c->nodes[i].fn] = 1;
        if (c->nodes[i].parent == CCT_ROOT) top[c->nodes[i].fn] += incl[(size_t)i * ne + ev];
    }
    for (size_t k = 0; k < part_ncalls(pt); k++) {
        struct call_rec r;
        part_call_get(pt, k, &r);
        arcs[r.callee] += r.cost[ev];
    }
    for (size_t f = 0; f < nfn; f++)
        if (has[f])
            printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", on[f * ne + ev], arcs[f], top[f],
                   profile_str(p, profile_function_at(p, (uint32_t)f).name));
    free(has);
    free(incl);
    free(top);
    free(arcs);
    free(on);
    profile_free(p);
    return 0;
}
