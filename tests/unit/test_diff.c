/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for analysis/diff: NEW minus OLD on hand-made profiles, with
 * every expected number worked out by hand from the inputs below.
 */
#include "testutil.h"

#include "analysis/diff.h"
#include "analysis/rename.h"

static const char OLD[] = "desc: I1 cache: whatever\n"
                          "cmd: ./prog 1\n"
                          "events: Ir Dr\n"
                          "fl=a.c\n"
                          "fn=main\n"
                          "1 10 2\n"
                          "2 5 1\n"
                          "fn=f\n"
                          "3 7 0\n"
                          "fl=b.c\n"
                          "fn=g\n"
                          "4 3 3\n"
                          "summary: 25 6\n";

static const char NEW[] = "cmd: ./prog 2\n"
                          "events: Ir Dr\n"
                          "fl=a.c\n"
                          "fn=main\n"
                          "1 12 2\n"
                          "5 1 1\n"
                          "fl=b.c\n"
                          "fn=h\n"
                          "9 4 4\n"
                          "summary: 17 7\n";

static struct profile *read_ok(const char *text)
{
    struct tally_error err;
    struct profile *p = test_read_string(text, NULL, &err);
    if (!p) fail_msg("test input did not read: %s", err.msg);
    return p;
}

/*
 * Sum of the signed costs of event e over the records of (file, fn) at
 * `line` (line < 0: any line). Sets *found to the number of records.
 */
static int64_t cost_at(const struct profile *p, const char *file, const char *fn, long line,
                       size_t e, int *found)
{
    const struct part *pt = p->parts[0];
    int64_t sum = 0;
    *found = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        struct function f = profile_function_at(p, c.fn);
        if (strcmp(profile_str(p, c.pos.file), file) || strcmp(profile_str(p, f.name), fn))
            continue;
        if (line >= 0 && c.pos.line != (uint64_t)line) continue;
        sum += (int64_t)c.cost[e];
        (*found)++;
    }
    return sum;
}

/* Expect exactly one record of (file, fn, line) with costs (a, b). */
static void expect2(const struct profile *p, const char *file, const char *fn, long line, int64_t a,
                    int64_t b)
{
    int found;
    int64_t x = cost_at(p, file, fn, line, 0, &found);
    if (found != 1) fail_msg("%s %s line %ld: %d records, want 1", file, fn, line, found);
    int64_t y = cost_at(p, file, fn, line, 1, &found);
    if (x != a || y != b)
        fail_msg("%s %s line %ld: got %lld %lld, want %lld %lld", file, fn, line, (long long)x,
                 (long long)y, (long long)a, (long long)b);
}

static void expect_summary(const struct profile *p, int64_t a, int64_t b)
{
    const struct part *pt = p->parts[0];
    assert_non_null(pt->summary);
    assert_int_equal((int64_t)pt->summary[0], a);
    assert_int_equal((int64_t)pt->summary[1], b);
}

static struct profile *diff_ok(const struct profile *o, const struct profile *n,
                               const struct diff_options *opt)
{
    struct tally_error err;
    tally_error_clear(&err);
    struct profile *d = diff_profiles(o, n, opt, &err);
    if (!d) fail_msg("diff failed: %s", err.msg);
    return d;
}

static void test_by_function(void **state)
{
    (void)state;
    struct profile *o = read_ok(OLD), *n = read_ok(NEW);
    struct profile *d = diff_ok(o, n, NULL);
    assert_true(d->signed_costs);
    assert_int_equal(d->nparts, 1);
    const struct part *pt = d->parts[0];
    assert_int_equal(pt->events.n, 2);
    assert_string_equal(pt->events.names[0], "Ir");
    assert_string_equal(pt->events.names[1], "Dr");
    /* main: (12+1, 2+1) - (10+5, 2+1); f and g only in OLD; h only in NEW */
    expect2(d, "a.c", "main", 0, -2, 0);
    expect2(d, "a.c", "f", 0, -7, 0);
    expect2(d, "b.c", "g", 0, -3, -3);
    expect2(d, "b.c", "h", 0, 4, 4);
    assert_int_equal(part_ncosts(pt), 4);
    expect_summary(d, 17 - 25, 7 - 6);
    /* sorted by file, then function name */
    static const char *const order[][2] = {
        {"a.c", "f"}, {"a.c", "main"}, {"b.c", "g"}, {"b.c", "h"}};
    assert_int_equal(profile_nfunctions(d), 4);
    for (uint32_t i = 0; i < 4; i++) {
        struct function f = profile_function_at(d, i);
        assert_string_equal(profile_str(d, f.file), order[i][0]);
        assert_string_equal(profile_str(d, f.name), order[i][1]);
    }
    assert_int_equal(pt->desc.n, 1);
    assert_string_equal(pt->desc.items[0], "Files compared:   test; test");
    assert_string_equal(pt->cmd, "./prog 1; ./prog 2");
    profile_free(d);

    /* labels */
    struct diff_options opt = {.label_old = "old.out", .label_new = "new.out"};
    d = diff_ok(o, n, &opt);
    assert_string_equal(d->parts[0]->desc.items[0], "Files compared:   old.out; new.out");
    profile_free(d);

    /* the other way round, every sign flips */
    d = diff_ok(n, o, NULL);
    expect2(d, "a.c", "main", 0, 2, 0);
    expect2(d, "b.c", "h", 0, -4, -4);
    expect_summary(d, 8, -1);
    assert_string_equal(d->parts[0]->cmd, "./prog 2; ./prog 1");
    profile_free(d);
    profile_free(o);
    profile_free(n);
}

static void test_by_line(void **state)
{
    (void)state;
    struct profile *o = read_ok(OLD), *n = read_ok(NEW);
    struct diff_options opt = {.by = DIFF_BY_LINE};
    struct profile *d = diff_ok(o, n, &opt);
    expect2(d, "a.c", "main", 1, 2, 0);
    expect2(d, "a.c", "main", 2, -5, -1);
    expect2(d, "a.c", "main", 5, 1, 1);
    expect2(d, "a.c", "f", 3, -7, 0);
    expect2(d, "b.c", "g", 4, -3, -3);
    expect2(d, "b.c", "h", 9, 4, 4);
    assert_int_equal(part_ncosts(d->parts[0]), 6);
    expect_summary(d, -8, 1);
    profile_free(d);
    profile_free(o);
    profile_free(n);
}

static void test_self_is_zero(void **state)
{
    (void)state;
    struct profile *o = read_ok(OLD);
    struct diff_options opt = {.by = DIFF_BY_LINE};
    for (int by = 0; by < 2; by++) {
        opt.by = by ? DIFF_BY_LINE : DIFF_BY_FUNCTION;
        struct profile *d = diff_ok(o, o, &opt);
        const struct part *pt = d->parts[0];
        assert_int_equal(part_ncosts(pt), by ? 4 : 3);
        for (size_t i = 0; i < part_ncosts(pt); i++) {
            struct cost_rec c;
            part_cost_get(pt, i, &c);
            assert_int_equal(c.cost[0], 0);
            assert_int_equal(c.cost[1], 0);
        }
        expect_summary(d, 0, 0);
        profile_free(d);
    }
    profile_free(o);
}

static void test_event_order(void **state)
{
    (void)state;
    /* NEW lists Dr first: matched by name, OLD's order wins */
    static const char swapped[] = "cmd: x\n"
                                  "events: Dr Ir\n"
                                  "fl=a.c\n"
                                  "fn=main\n"
                                  "1 2 12\n"
                                  "5 1 1\n"
                                  "fl=b.c\n"
                                  "fn=h\n"
                                  "9 4 4\n"
                                  "summary: 7 17\n";
    struct profile *o = read_ok(OLD), *n = read_ok(swapped);
    struct profile *d = diff_ok(o, n, NULL);
    assert_string_equal(d->parts[0]->events.names[0], "Ir");
    assert_string_equal(d->parts[0]->events.names[1], "Dr");
    expect2(d, "a.c", "main", 0, -2, 0);
    expect2(d, "b.c", "g", 0, -3, -3);
    expect_summary(d, -8, 1);
    profile_free(d);
    /* and with the swapped one as OLD: Dr first */
    d = diff_ok(n, o, NULL);
    assert_string_equal(d->parts[0]->events.names[0], "Dr");
    expect2(d, "a.c", "main", 0, 0, 2);
    expect2(d, "a.c", "f", 0, 0, 7);
    profile_free(d);
    profile_free(o);
    profile_free(n);
}

static void test_event_mismatch(void **state)
{
    (void)state;
    static const char other[] = "cmd: x\nevents: Ir Dw\nfl=a.c\nfn=main\n1 1 1\nsummary: 1 1\n";
    static const char fewer[] = "cmd: x\nevents: Ir\nfl=a.c\nfn=main\n1 1\nsummary: 1\n";
    struct profile *o = read_ok(OLD), *n = read_ok(other), *f = read_ok(fewer);
    struct diff_options opt = {.label_old = "A", .label_new = "B"};
    struct tally_error err;
    tally_error_clear(&err);
    assert_null(diff_profiles(o, n, &opt, &err));
    assert_non_null(strstr(err.msg, "events differ"));
    assert_non_null(strstr(err.msg, "'Ir Dr' in A"));
    assert_non_null(strstr(err.msg, "'Ir Dw' in B"));
    tally_error_clear(&err);
    assert_null(diff_profiles(f, o, &opt, &err));
    assert_non_null(strstr(err.msg, "'Ir' in A"));
    assert_non_null(strstr(err.msg, "'Ir Dr' in B"));
    profile_free(o);
    profile_free(n);
    profile_free(f);
}

static void test_overflow(void **state)
{
    (void)state;
    struct tally_error err;
    /* a count above INT64_MAX cannot be a signed difference */
    static const char huge[] = "cmd: x\nevents: Ir\nfl=a.c\nfn=main\n"
                               "1 9223372036854775808\nsummary: 9223372036854775808\n";
    static const char small[] = "cmd: x\nevents: Ir\nfl=a.c\nfn=main\n1 1\nsummary: 1\n";
    /* two functions of INT64_MAX each: each fits, their total does not */
    static const char two[] = "cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 9223372036854775807\n"
                              "fn=g\n1 9223372036854775807\nsummary: 18446744073709551614\n";
    struct profile *h = read_ok(huge), *s = read_ok(small), *t = read_ok(two);
    tally_error_clear(&err);
    assert_null(diff_profiles(s, h, NULL, &err));
    assert_non_null(strstr(err.msg, "9223372036854775808"));
    assert_non_null(strstr(err.msg, "does not fit"));
    tally_error_clear(&err);
    assert_null(diff_profiles(h, s, NULL, &err));
    assert_non_null(strstr(err.msg, "does not fit"));
    tally_error_clear(&err);
    assert_null(diff_profiles(s, t, NULL, &err));
    /* the file whose costs are the larger is named (NEW here), with the event */
    assert_non_null(strstr(err.msg, "its costs of event Ir exceed those of"));
    assert_non_null(strstr(err.msg, "signed 64-bit"));
    assert_string_equal(err.file, "test"); /* the path of NEW (both are "test" here) */
    profile_free(h);
    profile_free(s);

    /* per-function overflow: signed OLD of -2 against NEW of INT64_MAX */
    struct profile *o = profile_new();
    o->signed_costs = 1;
    struct part *pt = profile_add_part(o);
    assert_int_equal(eventset_set_base(&pt->events, "Ir", 2, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    uint32_t fn = profile_function(o, 0, profile_intern(o, "a.c", 3), profile_intern(o, "f", 1));
    struct position pos = {profile_intern(o, "a.c", 3), 1, 0, 0};
    uint64_t minus2 = (uint64_t)(int64_t)-2;
    assert_int_equal(part_add_cost(o, pt, fn, &pos, &minus2, 1), 0);
    tally_error_clear(&err);
    assert_null(diff_profiles(o, t, NULL, &err));
    assert_non_null(strstr(err.msg, "the difference for function 'f' overflows"));
    /* negating INT64_MIN is an overflow too */
    uint64_t min = (uint64_t)INT64_MIN;
    uint64_t back = 2;
    assert_int_equal(part_add_cost(o, pt, fn, &pos, &back, 1), 0); /* now 0 */
    assert_int_equal(part_add_cost(o, pt, fn, &pos, &min, 1), 0);
    tally_error_clear(&err);
    assert_null(diff_profiles(o, o, NULL, &err));
    assert_non_null(strstr(err.msg, "does not fit"));
    profile_free(o);
    profile_free(t);
}

/* Build a callgrind-like profile through the model API. */
static struct profile *inline_profile(uint64_t k, int nparts)
{
    struct tally_error err;
    struct profile *p = profile_new();
    p->path = xstrdup("cg");
    for (int i = 0; i < nparts; i++) {
        struct part *pt = profile_add_part(p);
        assert_int_equal(eventset_set_base(&pt->events, "Ir", 2, &err), 0);
        assert_int_equal(eventset_finish(&pt->events, &err), 0);
        uint32_t obj = profile_intern(p, "/bin/prog", 9);
        uint32_t file = profile_intern(p, "/src/main.c", 11);
        uint32_t hdr = profile_intern(p, "/usr/include/inl.h", 18);
        uint32_t fn = profile_function(p, obj, file, profile_intern(p, "main", 4));
        struct position own = {file, 10, 0x400, 0}, inl = {hdr, 3, 0x404, 0};
        uint64_t c = k, ci = 2 * k;
        assert_int_equal(part_add_cost(p, pt, fn, &own, &c, 1), 0);
        assert_int_equal(part_add_cost(p, pt, fn, &inl, &ci, 1), 0);
    }
    return p;
}

static void test_inlined_files(void **state)
{
    (void)state;
    struct profile *o = inline_profile(1, 1), *n = inline_profile(10, 1);
    /* per function: everything at the function's own file, line 0 */
    struct profile *d = diff_ok(o, n, NULL);
    int found;
    assert_int_equal(cost_at(d, "/src/main.c", "main", 0, 0, &found), 27);
    assert_int_equal(found, 1);
    profile_free(d);
    /* per line: the inlined header keeps its own file and line */
    struct diff_options opt = {.by = DIFF_BY_LINE};
    d = diff_ok(o, n, &opt);
    assert_int_equal(cost_at(d, "/src/main.c", "main", 10, 0, &found), 9);
    assert_int_equal(found, 1);
    assert_int_equal(cost_at(d, "/usr/include/inl.h", "main", 3, 0, &found), 18);
    assert_int_equal(found, 1);
    /* the function itself lives in main.c, without an object */
    const struct part *pt = d->parts[0];
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        struct function f = profile_function_at(d, c.fn);
        assert_string_equal(profile_str(d, f.file), "/src/main.c");
        assert_int_equal(f.obj, 0);
        assert_int_equal(c.pos.addr, 0);
    }
    profile_free(d);
    profile_free(o);
    profile_free(n);
}

static void test_parts(void **state)
{
    (void)state;
    struct profile *o = inline_profile(1, 2), *n = inline_profile(1, 1), *e = profile_new();
    struct tally_error err;
    tally_error_clear(&err);
    assert_null(diff_profiles(o, n, NULL, &err));
    assert_non_null(strstr(err.msg, "has 2 parts"));
    /* once merged, it works: 2 parts of (1, 2) against one */
    assert_int_equal(profile_merge_parts(o, &err), 0);
    struct profile *d = diff_ok(o, n, NULL);
    int found;
    assert_int_equal(cost_at(d, "/src/main.c", "main", 0, 0, &found), -3);
    profile_free(d);
    /* a profile with no part at all counts as empty */
    d = diff_ok(e, n, NULL);
    assert_int_equal(cost_at(d, "/src/main.c", "main", 0, 0, &found), 3);
    assert_string_equal(d->parts[0]->cmd, "; ");
    profile_free(d);
    tally_error_clear(&err);
    assert_null(diff_profiles(e, e, NULL, &err));
    assert_non_null(strstr(err.msg, "holds any event"));
    profile_free(o);
    profile_free(n);
    profile_free(e);
}

static void test_renames(void **state)
{
    (void)state;
    static const char a[] = "cmd: a\nevents: Ir\n"
                            "fl=/build1/src/x.c\nfn=count_words\n1 100\n"
                            "fl=/build1/src/y.c\nfn=main\n1 5\nsummary: 105\n";
    static const char b[] = "cmd: b\nevents: Ir\n"
                            "fl=/build2/src/x.c\nfn=count_words\n1 150\n"
                            "fl=/build2/src/y.c\nfn=Main\n1 6\nfn=main\n2 1\nsummary: 157\n";
    struct profile *o = read_ok(a), *n = read_ok(b);
    struct tally_error err;
    /* without renames nothing matches */
    struct profile *d = diff_ok(o, n, NULL);
    assert_int_equal(part_ncosts(d->parts[0]), 5);
    profile_free(d);

    struct rename *fl = rename_compile("s/^\\/build\\d\\///", &err);
    struct rename *fn = rename_compile("s/(\\w+)_(\\w+)/\\2_\\1/g", &err);
    struct rename *ci = rename_compile("s/MAIN/entry/i", &err);
    assert_non_null(fl);
    assert_non_null(fn);
    assert_non_null(ci);
    struct diff_options opt = {.mod_filename = fl, .mod_funcname = fn};
    d = diff_ok(o, n, &opt);
    int found;
    assert_int_equal(cost_at(d, "src/x.c", "words_count", 0, 0, &found), 50);
    assert_int_equal(found, 1);
    assert_int_equal(cost_at(d, "src/y.c", "main", 0, 0, &found), 1 - 5);
    assert_int_equal(cost_at(d, "src/y.c", "Main", 0, 0, &found), 6);
    assert_int_equal(part_ncosts(d->parts[0]), 3);
    assert_int_equal((int64_t)d->parts[0]->summary[0], 157 - 105);
    profile_free(d);
    /* caseless: Main and main become one function */
    opt.mod_funcname = ci;
    d = diff_ok(o, n, &opt);
    assert_int_equal(cost_at(d, "src/y.c", "entry", 0, 0, &found), 6 + 1 - 5);
    assert_int_equal(found, 1);
    profile_free(d);
    rename_free(fl);
    rename_free(fn);
    rename_free(ci);

    /* a rename that fails names the input */
    struct rename *bad = rename_compile("s/(a+)+$/x/", &err);
    static const char c[] = "cmd: c\nevents: Ir\nfl=a.c\n"
                            "fn=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n1 1\nsummary: 1\n";
    struct profile *cp = read_ok(c);
    opt.mod_filename = NULL;
    opt.mod_funcname = bad;
    opt.label_old = "first.out";
    opt.label_new = "second.out"; /* OLD is added first */
    tally_error_clear(&err);
    d = diff_profiles(cp, cp, &opt, &err);
    if (!d) {
        assert_string_equal(err.file, "first.out");
        assert_non_null(strstr(err.msg, "failed on"));
    }
    profile_free(d);
    profile_free(cp);
    rename_free(bad);
    profile_free(o);
    profile_free(n);
}

static void test_steps(void **state)
{
    (void)state;
    struct tally_error err;
    /* each input freed right after it is added: the result keeps nothing of it */
    struct diff_options opt = {.by = DIFF_BY_LINE, .label_old = "o", .label_new = "n"};
    struct diff *d = diff_new(&opt);
    struct profile *o = read_ok(OLD);
    assert_int_equal(diff_add(d, o, DIFF_OLD, &err), 0);
    profile_free(o);
    struct profile *n = read_ok(NEW);
    assert_int_equal(diff_add(d, n, DIFF_NEW, &err), 0);
    /* a side cannot be added twice */
    tally_error_clear(&err);
    assert_int_equal(diff_add(d, n, DIFF_NEW, &err), -1);
    assert_non_null(strstr(err.msg, "already added"));
    profile_free(n);
    struct profile *r = diff_finish(d, &err);
    assert_non_null(r);
    diff_free(d);
    expect2(r, "a.c", "main", 2, -5, -1);
    expect2(r, "b.c", "h", 9, 4, 4);
    expect_summary(r, -8, 1);
    assert_string_equal(r->parts[0]->desc.items[0], "Files compared:   o; n");
    assert_string_equal(r->parts[0]->cmd, "./prog 1; ./prog 2");
    profile_free(r);

    /* NEW added first: its event order is used, the numbers are the same */
    static const char swapped[] = "cmd: x\nevents: Dr Ir\nfl=a.c\nfn=main\n1 2 12\n"
                                  "summary: 2 12\n";
    d = diff_new(NULL);
    n = read_ok(swapped);
    o = read_ok(OLD);
    assert_int_equal(diff_add(d, n, DIFF_NEW, &err), 0);
    assert_int_equal(diff_add(d, o, DIFF_OLD, &err), 0);
    r = diff_finish(d, &err);
    assert_non_null(r);
    assert_string_equal(r->parts[0]->events.names[0], "Dr");
    expect2(r, "a.c", "main", 0, 2 - 3, 12 - 15);
    profile_free(r);
    diff_free(d);
    /* an event mismatch names OLD first even when NEW came first */
    static const char other[] = "cmd: x\nevents: Ir Dw\nfl=a.c\nfn=main\n1 1 1\nsummary: 1 1\n";
    struct profile *w = read_ok(other);
    struct diff_options lab = {.label_old = "OLDF", .label_new = "NEWF"};
    d = diff_new(&lab);
    assert_int_equal(diff_add(d, w, DIFF_NEW, &err), 0);
    tally_error_clear(&err);
    assert_int_equal(diff_add(d, o, DIFF_OLD, &err), -1);
    assert_non_null(strstr(err.msg, "'Ir Dr' in OLDF versus 'Ir Dw' in NEWF"));
    diff_free(d);
    profile_free(w);
    profile_free(n);
    profile_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_function),    cmocka_unit_test(test_by_line),
        cmocka_unit_test(test_self_is_zero),   cmocka_unit_test(test_event_order),
        cmocka_unit_test(test_event_mismatch), cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_inlined_files),  cmocka_unit_test(test_parts),
        cmocka_unit_test(test_renames),        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
