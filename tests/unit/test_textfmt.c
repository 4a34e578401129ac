/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the number and column formatting of the annotate report.
 * Expected strings are written out by hand from the rules that
 * callgrind_annotate/cg_annotate 3.19 follow (see textfmt.h).
 */
#include "testutil.h"

#include "report/textfmt.h"

static void test_commify(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(textfmt_commify(0, b), "0");
    assert_string_equal(textfmt_commify(7, b), "7");
    assert_string_equal(textfmt_commify(999, b), "999");
    assert_string_equal(textfmt_commify(1000, b), "1,000");
    assert_string_equal(textfmt_commify(123456, b), "123,456");
    assert_string_equal(textfmt_commify(1234567, b), "1,234,567");
    assert_string_equal(textfmt_commify(-1, b), "-1");
    assert_string_equal(textfmt_commify(-1000, b), "-1,000");
    assert_string_equal(textfmt_commify(-2000000, b), "-2,000,000");
    assert_string_equal(textfmt_commify(INT64_MAX, b), "9,223,372,036,854,775,807");
    assert_string_equal(textfmt_commify(INT64_MIN, b), "-9,223,372,036,854,775,808");
    /* sums are 128-bit (expected texts from Python's format(n, ',')) */
    assert_string_equal(textfmt_commify((tally_wide)UINT64_MAX, b), "18,446,744,073,709,551,615");
    assert_string_equal(textfmt_commify((tally_wide)UINT64_MAX * 3 + 3, b),
                        "55,340,232,221,128,654,848");
    tally_wide top = (tally_wide)(((unsigned __int128)1 << 127) - 1);
    assert_string_equal(textfmt_commify(-top, b),
                        "-170,141,183,460,469,231,731,687,303,715,884,105,727");
    char d[TALLY_WIDE_DIGITS];
    assert_string_equal(tally_wide_str(-top, d), "-170141183460469231731687303715884105727");
    assert_string_equal(tally_wide_str(0, d), "0");
}

static void test_widths(void **state)
{
    (void)state;
    assert_int_equal(textfmt_plain_len(0), 1);
    assert_int_equal(textfmt_plain_len(-5), 2);
    assert_int_equal(textfmt_plain_len(1234567), 7);
    /* len + (len - 1) / 3, plus 9 for " (12.34%)" */
    assert_int_equal(textfmt_count_width(1234567, 0), 9);
    assert_int_equal(textfmt_count_width(1234567, 1), 18);
    assert_int_equal(textfmt_count_width(999, 0), 3);
    assert_int_equal(textfmt_count_width(1000, 0), 5);
    /* the minus sign counts as a digit in the originals' rule: "-123456" -> 7 + 2 */
    assert_int_equal(textfmt_count_width(-123456, 0), 9);
}

static void test_percent(void **state)
{
    (void)state;
    char b[32];
    assert_true(textfmt_percent(1, 0) == 0.0);
    assert_true(textfmt_percent(50, 200) == 25.0);
    assert_string_equal(textfmt_percent_text(textfmt_percent(50, 200), b, sizeof(b)), " (25.00%)");
    assert_string_equal(textfmt_percent_text(100.0, b, sizeof(b)), " (100.0%)");
    assert_string_equal(textfmt_percent_text(99.994, b, sizeof(b)), " (99.99%)");
    assert_string_equal(textfmt_percent_text(99.995, b, sizeof(b)), " (100.0%)");
    assert_string_equal(textfmt_percent_text(-9.99, b, sizeof(b)), " (-9.99%)");
    assert_string_equal(textfmt_percent_text(-10.0, b, sizeof(b)), " (-10.0%)");
    assert_string_equal(textfmt_percent_text(1250.0, b, sizeof(b)), " (1250.0%)");
    assert_string_equal(textfmt_percent_text(0.001, b, sizeof(b)), " ( 0.00%)");
    /* 1 of 3: 33.333.. */
    assert_string_equal(textfmt_percent_text(textfmt_percent(1, 3), b, sizeof(b)), " (33.33%)");
    /* a product that does not fit 64 bits still gives a sane answer */
    assert_true(textfmt_percent(INT64_MAX, INT64_MAX) > 99.99);
}

/* The percentage text is printf's, without printf: checked against printf itself. */
static void test_percent_printf(void **state)
{
    (void)state;
    char got[64], want[64];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 400000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double pct;
        switch (i % 5) {
        case 0: /* a share, as annotate computes it */
            pct = textfmt_percent((tally_wide)(x % 1000003), (tally_wide)(x % 999983 + 1));
            break;
        case 1: /* exact ties at the last digit: k / 1000 and k / 200 */
            pct = (double)(int64_t)(x % 40000 - 20000) / 200.0;
            break;
        case 2:
            pct = (double)(int64_t)(x % 200000 - 100000) / 1000.0;
            break;
        case 3: /* near the 99.995 and -9.995 edges */
            pct = (x & 1 ? 99.995 : -9.995) + (double)(int64_t)(x % 2001 - 1000) * 1e-12;
            break;
        default: /* anything, huge values too */
            pct = ((double)(int64_t)x) / (double)(1ULL << (x % 63));
            break;
        }
        textfmt_percent_text(pct, got, sizeof(got));
        if (-9.995 < pct && pct < 99.995)
            snprintf(want, sizeof(want), " (%5.2f%%)", pct);
        else
            snprintf(want, sizeof(want), " (%5.1f%%)", pct);
        if (strcmp(got, want)) fail_msg("%.17g: got '%s', printf gives '%s'", pct, got, want);
    }
    textfmt_percent_text(-0.0, got, sizeof(got));
    assert_string_equal(got, " (-0.00%)");
}

static void test_cells(void **state)
{
    (void)state;
    char b[128];
    /* defined count with percentage, right-aligned to 18, then one space */
    textfmt_cell(b, sizeof(b), 1234567, 1, 2469134, 1, 18);
    assert_string_equal(b, "1,234,567 (50.00%) ");
    textfmt_cell(b, sizeof(b), 5, 1, 10, 1, 12);
    assert_string_equal(b, "  5 (50.00%) ");
    /* zero: nine spaces instead of a percentage, so it looks left-aligned */
    textfmt_cell(b, sizeof(b), 0, 1, 10, 1, 12);
    assert_string_equal(b, "  0          ");
    /* never recorded: "." */
    textfmt_cell(b, sizeof(b), 0, 0, 10, 1, 12);
    assert_string_equal(b, "  .          ");
    /* without percentages */
    textfmt_cell(b, sizeof(b), 1234, 1, 10, 0, 7);
    assert_string_equal(b, "  1,234 ");
    textfmt_cell(b, sizeof(b), -1234, 1, 10000, 0, 2);
    assert_string_equal(b, "-1,234 ");
    /* negative with percentage */
    textfmt_cell(b, sizeof(b), -2000, 1, 10000, 1, 0);
    assert_string_equal(b, "-2,000 (-20.0%) ");
    /* total 0: the percentage is 0 */
    textfmt_cell(b, sizeof(b), 3, 1, 0, 1, 0);
    assert_string_equal(b, "3 ( 0.00%) ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commify), cmocka_unit_test(test_widths),
        cmocka_unit_test(test_percent), cmocka_unit_test(test_percent_printf),
        cmocka_unit_test(test_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
