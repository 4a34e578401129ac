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
    struct incl_graph ig = {g->n,  1,       g->self, NULL, g->na, g->from,
                            g->to, g->cost, NULL,    0,    NULL,  NULL};
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
 * Members (estimates: these calls nest): the calls into them, at most the
 * cycle's: even min(96 + 18, 96) = 96, odd min(58, 96) = 58; neither below
 * what it surely spends (even: its 96 from outside; odd: its own 40 plus
 * its call to leaf 10 = 50).
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
    assert_int_equal(r.incl[1], 96);
    assert_int_equal(r.incl[2], 58);
    assert_true(incl_estimated(&r, 1) && incl_estimated(&r, 2) && !incl_estimated(&r, 3));
    assert_int_equal(r.incl[3], 16);
    assert_int_equal(r.incl[0], 98);
    assert_not_above_total(&g, &r);
    /* callgrind_annotate would give even 96 + 18 = 114 > 98 */
    incl_result_release(&r);
}

/*
 * A cycle nothing calls: a(10) <-> b(20) (nested costs 25 and 12),
 * a -> c (5), c(5). <cycle 1> = (10 + 5) + (20 + 0) = 35 = total.
 * a spends at least 10 + 5 = 15, more than the 12 of the calls into it:
 * it starts the cycle at the bottom of the stack, so it gets all 35.
 * b: the call into it, 25 (at most the cycle's 35).
 */
static void test_cycle_as_root(void **state)
{
    (void)state;
    struct g1 g = {3, 3, {10, 20, 5}, {0, 1, 0}, {1, 0, 2}, {25, 12, 5}};
    struct incl_result r;
    run(&g, &r);
    assert_int_equal(r.ncycles, 1);
    assert_int_equal(r.cycle_incl[0], 35);
    assert_int_equal(r.incl[0], 35);
    assert_int_equal(r.incl[1], 25);
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

/*
 * Executions that know their answer. A random program of NF functions
 * (function 0 is main, never called again) runs: each activation works a
 * little, calls a few random functions (recursion through any of them, up
 * to a depth), works again. The simulation keeps a clock and a stack, and
 * from them derives what a profiler records: self costs, and per (caller,
 * callee) the cost of every call (Callgrind's arcs, nested) or only of the
 * calls into a function not yet on the stack (tally record's arcs). The
 * truth is each function's time on the stack, counted once: the lengths
 * of its outermost activations.
 */
enum { NF = 7, MAXD = 9 };
struct sim {
    uint64_t rng, clock;
    int depth_of[NF];
    tally_wide self[NF], truth[NF];
    tally_wide nested[NF][NF], outer[NF][NF];
};

static unsigned sim_rand(struct sim *s, unsigned n)
{
    s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(s->rng >> 33) % n;
}

static void sim_run(struct sim *s, int f, int caller, int depth)
{
    uint64_t start = s->clock;
    int outermost = s->depth_of[f]++ == 0;
    unsigned w = 1 + sim_rand(s, 20);
    s->clock += w;
    s->self[f] += w;
    unsigned calls = depth < MAXD ? sim_rand(s, 4) : 0;
    for (unsigned k = 0; k < calls; k++)
        sim_run(s, 1 + (int)sim_rand(s, NF - 1), f, depth + 1);
    w = sim_rand(s, 10);
    s->clock += w;
    s->self[f] += w;
    tally_wide len = (tally_wide)(s->clock - start);
    if (outermost) s->truth[f] += len;
    if (caller >= 0) {
        s->nested[caller][f] += len;
        if (outermost) s->outer[caller][f] += len;
    }
    s->depth_of[f]--;
}

static void sim_graph(const struct sim *s, int outermost, struct g1 *g)
{
    memset(g, 0, sizeof(*g));
    g->n = NF;
    for (int f = 0; f < NF; f++)
        g->self[f] = s->self[f];
    for (int a = 0; a < NF; a++)
        for (int b = 0; b < NF; b++)
            if (s->nested[a][b] && g->na < 16) { /* a call into b from a happened */
                g->from[g->na] = (uint32_t)a;
                g->to[g->na] = (uint32_t)b;
                g->cost[g->na++] = outermost ? s->outer[a][b] : s->nested[a][b];
            }
}

static void test_truth_from_executions(void **state)
{
    (void)state;
    int estimated_seen = 0;
    double worst = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        struct sim s;
        memset(&s, 0, sizeof(s));
        s.rng = seed;
        sim_run(&s, 0, -1, 0);
        struct g1 g;
        sim_graph(&s, 1, &g);
        if (g.na >= 16) continue; /* more arcs than struct g1 holds */
        /* tally record's arcs: every function exact, none an estimate */
        struct incl_result r;
        struct incl_graph ig = {g.n,  1,      g.self, NULL, g.na, g.from,
                                g.to, g.cost, NULL,   1,    NULL, NULL};
        struct tally_error err;
        assert_int_equal(incl_compute(&ig, &r, &err), 0);
        for (int f = 0; f < NF; f++) {
            if (!s.self[f]) continue; /* never ran */
            if (r.incl[f] != s.truth[f])
                fail_msg("seed %llu: function %d: %lld, truth %lld", (unsigned long long)seed, f,
                         (long long)r.incl[f], (long long)s.truth[f]);
            assert_false(incl_estimated(&r, (size_t)f));
        }
        incl_result_release(&r);
        /* Callgrind's arcs: never above the total nor below the own cost;
         * estimates where recursion makes them so */
        sim_graph(&s, 0, &g);
        ig.cost = g.cost;
        ig.outermost = 0;
        assert_int_equal(incl_compute(&ig, &r, &err), 0);
        assert_not_above_total(&g, &r);
        for (int f = 0; f < NF; f++) {
            if (!s.self[f]) continue;
            assert_true(r.incl[f] >= s.self[f]);
            if (incl_estimated(&r, (size_t)f)) {
                estimated_seen = 1;
                double e = (double)(r.incl[f] - s.truth[f]) / (double)s.truth[0];
                if (e < 0) e = -e;
                if (e > worst) worst = e;
            } else {
                assert_true(r.incl[f] == s.truth[f]); /* outside recursion: exact */
            }
        }
        incl_result_release(&r);
    }
    assert_true(estimated_seen);
    print_message("# worst estimate error over the executions: %.1f%% of the total\n", 100 * worst);
}

/* Callgrind's recursion levels: NAME and NAME'k below the deepest level of
 * NAME seen are never entered while active. */
static void test_level_flags(void **state)
{
    (void)state;
    const char *names[] = {"f",    "f'2", "g",   "h'2",   "h",      "h'3",
                           "x'02", "'2",  "y'1", "a.c:k", "a.c:k'2"};
    /* f: f'2 exists; f'2: the deepest f; g: no levels; h and h'2: below
     * h'3; x'02 and y'1 are not levels (a leading zero, level 1 is the
     * plain name); "'2" has no name before the mark; a row name with its
     * file works the same */
    const unsigned char want[] = {1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0};
    size_t n = sizeof(names) / sizeof(names[0]);
    unsigned char *got = incl_level_flags(names, n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("%s: %d, want %d", names[i], got[i], want[i]);
    free(got);
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
    struct incl_graph ig = {N, 1, self, NULL, N, from, to, cost, NULL, 0, NULL, NULL};
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

/* A cycle nothing outside calls, two events: by the first, member 0 is at
 * the bottom (its own cost most exceeds its calls in), by the second alone
 * member 1 would be. Computed one event at a time with the first
 * computation's choice (incl_graph.bottom), the second event's costs are
 * those of the two-event computation, and differ from its own choice. */
static void test_bottom_kept(void **state)
{
    (void)state;
    /* 0 <-> 1; self (event 0, event 1): 0 = (10, 1), 1 = (1, 10);
       calls 0->1 cost (2, 3), 1->0 cost (3, 2) */
    tally_wide self2[4] = {10, 1, 1, 10};
    uint32_t from[2] = {0, 1}, to[2] = {1, 0};
    tally_wide cost2[4] = {2, 3, 3, 2};
    struct incl_graph both = {2, 2, self2, NULL, 2, from, to, cost2, NULL, 0, NULL, NULL};
    struct incl_result rb, r0, r1, ralone;
    struct tally_error err;
    assert_int_equal(incl_compute(&both, &rb, &err), 0);
    assert_int_equal(rb.ncycles, 1);
    assert_int_equal(rb.bottom[0], 0);
    tally_wide self_e0[2] = {10, 1}, cost_e0[2] = {2, 3};
    tally_wide self_e1[2] = {1, 10}, cost_e1[2] = {3, 2};
    struct incl_graph g0 = {2, 1, self_e0, NULL, 2, from, to, cost_e0, NULL, 0, NULL, NULL};
    assert_int_equal(incl_compute(&g0, &r0, &err), 0);
    assert_int_equal(r0.bottom[0], 0);
    struct incl_graph g1 = {2, 1, self_e1, NULL, 2, from, to, cost_e1, NULL, 0, NULL, r0.bottom};
    assert_int_equal(incl_compute(&g1, &r1, &err), 0);
    for (int v = 0; v < 2; v++)
        assert_true(r1.incl[v] == rb.incl[v * 2 + 1]);
    g1.bottom = NULL; /* its own choice: member 1 at the bottom, another answer */
    assert_int_equal(incl_compute(&g1, &ralone, &err), 0);
    assert_int_equal(ralone.bottom[0], 1);
    assert_true(ralone.incl[0] != r1.incl[0] || ralone.incl[1] != r1.incl[1]);
    incl_result_release(&rb);
    incl_result_release(&r0);
    incl_result_release(&r1);
    incl_result_release(&ralone);
}

static void test_overflow(void **state)
{
    (void)state;
    /* sums are 128-bit: one past its largest value is refused */
    tally_wide top = (tally_wide)(((unsigned __int128)1 << 127) - 1);
    struct g1 g = {3, 2, {0, 0, 0}, {0, 1}, {2, 2}, {top, 1}};
    struct incl_graph ig = {g.n, 1, g.self, NULL, g.na, g.from, g.to, g.cost, NULL, 0, NULL, NULL};
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
    struct func_options fo = {3, cols, "/cwd/", 1, 0, NULL, NULL, 0, 0, 0};
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
    struct incl_graph ig = {n, 1, self, NULL, 1, &from, &to, &cost, NULL, 0, NULL, NULL};
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
 * Which rows a callgrind file's functions get: k, named by an `fn=` line of
 * t.c whose one cost is inlined from t.h, has its (empty) t.c row listed, as
 * callgrind_annotate makes a row at every `fn=`; the callee c, named only by
 * a `cfn=` line, has a row for the arcs but is not listed.
 */
static void test_funcs_named_rows(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    struct tally_error err;
    assert_int_equal(eventset_set_base(&pt->events, "Ir", 2, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    uint32_t k = fn(p, "prog", "t.c", "k"), c = fn(p, "prog", "t.c", "c");
    profile_mention_function(p, k);
    struct position h7 = at(p, "t.h", 7), t3 = at(p, "t.c", 3);
    uint64_t one[1] = {4};
    assert_int_equal(part_add_cost(p, pt, k, &h7, one, 1), 0);
    assert_int_equal(part_add_call(p, pt, k, &h7, c, &t3, 1, one, 1), 0);
    struct event_expr col;
    assert_int_equal(eventset_lookup(&pt->events, "Ir", &col), 0);
    struct func_options fo = {1, &col, NULL, 0, 0, NULL, NULL, 0, 0, 0};
    struct func_table ft;
    assert_int_equal(func_table_build(&ft, p, &fo, &err), 0);
    size_t own = row_of(&ft, "t.c", "k"), inl = row_of(&ft, "t.h", "k");
    size_t callee = row_of(&ft, "t.c", "c");
    assert_true(func_row_flags(&ft, own) & FUNC_ROW_LISTED);
    assert_int_equal(func_row_ndef(&ft, own), 0); /* shown as '.' */
    assert_int_equal(func_row_self(&ft, inl)[0], 4);
    assert_false(func_row_flags(&ft, callee) & FUNC_ROW_LISTED);
    assert_true(func_row_flags(&ft, callee) & FUNC_ROW_CALLEE);
    func_table_release(&ft);
    event_expr_release(&col);
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
        cmocka_unit_test(test_deep_chain),          cmocka_unit_test(test_truth_from_executions),
        cmocka_unit_test(test_level_flags),         cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_funcs_rows),          cmocka_unit_test(test_funcs_named_rows),
        cmocka_unit_test(test_fgraph_scc),          cmocka_unit_test(test_bottom_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
