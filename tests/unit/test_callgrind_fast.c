/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_callgrind_fast.c - the fast paths of the callgrind reader.
 *
 * The reader parses the usual lines (cost lines in the 'line' or 'instr
 * line' layout, "KEY=(N)" references, calls=/jump=/jcnd= lines) with
 * specialised code and gives anything else to the general parser. A line
 * ending in CR LF is never taken by a fast path, so reading a text with
 * CR LF line ends and with LF line ends must give the same profile: that
 * compares every fast path with the general parser. Expected numbers in
 * the other tests were worked out by hand from the input text.
 */
#include "testutil.h"

/* Read from an exactly sized heap copy: ASan catches any read past it. */
static struct profile *read_exact(const char *text, size_t len, const struct read_options *opt,
                                  struct tally_error *err)
{
    static const struct read_options defaults;
    char *buf = xmalloc(len ? len : 1);
    memcpy(buf, text, len);
    struct input in;
    tally_error_clear(err);
    assert_int_equal(input_open_mem(&in, "test", buf, len, err), 0);
    struct profile *p = profile_new();
    p->path = xstrdup("test");
    int rc = callgrind_read(&in, p, opt ? opt : &defaults, err);
    input_close(&in);
    free(buf);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

/* The profile as callgrind text (malloc'd), or the error as "ERROR line: msg". */
static char *outcome(const char *text, size_t len, const struct read_options *opt)
{
    struct tally_error err;
    struct profile *p = read_exact(text, len, opt, &err);
    char *out = NULL;
    size_t outlen = 0;
    FILE *fp = open_memstream(&out, &outlen);
    assert_non_null(fp);
    if (p) {
        assert_int_equal(callgrind_write(p, fp, &err), 0);
        for (size_t i = 0; i < p->warnings.n; i++)
            fprintf(fp, "WARNING %s\n", p->warnings.items[i]);
        profile_free(p);
    } else {
        fprintf(fp, "ERROR %lu: %s\n", err.line, err.msg);
    }
    fclose(fp);
    return out;
}

/* text with every "\n" replaced by "\r\n" (malloc'd) */
static char *crlf(const char *text)
{
    size_t n = strlen(text), k = 0;
    char *out = xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\n') out[k++] = '\r';
        out[k++] = text[i];
    }
    out[k] = 0;
    return out;
}

/*
 * Both line ends, with and without addresses and jumps: same outcome,
 * and the LF outcome contains `want` (a piece of the result checked by
 * hand), or is an error when want starts with "ERROR".
 */
static void same_both_ways(const char *text, const char *want)
{
    static const struct read_options opts[] = {
        {0}, {.drop_addr = 1}, {.drop_jumps = 1}, {.drop_addr = 1, .drop_jumps = 1}};
    char *cr = crlf(text);
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        char *a = outcome(text, strlen(text), &opts[i]);
        char *b = outcome(cr, strlen(cr), &opts[i]);
        if (strcmp(a, b))
            fail_msg("options %zu: LF and CRLF differ for\n%s\n--- LF:\n%s\n--- CRLF:\n%s", i, text,
                     a, b);
        if (i == 0 && want && !strstr(a, want))
            fail_msg("expected '%s' in\n%s\nfor\n%s", want, a, text);
        free(a);
        free(b);
    }
    free(cr);
}

#define HDR_IL "positions: instr line\nevents: Ir Dr\n"
#define HDR_L "events: Ir Dr\n"

static void test_lf_crlf_cost_lines(void **state)
{
    (void)state;
    /* numbers of 1..9 digits (the 8-byte reads), zero runs, '*', '-' */
    /* (every line gives both counts, so the written file keeps the zeros) */
    same_both_ways(HDR_L "fn=f\n3 1234567 12345678\n+1 123456789 0\n* 5 0\n-1 0 0\n",
                   "\n3 1234567 12345678\n+1 123456794 0\n");
    same_both_ways(HDR_IL "fn=f\n0x10 5 1 2\n+4 * 10\n+0x8 +1 7 7\n-0x4 -1 1\n* * 2\n",
                   "0x10 5 1 2\n+4 * 10\n+4 * 3\n+4 +1 7 7\n");
    /* a trailing space, a space-only tail, lines without costs */
    same_both_ways(HDR_IL "fn=f\n0x10 5 1 \n+1 * \n+1 +1\n", "0x10 5 1\n");
    /* 19 and 20 digits: the last fits only by the general parser's check */
    same_both_ways(HDR_L "fn=f\n1 1000000000000000000\n", "1 1000000000000000000\n");
    same_both_ways(HDR_L "fn=f\n1 18446744073709551615\n", "1 18446744073709551615\n");
    same_both_ways(HDR_L "fn=f\n1 18446744073709551616\n", "ERROR 3: cost does not fit");
    /* negative costs are clamped, by the general parser */
    same_both_ways(HDR_L "fn=f\n1 -5 3\n", "1 -5 3\n");
    /* tabs and double spaces */
    same_both_ways(HDR_L "fn=f\n1\t5  3\n", "1 5 3\n");
    /* hex with capitals, long hex */
    same_both_ways(HDR_IL "fn=f\n0XFFFFFFFFFFFFFFFF 1 1\n", "0xffffffffffffffff 1 1\n");
    same_both_ways(HDR_IL "fn=f\n0x1FFFFFFFFFFFFFFFF 1 1\n", "ERROR 4: position does not fit");
    same_both_ways(HDR_IL "fn=f\n0x 1 1\n", "ERROR 4:");
}

static void test_lf_crlf_errors(void **state)
{
    (void)state;
    same_both_ways(HDR_L "fn=f\n5 1\n-6 1\n", "ERROR 4: relative position -6 goes below zero");
    same_both_ways(HDR_IL "fn=f\n0x10 1 1\n-0x11 * 1\n", "ERROR 5: relative position -17");
    same_both_ways(HDR_IL "fn=f\n0xFFFFFFFFFFFFFFFF 1 1\n+1 * 1\n", "ERROR 5: position does not");
    same_both_ways(HDR_L "fn=f\n1 1 2 3\n", "ERROR 3: too many costs (3) for 2 events");
    same_both_ways(HDR_L "fn=f\n1 18446744073709551615\n1 1\n",
                   "ERROR 4: the costs of event Ir sum past 2^64-1");
    same_both_ways(HDR_L "fn=f\n1 2x\n", "ERROR 3: unexpected character 'x' in a cost");
    same_both_ways(HDR_L "fn=f\n*5 1\n", "ERROR 3: unexpected character '5' in a position");
    same_both_ways(HDR_L "fn=f\n+ 1\n", "ERROR 3: expected a number after '+'");
    same_both_ways(HDR_IL "fn=f\n0x10\n", "ERROR 4: expected 2 positions, found 1");
    same_both_ways(HDR_L "1 2\n", "ERROR 2: cost line before any 'fn=' line");
    same_both_ways(HDR_L "fl=(1) a.c\nfn=(1) f\n1 1\nfl=(1)\n2 5\n", "fn=(1) f\n1 1\n+1 5\n");
}

static void test_lf_crlf_key_lines(void **state)
{
    (void)state;
    const char *calls = HDR_IL "ob=(1) o\nfl=(1) a.c\nfn=(1) f\n0x10 3 1\n"
                               "cfi=(2) b.c\ncfn=(2) g\ncalls=2 0x400 +7 \n* * 9 4\n"
                               "cfn=(2)\ncalls=1 0x400 10 \n+1 -1 3\n"
                               "fn=(2)\nfi=(2)\n0x400 10 9 4\nfe=(1)\n+1 3 1\n";
    same_both_ways(calls, "calls=2 0x400 +7\n* * 9 4\n");
    const char *jumps = HDR_IL "fl=(1) a.c\nfn=(1) f\n0x10 3 1\n"
                               "jcnd=3/7 +16 -1 \n* * \njump=4 0x10 3 \n+2 +1 \n"
                               "jfi=(2) b.c\njfn=(2) g\njump=1 0x99 1 \n* * \n"
                               "jcnd=5 6 +1 * \n* *\n";
    same_both_ways(jumps, "jcnd=3/7 +16 -1\n");
    /* an undefined id, rcalls=, a key line while a call waits for its position */
    same_both_ways(HDR_L "fn=f\ncfn=(9)\ncalls=1 2\n3 4\n",
                   ":3: undefined compressed function id (9): named '(9)'");
    same_both_ways(HDR_L "fn=f\ncfn=g\nrcalls=2 4\n5 1\n", "calls=2 4\n5 1\n");
    same_both_ways(HDR_L "fn=f\ncfn=g\ncalls=2 4\ncfn=g\n",
                   "ERROR 5: expected the position line of the 'calls=' on line 4");
    same_both_ways(HDR_L "fn=f\ncalls=2 4\n5 1\n",
                   "ERROR 3: 'calls=' line without a preceding 'cfn='");
    same_both_ways(HDR_L "fn=f\njcnd=5 4\n", "ERROR 3: expected 1 position, found 0");
    same_both_ways(HDR_L "fn=f\njcnd=5/4 -9\n", "ERROR 3: relative position -9 goes below zero");
    /* fl= without fn= after it: the call is still f's, in a.c; its callee is in b.c, the
       file fl= named (as callgrind_annotate reads it) */
    same_both_ways(HDR_L "fl=(1) a.c\nfn=(1) f\n1 1\nfl=(2) b.c\ncfn=(1)\ncalls=1 1\n2 3\n",
                   "fn=(1) f\n1 1\ncfi=(2) b.c\ncfn=(2) f\ncalls=1 *\n+1 3\n");
}

/* Hand-checked values from the fast path: sums per line, with instructions dropped. */
static void test_fast_values(void **state)
{
    (void)state;
    struct read_options opt = {.drop_addr = 1};
    const char *text = HDR_IL "fn=f\n0x10 5 1234567 2\n+4 * 7654321 0\n+0x4 +1 99 1\n"
                              "-0x8 -1 1 1\n";
    struct tally_error err;
    struct profile *p = read_exact(text, strlen(text), &opt, &err);
    assert_non_null(p);
    struct part *pt = p->parts[0];
    assert_int_equal(part_ncosts(pt), 2);
    struct cost_rec c;
    part_cost_get(pt, 0, &c);
    assert_int_equal(c.pos.line, 5);
    assert_int_equal(c.pos.addr, 0);
    assert_int_equal(c.cost[0], 1234567 + 7654321 + 1); /* 0x10, 0x14 and 0x10 again */
    assert_int_equal(c.cost[1], 2 + 0 + 1);
    part_cost_get(pt, 1, &c);
    assert_int_equal(c.pos.line, 6);
    assert_int_equal(c.cost[0], 99);
    assert_int_equal(c.cost[1], 1);
    profile_free(p);
}

/* Every prefix of a file, from an exact buffer: no read past its end. */
static void test_truncated(void **state)
{
    (void)state;
    const char *text = HDR_IL "fl=(1) a.c\nfn=(1) f\n0x10 5 1234567 2\n+4 * 76543210 0\n"
                              "cfn=(1)\ncalls=1 0x10 5 \n* * 12345678 1\njcnd=1/2 +4 * \n* * \n"
                              "+2 +1 1 2\n";
    /* key lines cut short right before their line end */
    const char *keys = HDR_IL "fn=f\nfl=\njcnd=1\njcnd=1/\ncalls=\nfn=(\ncfn=(1\n";
    const char *texts[] = {text, keys};
    for (size_t k = 0; k < 2; k++) {
        size_t n = strlen(texts[k]);
        for (size_t len = 0; len <= n; len++) {
            char *a = outcome(texts[k], len, NULL);
            free(a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lf_crlf_cost_lines), cmocka_unit_test(test_lf_crlf_errors),
        cmocka_unit_test(test_lf_crlf_key_lines),  cmocka_unit_test(test_fast_values),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
