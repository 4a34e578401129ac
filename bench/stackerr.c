/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackerr.c - how far stacks estimated from call arcs are from the exact
 * stacks of the same run.
 *
 *   stackerr CONTEXTS_FILE PROFILE...
 *
 * CONTEXTS_FILE (tally record --contexts=yes) gives the exact stacks; each
 * PROFILE (a callgrind file) the estimated ones (stacks_build() of the
 * library, all parts, the first event, no pruning, the default node limit
 * as in tally convert). A stack is the path of
 * functions (object, file, name) from the top; the error is the sum over
 * every stack of |estimated self cost - exact self cost| (a stack on one
 * side only counts with 0 on the other), over the exact total: 0 when the
 * stacks are the same, 2 when no cost is on a stack of its own. For each
 * PROFILE one line: "ERROR TOTAL RATIO METHOD". It is what the folded
 * stacks of `tally convert --to=folded` of both files would give (their
 * frames named by function, file and object), without writing them.
 * Used by tests/peer/stacks.sh and bench/stacks.sh; built by them with
 *   cc -std=c17 -D_GNU_SOURCE -O2 -Isrc -o stackerr bench/stackerr.c \
 *      build/libtally.a -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stacks.h"
#include "formats/format.h"

/* A node's key: its parent's match and the hash of its function's names. */
static uint64_t name_hash(const struct stack_tree *t, uint32_t i)
{
    const char *s[3] = {stack_node_name(t, i), stack_node_file(t, i), stack_node_object(t, i)};
    uint64_t h = 1469598103934665603u;
    for (int k = 0; k < 3; k++) {
        for (const char *c = s[k]; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211u;
        h = (h ^ 0xff) * 1099511628211u;
    }
    return h;
}

static int same_fn(const struct stack_tree *a, uint32_t i, const struct stack_tree *b, uint32_t j)
{
    return !strcmp(stack_node_name(a, i), stack_node_name(b, j)) &&
           !strcmp(stack_node_file(a, i), stack_node_file(b, j)) &&
           !strcmp(stack_node_object(a, i), stack_node_object(b, j));
}

struct table {
    uint64_t *key;  /* (parent << 32) ^ name hash, hashed */
    uint32_t *node; /* est node + 1, 0 = empty */
    size_t mask;
};

static size_t slot(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdu;
    k ^= k >> 33;
    return (size_t)k;
}

static int compare(const struct stack_tree *x, const struct stack_tree *e, double *err,
                   double *total)
{
    size_t cap = 1;
    while (cap < (size_t)e->n * 2)
        cap <<= 1;
    struct table tb = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint32_t)), cap - 1};
    uint64_t *hs = malloc(((size_t)e->n + 1) * sizeof(uint64_t));
    if (!tb.key || !tb.node || !hs) return -1;
    for (uint32_t j = 1; j < e->n; j++) {
        hs[j] = name_hash(e, j);
        uint64_t k = (uint64_t)e->nodes[j].parent << 32 ^ hs[j];
        size_t s = slot(k) & tb.mask;
        while (tb.node[s])
            s = (s + 1) & tb.mask;
        tb.key[s] = k;
        tb.node[s] = j + 1;
    }
    /* match[i]: the est node of exact node i (parents come before children) */
    uint32_t *match = calloc((size_t)x->n + 1, sizeof(uint32_t));
    char *used = calloc((size_t)e->n + 1, 1);
    if (!match || !used) return -1;
    double sum = 0, tot = 0;
    for (uint32_t i = 1; i < x->n; i++) {
        uint32_t pm = match[x->nodes[i].parent], m = 0;
        if (pm || x->nodes[i].parent == 0) {
            uint64_t k = (uint64_t)pm << 32 ^ name_hash(x, i);
            for (size_t s = slot(k) & tb.mask; tb.node[s]; s = (s + 1) & tb.mask) {
                uint32_t j = tb.node[s] - 1;
                if (tb.key[s] == k && e->nodes[j].parent == pm && same_fn(x, i, e, j)) {
                    m = j;
                    break;
                }
            }
        }
        match[i] = m;
        double a = (double)stack_self(x, i)[0], b = m ? (double)stack_self(e, m)[0] : 0;
        if (m) used[m] = 1;
        sum += a > b ? a - b : b - a;
        tot += a;
    }
    for (uint32_t j = 1; j < e->n; j++)
        if (!used[j]) sum += (double)stack_self(e, j)[0];
    *err = sum;
    *total = tot;
    free(tb.key);
    free(tb.node);
    free(hs);
    free(match);
    free(used);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: stackerr CONTEXTS_FILE PROFILE...\n");
        return 2;
    }
    struct tally_error err;
    /* the limits of tally convert: no pruning, the default node cap */
    struct stack_options o = {.part = -1, .event = 0};
    struct profile *px = profile_read(argv[1], NULL, &err);
    struct stack_tree x;
    if (!px || stacks_build(&x, px, &o, &err) || x.kind != STACKS_EXACT) {
        fprintf(stderr, "stackerr: %s: %s\n", argv[1], px ? err.msg : err.msg);
        return 1;
    }
    for (int a = 2; a < argc; a++) {
        struct profile *pe = profile_read(argv[a], NULL, &err);
        struct stack_tree e;
        if (!pe || stacks_build(&e, pe, &o, &err)) {
            fprintf(stderr, "stackerr: %s: %s\n", argv[a], err.msg);
            return 1;
        }
        double sum, tot;
        if (compare(&x, &e, &sum, &tot)) return 1;
        printf("%.0f %.0f %.4f %s%s\n", sum, tot, tot > 0 ? sum / tot : 0.0, e.method,
               e.truncated ? " (cut at the node limit)" : "");
        stacks_release(&e);
        profile_free(pe);
    }
    stacks_release(&x);
    profile_free(px);
    return 0;
}
