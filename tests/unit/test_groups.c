/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for analysis/groups: the class of a C++ name, and the groups' costs. */
#include "testutil.h"

#include "analysis/groups.h"

static void expect_class(const char *name, const char *want)
{
    char *got = group_class_of(name);
    if (!want) {
        if (got) fail_msg("'%s': class '%s', expected none", name, got);
    } else if (!got || strcmp(got, want)) {
        fail_msg("'%s': class '%s', expected '%s'", name, got ? got : "(null)", want);
    }
    free(got);
}

static void test_class_of(void **state)
{
    (void)state;
    expect_class("main", NULL);
    expect_class("f(int)", NULL);
    expect_class("void f<int>(int)", NULL);
    expect_class("ns::f(int)", "ns");
    expect_class("ns::C::get() const", "ns::C");
    expect_class("ns::Box<int>::get() const", "ns::Box<...>");
    expect_class("std::vector<int, std::allocator<int> >::push_back(int const&)",
                 "std::vector<...>");
    expect_class("ns::A<int>::B<char>::f()", "ns::A<...>::B<...>");
    expect_class("int ns::Box<long>::get<double>(double) [clone .cold]", "ns::Box<...>");
    expect_class("std::basic_ostream<char>& std::operator<< <std::char_traits<char> >"
                 "(std::basic_ostream<char>&, char const*)",
                 "std");
    expect_class("ns::C::operator<(ns::C const&) const", "ns::C");
    expect_class("ns::C::operator()(int) &&", "ns::C");
    expect_class("(anonymous namespace)::helper(int)", "(anonymous namespace)");
    expect_class("ns::f()::{lambda(int)#1}::operator()(int) const", "ns::f()::{lambda(int)#1}");
    expect_class("ns::T ns::make<ns::T>()", "ns");
    expect_class("ns::C::f(int)'2", "ns::C");
}

/*
 * main (self 10) calls ns::A::f (inclusive 100) and ns::B::g (30); A::f
 * (20) calls A::h (50, inside its group) and B::g twice (30); B::g is 60
 * in all. By construction: group ns::A is 70 self, 100 inclusive (its one
 * entry, A::f); ns::B 60 and 60; (none), main, 10 and 140 (the total).
 */
static const char *text = "events: Ir\n"
                          "fl=a.cc\nfn=main\n1 10\n"
                          "cfn=ns::A::f()\ncalls=1 1\n1 100\n"
                          "cfn=ns::B::g()\ncalls=1 1\n1 30\n"
                          "fn=ns::A::f()\n1 20\n"
                          "cfn=ns::A::h()\ncalls=1 1\n1 50\n"
                          "cfn=ns::B::g()\ncalls=2 1\n1 30\n"
                          "fn=ns::A::h()\n1 50\n"
                          "fn=ns::B::g()\n1 60\n";

static void test_table(void **state)
{
    (void)state;
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *p = test_read_string(text, NULL, &err);
    assert_non_null(p);
    struct event_expr col;
    assert_int_equal(eventset_lookup(&p->parts[0]->events, "Ir", &col), 0);
    struct group_table g;
    assert_int_equal(group_table_build(&g, p, p->parts[0], GROUP_CLASS, &col, 1, &err), 0);
    assert_int_equal(g.ngroups, 3);
    /* sorted by name: "(none)", "ns::A", "ns::B" */
    static const char *const names[] = {"(none)", "ns::A", "ns::B"};
    static const long self[] = {10, 70, 60}, incl[] = {140, 100, 60};
    static const size_t nf[] = {1, 2, 1};
    for (size_t k = 0; k < 3; k++) {
        assert_string_equal(g.names[k], names[k]);
        assert_true(g.self[k] == self[k]);
        assert_true(g.incl[k] == incl[k]);
        assert_int_equal(g.nfuncs[k], nf[k]);
        assert_int_equal(g.cycle[k], 0);
    }
    group_table_release(&g);
    /* one file, no object: one group each, the whole program */
    assert_int_equal(group_table_build(&g, p, p->parts[0], GROUP_FILE, &col, 1, &err), 0);
    assert_int_equal(g.ngroups, 1);
    assert_string_equal(g.names[0], "a.cc");
    assert_true(g.self[0] == 140 && g.incl[0] == 140);
    group_table_release(&g);
    assert_int_equal(group_table_build(&g, p, p->parts[0], GROUP_OBJECT, &col, 1, &err), 0);
    assert_int_equal(g.ngroups, 1);
    assert_string_equal(g.names[0], GROUP_NONE);
    group_table_release(&g);
    event_expr_release(&col);
    profile_free(p);
}

static void test_kinds(void **state)
{
    (void)state;
    enum group_kind k;
    assert_int_equal(group_kind_parse("class", &k), 0);
    assert_int_equal(k, GROUP_CLASS);
    assert_string_equal(group_kind_name(GROUP_FILE), "file");
    assert_int_equal(group_kind_parse("function", &k), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_of),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
