/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lean path of `tally annotate --auto=no` (no --inclusive, no --tree):
 * the reader keeps call counts only (read_options.callgrind.call_counts_only), the
 * function table builds no arcs (func_options.no_arcs), and the report makes
 * no row names.
 * Every test compares that path with the full one on the same input: the
 * expected values are what the full path gives.
 */
#include "testutil.h"

#include "analysis/funcs.h"
#include "io/bytebuf.h"
#include "report/annotate.h"

/*
 * Two parts (folded into one), code inlined from a header (fi=/fe=) that
 * makes calls, calls of one arc from several lines, a callee with no cost
 * of its own in another object, `_init` in two objects (one row), a
 * function named but never given a cost, and trailing zero counts left out.
 * The rows without cost tie and are ordered by name: "x.c:q" before "x:q"
 * ('.' < ':'), though file "x" sorts before file "x.c".
 */
static const char text[] = "# callgrind format\n"
                           "version: 1\n"
                           "creator: callgrind-3.19.0\n"
                           "cmd: ./prog\n"
                           "part: 1\n"
                           "positions: line\n"
                           "events: Ir Dr\n"
                           "ob=(1) /bin/prog\n"
                           "fl=(1) /src/a.c\n"
                           "fn=(1) main\n"
                           "3 10 2\n"
                           "fi=(2) /src/a.h\n"
                           "7 4\n"
                           "fe=(1)\n"
                           "cfi=(3) /src/b.c\n"
                           "cfn=(2) work\n"
                           "calls=2 20\n"
                           "5 100 30\n"
                           "cfi=(3)\n"
                           "cfn=(2)\n"
                           "calls=1 20\n"
                           "6 50 10\n"
                           "fi=(2)\n"
                           "cfi=(3)\n"
                           "cfn=(2)\n"
                           "calls=3 20\n"
                           "8 30 5\n"
                           "fe=(1)\n"
                           "cob=(2) /lib/libc.so\n"
                           "cfi=(4) ???\n"
                           "cfn=(3) only_called\n"
                           "calls=4 0\n"
                           "9 7\n"
                           "fl=(3)\n"
                           "fn=(2)\n"
                           "20 60 20\n"
                           "cfn=(2)\n"
                           "calls=1 20\n"
                           "21 40 10\n"
                           "ob=(2)\n"
                           "fl=(4)\n"
                           "fn=(4) _init\n"
                           "0 5\n"
                           "fn=(5) never_costed\n"
                           "fl=(6) /src/x\n"
                           "fn=(6) q\n"
                           "fl=(7) /src/x.c\n"
                           "fn=(6)\n"
                           "ob=(1)\n"
                           "fl=(4)\n"
                           "fn=(4)\n"
                           "0 3 1\n"
                           "totals: 82 23\n"
                           "\n"
                           "part: 2\n"
                           "positions: line\n"
                           "events: Ir Dr\n"
                           "ob=(1)\n"
                           "fl=(1)\n"
                           "fn=(1)\n"
                           "4 1 1\n"
                           "cfi=(3)\n"
                           "cfn=(2)\n"
                           "calls=5 20\n"
                           "12 9 9\n"
                           "fl=(3)\n"
                           "fn=(2)\n"
                           "20 9 9\n"
                           "totals: 10 10\n";

static const struct read_options full_opt = {
    .merge_parts = 1, .drop_addr = 1, .drop_jumps = 1, .drop_line = 1};
static const struct read_options lines_opt = {.merge_parts = 1, .drop_addr = 1, .drop_jumps = 1};
static const struct read_options lean_opt = {.merge_parts = 1,
                                             .drop_addr = 1,
                                             .drop_jumps = 1,
                                             .drop_line = 1,
                                             .callgrind.call_counts_only = 1};

static struct profile *rd(const struct read_options *opt)
{
    struct tally_error err;
    struct profile *p = test_read_string(text, opt, &err);
    if (!p) fail_msg("%s", err.msg);
    assert_int_equal(p->nparts, 1);
    assert_int_equal(p->warnings.n, 0);
    return p;
}

/* Count of the calls (caller, callee, site file, target file) in part pt. */
static uint64_t count_of(const struct part *pt, const struct call_rec *k)
{
    uint64_t n = 0;
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        if (c.caller == k->caller && c.callee == k->callee && c.site.file == k->site.file &&
            c.target.file == k->target.file)
            n += *c.count;
    }
    return n;
}

/* Number of different (caller, callee, site file, target file) in pt. */
static size_t distinct_calls(const struct part *pt)
{
    size_t n = 0;
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec c, d;
        part_call_get(pt, i, &c);
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++) {
            part_call_get(pt, j, &d);
            dup = c.caller == d.caller && c.callee == d.callee && c.site.file == d.site.file &&
                  c.target.file == d.target.file;
        }
        n += !dup;
    }
    return n;
}

/* The lean read keeps the same costs and, per call arc, the same count. */
static void test_read_counts_only(void **state)
{
    (void)state;
    struct profile *f = rd(&full_opt), *l = rd(&lean_opt);
    struct part *fp = f->parts[0], *lp = l->parts[0];
    assert_false(fp->call_counts_only);
    assert_true(lp->call_counts_only);
    /* the same functions in the same order, the same cost records */
    assert_int_equal(profile_nfunctions(f), profile_nfunctions(l));
    assert_int_equal(part_ncosts(fp), part_ncosts(lp));
    for (size_t i = 0; i < part_ncosts(fp); i++) {
        struct cost_rec a, b;
        part_cost_get(fp, i, &a);
        part_cost_get(lp, i, &b);
        assert_int_equal(a.fn, b.fn);
        assert_int_equal(a.pos.file, b.pos.file);
        assert_memory_equal(a.cost, b.cost, fp->events.n * sizeof(uint64_t));
    }
    /* the records of several call lines (kept apart with lines) fold into one */
    struct profile *w = rd(&lines_opt);
    struct part *wp = w->parts[0];
    assert_true(part_ncalls(wp) > distinct_calls(wp));
    assert_int_equal(part_ncalls(lp), distinct_calls(wp));
    for (size_t i = 0; i < part_ncalls(lp); i++) {
        struct call_rec c;
        part_call_get(lp, i, &c);
        assert_null(c.cost);
        assert_int_equal(c.site.line, 0);
        assert_int_equal(c.target.line, 0);
        assert_int_equal(*c.count, count_of(wp, &c));
        assert_int_equal(*c.count, count_of(fp, &c));
        assert_true(*c.count > 0);
    }
    profile_free(w);
    profile_free(f);
    profile_free(l);
}

static void build(struct func_table *ft, struct profile *p, struct event_expr *cols, int lean)
{
    const struct eventset *es = &p->parts[0]->events;
    assert_int_equal(eventset_lookup(es, "Ir", &cols[0]), 0);
    assert_int_equal(eventset_lookup(es, "Dr", &cols[1]), 0);
    /* the lean table shares the rows' costs with the records (as annotate's does) */
    struct func_options fo = {2, cols, "/src/", 0, 0, NULL, NULL, lean, lean, 0};
    struct tally_error err;
    assert_int_equal(func_table_build(ft, p, &fo, &err), 0);
}

/* The tables, columns and profiles of a full (a, ca, f) and a lean (b, cb, l) build. */
static void release_pair(struct func_table *a, struct func_table *b, struct event_expr *ca,
                         struct event_expr *cb, struct profile *f, struct profile *l)
{
    func_table_release(a);
    func_table_release(b);
    for (int i = 0; i < 2; i++) {
        event_expr_release(&ca[i]);
        event_expr_release(&cb[i]);
    }
    profile_free(f);
    profile_free(l);
}

/* Rows without arcs (and with the records freed) are the rows with arcs. */
static void test_table_without_arcs(void **state)
{
    (void)state;
    struct profile *f = rd(&full_opt), *l = rd(&lean_opt);
    struct func_table a, b;
    struct event_expr ca[2], cb[2];
    build(&a, f, ca, 0);
    build(&b, l, cb, 1);
    assert_true(a.arcs.count > 0); /* the full path does see the calls */
    assert_int_equal(b.arcs.count, 0);
    assert_int_equal(b.line_calls.count, 0);
    /* the table only read the lean part: its records are all there */
    struct profile *again = rd(&lean_opt);
    assert_int_equal(part_ncosts(l->parts[0]), part_ncosts(again->parts[0]));
    assert_int_equal(part_ncalls(l->parts[0]), part_ncalls(again->parts[0]));
    assert_true(part_ncalls(l->parts[0]) > 0);
    profile_free(again);
    /* the same rows (the lean table makes those of calls after those of costs) */
    assert_int_equal(func_nrows(&a), func_nrows(&b));
    int callee_only = 0;
    for (size_t r = 0; r < func_nrows(&a); r++) {
        size_t s = 0;
        while (s < func_nrows(&b) && (func_row_file(&a, r) != func_row_file(&b, s) ||
                                      func_row_name(&a, r) != func_row_name(&b, s)))
            s++;
        assert_true(s < func_nrows(&b));
        assert_int_equal(func_row_ndef(&a, r), func_row_ndef(&b, s));
        assert_int_equal(func_row_obj(&a, r), func_row_obj(&b, s));
        assert_int_equal(func_row_flags(&a, r), func_row_flags(&b, s));
        for (size_t c = 0; c < 2; c++)
            assert_true(func_row_cost(&a, r, c) == func_row_cost(&b, s, c));
        assert_non_null(func_row_self(&a, r)); /* the full table keeps vectors */
        callee_only += func_row_flags(&a, r) == FUNC_ROW_CALLEE;
    }
    assert_true(callee_only > 0); /* a row that only calls make (only_called) */
    release_pair(&a, &b, ca, cb, f, l);
}

/*
 * A profile made by hand, with calls only: g of two objects (one row,
 * x.c:g) calls h, each from its own file, the last call in the order
 * given naming that file otherwise ("x.c", which the table's prefix
 * "/src/" makes of "/src/x.c"). No `fn=` line named the callers (no
 * mentions), so the row labels do not decide the row's object: the
 * object of the function whose own call came last does, on the lean
 * table's second thread (func_table_build()) as on the full path.
 */
static struct profile *calls_only(int lean, int b_last)
{
    struct profile *q = profile_new();
    struct part *pt = profile_add_part(q);
    struct tally_error err;
    assert_int_equal(eventset_set_base(&pt->events, "Ir Dr", 5, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    if (lean) assert_int_equal(part_keep_call_counts_only(q, pt), 0);
    uint32_t oa = profile_intern(q, "/lib/a.so", 9), ob = profile_intern(q, "/lib/b.so", 9);
    uint32_t x = profile_intern(q, "/src/x.c", 8), xs = profile_intern(q, "x.c", 3);
    uint32_t y = profile_intern(q, "/src/y.c", 8);
    uint32_t ga = profile_function(q, oa, x, profile_intern(q, "g", 1));
    uint32_t gb = profile_function(q, ob, x, profile_intern(q, "g", 1));
    uint32_t h = profile_function(q, oa, y, profile_intern(q, "h", 1));
    struct position site = {.file = x, .line = 1}, other = {.file = xs, .line = 2};
    struct position target = {.file = y, .line = 1};
    /* the last one is the call through the other name: it decides */
    uint32_t order[3] = {b_last ? gb : ga, b_last ? ga : gb, b_last ? gb : ga};
    static const uint64_t cost[2] = {3, 1};
    for (int i = 0; i < 3; i++)
        assert_int_equal(
            part_add_call(q, pt, order[i], i == 2 ? &other : &site, h, &target, 1, cost, 2), 0);
    return q;
}

static void test_calls_by_hand(void **state)
{
    (void)state;
    for (int b_last = 0; b_last < 2; b_last++) {
        struct profile *f = calls_only(0, b_last), *l = calls_only(1, b_last);
        struct func_table a, b;
        struct event_expr ca[2], cb[2];
        build(&a, f, ca, 0);
        build(&b, l, cb, 1);
        uint32_t xs = profile_intern(f, "x.c", 3), g = profile_intern(f, "g", 1);
        const char *want = b_last ? "/lib/b.so" : "/lib/a.so";
        for (int t = 0; t < 2; t++) {
            const struct func_table *ft = t ? &b : &a;
            size_t r = 0;
            while (r < func_nrows(ft) && (func_row_file(ft, r) != xs || func_row_name(ft, r) != g))
                r++;
            assert_true(r < func_nrows(ft));
            assert_true(func_row_flags(ft, r) & FUNC_ROW_LISTED);
            assert_string_equal(profile_str(t ? l : f, (uint32_t)(func_row_obj(ft, r) - 1)), want);
        }
        release_pair(&a, &b, ca, cb, f, l);
    }
}

/* The report of the lean path, as a string (threshold NULL: every row). */
static char *report_at(const struct profile *p, const char *sort, const char *threshold)
{
    struct annotate_options o;
    annotate_options_init(&o);
    o.auto_annotate = 0;
    o.cwd = "/src/";
    o.threshold = threshold ? threshold : "100"; /* every row, down to those without cost */
    strlist_push(&o.inputs, "test");
    if (sort) {
        strlist_push(&o.sort, sort);
        strlist_push(&o.sort_thresh, "");
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct tally_error err;
    assert_int_equal(annotate_report(out, p, &o, &err), 0);
    fclose(out);
    annotate_options_release(&o);
    return buf;
}

static char *report(const struct profile *p, const char *sort)
{
    return report_at(p, sort, NULL);
}

static void test_report_same(void **state)
{
    (void)state;
    const char *sorts[] = {NULL, "Dr"};
    for (int s = 0; s < 2; s++) {
        struct profile *f = rd(&full_opt), *l = rd(&lean_opt);
        char *a = report(f, sorts[s]), *b = report(l, sorts[s]);
        assert_string_equal(a, b);
        /* the rows that tie are there, in the order of their "file:name" */
        const char *xc = strstr(b, " x.c:q"), *x = strstr(b, " x:q"), *nc = strstr(b, "never_c");
        assert_non_null(x);
        assert_non_null(xc);
        assert_non_null(nc);
        assert_true(nc < xc && xc < x);
        assert_true(l->parts[0]->call_counts_only); /* the lean path was taken */
        assert_false(f->parts[0]->call_counts_only);
        free(a);
        free(b);
        profile_free(f);
        profile_free(l);
    }
}

static const char *fname(const struct profile *p, uint32_t fn)
{
    return profile_str(p, profile_function_at(p, fn).name);
}

/* Adding parts: a lean one makes the sum lean; a lean sum drops costs. */
static void test_accumulate(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *f = rd(&full_opt), *l = rd(&lean_opt);
    struct profile *f2 = rd(&full_opt), *l2 = rd(&lean_opt);
    /* full + lean: the full sum folds its calls into counts first */
    assert_int_equal(part_accumulate(f, f->parts[0], l, l->parts[0], &err), 0);
    assert_true(f->parts[0]->call_counts_only);
    /* lean + full */
    assert_int_equal(part_accumulate(l2, l2->parts[0], f2, f2->parts[0], &err), 0);
    assert_true(l2->parts[0]->call_counts_only);
    assert_int_equal(part_ncalls(f->parts[0]), part_ncalls(l->parts[0]));
    assert_int_equal(part_ncalls(l2->parts[0]), part_ncalls(l->parts[0]));
    for (size_t i = 0; i < part_ncalls(l->parts[0]); i++) {
        struct call_rec c, d, e;
        part_call_get(l->parts[0], i, &c);
        part_call_get(f->parts[0], i, &d);
        part_call_get(l2->parts[0], i, &e);
        assert_int_equal(*d.count, 2 * *c.count);
        assert_int_equal(*e.count, 2 * *c.count);
        assert_null(d.cost);
        assert_null(e.cost);
    }
    /* a lean profile written out and read again keeps its counts */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(callgrind_write(l, out, &err), 0);
    fclose(out);
    struct profile *back = test_read_string(buf, &lean_opt, &err);
    assert_non_null(back);
    size_t n = part_ncalls(l->parts[0]);
    assert_int_equal(part_ncalls(back->parts[0]), n);
    /* the writer orders records by function: compare names and counts */
    for (size_t i = 0; i < n; i++) {
        struct call_rec c, d;
        part_call_get(l->parts[0], i, &c);
        int found = 0;
        for (size_t j = 0; j < n && !found; j++) {
            part_call_get(back->parts[0], j, &d);
            found = *c.count == *d.count && !strcmp(fname(l, c.caller), fname(back, d.caller)) &&
                    !strcmp(fname(l, c.callee), fname(back, d.callee)) &&
                    !strcmp(profile_str(l, c.site.file), profile_str(back, d.site.file));
        }
        assert_true(found);
    }
    free(buf);
    profile_free(back);
    profile_free(f);
    profile_free(l);
    profile_free(f2);
    profile_free(l2);
}

/* The rows of a report: the lines after the second "file:function" heading's rule. */
static const char *table_rows(const char *report)
{
    const char *h = strstr(report, " file:function\n");
    assert_non_null(h);
    h = strchr(h + 1, '\n');
    assert_non_null(h);
    h = strchr(h + 1, '\n'); /* the rule under the heading */
    assert_non_null(h);
    return h + 1;
}

/*
 * A table of 70,000 rows whose costs repeat (ties ordered by name): long
 * enough for the two-CPU sort and printing (report/annotate.c). With the
 * default threshold only the rows above the last cost shown are sorted;
 * the rows shown must be the first rows of the full table, in its order,
 * and each full table must be the same however often it is made.
 */
static void test_long_table(void **state)
{
    (void)state;
    struct bytebuf t = {0};
    bytebuf_printf(&t, "events: Ir Dr\nfl=/src/a.c\n");
    for (int i = 0; i < 70000; i++)
        bytebuf_printf(&t, "fn=f%05d_%d\n0 %d %d\n", i * 7919 % 70000, i % 3, i % 97 + 1, i % 5);
    const char *thresholds[] = {"99", "90", "50"};
    struct tally_error err;
    struct profile *p = test_read_string(t.s, &lean_opt, &err);
    if (!p) fail_msg("%s", err.msg);
    char *all = report(p, NULL);
    const char *rows = table_rows(all);
    size_t nall = 0;
    for (const char *c = rows; *c; c++)
        nall += *c == '\n';
    assert_true(nall >= 70000);
    for (int k = 0; k < 3; k++) {
        char *cut = report_at(p, NULL, thresholds[k]);
        const char *crows = table_rows(cut);
        const char *end = strstr(crows, "\n\n"); /* the table ends with an empty line */
        assert_non_null(end);
        size_t len = (size_t)(end - crows) + 1, n = 0;
        for (size_t i = 0; i < len; i++)
            n += crows[i] == '\n';
        assert_true(n > 1000 && n < 70000);
        assert_memory_equal(crows, rows, len);
        free(cut);
    }
    char *again = report(p, NULL);
    assert_string_equal(all, again);
    free(again);
    free(all);
    profile_free(p);
    bytebuf_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_counts_only), cmocka_unit_test(test_table_without_arcs),
        cmocka_unit_test(test_calls_by_hand),    cmocka_unit_test(test_report_same),
        cmocka_unit_test(test_accumulate),       cmocka_unit_test(test_long_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
