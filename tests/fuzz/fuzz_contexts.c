/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the contexts reader and writer and the stack
 * trees built from them.
 *
 * An accepted input is written, read back (it must be accepted) and
 * written again: the two texts must be identical. Then the exact stack
 * tree and an estimated one (from the derived call arcs, the context
 * tree set aside) are built and checked: total >= self + children at
 * every node, and in the estimated tree no function twice on one stack
 * (the exact one may hold a function several times). The derived call
 * arcs into each function add up to its cost while on the stack
 * (cct_on_stack_costs()) less that of its top-level contexts.
 */
#include "analysis/stacks.h"
#include "formats/contexts.h"
#include "formats/format.h"
#include "model/cct.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct profile *read_mem(const char *name, const void *data, size_t size,
                                struct tally_error *err)
{
    struct input in;
    if (input_open_mem(&in, name, data, size, err)) return NULL;
    struct profile *p = profile_new();
    int rc = contexts_read(&in, p, err);
    input_close(&in);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

static char *write_mem(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    struct tally_error err;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) abort();
    int rc = contexts_write(p, fp, &err);
    fclose(fp);
    if (rc) {
        fprintf(stderr, "write failed: %s\n", err.msg);
        abort();
    }
    return buf;
}

static void check_tree(const struct profile *p)
{
    struct stack_tree t;
    struct tally_error err;
    struct stack_options o = {.part = -1, .event = -1, .max_nodes = 100000};
    if (stacks_build(&t, p, &o, &err)) {
        if (!err.msg[0]) abort();
        return;
    }
    for (uint32_t i = 0; i < t.n; i++) {
        for (size_t e = 0; e < t.nev; e++) {
            uint64_t sum = stack_self(&t, i)[e];
            for (uint32_t c = t.nodes[i].first_child; c; c = t.nodes[c].next_sibling) {
                if (t.nodes[c].parent != i) abort();
                if (__builtin_add_overflow(sum, stack_total(&t, c)[e], &sum)) goto next;
            }
            if (stack_total(&t, i)[e] < sum) abort();
        next:;
        }
        if (t.kind == STACKS_ESTIMATED)
            for (uint32_t a = t.nodes[i].parent; i && a; a = t.nodes[a].parent)
                if (t.nodes[a].fn == t.nodes[i].fn) abort();
    }
    stacks_release(&t);
}

/* The arcs into each function: its cost on the stack, less its top-level contexts'. */
static void check_arcs(const struct profile *p)
{
    const struct cct *c = p->cct;
    const struct part *pt = p->parts[0];
    size_t nfn = profile_nfunctions(p), ne = c->nevents;
    uint64_t *want = calloc(nfn * ne + 1, sizeof(uint64_t));
    uint64_t *got = calloc(nfn * ne + 1, sizeof(uint64_t));
    struct tally_error err;
    if (!want || !got) abort();
    if (cct_on_stack_costs(c, nfn, want, &err) == 0) {
        /* an outermost top-level context has no arc; a nested one has no cost */
        unsigned char *outer = malloc(c->n);
        uint64_t *incl = malloc(c->n * ne * sizeof(uint64_t) + 1);
        if (!outer || !incl || cct_outermost(c, nfn, outer, &err) || cct_inclusive(c, incl, &err))
            abort();
        for (uint32_t i = 1; i < c->n; i++)
            if (c->nodes[i].parent == CCT_ROOT && outer[i])
                for (size_t e = 0; e < ne; e++)
                    want[c->nodes[i].fn * ne + e] -= incl[(size_t)i * ne + e];
        for (size_t k = 0; k < part_ncalls(pt); k++) {
            struct call_rec r;
            part_call_get(pt, k, &r);
            for (size_t e = 0; e < ne; e++)
                got[r.callee * ne + e] += r.cost[e];
        }
        if (memcmp(want, got, nfn * ne * sizeof(uint64_t))) abort();
        free(outer);
        free(incl);
    }
    free(want);
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *a = read_mem("fuzz", data, size, &err);
    if (!a) {
        if (!err.msg[0]) abort(); /* every failure says why */
        return 0;
    }
    size_t len1, len2;
    char *t1 = write_mem(a, &len1);
    struct profile *b = read_mem("rt", t1, len1, &err);
    if (!b) {
        fprintf(stderr, "written file not readable: %s:%lu: %s\n", err.file, err.line, err.msg);
        abort();
    }
    char *t2 = write_mem(b, &len2);
    if (len1 != len2 || memcmp(t1, t2, len1)) abort();
    check_tree(a);
    check_arcs(a);
    struct cct *c = a->cct;
    a->cct = NULL; /* estimate from the derived arcs */
    check_tree(a);
    a->cct = c;
    free(t1);
    free(t2);
    profile_free(a);
    profile_free(b);
    return 0;
}
