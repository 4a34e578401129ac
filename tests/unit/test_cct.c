/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cct.c - the calling-context tree model and the contexts format
 * (reader, writer, errors). Expected numbers are worked out by hand from
 * the files below.
 */
#include "testutil.h"

#include <unistd.h>

#include "formats/contexts.h"
#include "model/cct.h"

/* Read contexts text through profile_read (so detection is tested too). */
static struct profile *read_text(const char *text, struct tally_error *err)
{
    char *path = test_tmpfile(text, strlen(text));
    struct profile *p = profile_read(path, NULL, err);
    unlink(path);
    free(path);
    return p;
}

static uint32_t fn_named(const struct profile *p, const char *name)
{
    for (size_t i = 0; i < profile_nfunctions(p); i++)
        if (strcmp(profile_str(p, profile_function_at(p, (uint32_t)i).name), name) == 0)
            return (uint32_t)i;
    fail_msg("no function %s", name);
    return 0;
}

/* Self cost of event e of function fn, summed over its records. */
static uint64_t fn_self(const struct profile *p, uint32_t fn, size_t e)
{
    const struct part *pt = p->parts[0];
    uint64_t s = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        if (r.fn == fn) s += r.cost[e];
    }
    return s;
}

/* The call arc caller -> callee: count and inclusive cost of event e. */
static int arc(const struct profile *p, uint32_t caller, uint32_t callee, size_t e, uint64_t *count,
               uint64_t *cost)
{
    const struct part *pt = p->parts[0];
    int found = 0;
    *count = *cost = 0;
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec r;
        part_call_get(pt, i, &r);
        if (r.caller == caller && r.callee == callee) {
            *count += *r.count;
            *cost += r.cost[e];
            found = 1;
        }
    }
    return found;
}

static const char doc_example[] = "# tally contexts 1\n"
                                  "creator: tally-record 0.1\n"
                                  "cmd: ./a.out\n"
                                  "pid: 4242\n"
                                  "events: Ir\n"
                                  "ob 1 /tmp/a.out\n"
                                  "fl 1 a.c\n"
                                  "fn 1 1 1 main\n"
                                  "fn 2 1 1 work\n"
                                  "x 1 0 1 1 120\n"
                                  "x 2 1 2 3 900\n"
                                  "totals: 1020\n";

static void test_doc_example(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(doc_example, &err);
    assert_non_null(p);
    assert_int_equal(p->format, PROFILE_FORMAT_CONTEXTS);
    assert_int_equal(p->nparts, 1);
    assert_string_equal(p->creator, "tally-record 0.1");
    assert_string_equal(p->parts[0]->cmd, "./a.out");
    assert_int_equal(p->parts[0]->pid, 4242);
    assert_int_equal(p->warnings.n, 0); /* totals agree */
    uint32_t m = fn_named(p, "main"), w = fn_named(p, "work");
    assert_int_equal(fn_self(p, m, 0), 120);
    assert_int_equal(fn_self(p, w, 0), 900);
    uint64_t n, c;
    assert_true(arc(p, m, w, 0, &n, &c));
    assert_int_equal(n, 3);
    assert_int_equal(c, 900);
    assert_non_null(p->cct);
    assert_int_equal(p->cct->n, 3);
    uint64_t incl[3];
    assert_int_equal(cct_inclusive(p->cct, incl, &err), 0);
    assert_int_equal(incl[0], 1020);
    assert_int_equal(incl[1], 1020);
    assert_int_equal(incl[2], 900);
    assert_string_equal(profile_str(p, profile_function_at(p, m).file), "a.c");
    assert_string_equal(profile_str(p, profile_function_at(p, m).obj), "/tmp/a.out");
    profile_free(p);
}

/*
 * main -> a -> c and main -> b -> c, b -> a, two events, trailing zeros
 * left out. Self: main 5/1, a 7+11/0, b 13/2, c 17+19/3+4.
 * Arcs: main->a 2 calls, incl a's context: 7+17 = 24 / 0+3 = 3;
 * a->c 2+4 calls (two contexts), 17+19 = 36 / 7;
 * b->a 1, incl 11+19 = 30 / 4.
 */
static const char tree2[] = "# tally contexts 1\n"
                            "events: Ir Dr\n"
                            "depth: 8\n"
                            "# a comment\n"
                            "\n"
                            "fl 3 t.c\n"
                            "fn 1 0 3 main\n"
                            "fn 2 0 3 a\n"
                            "fn 3 0 3 b\n"
                            "fn 4 0 3 c\n"
                            "x 10 0 1 1 5 1\n"
                            "x 11 10 2 2 7\n"
                            "x 12 11 4 2 17 3\n"
                            "x 13 10 3 1 13 2\n"
                            "x 14 13 2 1 11\n"
                            "x 15 14 4 4 19 4\n";

static void test_derived_profile(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(tree2, &err);
    assert_non_null(p);
    assert_int_equal(p->cct->depth_limit, 8);
    uint32_t m = fn_named(p, "main"), a = fn_named(p, "a"), b = fn_named(p, "b"),
             c = fn_named(p, "c");
    assert_int_equal(fn_self(p, a, 0), 18);
    assert_int_equal(fn_self(p, c, 0), 36);
    assert_int_equal(fn_self(p, c, 1), 7);
    assert_int_equal(fn_self(p, b, 1), 2);
    uint64_t n, cost;
    assert_true(arc(p, m, a, 0, &n, &cost));
    assert_int_equal(n, 2);
    assert_int_equal(cost, 24);
    assert_true(arc(p, a, c, 0, &n, &cost));
    assert_int_equal(n, 6);
    assert_int_equal(cost, 36);
    assert_true(arc(p, a, c, 1, &n, &cost));
    assert_int_equal(cost, 7);
    assert_true(arc(p, b, a, 0, &n, &cost));
    assert_int_equal(n, 1);
    assert_int_equal(cost, 30);
    assert_false(arc(p, m, c, 0, &n, &cost));
    /* the tree: children in file order, stacks as written */
    const struct cct *t = p->cct;
    uint32_t n10 = cct_find(t, CCT_ROOT, m);
    assert_true(n10 > 0);
    uint32_t n13 = cct_find(t, n10, b), n14 = cct_find(t, n13, a), n15 = cct_find(t, n14, c);
    assert_true(n15 > 0);
    assert_int_equal(t->nodes[n15].depth, 4);
    assert_int_equal(t->nodes[n15].calls, 4);
    assert_int_equal(cct_self(t, n15)[1], 4);
    assert_true(cct_on_stack(t, n15, b));
    assert_false(cct_on_stack(t, n13, c));
    uint64_t *incl = malloc(t->n * 2 * sizeof(uint64_t));
    assert_int_equal(cct_inclusive(t, incl, &err), 0);
    assert_int_equal(incl[n10 * 2], 5 + 7 + 17 + 13 + 11 + 19);
    assert_int_equal(incl[n10 * 2 + 1], 1 + 3 + 2 + 4);
    assert_int_equal(incl[n13 * 2], 13 + 11 + 19);
    free(incl);
    profile_free(p);
}

/* The costs of the arcs into fn, per event e, summed. */
static uint64_t arcs_into(const struct profile *p, uint32_t fn, size_t e)
{
    const struct part *pt = p->parts[0];
    uint64_t s = 0;
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec r;
        part_call_get(pt, i, &r);
        if (r.callee == fn) s += r.cost[e];
    }
    return s;
}

static int has_desc(const struct part *pt, const char *line)
{
    for (size_t i = 0; i < pt->desc.n; i++)
        if (strcmp(pt->desc.items[i], line) == 0) return 1;
    return 0;
}

/*
 * An interpreter's shape, whole stacks: main -> eval -> callobj -> vector
 * -> eval -> callobj -> vector -> eval, number under several evals and
 * under main, and eval calling eval directly (a file may keep that as a
 * child). Ir self costs as written; Dr is 1 in every context, so its
 * inclusive cost counts contexts.
 *
 *   node  stack (below main)               calls  Ir self  Ir incl  Dr incl  outermost
 *    1    main                                1     10      405       13       yes
 *    2    eval                                2     20      384       11       yes
 *    3    eval callobj                        2     30      355        9       yes
 *    4    eval callobj vector                 2     40      325        8       yes
 *    5    ... vector eval                     3     50      285        7       no
 *    6    ... vector eval callobj             1     60      228        5       no
 *    7    ... eval callobj vector             1     70      168        4       no
 *    8    ... callobj vector eval             1     80       98        3       no
 *    9    ... vector eval number              1      5        5        1       yes
 *   10    (5) eval number                     2      7        7        1       yes
 *   11    eval number                         1      9        9        1       yes
 *   12    number                              1     11       11        1       yes
 *   13    (8) eval eval                       4     13       13        1       no
 *
 * Cost on the stack (the outermost nodes' inclusive costs): main 405/13,
 * eval 384/11 (node 2), callobj 355/9, vector 325/8, number 5+7+9+11 =
 * 32/4 (four branches, none inside another).
 * Arcs (calls, Ir): main->eval 2, 384; eval->callobj 2+1, 355 + 0;
 * callobj->vector 2+1, 325 + 0; vector->eval 3+1, 0 + 0; eval->number
 * 1+2+1, 5+7+9; main->number 1, 11; eval->eval 4, 0. Into each function:
 * eval 384, callobj 355, vector 325, number 32: its cost on the stack.
 */
static const char interp[] = "# tally contexts 1\n"
                             "events: Ir Dr\n"
                             "fn 1 0 0 main\n"
                             "fn 2 0 0 eval\n"
                             "fn 3 0 0 callobj\n"
                             "fn 4 0 0 vector\n"
                             "fn 5 0 0 number\n"
                             "x 1 0 1 1 10 1\n"
                             "x 2 1 2 2 20 1\n"
                             "x 3 2 3 2 30 1\n"
                             "x 4 3 4 2 40 1\n"
                             "x 5 4 2 3 50 1\n"
                             "x 6 5 3 1 60 1\n"
                             "x 7 6 4 1 70 1\n"
                             "x 8 7 2 1 80 1\n"
                             "x 9 8 5 1 5 1\n"
                             "x 10 5 5 2 7 1\n"
                             "x 11 2 5 1 9 1\n"
                             "x 12 1 5 1 11 1\n"
                             "x 13 8 2 4 13 1\n"
                             "totals: 405 13\n";

static void test_whole_stacks(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(interp, &err);
    if (!p) fail_msg("%s", err.msg);
    assert_int_equal(p->warnings.n, 0);
    assert_true(has_desc(p->parts[0], "Option: call costs: outermost activations"));
    assert_string_equal(PART_DESC_OUTERMOST, "Option: call costs: outermost activations");
    const struct cct *t = p->cct;
    assert_int_equal(t->n, 14);
    uint32_t m = fn_named(p, "main"), ev = fn_named(p, "eval"), co = fn_named(p, "callobj"),
             ve = fn_named(p, "vector"), nu = fn_named(p, "number");
    /* the tree is as written: node i of the file is node i */
    assert_int_equal(t->nodes[8].depth, 8);
    assert_int_equal(t->nodes[13].fn, ev);
    assert_int_equal(t->nodes[13].parent, 8);

    unsigned char outer[14];
    assert_int_equal(cct_outermost(t, profile_nfunctions(p), outer, &err), 0);
    static const unsigned char want_outer[14] = {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0};
    assert_memory_equal(outer, want_outer, sizeof(outer));

    size_t nfn = profile_nfunctions(p);
    uint64_t *on = malloc(nfn * 2 * sizeof(uint64_t));
    assert_int_equal(cct_on_stack_costs(t, nfn, on, &err), 0);
    assert_int_equal(on[m * 2], 405);
    assert_int_equal(on[m * 2 + 1], 13);
    assert_int_equal(on[ev * 2], 384);
    assert_int_equal(on[ev * 2 + 1], 11);
    assert_int_equal(on[co * 2], 355);
    assert_int_equal(on[co * 2 + 1], 9);
    assert_int_equal(on[ve * 2], 325);
    assert_int_equal(on[ve * 2 + 1], 8);
    assert_int_equal(on[nu * 2], 32);
    assert_int_equal(on[nu * 2 + 1], 4);

    /* the derived arcs: calls of every context, costs of outermost ones */
    uint64_t n, c;
    assert_true(arc(p, m, ev, 0, &n, &c));
    assert_int_equal(n, 2);
    assert_int_equal(c, 384);
    assert_true(arc(p, ev, co, 0, &n, &c));
    assert_int_equal(n, 3);
    assert_int_equal(c, 355);
    assert_true(arc(p, co, ve, 1, &n, &c));
    assert_int_equal(n, 3);
    assert_int_equal(c, 8);
    assert_true(arc(p, ve, ev, 0, &n, &c));
    assert_int_equal(n, 4);
    assert_int_equal(c, 0);
    assert_true(arc(p, ev, nu, 0, &n, &c));
    assert_int_equal(n, 4);
    assert_int_equal(c, 21);
    assert_true(arc(p, m, nu, 0, &n, &c));
    assert_int_equal(n, 1);
    assert_int_equal(c, 11);
    assert_true(arc(p, ev, ev, 0, &n, &c));
    assert_int_equal(n, 4);
    assert_int_equal(c, 0);
    /* every called function: the arcs into it add up to its cost on the stack */
    uint32_t called[] = {ev, co, ve, nu};
    for (size_t k = 0; k < 4; k++)
        for (size_t e = 0; e < 2; e++)
            assert_int_equal(arcs_into(p, called[k], e), on[called[k] * 2 + e]);
    assert_int_equal(fn_self(p, ev, 0), 20 + 50 + 80 + 13);

    /* written back unchanged (a function several times on a stack) */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(contexts_write(p, fp, &err), 0);
    fclose(fp);
    struct profile *q = read_text(buf, &err);
    assert_non_null(q);
    assert_int_equal(q->cct->n, 14);
    uint64_t *on2 = malloc(nfn * 2 * sizeof(uint64_t));
    assert_int_equal(cct_on_stack_costs(q->cct, profile_nfunctions(q), on2, &err), 0);
    assert_int_equal(on2[fn_named(q, "callobj") * 2], 355);
    free(on2);
    profile_free(q);
    free(buf);
    free(on);
    profile_free(p);
}

/*
 * Self-recursion, both ways a file can hold it. Folded as tally's writer
 * does (fib calls fib: one more call of fib's context): main 3, fib 40
 * self with 15 calls, leaf 8 with 8 calls; fib on the stack 48, the arc
 * main->fib 15 calls 48, no fib->fib arc. Kept as a chain (main;fib;fib;fib,
 * self 3, 10, 20, 30): fib on the stack 60 (the outer fib), main->fib 1
 * call 60, fib->fib 1+1 calls and no cost.
 */
static void test_self_recursion(void **state)
{
    (void)state;
    struct tally_error err;
    static const char folded[] = "# tally contexts 1\nevents: Ir\n"
                                 "fn 1 0 0 main\nfn 2 0 0 fib\nfn 3 0 0 leaf\n"
                                 "x 1 0 1 1 3\nx 2 1 2 15 40\nx 3 2 3 8 8\n";
    struct profile *p = read_text(folded, &err);
    assert_non_null(p);
    uint32_t m = fn_named(p, "main"), f = fn_named(p, "fib"), l = fn_named(p, "leaf");
    uint64_t on[3], n, c;
    assert_int_equal(profile_nfunctions(p), 3);
    assert_int_equal(cct_on_stack_costs(p->cct, 3, on, &err), 0);
    assert_int_equal(on[m], 51);
    assert_int_equal(on[f], 48);
    assert_int_equal(on[l], 8);
    assert_true(arc(p, m, f, 0, &n, &c));
    assert_int_equal(n, 15);
    assert_int_equal(c, 48);
    assert_false(arc(p, f, f, 0, &n, &c));
    profile_free(p);

    static const char chain[] = "# tally contexts 1\nevents: Ir\n"
                                "fn 1 0 0 main\nfn 2 0 0 fib\n"
                                "x 1 0 1 1 3\nx 2 1 2 1 10\nx 3 2 2 1 20\nx 4 3 2 1 30\n";
    p = read_text(chain, &err);
    assert_non_null(p);
    m = fn_named(p, "main");
    f = fn_named(p, "fib");
    assert_int_equal(cct_on_stack_costs(p->cct, 2, on, &err), 0);
    assert_int_equal(on[m], 63);
    assert_int_equal(on[f], 60);
    assert_true(arc(p, m, f, 0, &n, &c));
    assert_int_equal(n, 1);
    assert_int_equal(c, 60);
    assert_true(arc(p, f, f, 0, &n, &c));
    assert_int_equal(n, 2);
    assert_int_equal(c, 0);
    assert_int_equal(arcs_into(p, f, 0), on[f]);
    profile_free(p);
}

/*
 * tree2 (above): a is in two branches, main;a and main;b;a, neither
 * inside the other: a on the stack 24 + 30 = 54 Ir, 3 + 4 = 7 Dr; c the
 * same way 17 + 19 = 36 / 7; b 43 / 6; main 72 / 10. Functions without
 * contexts get 0.
 */
static void test_on_stack_branches(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(tree2, &err);
    assert_non_null(p);
    size_t nfn = profile_nfunctions(p) + 1; /* one more, without contexts */
    uint64_t *on = malloc(nfn * 2 * sizeof(uint64_t));
    memset(on, 0xff, nfn * 2 * sizeof(uint64_t));
    assert_int_equal(cct_on_stack_costs(p->cct, nfn, on, &err), 0);
    uint32_t m = fn_named(p, "main"), a = fn_named(p, "a"), b = fn_named(p, "b"),
             c = fn_named(p, "c");
    assert_int_equal(on[a * 2], 54);
    assert_int_equal(on[a * 2 + 1], 7);
    assert_int_equal(on[c * 2], 36);
    assert_int_equal(on[c * 2 + 1], 7);
    assert_int_equal(on[b * 2], 43);
    assert_int_equal(on[b * 2 + 1], 6);
    assert_int_equal(on[m * 2], 72);
    assert_int_equal(on[m * 2 + 1], 10);
    assert_int_equal(on[(nfn - 1) * 2], 0);
    assert_int_equal(arcs_into(p, a, 0), 54);
    assert_int_equal(arcs_into(p, c, 1), 7);
    /* a function index the tree uses must be below nfn */
    assert_int_equal(cct_on_stack_costs(p->cct, 2, on, &err), -1);
    assert_non_null(strstr(err.msg, "no function of the profile"));
    free(on);
    profile_free(p);
}

/*
 * A mutual recursion 200,000 contexts deep (f0 f1 f0 f1 ..., self 1
 * each): one linear walk, no recursion in C. f0 on the stack 200,000 (its
 * top context), f1 199,999; only the first two contexts are outermost.
 */
static void test_on_stack_deep(void **state)
{
    (void)state;
    enum { N = 200000 };
    struct cct *t = cct_new(1);
    uint32_t prev = CCT_ROOT;
    for (uint32_t i = 0; i < N; i++) {
        prev = cct_child(t, prev, i % 2);
        cct_self(t, prev)[0] = 1;
    }
    unsigned char *outer = malloc(t->n);
    assert_int_equal(cct_outermost(t, 2, outer, NULL), 0);
    size_t nouter = 0;
    for (size_t i = 0; i < t->n; i++)
        nouter += outer[i];
    assert_int_equal(nouter, 2);
    assert_true(outer[1] && outer[2]);
    uint64_t on[2];
    assert_int_equal(cct_on_stack_costs(t, 2, on, NULL), 0);
    assert_int_equal(on[0], N);
    assert_int_equal(on[1], N - 1);
    free(outer);
    cct_free(t);
}

static void test_totals_mismatch_warns(void **state)
{
    (void)state;
    struct tally_error err;
    char *text = strdup(doc_example);
    char *t = strstr(text, "totals: 1020");
    memcpy(t, "totals: 1021", 12);
    struct profile *p = read_text(text, &err);
    assert_non_null(p);
    assert_true(p->warnings.n >= 1);
    profile_free(p);
    free(text);
}

/* tally ends a contexts file with `totals:`: a file without it was cut short */
static void test_truncated_warns(void **state)
{
    (void)state;
    struct tally_error err;
    char *text = strdup(doc_example);
    char *t = strstr(text, "totals: 1020");
    *t = 0;
    struct profile *p = read_text(text, &err);
    assert_non_null(p);
    assert_int_equal(p->warnings.n, 1);
    assert_non_null(strstr(p->warnings.items[0], "'totals:'"));
    assert_non_null(strstr(p->warnings.items[0], "truncated"));
    profile_free(p);
    free(text);
}

struct bad_case {
    const char *text;
    unsigned long line;
    const char *msg;
};

static void test_malformed(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"# tally contexts 2\nevents: Ir\n", 1, "first line"},
        {"# tally contexts 1 \nevents: Ir\n", 1, "first line"},
        {"# tally contexts 1\nfn 1 0 0 main\n", 2, "events"},
        {"# tally contexts 1\nevents: Ir\nbogus: 1\n", 3, "unknown header key 'bogus'"},
        {"# tally contexts 1\nevents: Ir\nfn 1 2 0 main\n", 3, "object id used before"},
        {"# tally contexts 1\nevents: Ir\nx 1 0 1 1 5\n", 3, "function id used before"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 2 1 1 1 5\n", 4, "parent"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nfn 2 0 0 g\nx 1 0 1 1\nx 1 0 2 1\n", 6,
         "defined twice"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 1 1\nx 2 0 1 1\n", 5,
         "twice under one parent"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 1 1 5 6\n", 4, "more costs"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 1 1 99999999999999999999\n", 4,
         "too large"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 1 1 5x\n", 4, "bad character"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0\n", 3, "missing function name"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\ncmd: late\n", 4, "header line after"},
        {"# tally contexts 1\nevents: Ir\nfn 0 0 0 f\n", 3, "reserved"},
        {"# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 1\n", 4, "expected a number"},
        {"# tally contexts 1\nevents: Ir\nevents: Dr\n", 3, "twice"},
        {"# tally contexts 1\n", 0, "no 'events:'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct tally_error err;
        tally_error_clear(&err);
        struct profile *p = read_text(cases[i].text, &err);
        if (p) fail_msg("case %zu was accepted", i);
        if (err.line != cases[i].line)
            fail_msg("case %zu: line %lu, expected %lu (%s)", i, err.line, cases[i].line, err.msg);
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].msg);
        assert_true(strncmp(err.file, "/tmp/tally-unit-", 16) == 0);
    }
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "# tally contexts 1\ncmd: a\0b\nevents: Ir\n";
    char *path = test_tmpfile(text, sizeof(text) - 1);
    struct tally_error err;
    struct profile *p = profile_read(path, NULL, &err);
    unlink(path);
    free(path);
    assert_null(p);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.msg, "NUL byte"));
}

/* Written text, worked out by hand: ids renumbered by first use, trailing zeros dropped. */
static void test_write_and_round_trip(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(tree2, &err);
    assert_non_null(p);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(contexts_write(p, fp, &err), 0);
    fclose(fp);
    assert_string_equal(buf, "# tally contexts 1\n"
                             "events: Ir Dr\n"
                             "depth: 8\n"
                             "fl 1 t.c\n"
                             "fn 1 0 1 main\n"
                             "x 1 0 1 1 5 1\n"
                             "fn 2 0 1 a\n"
                             "x 2 1 2 2 7\n"
                             "fn 3 0 1 c\n"
                             "x 3 2 3 2 17 3\n"
                             "fn 4 0 1 b\n"
                             "x 4 1 4 1 13 2\n"
                             "x 5 4 2 1 11\n"
                             "x 6 5 3 4 19 4\n"
                             "totals: 72 10\n");
    struct profile *q = read_text(buf, &err);
    assert_non_null(q);
    assert_int_equal(q->cct->n, p->cct->n);
    for (uint32_t i = 1; i < p->cct->n; i++) {
        assert_int_equal(q->cct->nodes[i].calls, p->cct->nodes[i].calls);
        assert_int_equal(q->cct->nodes[i].parent, p->cct->nodes[i].parent);
        assert_memory_equal(cct_self(q->cct, i), cct_self(p->cct, i), 2 * sizeof(uint64_t));
    }
    assert_int_equal(q->warnings.n, 0);
    /* through profile_write (atomic file), then read again */
    char path[] = "/tmp/tally-unit-ctx-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(profile_write(q, PROFILE_FORMAT_CONTEXTS, path, &err), 0);
    struct profile *r = profile_read(path, NULL, &err);
    unlink(path);
    assert_non_null(r);
    assert_int_equal(r->cct->n, 7);
    profile_free(r);
    profile_free(q);
    free(buf);
    /* a profile without a tree cannot be written in this format */
    struct profile *e = profile_new();
    profile_add_part(e);
    fp = open_memstream(&buf, &len);
    assert_int_equal(contexts_write(e, fp, &err), -1);
    fclose(fp);
    free(buf);
    assert_non_null(strstr(err.msg, "no calling-context tree"));
    profile_free(e);
    profile_free(p);
}

static void test_add_tree(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(tree2, &err), *q = read_text(tree2, &err);
    assert_non_null(p);
    assert_non_null(q);
    size_t emap[2] = {1, 0}; /* swap the events on purpose */
    assert_int_equal(cct_add_tree(p->cct, p, q->cct, q, emap, &err), 0);
    assert_int_equal(p->cct->n, 7); /* same stacks: no new node */
    uint32_t m = fn_named(p, "main");
    uint32_t n = cct_find(p->cct, CCT_ROOT, m);
    assert_int_equal(p->cct->nodes[n].calls, 2);
    assert_int_equal(cct_self(p->cct, n)[0], 5 + 1);
    assert_int_equal(cct_self(p->cct, n)[1], 1 + 5);
    profile_free(p);
    profile_free(q);
}

/* After other costs are added into the part, the tree no longer describes it. */
static void test_tree_current(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = read_text(doc_example, &err), *q = read_text(doc_example, &err);
    assert_true(contexts_tree_current(p));
    assert_int_equal(part_accumulate(p, p->parts[0], q, q->parts[0], &err), 0);
    assert_false(contexts_tree_current(p));
    profile_free(q);
    profile_free(p);
}

static void test_tree_growth(void **state)
{
    (void)state;
    struct cct *t = cct_new(1);
    uint32_t prev = CCT_ROOT;
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t n = cct_child(t, prev, i);
        assert_int_equal(n, i + 1);
        cct_self(t, n)[0] = 1;
        prev = n;
    }
    assert_int_equal(cct_child(t, 0, 0), 1); /* found again, not created */
    uint64_t *incl = malloc(t->n * sizeof(uint64_t));
    assert_int_equal(cct_inclusive(t, incl, NULL), 0);
    assert_int_equal(incl[0], 1000);
    assert_int_equal(incl[500], 501);
    free(incl);
    cct_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_example),
        cmocka_unit_test(test_derived_profile),
        cmocka_unit_test(test_whole_stacks),
        cmocka_unit_test(test_self_recursion),
        cmocka_unit_test(test_on_stack_branches),
        cmocka_unit_test(test_on_stack_deep),
        cmocka_unit_test(test_totals_mismatch_warns),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncated_warns),
        cmocka_unit_test(test_write_and_round_trip),
        cmocka_unit_test(test_add_tree),
        cmocka_unit_test(test_tree_growth),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_tree_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
