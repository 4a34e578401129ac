/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gprof.c - the gprof analysis on hand-built data: histogram credit,
 * arcs, cycles, time propagation, index order, symspecs, the flat profile
 * row format. Expected values are worked out by hand in the comments.
 */
#include "testutil.h"

#include <math.h>

#include "analysis/gprof.h"
#include "analysis/symspec.h"
#include "report/gprof.h"

/*
 * main 0x100, a 0x200, b 0x300, work 0x400 (static, cyc.c:3), leaf 0x500;
 * the last ends at 0x5ff. Histogram [0x100, 0x600) with 320 bins: scale
 * (0x500/2)/320 = 2.0 units, so bin i covers bytes 0x100 + 4i .. +3.
 */
static struct elf_sym test_syms[] = {
    {.name = "main", .addr = 0x100, .end_addr = 0x1ff, .is_func = true},
    {.name = "a", .addr = 0x200, .end_addr = 0x2ff, .is_func = true},
    {.name = "b", .addr = 0x300, .end_addr = 0x3ff, .is_func = true},
    {.name = "work",
     .addr = 0x400,
     .end_addr = 0x4ff,
     .is_func = true,
     .is_static = true,
     .file = "/src/cyc.c",
     .line = 3},
    {.name = "leaf", .addr = 0x500, .end_addr = 0x5ff, .is_func = true},
};

static void make_gmon(struct gmon *gm, uint64_t work_samples)
{
    gmon_init(gm);
    gm->input = GMON_INPUT_HIST | GMON_INPUT_ARCS;
    gm->hz = 100;
    strcpy(gm->dimen, "seconds");
    gm->dimen_abbrev = 's';
    gm->hist_scale = 2.0;
    gm->hists = xcalloc(1, sizeof(*gm->hists));
    gm->nhists = gm->hists_cap = 1;
    gm->hists[0].low_pc = 0x100;
    gm->hists[0].high_pc = 0x600;
    gm->hists[0].nbins = 320;
    gm->hists[0].bins = xcalloc(320, sizeof(uint64_t));
    gm->hists[0].bins[(0x400 - 0x100) / 4] = work_samples;
}

struct fixture {
    struct gmon gm;
    struct gprof g;
    struct symspec_set s;
};

static void build(struct fixture *f, const char *excl_arc)
{
    make_gmon(&f->gm, 100);
    symspec_set_init(&f->s);
    if (excl_arc) symspec_set_add(&f->s, excl_arc, SYMSPEC_EXCL_ARCS);
    gprof_init(&f->g, test_syms, 5, false);
    struct symspec_sym ss[5];
    for (int i = 0; i < 5; i++)
        ss[i] = (struct symspec_sym){test_syms[i].name, test_syms[i].file, test_syms[i].line,
                                     test_syms[i].addr, test_syms[i].end_addr};
    symspec_set_resolve(&f->s, ss, 5);
    /* call sites inside the callers, targets just after the entries */
    gprof_tally(&f->g, 0x120, 0x20c, 10, &f->s); /* main -> a  10 */
    gprof_tally(&f->g, 0x230, 0x30c, 5, &f->s);  /* a -> b      5 */
    gprof_tally(&f->g, 0x330, 0x20c, 4, &f->s);  /* b -> a      4 */
    gprof_tally(&f->g, 0x240, 0x40c, 9, &f->s);  /* a -> work   9 */
    gprof_tally(&f->g, 0x340, 0x40c, 5, &f->s);  /* b -> work   5 */
    gprof_tally(&f->g, 0x250, 0x50c, 9, &f->s);  /* a -> leaf   9 */
    gprof_assign_hist(&f->g, &f->gm, &f->s);
    gprof_assemble(&f->g, &f->s, NULL);
}

static void release(struct fixture *f)
{
    gprof_release(&f->g);
    gmon_release(&f->gm);
    symspec_set_release(&f->s);
}

static struct gprof_sym *sym(struct fixture *f, const char *name)
{
    for (size_t i = 0; i < f->g.nsyms; i++)
        if (!strcmp(f->g.syms[i].name, name)) return &f->g.syms[i];
    fail_msg("no symbol %s", name);
    return NULL;
}

static void test_lookup(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    assert_null(gprof_lookup(&f.g, 0xff));
    assert_string_equal(gprof_lookup(&f.g, 0x100)->name, "main");
    assert_string_equal(gprof_lookup(&f.g, 0x2ff)->name, "a");
    assert_string_equal(gprof_lookup(&f.g, 0x5ff)->name, "leaf");
    assert_null(gprof_lookup(&f.g, 0x600));
    release(&f);
}

static void test_histogram_credit(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    /* the bin lies wholly inside work: 2 units * 100 / scale 2.0 = 100 */
    assert_true(sym(&f, "work")->hist_time == 100.0);
    assert_true(sym(&f, "a")->hist_time == 0.0);
    assert_true(f.g.total_time == 100.0);
    release(&f);
}

static void test_cycle_and_counts(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    /* a and b call each other: one cycle, entered 10 times from main,
     * 5 + 4 calls inside */
    assert_int_equal(f.g.ncycles, 1);
    struct gprof_sym *cyc = &f.g.cycles[0];
    assert_int_equal(cyc->ncalls, 10);
    assert_int_equal(cyc->self_calls, 9);
    assert_int_equal(sym(&f, "a")->cyc_num, 1);
    assert_int_equal(sym(&f, "b")->cyc_num, 1);
    assert_int_equal(sym(&f, "work")->cyc_num, 0);
    assert_int_equal(sym(&f, "a")->ncalls, 14);
    assert_int_equal(sym(&f, "work")->ncalls, 14);
    /* children are numbered before their callers */
    assert_true(sym(&f, "work")->top_order < sym(&f, "a")->top_order);
    assert_int_equal(sym(&f, "a")->top_order, sym(&f, "b")->top_order);
    assert_true(sym(&f, "a")->top_order < sym(&f, "main")->top_order);
    release(&f);
}

static void test_propagation(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    /* work's 100 ticks go to a (9/14) and b (5/14); the cycle gathers
     * both; main gets the cycle's whole 100 through its 10/10 calls */
    struct gprof_arc *aw = gprof_arc_find(&f.g, sym(&f, "a"), sym(&f, "work"));
    assert_non_null(aw);
    assert_true(fabs(aw->time - 100.0 * 9 / 14) < 1e-9);
    assert_true(fabs(sym(&f, "a")->prop_child - 100.0 * 9 / 14) < 1e-9);
    assert_true(fabs(sym(&f, "b")->prop_child - 100.0 * 5 / 14) < 1e-9);
    assert_true(fabs(f.g.cycles[0].prop_child - 100.0) < 1e-9);
    assert_true(fabs(sym(&f, "main")->prop_child - 100.0) < 1e-9);
    assert_true(f.g.print_time == 100.0);
    /* main is never called: spontaneous, printed */
    assert_true(sym(&f, "main")->print_flag);
    release(&f);
}

static void test_index_order(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    /* total 100 each for the cycle, work and main: the cycle first, then
     * more calls first (work 14, main 0); then a (64.3), b (35.7), leaf */
    assert_int_equal(f.g.cycles[0].index, 1);
    assert_int_equal(sym(&f, "work")->index, 2);
    assert_int_equal(sym(&f, "main")->index, 3);
    assert_int_equal(sym(&f, "a")->index, 4);
    assert_int_equal(sym(&f, "b")->index, 5);
    assert_int_equal(sym(&f, "leaf")->index, 6);
    release(&f);
}

static void test_arc_exclusion(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, "main/a");
    /* -k main/a: the arc is gone and its calls are not counted; a and b
     * still form a cycle, now with no outside caller */
    assert_null(gprof_arc_find(&f.g, sym(&f, "main"), sym(&f, "a")));
    assert_int_equal(sym(&f, "a")->ncalls, 4);
    assert_int_equal(f.g.cycles[0].ncalls, 0);
    assert_true(sym(&f, "main")->prop_child == 0.0);
    release(&f);
}

static void test_flat_row(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct gprof_report r = {0};
    r.out = fp;
    r.brief = true;
    r.ignore_zeros = true;
    r.demangle = DEMANGLE_NONE;
    r.width = 80;
    r.dimen = "seconds";
    r.dimen_abbrev = 's';
    r.first_output = true;
    r.specs = &f.s;
    gprof_print_flat(&r, &f.g);
    fclose(fp);
    /* 100 ticks at 100 Hz = 1.00 s; 14 calls: 71.43 ms each; the largest
     * per-call time (0.0714 s) picks milliseconds */
    assert_non_null(
        strstr(buf, " time   seconds   seconds    calls  ms/call  ms/call  name    \n"));
    assert_non_null(strstr(buf, "100.00      1.00     1.00       14    71.43    71.43  work\n"));
    /* a has no self time but 14 calls: 64.29 ticks of children / 14 */
    assert_non_null(strstr(buf, "  0.00      1.00     0.00       14     0.00    45.92  a\n"));
    free(buf);
    release(&f);
}

static void test_symspec_parse(void **state)
{
    (void)state;
    struct symspec_part p;
    symspec_parse_part("main.c:134", &p);
    assert_string_equal(p.file, "main.c");
    assert_int_equal(p.line, 134);
    assert_null(p.name);
    free(p.file);
    symspec_parse_part(":a.b", &p);
    assert_null(p.file);
    assert_string_equal(p.name, "a.b");
    free(p.name);
    symspec_parse_part("cyc.c", &p);
    assert_string_equal(p.file, "cyc.c");
    free(p.file);
    symspec_parse_part("27", &p);
    assert_int_equal(p.line, 27);
    symspec_parse_part("work", &p);
    assert_string_equal(p.name, "work");
    free(p.name);
    symspec_parse_part("Makefile:", &p);
    assert_string_equal(p.file, "Makefile");
    free(p.file);
}

static void test_symspec_ranges(void **state)
{
    (void)state;
    struct symspec_set s;
    symspec_set_init(&s);
    symspec_set_add(&s, "a", SYMSPEC_INCL_FLAT);
    symspec_set_add(&s, "b", SYMSPEC_INCL_FLAT);
    symspec_set_add(&s, "cyc.c", SYMSPEC_EXCL_FLAT);
    symspec_set_add(&s, "nosuch", SYMSPEC_INCL_GRAPH);
    struct symspec_sym ss[5];
    for (int i = 0; i < 5; i++)
        ss[i] = (struct symspec_sym){test_syms[i].name, test_syms[i].file, test_syms[i].line,
                                     test_syms[i].addr, test_syms[i].end_addr};
    symspec_set_resolve(&s, ss, 5);
    assert_true(symspec_in(&s, SYMSPEC_INCL_FLAT, 0x250));
    assert_true(symspec_in(&s, SYMSPEC_INCL_FLAT, 0x3ff));
    assert_false(symspec_in(&s, SYMSPEC_INCL_FLAT, 0x400));
    assert_false(symspec_in(&s, SYMSPEC_INCL_FLAT, 0x1ff));
    /* file matched by basename */
    assert_true(symspec_in(&s, SYMSPEC_EXCL_FLAT, 0x410));
    /* a spec matching nothing leaves the table empty: everything passes */
    assert_true(symspec_empty(&s, SYMSPEC_INCL_GRAPH));
    assert_true(symspec_selected(&s, SYMSPEC_INCL_EXEC, 0x100));
    symspec_set_release(&s);
}

static int cmp_int(const void *a, const void *b)
{
    return (int)(*(const int *)a / 10) - (int)(*(const int *)b / 10);
}

static void test_msort_stable(void **state)
{
    (void)state;
    int v[] = {31, 12, 35, 11, 17, 33, 10};
    void *p[7];
    for (int i = 0; i < 7; i++)
        p[i] = &v[i];
    gprof_msort(p, 7, cmp_int);
    int want[] = {12, 11, 17, 10, 31, 35, 33};
    for (int i = 0; i < 7; i++)
        assert_int_equal(*(int *)p[i], want[i]);
}

/* The fast "%*.*f" must print what snprintf prints: random values of the
 * shapes the reports use (tick counts / hz, percentages, per-call
 * quotients), values at and next to decimal rounding ties, and the cases
 * left to snprintf (negative, -0.0, huge, NaN, infinite). */
static void check_fixed(double v, int width, int prec)
{
    char want[512], got[512];
    int wl = snprintf(want, sizeof(want), "%*.*f", width, prec, v);
    int gl = gprof_fmt_fixed(got, sizeof(got), v, width, prec);
    if (wl != gl || strcmp(want, got) != 0)
        fail_msg("%%%d.%df of %.17g: want '%s', got '%s'", width, prec, v, want, got);
}

static void test_fmt_fixed(void **state)
{
    (void)state;
    static const int widths[] = {0, 5, 6, 7, 8, 9, 10, 11};
    uint64_t seed = 88172645463325252ull;
    for (int i = 0; i < 400000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        int prec = (int)(seed % 5), width = widths[(seed >> 8) % 8];
        double v;
        switch ((seed >> 16) % 6) {
        case 0: /* ticks / hz */
            v = (double)((seed >> 24) % 1000000) / 100.0;
            break;
        case 1: /* a percentage */
            v = 100.0 * (double)((seed >> 24) % 100000) / (double)((seed >> 44) % 99999 + 1);
            break;
        case 2: /* a per-call time in another unit */
            v = 1e6 * (double)((seed >> 24) % 5000) / 100.0 / (double)((seed >> 40) % 997 + 1);
            break;
        case 3: { /* a decimal tie k + 0.5 at the last digit, and its neighbours */
            double t = ((double)((seed >> 24) % 100000) + 0.5) / pow(10.0, prec);
            int step = (int)((seed >> 50) % 3) - 1;
            v = step < 0 ? nextafter(t, 0.0) : step > 0 ? nextafter(t, 1e300) : t;
            break;
        }
        case 4: /* fractional sample credit */
            v = (double)((seed >> 24) % 1000) * 0.37 / 3.0;
            break;
        default: /* large */
            v = (double)(seed >> 20) / 1000.0;
            break;
        }
        check_fixed(v, width, prec);
    }
    static const double odd[] = {0.0,          -0.0,         -1.5,   -0.004,       0.005,
                                 0.015,        0.125,        0.375,  2.5,          1e300,
                                 2147483647.5, 214748364.75, 1e-300, 0.0049999999, 0.0050000001};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
        for (int prec = 0; prec <= 4; prec++)
            check_fixed(odd[i], 8, prec);
    check_fixed(INFINITY, 8, 2);
    check_fixed(-INFINITY, 8, 2);
    check_fixed(NAN, 8, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),           cmocka_unit_test(test_histogram_credit),
        cmocka_unit_test(test_cycle_and_counts), cmocka_unit_test(test_propagation),
        cmocka_unit_test(test_index_order),      cmocka_unit_test(test_arc_exclusion),
        cmocka_unit_test(test_flat_row),         cmocka_unit_test(test_symspec_parse),
        cmocka_unit_test(test_symspec_ranges),   cmocka_unit_test(test_msort_stable),
        cmocka_unit_test(test_fmt_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
