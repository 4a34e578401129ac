/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stacks.c - stack trees: exact from a contexts file, estimated from
 * hand-made call arcs (expected shares worked out by hand in the comments),
 * recursion cycles, random graphs with cycles, profiles without calls.
 */
#include "testutil.h"

#include <unistd.h>

#include "analysis/stacks.h"
#include "export/folded.h"
#include "model/cct.h"

static struct profile *read_text(const char *text)
{
    struct tally_error err;
    char *path = test_tmpfile(text, strlen(text));
    struct profile *p = profile_read(path, NULL, &err);
    unlink(path);
    free(path);
    if (!p) fail_msg("%s", err.msg);
    return p;
}

/* The node at "a/b/c" below the root, or 0. */
static uint32_t at(const struct stack_tree *t, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    uint32_t n = 0;
    for (char *s = strtok(buf, "/"); s; s = strtok(NULL, "/")) {
        n = stack_find_child(t, n, s);
        if (!n) return 0;
    }
    return n;
}

static uint64_t total(const struct stack_tree *t, const char *path, size_t e)
{
    uint32_t n = at(t, path);
    if (!n) fail_msg("no node %s", path);
    return stack_total(t, n)[e];
}

static uint64_t self(const struct stack_tree *t, const char *path, size_t e)
{
    uint32_t n = at(t, path);
    if (!n) fail_msg("no node %s", path);
    return stack_self(t, n)[e];
}

/* The function of the node at "a/b/c". */
static uint32_t stack_tree_fn(const struct stack_tree *t, const char *path)
{
    uint32_t n = at(t, path);
    if (!n) fail_msg("no node %s", path);
    return t->nodes[n].fn;
}

static size_t nchildren(const struct stack_tree *t, uint32_t n)
{
    size_t k = 0;
    for (uint32_t c = t->nodes[n].first_child; c; c = t->nodes[c].next_sibling)
        k++;
    return k;
}

/* Every node: total >= self + children's totals; estimated: no function twice on a stack. */
static void check_invariants(const struct stack_tree *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        for (size_t e = 0; e < t->nev; e++) {
            uint64_t sum = stack_self(t, i)[e];
            for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling) {
                assert_int_equal(t->nodes[c].parent, i);
                assert_int_equal(t->nodes[c].depth, t->nodes[i].depth + 1);
                sum += stack_total(t, c)[e];
            }
            assert_true(stack_total(t, i)[e] >= sum);
        }
        if (t->kind == STACKS_ESTIMATED)
            for (uint32_t a = t->nodes[i].parent; i && a; a = t->nodes[a].parent)
                assert_true(t->nodes[a].fn != t->nodes[i].fn);
    }
}

/* tree2 of test_cct.c: main -> a -> c, main -> b -> a -> c. */
static const char contexts[] = "# tally contexts 1\n"
                               "events: Ir Dr\n"
                               "fl 3 t.c\n"
                               "fn 1 0 3 main\n"
                               "fn 2 0 3 a\n"
                               "fn 3 0 3 b\n"
                               "fn 4 0 3 c\n"
                               "x 10 0 1 1 5 1\n"
                               "x 13 10 3 1 13 2\n"
                               "x 11 10 2 2 7\n"
                               "x 12 11 4 2 17 3\n"
                               "x 14 13 2 1 11\n"
                               "x 15 14 4 4 19 4\n";

static void test_exact(void **state)
{
    (void)state;
    struct profile *p = read_text(contexts);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_EXACT);
    assert_non_null(strstr(t.method, "exact"));
    assert_int_equal(t.nev, 2);
    assert_string_equal(t.ev_names[1], "Dr");
    assert_int_equal(t.n, 7);
    assert_int_equal(stack_total(&t, 0)[0], 72);
    assert_int_equal(stack_total(&t, 0)[1], 10);
    assert_int_equal(total(&t, "main", 0), 72);
    assert_int_equal(self(&t, "main", 0), 5);
    assert_int_equal(total(&t, "main/a", 0), 24);
    assert_int_equal(total(&t, "main/b", 0), 43);
    assert_int_equal(total(&t, "main/b/a", 1), 4);
    assert_int_equal(self(&t, "main/b/a/c", 0), 19);
    assert_int_equal(t.nodes[at(&t, "main/b/a/c")].calls, 4);
    /* children by name: a before b although b came first in the file */
    uint32_t m = at(&t, "main");
    assert_string_equal(stack_node_name(&t, t.nodes[m].first_child), "a");
    assert_string_equal(stack_node_file(&t, m), "t.c");
    check_invariants(&t);
    stacks_release(&t);

    /* one event; pruning at 30% of 72 = 21.6 drops both c's (17, 19) */
    struct stack_options o = {.part = 0, .event = 0, .prune = 0.3};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(t.nev, 1);
    assert_int_equal(t.n, 5);
    assert_int_equal(at(&t, "main/a/c"), 0);
    assert_int_equal(total(&t, "main/a", 0), 24); /* the pruned cost stays in the total */
    assert_int_equal(total(&t, "main/b/a", 0), 30);
    check_invariants(&t);
    stacks_release(&t);

    /* depth 1: main only, with everything */
    o = (struct stack_options){.part = -1, .event = 1, .max_depth = 1};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(t.n, 2);
    assert_int_equal(total(&t, "main", 0), 10);
    stacks_release(&t);

    /* errors */
    o = (struct stack_options){.part = 0, .event = 2};
    assert_int_equal(stacks_build(&t, p, &o, &err), -1);
    assert_non_null(strstr(err.msg, "no event"));
    o = (struct stack_options){.part = 1, .event = 0};
    assert_int_equal(stacks_build(&t, p, &o, &err), -1);
    assert_non_null(strstr(err.msg, "no part"));
    profile_free(p);
}

/*
 * Whole stacks with mutual recursion (the `interp` tree of test_cct.c):
 * main -> eval -> callobj -> vector -> eval -> callobj -> vector -> eval,
 * eval -> eval, number in four branches. Ir self 10, 20, ..., 80 down the
 * chain, number 5 / 7 / 9 / 11, the inner eval 13. Cost on the stack: main
 * 405, eval 384, callobj 355, vector 325, number 32.
 */
static const char interp[] = "# tally contexts 1\n"
                             "events: Ir\n"
                             "fn 1 0 0 main\n"
                             "fn 2 0 0 eval\n"
                             "fn 3 0 0 callobj\n"
                             "fn 4 0 0 vector\n"
                             "fn 5 0 0 number\n"
                             "x 1 0 1 1 10\n"
                             "x 2 1 2 2 20\n"
                             "x 3 2 3 2 30\n"
                             "x 4 3 4 2 40\n"
                             "x 5 4 2 3 50\n"
                             "x 6 5 3 1 60\n"
                             "x 7 6 4 1 70\n"
                             "x 8 7 2 1 80\n"
                             "x 9 8 5 1 5\n"
                             "x 10 5 5 2 7\n"
                             "x 11 2 5 1 9\n"
                             "x 12 1 5 1 11\n"
                             "x 13 8 2 4 13\n"
                             "totals: 405\n";

/*
 * Per function, the sum of the folded weights (folded.h) of the stacks
 * that hold it, each stack once however often the function is in it:
 * what a reader of `tally convert --to=folded` adds up.
 */
static void folded_on_stack(const struct stack_tree *t, size_t nfn, uint64_t *out)
{
    memset(out, 0, nfn * sizeof(*out));
    char *seen = calloc(nfn, 1);
    for (uint32_t i = folded_next(t, 0); i; i = folded_next(t, i)) {
        uint64_t w = folded_weight(t, i, 0);
        memset(seen, 0, nfn);
        for (uint32_t a = i; a; a = t->nodes[a].parent)
            if (!seen[t->nodes[a].fn]) {
                seen[t->nodes[a].fn] = 1;
                out[t->nodes[a].fn] += w;
            }
    }
    free(seen);
}

static void test_exact_recursion(void **state)
{
    (void)state;
    struct profile *p = read_text(interp);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_EXACT);
    assert_string_equal(t.method, "exact: recorded calling contexts");
    assert_int_equal(t.n, 14);
    const char *deep = "main/eval/callobj/vector/eval/callobj/vector/eval";
    assert_int_equal(total(&t, deep, 0), 98);
    char path[128];
    snprintf(path, sizeof(path), "%s/eval", deep);
    assert_int_equal(self(&t, path, 0), 13);
    assert_int_equal(t.nodes[at(&t, path)].calls, 4);
    assert_int_equal(t.nodes[at(&t, path)].depth, 9);
    assert_int_equal(total(&t, "main/eval/callobj/vector/eval/number", 0), 7);
    check_invariants(&t);
    /* the folded lines give every function its cost on the stack */
    size_t nfn = profile_nfunctions(p);
    uint64_t *want = malloc(nfn * sizeof(uint64_t)), *got = malloc(nfn * sizeof(uint64_t));
    assert_int_equal(cct_on_stack_costs(p->cct, nfn, want, &err), 0);
    folded_on_stack(&t, nfn, got);
    assert_memory_equal(got, want, nfn * sizeof(uint64_t));
    assert_int_equal(want[stack_tree_fn(&t, "main/eval/callobj")], 355);
    stacks_release(&t);

    /* at most 4 frames: the cost below main;eval;callobj;vector stays in its
       total, and so on the stack of the four functions above it */
    struct stack_options o = {.part = -1, .event = 0, .max_depth = 4};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(total(&t, "main/eval/callobj/vector", 0), 325);
    assert_int_equal(folded_weight(&t, at(&t, "main/eval/callobj/vector"), 0), 325);
    folded_on_stack(&t, nfn, got);
    assert_int_equal(got[stack_tree_fn(&t, "main/eval")], 384);
    assert_int_equal(got[stack_tree_fn(&t, "main/eval/callobj/vector")], 325);
    check_invariants(&t);
    stacks_release(&t);

    /* estimated from the derived arcs (calls into a function on the stack
       carry no cost): finite, no function twice, totals kept */
    struct cct *c = p->cct;
    p->cct = NULL;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_ESTIMATED);
    check_invariants(&t);
    assert_int_equal(stack_total(&t, 0)[0], 405);
    assert_int_equal(total(&t, "main", 0), 405);
    stacks_release(&t);
    p->cct = c;
    free(want);
    free(got);
    profile_free(p);
}

/*
 * main(self 10) calls a once and b once; a (20) calls c once, b (30)
 * calls c 3 times; c (40) calls e (8) once. c is called 4 times: 1/4 of
 * it under a, 3/4 under b. So main/a/c: self 10, e 2, total 12; main/b/c:
 * self 30, e 6, total 36; a 32, b 66, main 108 = the sum of all self costs.
 * The calls lines carry no costs (as in gmon data), so the estimate goes
 * by call counts.
 */
static const char arcs[] = "# callgrind format\n"
                           "events: Ir\n"
                           "fl=t.c\n"
                           "fn=main\n"
                           "1 10\n"
                           "cfn=a\n"
                           "calls=1 1\n"
                           "1 0\n"
                           "cfn=b\n"
                           "calls=1 1\n"
                           "1 0\n"
                           "fn=a\n"
                           "1 20\n"
                           "cfn=c\n"
                           "calls=1 1\n"
                           "1 0\n"
                           "fn=b\n"
                           "1 30\n"
                           "cfn=c\n"
                           "calls=3 1\n"
                           "1 0\n"
                           "fn=c\n"
                           "1 40\n"
                           "cfn=e\n"
                           "calls=1 1\n"
                           "1 0\n"
                           "fn=e\n"
                           "1 8\n";

static void test_estimated(void **state)
{
    (void)state;
    struct profile *p = read_text(arcs);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_ESTIMATED);
    assert_non_null(strstr(t.method, "proportion to call counts"));
    assert_non_null(strstr(t.method, "the arcs have no costs"));
    assert_int_equal(stack_total(&t, 0)[0], 108);
    assert_int_equal(total(&t, "main", 0), 108);
    assert_int_equal(self(&t, "main", 0), 10);
    assert_int_equal(total(&t, "main/a", 0), 32);
    assert_int_equal(self(&t, "main/a/c", 0), 10);
    assert_int_equal(total(&t, "main/a/c", 0), 12);
    assert_int_equal(total(&t, "main/a/c/e", 0), 2);
    assert_int_equal(total(&t, "main/b", 0), 66);
    assert_int_equal(self(&t, "main/b/c", 0), 30);
    assert_int_equal(total(&t, "main/b/c", 0), 36);
    assert_int_equal(total(&t, "main/b/c/e", 0), 6);
    assert_int_equal(t.nodes[at(&t, "main/b/c")].calls, 3);
    assert_int_equal(nchildren(&t, 0), 1); /* only main is uncalled */
    assert_int_equal(t.n, 8);
    check_invariants(&t);
    stacks_release(&t);
    /* pruning at 5% of 108 = 5.4 drops main/a/c/e (2) but keeps main/b/c/e (6) */
    struct stack_options o = {.part = -1, .event = -1, .prune = 0.05};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(at(&t, "main/a/c/e"), 0);
    assert_int_equal(total(&t, "main/a/c", 0), 12);
    assert_int_equal(total(&t, "main/b/c/e", 0), 6);
    stacks_release(&t);
    profile_free(p);
}

/*
 * The calls lines carry their inclusive costs (Ir, Dr), and every function
 * has one caller except work: main (5) calls mid once (1000), work 50 times
 * (100) and t once (10); mid (10) calls leaf once (900) and work 100 times
 * (90); leaf (20) calls work once (880, all 7 Dr of work). work: 1070 Ir.
 * Each arc carries its measured cost: main/mid/leaf/work 880 Ir and 7 Dr,
 * main/mid/work 90, main/work 100 (by counts they would be 1070 * 1/151,
 * 100/151 and 50/151). t costs 30 but its one call only 10: the other 20
 * ran with no recorded caller, at the top. Root: 1135 Ir, 7 Dr.
 */
static const char costed[] = "# callgrind format\n"
                             "events: Ir Dr\n"
                             "fl=t.c\n"
                             "fn=main\n"
                             "1 5\n"
                             "cfn=mid\n"
                             "calls=1 1\n"
                             "1 1000 7\n"
                             "cfn=work\n"
                             "calls=50 1\n"
                             "1 100\n"
                             "cfn=t\n"
                             "calls=1 1\n"
                             "1 10\n"
                             "fn=mid\n"
                             "1 10\n"
                             "cfn=leaf\n"
                             "calls=1 1\n"
                             "1 900 7\n"
                             "cfn=work\n"
                             "calls=100 1\n"
                             "1 90\n"
                             "fn=leaf\n"
                             "1 20\n"
                             "cfn=work\n"
                             "calls=1 1\n"
                             "1 880 7\n"
                             "fn=work\n"
                             "1 1070 7\n"
                             "fn=t\n"
                             "1 30\n";

static void test_estimated_costs(void **state)
{
    (void)state;
    struct profile *p = read_text(costed);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_ESTIMATED);
    assert_non_null(strstr(t.method, "inclusive costs of their calls"));
    assert_int_equal(stack_total(&t, 0)[0], 1135);
    assert_int_equal(stack_total(&t, 0)[1], 7);
    assert_int_equal(total(&t, "main", 0), 1115);
    assert_int_equal(self(&t, "main", 0), 5);
    assert_int_equal(total(&t, "main/mid", 0), 1000);
    assert_int_equal(total(&t, "main/mid/leaf", 0), 900);
    assert_int_equal(total(&t, "main/mid/leaf/work", 0), 880);
    assert_int_equal(self(&t, "main/mid/leaf/work", 0), 880);
    assert_int_equal(total(&t, "main/mid/leaf/work", 1), 7);
    assert_int_equal(total(&t, "main/mid/work", 0), 90);
    assert_int_equal(total(&t, "main/mid/work", 1), 0);
    assert_int_equal(total(&t, "main/work", 0), 100);
    assert_int_equal(total(&t, "main/work", 1), 0);
    assert_int_equal(t.nodes[at(&t, "main/work")].calls, 50);
    assert_int_equal(t.nodes[at(&t, "main/mid/leaf/work")].calls, 1);
    assert_int_equal(total(&t, "main/t", 0), 10);
    assert_int_equal(total(&t, "t", 0), 20);
    assert_int_equal(nchildren(&t, 0), 2);
    check_invariants(&t);
    stacks_release(&t);

    /* one event at a time: the same values */
    struct stack_options o = {.part = -1, .event = 1};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(total(&t, "main/mid/leaf/work", 0), 7);
    assert_int_equal(stack_total(&t, 0)[0], 7);
    stacks_release(&t);
    profile_free(p);
}

/*
 * Mutual recursion entered twice: main (4) calls f once and g 3 times;
 * f (12) calls g 5 times, g (20) calls f 4 times and h (8) twice, h calls
 * itself. {f, g} is one cycle entered 4 times from outside: 1/4 of its
 * 40 (12 + 20 + 8) under main/f, 3/4 under main/g. Inside, each member
 * once: main/f (f 3) / g (5) / h (2); main/g (g 15) / f (9), g / h (6).
 */
static const char cycle[] = "# callgrind format\n"
                            "events: Ir\n"
                            "fl=t.c\n"
                            "fn=main\n"
                            "1 4\n"
                            "cfn=f\n"
                            "calls=1 1\n"
                            "1 10\n"
                            "cfn=g\n"
                            "calls=3 1\n"
                            "1 30\n"
                            "fn=f\n"
                            "1 12\n"
                            "cfn=g\n"
                            "calls=5 1\n"
                            "1 7\n"
                            "fn=g\n"
                            "1 20\n"
                            "cfn=f\n"
                            "calls=4 1\n"
                            "1 9\n"
                            "cfn=h\n"
                            "calls=2 1\n"
                            "1 8\n"
                            "fn=h\n"
                            "1 8\n"
                            "cfn=h\n"
                            "calls=7 1\n"
                            "1 5\n";

static void test_cycles(void **state)
{
    (void)state;
    struct profile *p = read_text(cycle);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(stack_total(&t, 0)[0], 44);
    assert_int_equal(total(&t, "main", 0), 44);
    assert_int_equal(total(&t, "main/f", 0), 10);
    assert_int_equal(self(&t, "main/f", 0), 3);
    assert_int_equal(self(&t, "main/f/g", 0), 5);
    assert_int_equal(total(&t, "main/f/g/h", 0), 2);
    assert_int_equal(total(&t, "main/g", 0), 30);
    assert_int_equal(self(&t, "main/g", 0), 15);
    assert_int_equal(self(&t, "main/g/f", 0), 9);
    assert_int_equal(total(&t, "main/g/h", 0), 6);
    assert_int_equal(at(&t, "main/f/g/f"), 0);
    assert_int_equal(at(&t, "main/g/h/h"), 0);
    assert_int_equal(t.nodes[at(&t, "main/g")].calls, 3);
    assert_int_equal(t.nodes[at(&t, "main/g/f")].calls, 3); /* 3/4 of 4 */
    assert_true(t.nodes[at(&t, "main/g")].cycle > 0);
    assert_int_equal(t.nodes[at(&t, "main")].cycle, 0);
    assert_int_equal(t.nodes[at(&t, "main/g/h")].cycle, 0);
    check_invariants(&t);
    stacks_release(&t);
    profile_free(p);
}

/* A cycle nothing outside calls is entered at its first function. */
static void test_uncalled_cycle(void **state)
{
    (void)state;
    static const char text[] = "# callgrind format\n"
                               "events: Ir\n"
                               "fn=p\n"
                               "1 6\n"
                               "cfn=q\n"
                               "calls=2 1\n"
                               "1 4\n"
                               "fn=q\n"
                               "1 4\n"
                               "cfn=p\n"
                               "calls=1 1\n"
                               "1 6\n";
    struct profile *p = read_text(text);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(nchildren(&t, 0), 1);
    assert_int_equal(total(&t, "p", 0), 10);
    assert_int_equal(total(&t, "p/q", 0), 4);
    assert_int_equal(t.n, 3);
    stacks_release(&t);
    profile_free(p);
}

/* Random graphs full of cycles: finite, invariants hold, totals kept. */
static void test_random_graphs(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 30; round++) {
        size_t cap = 1 << 16, len = 0;
        char *text = malloc(cap);
        len += (size_t)snprintf(text + len, cap - len, "# callgrind format\nevents: Ir Dr\n");
        int nf = 2 + round % 25;
        uint64_t grand = 0;
        for (int f = 0; f < nf; f++) {
            seed = seed * 1103515245u + 12345u;
            unsigned s = (seed >> 8) % 1000;
            grand += s;
            len += (size_t)snprintf(text + len, cap - len, "fn=f%d\n1 %u 1\n", f, s);
            int ncalls = (int)((seed >> 20) % 5);
            for (int c = 0; c < ncalls; c++) {
                seed = seed * 1103515245u + 12345u;
                len += (size_t)snprintf(text + len, cap - len, "cfn=f%u\ncalls=%u 1\n1 1\n",
                                        (seed >> 8) % (unsigned)nf, (seed >> 16) % 4);
            }
        }
        struct profile *p = read_text(text);
        struct stack_tree t;
        struct tally_error err;
        struct stack_options o = {.part = -1, .event = -1, .max_nodes = 200000};
        assert_int_equal(stacks_build(&t, p, &o, &err), 0);
        check_invariants(&t);
        /* the root total is the sum of the self costs; rounding may add a little */
        uint64_t sum = 0, sum1 = 0;
        for (uint32_t c = t.nodes[0].first_child; c; c = t.nodes[c].next_sibling) {
            sum += stack_total(&t, c)[0];
            sum1 += stack_total(&t, c)[1];
        }
        assert_int_equal(stack_total(&t, 0)[0], sum > grand ? sum : grand);
        assert_int_equal(stack_total(&t, 0)[1], sum1 > (uint64_t)nf ? sum1 : (uint64_t)nf);
        assert_true(sum + t.n >= grand && sum <= grand + t.n);
        stacks_release(&t);
        profile_free(p);
        free(text);
    }
}

static void test_no_calls(void **state)
{
    (void)state;
    static const char text[] = "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
                               "cmd: ./x\n"
                               "events: Ir Dr\n"
                               "fl=a.c\n"
                               "fn=g\n"
                               "1 7 0\n"
                               "fn=f\n"
                               "1 5 1\n"
                               "2 1 1\n"
                               "summary: 13 2\n";
    struct profile *p = read_text(text);
    assert_int_equal(p->format, PROFILE_FORMAT_CACHEGRIND);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(t.kind, STACKS_ESTIMATED);
    assert_non_null(strstr(t.method, "one level"));
    assert_int_equal(t.n, 3);
    assert_string_equal(stack_node_name(&t, t.nodes[0].first_child), "f");
    assert_int_equal(total(&t, "f", 0), 6);
    assert_int_equal(total(&t, "f", 1), 2);
    assert_int_equal(total(&t, "g", 0), 7);
    assert_int_equal(stack_total(&t, 0)[0], 13);
    stacks_release(&t);
    profile_free(p);
}

static void test_parts(void **state)
{
    (void)state;
    static const char text[] = "# callgrind format\n"
                               "part: 1\n"
                               "events: Ir\n"
                               "fn=m\n"
                               "1 3\n"
                               "cfn=w\n"
                               "calls=1 1\n"
                               "1 5\n"
                               "fn=w\n"
                               "1 5\n"
                               "part: 2\n"
                               "events: Ir\n"
                               "fn=m\n"
                               "1 1\n"
                               "cfn=w\n"
                               "calls=1 1\n"
                               "1 10\n"
                               "fn=w\n"
                               "1 10\n";
    struct profile *p = read_text(text);
    assert_int_equal(p->nparts, 2);
    struct stack_tree t;
    struct tally_error err;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    assert_int_equal(total(&t, "m", 0), 19);
    assert_int_equal(total(&t, "m/w", 0), 15);
    stacks_release(&t);
    struct stack_options o = {.part = 1, .event = 0};
    assert_int_equal(stacks_build(&t, p, &o, &err), 0);
    assert_int_equal(total(&t, "m", 0), 11);
    stacks_release(&t);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),         cmocka_unit_test(test_exact_recursion),
        cmocka_unit_test(test_estimated),     cmocka_unit_test(test_estimated_costs),
        cmocka_unit_test(test_cycles),        cmocka_unit_test(test_uncalled_cycle),
        cmocka_unit_test(test_random_graphs), cmocka_unit_test(test_no_calls),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
