/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One profile, many views (issue 26): the annotate report and the function
 * table it builds only read the profile they are given. A profile read once
 * is shown any number of times, with any options and in any order, and
 * every view is the one a fresh read of the file gives; afterwards the
 * profile is what it was (the same records, names and functions).
 *
 * A report that freed the records it read (the `consume` of before) fails
 * test_report_twice(): its second table has no costs. One that interned the
 * names it makes (a stripped file name, a --mod-funcname result) into the
 * profile fails the checks of the profile after the views.
 */
#include "testutil.h"

#include <unistd.h>

#include "analysis/funcs.h"
#include "analysis/rename.h"
#include "io/bytebuf.h"
#include "report/annotate.h"

/* The source file and the profile of it, in a directory of their own. */
static char dir[] = "/tmp/tally-test-views.XXXXXX";
static char *profile_text;

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir)) return -1;
    char *src = xasprintf("%s/a.c", dir);
    FILE *fp = fopen(src, "w");
    free(src);
    if (!fp) return -1;
    for (int i = 1; i <= 30; i++)
        fprintf(fp, "line %d of a.c\n", i);
    fclose(fp);
    struct bytebuf t = {0};
    bytebuf_printf(&t,
                   "# callgrind format\nversion: 1\ncreator: test\ncmd: ./prog\n"
                   "part: 1\npositions: line\nevents: Ir Dr\n"
                   "ob=(1) /bin/prog\nfl=(1) %s/a.c\nfn=(1) main\n"
                   "3 10 2\n4 5\n"
                   "cfl=(2) %s/b.c\ncfn=(2) work1\ncalls=2 20\n5 100 30\n"
                   "cfn=(3) work2\ncalls=1 7\n6 50 10\n"
                   "fi=(3) %s/a.h\n7 4 1\nfe=(1)\n"
                   "fl=(2)\nfn=(2)\n20 60 20\ncfn=(3)\ncalls=4 7\n21 40 10\n"
                   "fn=(3)\n7 40 10\n"
                   "ob=(2) /lib/libc.so\nfl=(4) ???\nfn=(4) _init\n0 5\n"
                   "totals: 124 33\n"
                   "\npart: 2\npositions: line\nevents: Ir Dr\n"
                   "ob=(1)\nfl=(1)\nfn=(1)\n3 1 1\n"
                   "cfl=(2)\ncfn=(2)\ncalls=1 20\n5 9 9\n"
                   "fl=(2)\nfn=(2)\n20 9 9\n"
                   "totals: 10 10\n",
                   dir, dir, dir);
    profile_text = t.s;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char *src = xasprintf("%s/a.c", dir);
    unlink(src);
    free(src);
    rmdir(dir);
    free(profile_text);
    return 0;
}

static const struct read_options lines_opt = {.merge_parts = 1, .drop_addr = 1, .drop_jumps = 1};
/* what `tally annotate --auto=no` asks of the reader */
static const struct read_options lean_opt = {.merge_parts = 1,
                                             .drop_addr = 1,
                                             .drop_jumps = 1,
                                             .drop_line = 1,
                                             .callgrind = {.call_counts_only = 1}};

static struct profile *rd(const struct read_options *opt)
{
    struct tally_error err;
    struct profile *p = test_read_string(profile_text, opt, &err);
    if (!p) fail_msg("%s", err.msg);
    return p;
}

/* The options of one view of the annotate report. */
struct view {
    int auto_annotate, inclusive, tree;
    const char *mod_fn; /* --mod-funcname, or NULL */
    const char *sort;   /* --sort, or NULL */
};

static const struct view views[] = {
    {0, 0, 0, NULL, NULL},        {1, 0, 0, NULL, NULL},         {0, 1, 1, NULL, NULL},
    {1, 1, 1, "s/work/W/", "Dr"}, {0, 0, 0, "s/[0-9]$//", NULL},
};
#define NVIEWS (sizeof(views) / sizeof(views[0]))

/* The report of view v of p, as a string. */
static char *annotate(const struct profile *p, const struct view *v)
{
    struct annotate_options o;
    annotate_options_init(&o);
    o.auto_annotate = v->auto_annotate;
    o.inclusive = v->inclusive;
    o.tree_caller = o.tree_calling = v->tree;
    o.threshold = "100";
    char *cwd = xasprintf("%s/", dir);
    o.cwd = cwd; /* stripped: "a.c", a name the profile does not have */
    strlist_push(&o.include_dirs, cwd);
    strlist_push(&o.inputs, "test");
    if (v->sort) {
        strlist_push(&o.sort, v->sort);
        strlist_push(&o.sort_thresh, "");
    }
    struct tally_error err;
    struct rename *rn = NULL;
    if (v->mod_fn) {
        rn = rename_compile(v->mod_fn, &err);
        assert_non_null(rn);
        o.mod_fn = rn;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    if (annotate_report(out, p, &o, &err)) fail_msg("%s", err.msg);
    fclose(out);
    if (rn) rename_free(rn);
    free(cwd);
    annotate_options_release(&o);
    return buf;
}

/* What a profile is, to compare before and after views of it. */
struct shape {
    char *written; /* every part, record and name the callgrind writer writes */
    size_t len, names, funcs, costs, calls;
};

static void shape_of(const struct profile *p, struct shape *s)
{
    s->written = test_written(p, &s->len);
    s->names = p->names.n;
    s->funcs = profile_nfunctions(p);
    s->costs = part_ncosts(p->parts[0]);
    s->calls = part_ncalls(p->parts[0]);
}

static void same_shape(const struct shape *a, const struct shape *b)
{
    assert_int_equal(a->names, b->names);
    assert_int_equal(a->funcs, b->funcs);
    assert_int_equal(a->costs, b->costs);
    assert_int_equal(a->calls, b->calls);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->written, b->written, a->len);
}

/* The lean report twice on one profile: the same text, with the costs. */
static void test_report_twice(void **state)
{
    (void)state;
    struct profile *p = rd(&lean_opt);
    struct shape before, after;
    shape_of(p, &before);
    char *a = annotate(p, &views[0]), *b = annotate(p, &views[0]);
    assert_string_equal(a, b);
    /* the table has main's self cost both times (Ir 10+5+1, Dr 2+1) */
    const char *row = strstr(b, " a.c:main [/bin/prog]\n");
    assert_non_null(row);
    while (row > b && row[-1] != '\n')
        row--;
    assert_int_equal(strncmp(row, "16 (11.94%)  3 ( 6.98%)  a.c:main", 33), 0);
    shape_of(p, &after);
    same_shape(&before, &after);
    free(a);
    free(b);
    free(before.written);
    free(after.written);
    profile_free(p);
}

/*
 * Every view of one profile, forwards and backwards, against the same view
 * of a fresh read; with lines and arcs kept, and kept lean.
 */
static void test_many_views(void **state)
{
    (void)state;
    const struct read_options *opts[2] = {&lines_opt, &lean_opt};
    for (int k = 0; k < 2; k++) {
        char *want[NVIEWS];
        for (size_t i = 0; i < NVIEWS; i++) {
            struct profile *fresh = rd(opts[k]);
            want[i] = annotate(fresh, &views[i]);
            profile_free(fresh);
        }
        struct profile *p = rd(opts[k]);
        struct shape before, after;
        shape_of(p, &before);
        for (size_t n = 0; n < 2 * NVIEWS; n++) {
            size_t i = n < NVIEWS ? n : 2 * NVIEWS - 1 - n;
            char *got = annotate(p, &views[i]);
            assert_string_equal(got, want[i]);
            free(got);
        }
        shape_of(p, &after);
        same_shape(&before, &after);
        /* source was annotated (the lean read has no lines: line 0 only) */
        assert_non_null(strstr(want[1], "-- Auto-annotated source: "));
        assert_non_null(strstr(want[1], " + a.c\n"));
        if (k) assert_non_null(strstr(want[1], "<counts for unidentified lines in a.c>"));
        for (size_t i = 0; i < NVIEWS; i++)
            free(want[i]);
        free(before.written);
        free(after.written);
        profile_free(p);
    }
}

/* Function tables of one profile with several options, then the report. */
static void test_tables_then_report(void **state)
{
    (void)state;
    struct profile *p = rd(&lines_opt);
    struct shape before, after;
    shape_of(p, &before);
    char *want = annotate(p, &views[2]);
    const struct eventset *es = &p->parts[0]->events;
    struct event_expr cols[2];
    assert_int_equal(eventset_lookup(es, "Ir", &cols[0]), 0);
    assert_int_equal(eventset_lookup(es, "Dr", &cols[1]), 0);
    char *strip = xasprintf("%s/", dir);
    size_t nrows = 0;
    /* bit 0: lines, bit 1: no arcs, bit 2: costs shared with the records */
    for (int k = 0; k < 8; k++) {
        struct func_options fo = {2, cols, strip, k & 1, 0, NULL, NULL, k >> 1 & 1, k >> 2, 0};
        struct func_table ft;
        struct tally_error err;
        assert_int_equal(func_table_build(&ft, p, &fo, &err), 0);
        if (nrows) assert_int_equal(func_nrows(&ft), nrows);
        nrows = func_nrows(&ft);
        /* the stripped name is the table's, found through it only */
        uint32_t id = func_find_name(&ft, "a.c", 3);
        assert_true(id != UINT32_MAX && id >= p->names.n);
        assert_string_equal(func_str(&ft, id), "a.c");
        assert_int_equal(strtab_find(&p->names, "a.c", 3), UINT32_MAX);
        if (k & 1) assert_true(ft.lines.count > 0);
        /* the self costs add up to the program's, however they are kept */
        tally_wide sum[2] = {0, 0};
        size_t records = 0;
        for (size_t r = 0; r < nrows; r++) {
            sum[0] += func_row_cost(&ft, r, 0);
            sum[1] += func_row_cost(&ft, r, 1);
            records += func_row_record(&ft, r) != NULL;
        }
        assert_true(sum[0] == 134 && sum[1] == 43);
        assert_true(k >> 2 ? records > 0 : records == 0);
        func_table_release(&ft);
    }
    char *got = annotate(p, &views[2]);
    assert_string_equal(got, want);
    shape_of(p, &after);
    same_shape(&before, &after);
    event_expr_release(&cols[0]);
    event_expr_release(&cols[1]);
    free(strip);
    free(got);
    free(want);
    free(before.written);
    free(after.written);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_twice),
        cmocka_unit_test(test_many_views),
        cmocka_unit_test(test_tables_then_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
