/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the function-level call graph (analysis/callgraph.c) and
 * the DOT selection and text (report/dot.c). Expected values are worked
 * out by hand in the comments.
 */
#include "testutil.h"

#include "analysis/callgraph.h"
#include "report/dot.h"

/*
 * Ir / Dr: main 10/1 calls work twice from two sites (50/5 + 30/3: one arc
 * of 2 calls, 80/8) and helper once (6/0); work 50/5 calls helper 4x
 * (30/3); helper 36/3. Totals 96/9; Sum = Ir + 2 Dr.
 */
static const char *PROFILE = "event: Sum = Ir + 2 Dr\n"
                             "events: Ir Dr\n"
                             "fn=main\n"
                             "1 10 1\n"
                             "cfn=work\n"
                             "calls=1 5\n"
                             "2 50 5\n"
                             "cfn=work\n"
                             "calls=1 5\n"
                             "3 30 3\n"
                             "cfn=helper\n"
                             "calls=1 7\n"
                             "4 6 0\n"
                             "fn=work\n"
                             "5 50 5\n"
                             "cfn=helper\n"
                             "calls=4 7\n"
                             "6 30 3\n"
                             "fn=helper\n"
                             "7 36 3\n";

static struct profile *load(const char *text)
{
    struct tally_error err;
    struct read_options ro = {.merge_parts = 1};
    struct profile *p = test_read_string(text, &ro, &err);
    assert_non_null(p);
    return p;
}

static size_t node_named(const struct callgraph *g, const char *name)
{
    for (size_t v = 0; v < g->nnodes; v++)
        if (!strcmp(profile_str(g->p, profile_function_at(g->p, g->fn[v]).name), name)) return v;
    fail_msg("no node %s", name);
    return 0;
}

static void test_build(void **state)
{
    (void)state;
    struct profile *p = load(PROFILE);
    struct event_expr cols[3];
    const char *names[3] = {"Ir", "Dr", "Sum"};
    for (int i = 0; i < 3; i++)
        assert_int_equal(eventset_lookup(&p->parts[0]->events, names[i], &cols[i]), 0);
    struct callgraph g;
    struct tally_error err;
    assert_int_equal(callgraph_build(&g, p, 0, cols, 3, &err), 0);
    assert_int_equal(g.nnodes, 3);
    assert_int_equal(g.narcs, 3); /* the two main->work sites are one arc */
    assert_int_equal(g.total[0], 96);
    assert_int_equal(g.total[1], 9);
    assert_int_equal(g.total[2], 96 + 2 * 9);
    size_t m = node_named(&g, "main"), w = node_named(&g, "work"), h = node_named(&g, "helper");
    assert_int_equal(callgraph_incl(&g, m)[0], 96);
    assert_int_equal(callgraph_incl(&g, w)[0], 80);
    assert_int_equal(callgraph_incl(&g, w)[2], 80 + 2 * 8);
    assert_int_equal(callgraph_incl(&g, h)[1], 3);
    assert_int_equal(g.calls[w], 2);
    assert_int_equal(g.calls[h], 5);
    assert_int_equal(g.calls[m], 0);
    for (size_t a = 0; a < g.narcs; a++)
        if (g.from[a] == m && g.to[a] == w) {
            assert_int_equal(g.count[a], 2);
            assert_int_equal(g.cost[a * 3 + 0], 80);
        }
    /* 80 of 96 */
    assert_true(callgraph_share(&g, 0, 80) > 83.33 && callgraph_share(&g, 0, 80) < 83.34);

    /* selection: node threshold 40% keeps main (100%) and work (83.3%) */
    struct dot_options o;
    dot_options_init(&o);
    o.node_thres = 40;
    struct dot_selection s;
    assert_int_equal(dot_select(&g, &o, &s, &err), 0);
    assert_int_equal(s.nnodes, 2);
    assert_true(s.node[m] && s.node[w] && !s.node[h]);
    assert_int_equal(s.narcs, 1);
    dot_selection_release(&s);
    /* --leaf=helper keeps everything (all reach helper), --root=work: work, helper */
    const char *root[] = {"^work$"};
    dot_options_init(&o);
    o.roots = root;
    o.nroots = 1;
    assert_int_equal(dot_select(&g, &o, &s, &err), 0);
    assert_true(!s.node[m] && s.node[w] && s.node[h]);
    dot_selection_release(&s);
    const char *none[] = {"nothing"};
    o.roots = none;
    assert_int_equal(dot_select(&g, &o, &s, &err), -1);
    assert_non_null(strstr(err.msg, "no function matches --root=nothing"));
    assert_int_equal(dot_check_regex("(", &err), -1);

    callgraph_release(&g);
    for (int i = 0; i < 3; i++)
        event_expr_release(&cols[i]);
    profile_free(p);
}

/* a <-> b cycle with a self-call on b: recursive arcs and N+R calls */
static void test_recursion(void **state)
{
    (void)state;
    struct profile *p = load("events: Ir\n"
                             "fn=main\n1 5\ncfn=a\ncalls=1 1\n1 95\n"
                             "fn=a\n1 20\ncfn=b\ncalls=3 1\n1 75\n"
                             "fn=b\n1 75\ncfn=a\ncalls=2 1\n1 60\ncfn=b\ncalls=9 1\n1 40\n");
    struct event_expr col;
    assert_int_equal(eventset_lookup(&p->parts[0]->events, "Ir", &col), 0);
    struct callgraph g;
    struct tally_error err;
    assert_int_equal(callgraph_build(&g, p, 0, &col, 1, &err), 0);
    size_t a = node_named(&g, "a"), b = node_named(&g, "b");
    assert_int_equal(g.ir.ncycles, 1);
    assert_true(g.ir.cycle[a] == 1 && g.ir.cycle[b] == 1);
    assert_int_equal(g.ir.cycle_incl[0], 95);
    assert_int_equal(g.calls[a], 1);    /* from main */
    assert_int_equal(g.reccalls[a], 2); /* from b */
    assert_int_equal(g.calls[b], 0);
    assert_int_equal(g.reccalls[b], 3 + 9);
    for (size_t k = 0; k < g.narcs; k++)
        assert_int_equal(callgraph_arc_recursive(&g, k), g.from[k] != node_named(&g, "main"));
    callgraph_release(&g);
    event_expr_release(&col);
    profile_free(p);
}

/* DOT strings: quotes and backslashes escaped, control bytes and bad UTF-8 replaced */
static void test_quote(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    dot_quote(fp, "a\"b\\n\tc\xff\xc3\xa9");
    fclose(fp);
    assert_string_equal(buf, "\"a\\\"b\\\\n?c?\xc3\xa9\"");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
