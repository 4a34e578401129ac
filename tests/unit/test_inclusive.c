/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for inclusive costs (analysis/inclusive.c) and the per-function
 * aggregation behind the annotate report (analysis/funcs.c).
 *
 * Every graph is built so that its call costs are consistent with its self
 * costs (a call's cost is what the callee and everything below it spent
 * during those calls), as a profiler would measure them; the expected
 * values are worked out by hand in the comments.
 */
#include "testutil.h"

#include "analysis/fgraph.h"
#include "analysis/funcs.h"
#include "analysis/inclusive.h"

/* one cost column */
struct g1 {
    size_t n, na;
    tally_wide self[16];
    uint32_t from[16], to[16];
    tally_wide cost[16];
};

static void run(const struct g1 *g, struct incl_result *r)
{
    struct incl_graph ig = {g->n, 1, g->self, NULL, g->na, g->from, g->to, g->cost, NULL};
    struct tally_error err;
    assert_int_equal(incl_compute(&ig, r, &err), 0);
}

static tally_wide total(const struct g1 *g)
{
    tally_wide t = 0;
    for (size_t i = 0; i < g->n; i++)
        t += g->self[i];
    return t;
}

static void assert_not_above_total(const struct g1 *g, const struct incl_result *r)
{
    tally_wide t = total(g);
    for (size_t i = 0; i < g->n; i++)
        assert_true(r->incl[i] <= t);
    for (size_t c = 0; c < r->ncycles; c++)
        assert_true(r->cycle_incl[c] <= t);
}

/*
 * No recursion: main(10) -> a (50), main -> b (5); a(20) -> b (30); b(35).
 * callgrind_annotate's rule: called functions get the sum of incoming call
 * costs (a 50, b 35), the root gets self + calls (10 + 50 + 5 = 65).
 */
static void test_no_recursion(void **state)
{
    (void)state;
    struct g1 g = {3, 3, {10, 20, 35}, {0, 0, 1}, {1, 2, 2}, {50, 5, 30}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 0);
    assert_int_equal(r.incl[0], 65);
    assert_int_equal(r.incl[1], 50);
    assert_int_equal(r.incl[2], 35);
    for (int i = 0; i < 3; i++)
        assert_int_equal(r.cycle[i], 0);
    assert_int_equal(r.incl[0], total(&g));
    assert_not_above_total(&g, &r);
    incl_result_release(&r);
}

/*
 * Direct recursion: main(5) -> f (100); f(100 over all depths) -> f, the
 * nested calls measured as 80. callgrind_annotate says f = 100 + 80 = 180,
 * more than the 105 total; ignoring self-calls gives 100.
 */
static void test_self_recursion(void **state)
{
    (void)state;
    struct g1 g = {2, 2, {5, 100}, {0, 1}, {1, 1}, {100, 80}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 0);
    assert_int_equal(r.incl[1], 100);
    assert_int_equal(r.incl[0], 105);
    assert_not_above_total(&g, &r);
    incl_result_release(&r);
}

/* A self-recursive root that nothing calls: self + calls leaving it. */
static void test_self_recursive_root(void **state)
{
    (void)state;
    /* r(10) -> r (nested, 40), r -> x (7); x(7) */
    struct g1 g = {2, 2, {10, 7}, {0, 0}, {0, 1}, {40, 7}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.incl[0], 17);
    assert_int_equal(r.incl[1], 7);
    assert_not_above_total(&g, &r);
    incl_result_release(&r);
}

/*
 * Mutual recursion: main(2) -> even (96); even(40) <-> odd(40), with
 * measured nested costs even->odd 58 and odd->even 18; even -> leaf 6,
 * odd -> leaf 10; leaf(16). Total 98.
 * Cycle {even, odd}: entered only by main, so <cycle 1> = 96.
 * Members: even = 40 + 6 = 46, odd = 40 + 10 = 50 (calls inside ignored).
 * leaf is outside: 6 + 10 = 16; main: 2 + 96 = 98.
 */
static void test_mutual_recursion(void **state)
{
    (void)state;
    struct g1 g = {4, 5, {2, 40, 40, 16}, {0, 1, 2, 1, 2}, {1, 2, 1, 3, 3}, {96, 58, 18, 6, 10}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 1);
    assert_int_equal(r.cycle[0], 0);
    assert_int_equal(r.cycle[1], 1);
    assert_int_equal(r.cycle[2], 1);
    assert_int_equal(r.cycle[3], 0);
    assert_int_equal(r.cycle_incl[0], 96);
    assert_int_equal(r.cycle_self[0], 80);
    assert_int_equal(r.cycle_start[0], 0);
    assert_int_equal(r.cycle_start[1], 2);
    assert_int_equal(r.members[0], 1);
    assert_int_equal(r.members[1], 2);
    assert_int_equal(r.incl[1], 46);
    assert_int_equal(r.incl[2], 50);
    assert_int_equal(r.incl[3], 16);
    assert_int_equal(r.incl[0], 98);
    assert_not_above_total(&g, &r);
    /* callgrind_annotate would give even 96 + 18 = 114 > 98 */
    incl_result_release(&r);
}

/*
 * A cycle nothing calls: a(10) <-> b(20) (nested costs 25 and 12),
 * a -> c (5), c(5). <cycle 1> = (10 + 5) + (20 + 0) = 35 = total.
 */
static void test_cycle_as_root(void **state)
{
    (void)state;
    struct g1 g = {3, 3, {10, 20, 5}, {0, 1, 0}, {1, 0, 2}, {25, 12, 5}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 1);
    assert_int_equal(r.cycle_incl[0], 35);
    assert_int_equal(r.incl[0], 15);
    assert_int_equal(r.incl[1], 20);
    assert_int_equal(r.incl[2], 5);
    assert_not_above_total(&g, &r);
    incl_result_release(&r);
}

/*
 * Two separate cycles, numbered by their smallest member: nodes 3<->4 and
 * 1<->2, main 0 calls both. Cycle 1 = {1, 2}, cycle 2 = {3, 4}.
 */
static void test_two_cycles(void **state)
{
    (void)state;
    struct g1 g = {
        5, 6, {1, 3, 3, 4, 4}, {0, 0, 1, 2, 3, 4}, {3, 1, 2, 1, 4, 3}, {8, 6, 3, 1, 4, 1}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 2);
    assert_int_equal(r.cycle[1], 1);
    assert_int_equal(r.cycle[2], 1);
    assert_int_equal(r.cycle[3], 2);
    assert_int_equal(r.cycle[4], 2);
    assert_int_equal(r.cycle_incl[0], 6);
    assert_int_equal(r.cycle_incl[1], 8);
    assert_int_equal(r.incl[0], 15);
    assert_not_above_total(&g, &r);
    incl_result_release(&r);
}

/* A very long call chain closed into one cycle: no recursion depth problem. */
static void test_deep_chain(void **state)
{
    (void)state;
    enum { N = 300000 };
    tally_wide *self = calloc(N, sizeof(tally_wide));
    uint32_t *from = calloc(N, sizeof(uint32_t)), *to = calloc(N, sizeof(uint32_t));
    tally_wide *cost = calloc(N, sizeof(tally_wide));
    for (uint32_t i = 0; i < N; i++) {
        self[i] = 1;
        from[i] = i;
        to[i] = (i + 1) % N;
        cost[i] = 1;
    }
    struct incl_graph ig = {N, 1, self, NULL, N, from, to, cost, NULL};
    struct incl_result r;
    struct tally_error err;
    assert_int_equal(incl_compute(&ig, &r, &err), 0);
    assert_int_equal(r.ncycles, 1);
    assert_int_equal(r.cycle_start[1], N);
    assert_int_equal(r.cycle_incl[0], N); /* never entered: all self costs */
    assert_int_equal(r.incl[12345], 1);
    incl_result_release(&r);
    /* the same chain without the closing arc: a plain chain, no cycles */
    ig.narcs = N - 1;
    assert_int_equal(incl_compute(&ig, &r, &err), 0);
    assert_int_equal(r.ncycles, 0);
    assert_int_equal(r.incl[0], 1 + 1); /* root: self + its one call */
    incl_result_release(&r);
    free(self);
    free(from);
    free(to);
    free(cost);
}

static void test_overflow(void **state)
{
    (void)state;
    /* sums are 128-bit: one past its largest value is refused */
    tally_wide top = (tally_wide)(((unsigned __int128)1 << 127) - 1);
    struct g1 g = {3, 2, {0, 0, 0}, {0, 1}, {2, 2}, {top, 1}};
    struct incl_graph ig = {g.n, 1, g.self, NULL, g.na, g.from, g.to, g.cost, NULL};
    struct incl_result r;
    struct tally_error err;
    assert_int_equal(incl_compute(&ig, &r, &err), -1);
    assert_non_null(strstr(err.msg, "overflow"));
}

/* ------------------------------------------------------- via the model */

static uint32_t fn(struct profile *p, const char *obj, const char *file, const char *name)
{
    return profile_function(p, profile_intern(p, obj, strlen(obj)),
                            profile_intern(p, file, strlen(file)),
                            profile_intern(p, name, strlen(name)));
}

static struct position at(struct profile *p, const char *file, uint64_t line)
{
    struct position pos = {profile_intern(p, file, strlen(file)), line, 0, 0};
    return pos;
}

static size_t row_of(struct func_table *ft, const char *file, const char *name)
{
    for (size_t i = 0; i < func_nrows(ft); i++) {
        char *d = func_row_display(ft, i);
        char *want = xasprintf("%s:%s", file, name);
        int same = !strcmp(d, want);
        free(d);
        free(want);
        if (same) return i;
    }
    fail_msg("no row %s:%s", file, name);
    return 0;
}

/*
 * A profile with events Ir Dr: main in /cwd/t.c, helper inlined from t.h,
 * callee g reached with cfi=/cwd/t.c (absolute: the cwd is stripped, so it
 * is the same row as g's own "t.c" block, unlike callgrind_annotate).
 */
static void test_funcs_rows(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    struct tally_error err;
    assert_int_equal(eventset_set_base(&pt->events, "Ir Dr", 5, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    uint32_t m = fn(p, "prog", "/cwd/t.c", "main");
    uint32_t g_own = fn(p, "prog", "t.c", "g");
    uint32_t g_abs = fn(p, "prog", "/cwd/t.c", "g");
    struct position l3 = at(p, "/cwd/t.c", 3), l4 = at(p, "/cwd/t.c", 4), h7 = at(p, "t.h", 7);
    struct position g1 = at(p, "t.c", 10);
    uint64_t c1[2] = {10, 0}; /* Dr dropped as a trailing zero */
    uint64_t c2[2] = {5, 2};
    uint64_t c3[2] = {3, 1};
    uint64_t gc[2] = {20, 4};
    assert_int_equal(part_add_cost(p, pt, m, &l3, c1, 1), 0);
    assert_int_equal(part_add_cost(p, pt, m, &l4, c2, 2), 0);
    assert_int_equal(part_add_cost(p, pt, m, &h7, c3, 2), 0);
    assert_int_equal(part_add_cost(p, pt, g_own, &g1, gc, 2), 0);
    struct position tgt = at(p, "/cwd/t.c", 10);
    assert_int_equal(part_add_call(p, pt, m, &l4, g_abs, &tgt, 2, gc, 2), 0);

    struct event_expr cols[3];
    assert_int_equal(eventset_lookup(&pt->events, "Ir", &cols[0]), 0);
    assert_int_equal(eventset_lookup(&pt->events, "Dr", &cols[1]), 0);
    /* a derived column built by hand: Ir + 2 Dr */
    struct event_term terms[2] = {{1, 0}, {2, 1}};
    cols[2].nterms = 2;
    cols[2].terms = terms;
    struct func_options fo = {3, cols, "/cwd/", 1, 0, NULL, NULL, 0, 0};
    struct func_table ft;
    assert_int_equal(func_table_build(&ft, p, &fo, &err), 0);

    size_t rm = row_of(&ft, "t.c", "main"), rh = row_of(&ft, "t.h", "main");
    size_t rg = row_of(&ft, "t.c", "g");
    assert_int_equal(func_row_self(&ft, rm)[0], 15);
    assert_int_equal(func_row_self(&ft, rm)[1], 2);
    assert_int_equal(func_row_self(&ft, rm)[2], 19);
    assert_int_equal(func_row_ndef(&ft, rm), 2);
    assert_int_equal(func_row_self(&ft, rh)[0], 3);
    assert_int_equal(func_row_self(&ft, rg)[0], 20);
    /* main's own file row has the object, the inlined t.h row does not */
    assert_true(func_row_obj(&ft, rm) != 0);
    assert_true(func_row_obj(&ft, rh) == 0);
    /* one arc main -> g (the cfi= name was cwd-stripped onto g's row) */
    assert_int_equal(ft.arcs.count, 1);
    assert_int_equal(func_arc_caller(&ft, 0), rm);
    assert_int_equal(func_arc_callee(&ft, 0), rg);
    assert_int_equal(func_arc_count(&ft, 0), 2);
    /* per-line costs: line 3 only has Ir, Dr was never written */
    uint64_t key[2] = {func_row_file(&ft, rm), 3};
    uint64_t *lv = rectab_find(&ft.lines, key);
    assert_non_null(lv);
    assert_int_equal(lv[0], 1); /* ndef */
    assert_true(func_col_defined(&ft, 0, (uint32_t)lv[0]));
    assert_false(func_col_defined(&ft, 1, (uint32_t)lv[0]));
    assert_int_equal(ft.line_calls.count, 1);

    /* inclusive: main is not called, so self + calls = 15 + 3 + ... per row */
    size_t n = func_nrows(&ft);
    tally_wide *self = calloc(n, sizeof(tally_wide));
    for (size_t i = 0; i < n; i++)
        self[i] = func_row_self(&ft, i)[0];
    uint32_t from = func_arc_caller(&ft, 0), to = func_arc_callee(&ft, 0);
    tally_wide cost = func_arc_cost(&ft, 0)[0];
    struct incl_graph ig = {n, 1, self, NULL, 1, &from, &to, &cost, NULL};
    struct incl_result r;
    assert_int_equal(incl_compute(&ig, &r, &err), 0);
    assert_int_equal(r.incl[rm], 15 + 20);
    assert_int_equal(r.incl[rg], 20);
    assert_int_equal(r.incl[rh], 3);
    incl_result_release(&r);
    free(self);
    func_table_release(&ft);
    event_expr_release(&cols[0]);
    event_expr_release(&cols[1]);
    profile_free(p);
}

/*
 * The Tarjan walk by itself: 0 -> 1 -> 2 -> 1 (a cycle), 2 -> 3, 3 -> 3
 * (a self-loop), 4 alone. Walking from 0: 3 is finished first (its own
 * component), then 1 and 2 (popped 2 then 1), then 0; 4 is a root of its
 * own, found last.
 */
static void test_fgraph_scc(void **state)
{
    (void)state;
    const size_t start[6] = {0, 1, 2, 4, 5, 5};
    const uint32_t adj[5] = {1, 2, 1, 3, 3};
    uint32_t comp[5], order[5];
    assert_int_equal(fgraph_scc(5, start, adj, comp, order), 4);
    const uint32_t want_comp[5] = {2, 1, 1, 0, 3};
    const uint32_t want_order[5] = {3, 2, 1, 0, 4};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(comp[i], want_comp[i]);
        assert_int_equal(order[i], want_order[i]);
    }
    /* without the order, and an empty graph */
    uint32_t comp2[5];
    assert_int_equal(fgraph_scc(5, start, adj, comp2, NULL), 4);
    assert_memory_equal(comp, comp2, sizeof(comp));
    const size_t start0[1] = {0};
    assert_int_equal(fgraph_scc(0, start0, adj, comp2, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_recursion),        cmocka_unit_test(test_self_recursion),
        cmocka_unit_test(test_self_recursive_root), cmocka_unit_test(test_mutual_recursion),
        cmocka_unit_test(test_cycle_as_root),       cmocka_unit_test(test_two_cycles),
        cmocka_unit_test(test_deep_chain),          cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_funcs_rows),          cmocka_unit_test(test_fgraph_scc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
