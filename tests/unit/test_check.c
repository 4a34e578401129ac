/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for analysis/check: limits, events, the comparison. */
#include "testutil.h"

#include <math.h>

#include "analysis/check.h"

static void test_limit_forms(void **state)
{
    (void)state;
    struct tally_error err;
    struct check_limit l;
    assert_int_equal(check_limit_parse("Ir=+2%", &l, &err), 0);
    assert_null(l.func_regex);
    assert_string_equal(l.event, "Ir");
    assert_int_equal(l.kind, CHECK_PERCENT);
    assert_true(l.value == 2);
    check_limit_release(&l);
    assert_int_equal(check_limit_parse("Ir=-5%", &l, &err), 0);
    assert_true(l.value == -5);
    check_limit_release(&l);
    assert_int_equal(check_limit_parse("Ir=2.5%", &l, &err), 0);
    assert_true(l.value == 2.5);
    check_limit_release(&l);
    assert_int_equal(check_limit_parse("Ir<=5e9", &l, &err), 0);
    assert_int_equal(l.kind, CHECK_ABSOLUTE);
    assert_true(l.value == 5e9);
    check_limit_release(&l);
    /* the regex is everything before the last ':' */
    assert_int_equal(check_limit_parse("ns::parse_.*:D1mr=+5%", &l, &err), 0);
    assert_string_equal(l.func_regex, "ns::parse_.*");
    assert_string_equal(l.event, "D1mr");
    check_limit_release(&l);
}

static void test_limit_errors(void **state)
{
    (void)state;
    struct tally_error err;
    struct check_limit l;
    static const char *const bad[] = {"Ir",        "Ir=2",   "=2%",    "Ir=x%",  "Ir<=-1", "Ir<=+5",
                                      "Ir<=1e999", ":Ir=2%", "Ir=2%%", "Ir==2%", "(:Ir=2%"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tally_error_clear(&err);
        if (check_limit_parse(bad[i], &l, &err) == 0) fail_msg("'%s' was accepted", bad[i]);
        assert_true(err.msg[0] != 0);
    }
}

/* --event definitions: the shape is checked early, the formula per side (model/formula.c) */
static void test_events(void **state)
{
    (void)state;
    struct tally_error err;
    assert_int_equal(event_definition_check("Cyc = Ir + 10*I1mr - 2 * Dr+ILmr", &err), 0);
    static const char *const bad[] = {"Cyc", "Cyc=", "=Ir", "Cyc = "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (event_definition_check(bad[i], &err) == 0) fail_msg("'%s' was accepted", bad[i]);
}

static void test_percent(void **state)
{
    (void)state;
    assert_true(check_percent(100, 100) == 0);
    assert_true(check_percent(0, 0) == 0);
    assert_true(isinf(check_percent(0, 5)) && check_percent(0, 5) > 0);
    assert_true(check_percent(200, 100) == -50);
}

static const char *base_text = "events: Ir Dr\n"
                               "ob=/lib/ld-linux-x86-64.so.2\nfl=rtld.c\nfn=_dl_start\n1 400 4\n"
                               "ob=/bin/p\nfl=a.c\nfn=main\n1 100 10\nfn=f\n2 1000 1\n"
                               "fl=b.c\nfn=f\n3 1000 1\n";
static const char *new_text = "events: Dr Ir\n"
                              "ob=/lib/ld-linux-x86-64.so.2\nfl=rtld.c\nfn=_dl_start\n1 9 900\n"
                              "ob=/bin/p\nfl=a.c\nfn=main\n1 10 100\nfn=f\n2 1 1020\n"
                              "fl=b.c\nfn=f\n3 1 1000\nfn=g\n4 0 7\n";

/* compare the two profiles above with the given limits */
static int run_events(const char *const *limits, size_t n, const char *ignore,
                      const char *const *events, size_t nevents, struct check_result *res)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *b = test_read_string(base_text, NULL, &err);
    struct profile *nw = test_read_string(new_text, NULL, &err);
    assert_non_null(b);
    assert_non_null(nw);
    struct check_limit *l = calloc(n, sizeof(*l));
    for (size_t i = 0; i < n; i++)
        assert_int_equal(check_limit_parse(limits[i], &l[i], &err), 0);
    struct check_options o = {
        .limits = l, .nlimits = n, .ignore_object = ignore, .events = events, .nevents = nevents};
    int rc = check_compute(b, nw, &o, res, &err);
    for (size_t i = 0; i < n; i++)
        check_limit_release(&l[i]);
    free(l);
    profile_free(b);
    profile_free(nw);
    return rc;
}

static int run(const char *const *limits, size_t n, const char *ignore, struct check_result *res)
{
    return run_events(limits, n, ignore, NULL, 0, res);
}

static void test_compare(void **state)
{
    (void)state;
    struct check_result r;
    /* f (two files, one name) grows 2000 -> 2020: exactly +1% */
    const char *const lim[] = {"f:Ir=+1%", "Ir<=2127", "Ir=+0.9%", "g:Ir=+1000%", "Dr=-5%"};
    assert_int_equal(run(lim, 5, "ld-linux", &r), 0);
    assert_int_equal(r.ncols, 2);
    assert_true(r.base_total[0] == 2100 && r.new_total[0] == 2127);
    assert_true(r.base_total[1] == 12 && r.new_total[1] == 12);
    assert_int_equal(r.outcomes[0].exceeded, 0); /* at the boundary: within */
    assert_int_equal(r.outcomes[0].checked, 1);
    assert_int_equal(r.outcomes[1].exceeded, 0);
    assert_int_equal(r.outcomes[2].exceeded, 1);
    assert_int_equal(r.outcomes[3].exceeded, 1); /* g is new: +inf% */
    assert_int_equal(r.outcomes[4].exceeded, 1); /* no improvement */
    assert_int_equal(r.nexceeded, 3);
    /* functions by the size of the change: f (+20), g (+7), then main (0) */
    assert_string_equal(r.funcs[0].name, "f");
    assert_string_equal(r.funcs[1].name, "g");
    assert_int_equal(r.funcs[1].in_base, 0);
    check_result_release(&r);
    /* without the default ignore, ld.so counts */
    const char *const lim2[] = {"Ir=+50%"};
    assert_int_equal(run(lim2, 1, NULL, &r), 0);
    assert_true(r.base_total[0] == 2500 && r.new_total[0] == 3027);
    assert_int_equal(r.nexceeded, 0);
    check_result_release(&r);
    /* an unknown event */
    const char *const lim3[] = {"Nope=+1%"};
    assert_int_equal(run(lim3, 1, NULL, &r), -2);
    /* a bad ignore regex */
    assert_int_equal(run(lim2, 1, "(", &r), -2);
    /* a user event, on each side's own event order: X = Ir - 3 Dr + 2 (Dr + Ir) = 3 Ir - Dr;
       base 3*2100 - 12, new 3*2127 - 12 (ld.so ignored) */
    const char *const ev[] = {"Y = Dr + Ir", "X=Ir - 3*Dr + 2 Y"};
    const char *const lim4[] = {"X=+10%"};
    assert_int_equal(run_events(lim4, 1, "ld-linux", ev, 2, &r), 0);
    assert_true(r.base_total[0] == 3 * 2100 - 12 && r.new_total[0] == 3 * 2127 - 12);
    assert_string_equal(r.formulas[0], "Ir - 3*Dr + 2 Y");
    check_result_release(&r);
    /* a definition naming an event the profiles lack is a usage error */
    const char *const ev2[] = {"X=Ir+Bogus"};
    assert_int_equal(run_events(lim4, 1, NULL, ev2, 1, &r), -2);
}

/*
 * --inclusive=yes. NEW: main(10) -> a (90); a(20) -> b (70); b(30) -> a
 * (a call of a, already on the stack: no cost), b -> leaf (40); leaf(40).
 * With the outermost marker the calls into a function are its time on the
 * stack: main 100, a 90, b 70, leaf 40. BASE has leaf 10 cheaper: main
 * 90, a 80, b 60, leaf 30. Totals stay the sums of self costs: 90, 100.
 */
static const char *incl_base = "desc: Option: call costs: outermost activations\nevents: Ir\n"
                               "fl=a.c\nfn=main\n1 10\ncfn=a\ncalls=1 2\n1 80\n"
                               "fn=a\n2 20\ncfn=b\ncalls=1 3\n2 60\n"
                               "fn=b\n3 30\ncfn=a\ncalls=1 2\n3 0\ncfn=leaf\ncalls=1 4\n3 30\n"
                               "fn=leaf\n4 30\n";
static const char *incl_new = "desc: Option: call costs: outermost activations\nevents: Ir\n"
                              "fl=a.c\nfn=main\n1 10\ncfn=a\ncalls=1 2\n1 90\n"
                              "fn=a\n2 20\ncfn=b\ncalls=1 3\n2 70\n"
                              "fn=b\n3 30\ncfn=a\ncalls=1 2\n3 0\ncfn=leaf\ncalls=1 4\n3 40\n"
                              "fn=leaf\n4 40\n";

static void test_inclusive(void **state)
{
    (void)state;
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *b = test_read_string(incl_base, NULL, &err);
    struct profile *nw = test_read_string(incl_new, NULL, &err);
    assert_non_null(b);
    assert_non_null(nw);
    struct check_limit l;
    assert_int_equal(check_limit_parse("^(a|b)$:Ir=+12%", &l, &err), 0);
    struct check_options o = {.limits = &l, .nlimits = 1, .inclusive = 1};
    struct check_result r;
    assert_int_equal(check_compute(b, nw, &o, &r, &err), 0);
    assert_true(r.base_total[0] == 90 && r.new_total[0] == 100); /* self costs */
    /* a: 80 -> 90 = +12.5%, b: 60 -> 70 = +16.7%: both beyond +12% */
    assert_int_equal(r.outcomes[0].nhits, 2);
    for (size_t f = 0; f < r.nfuncs; f++) {
        const struct check_func *fn = &r.funcs[f];
        int64_t want_b = !strcmp(fn->name, "main") ? 90
                         : !strcmp(fn->name, "a")  ? 80
                         : !strcmp(fn->name, "b")  ? 60
                                                   : 30;
        assert_true(fn->base[0] == want_b && fn->new_[0] == want_b + 10);
    }
    check_result_release(&r);
    o.inclusive = 0; /* self costs: a and b unchanged */
    assert_int_equal(check_compute(b, nw, &o, &r, &err), 0);
    assert_int_equal(r.outcomes[0].nhits, 0);
    check_result_release(&r);
    check_limit_release(&l);
    profile_free(b);
    profile_free(nw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_forms), cmocka_unit_test(test_limit_errors),
        cmocka_unit_test(test_events),      cmocka_unit_test(test_percent),
        cmocka_unit_test(test_compare),     cmocka_unit_test(test_inclusive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
