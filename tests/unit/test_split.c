/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_split.c - a callgrind file read on two threads (formats/
 * callgrind_split.c) gives exactly what one reader gives.
 *
 * Each case builds a file whose split line lands where the case wants it
 * (the second reader starts at the first `fn=` line past the middle, or at
 * the `version:` line nearest the middle), reads it with the split forced
 * (read_options.callgrind.split_min = 1) and without (READ_SPLIT_NEVER), and checks that the two
 * give the same error at the same line, or the same profile byte for byte as the writer writes it,
 * with the same warnings and last mentions. Each case also says whether the split must be merged
 * (which way) or must be given up, so that a split that silently never happens fails the test.
 */
#include "testutil.h"

#include "io/bytebuf.h"

struct outcome {
    struct profile *p;
    struct tally_error err;
    int how; /* READ_SPLIT_* */
};

static struct outcome read_text(const char *text, size_t len, int split, int fold, int drop)
{
    struct outcome o = {0};
    struct input in;
    tally_error_clear(&o.err);
    assert_int_equal(input_open_mem(&in, "test", text, len, &o.err), 0);
    struct read_options opt = {0};
    opt.callgrind.split_min = split ? 1 : READ_SPLIT_NEVER;
    opt.merge_parts = fold;
    opt.drop_addr = drop;
    opt.callgrind.split_out = &o.how;
    o.p = profile_new();
    o.p->path = xstrdup("test");
    if (callgrind_read(&in, o.p, &opt, &o.err)) {
        profile_free(o.p);
        o.p = NULL;
    }
    input_close(&in);
    return o;
}

/*
 * Read both ways and compare; `how` is the way the split read must have
 * gone (READ_SPLIT_NONE: given up). Returns the error line of a failed
 * read, 0 when it loaded.
 */
static unsigned long same(const struct bytebuf *b, int fold, int drop, int how)
{
    struct outcome a = read_text(b->s, b->n, 0, fold, drop);
    struct outcome s = read_text(b->s, b->n, 1, fold, drop);
    if (!a.p || !s.p) {
        if (a.p || s.p)
            fail_msg("one reader failed: %s:%lu: %s / %s:%lu: %s", a.err.file, a.err.line,
                     a.err.msg, s.err.file, s.err.line, s.err.msg);
        assert_int_equal(a.err.line, s.err.line);
        assert_string_equal(a.err.msg, s.err.msg);
        return a.err.line;
    }
    assert_int_equal(a.how, READ_SPLIT_NONE);
    if (s.how != how) fail_msg("split read went way %d, expected %d", s.how, how);
    test_same_profile(a.p, s.p);
    profile_free(a.p);
    profile_free(s.p);
    return 0;
}

#define put bytebuf_printf

static void header(struct bytebuf *b, const char *extra)
{
    put(b,
        "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd: ./prog\n"
        "part: 1\n%spositions: instr line\nevents: Ir Dr\nsummary: 999999999 999999999\n\n",
        extra);
}

/* Functions f<from>..f<to-1>, each calling f0, in files by the parity of i. */
static void functions(struct bytebuf *b, int from, int to)
{
    for (int i = from; i < to; i++) {
        put(b, "fl=(%d)%s\n", 1 + i % 2, i < 2 ? (i % 2 ? " b.c" : " a.c") : "");
        if (i == 0)
            put(b, "fn=(1) f0\n");
        else
            put(b, "fn=(%d) f%d\n", i + 1, i);
        put(b, "0x%x %d %d 1\n+1 +1 2\n+2 * 1 1\n", 0x1000 + 64 * i, 10 + i, i + 1);
        if (i) put(b, "cfl=(1)\ncfn=(1)\ncalls=%d 0x1000 10\n+3 -1 %d 2\n", i, 5 * i);
        put(b, "jump=2 +5 *\n+1 * 1\n\n");
    }
}

/* A body split: names, files and positions of the first half used in the second. */
static void test_body(void **state)
{
    (void)state;
    for (int drop = 0; drop < 2; drop++) {
        struct bytebuf b;
        memset(&b, 0, sizeof(b));
        header(&b, "");
        functions(&b, 0, 60);
        put(&b, "totals: 1 1\n");
        same(&b, 0, drop, READ_SPLIT_BODY);
        same(&b, 1, drop, READ_SPLIT_BODY);
        bytebuf_release(&b);
    }
}

/*
 * The lines `tail` come right after the middle, `post` right before it,
 * `pre` at the start of the body: the first half is one function's cost
 * lines, as long as the rest.
 */
static unsigned long at_split3(const char *pre, const char *post, const char *tail, int fold,
                               int how)
{
    struct bytebuf b;
    memset(&b, 0, sizeof(b));
    header(&b, "");
    put(&b, "fl=(1) a.c\nfn=(1) main\n0x10 3 1 1\n%s", pre);
    size_t need = strlen(tail) + 64;
    for (size_t k = 0; b.n < need * 2 + 400; k++)
        put(&b, "+1 +%d 1 %zu\n", (int)(k % 3), k % 10);
    put(&b, "%s%s", post, tail);
    unsigned long line = same(&b, fold, 0, how);
    bytebuf_release(&b);
    return line;
}

static unsigned long at_split(const char *pre, const char *tail, int fold, int how)
{
    return at_split3(pre, "", tail, fold, how);
}

static void test_body_edges(void **state)
{
    (void)state;
    /* known names and absolute positions: merged */
    assert_int_equal(
        at_split("", "fn=(2) g\n0x20 5 1\ncfn=(1)\ncalls=1 0x10 3\n0x21 6 2\n", 0, READ_SPLIT_BODY),
        0);
    /* a relative position before an absolute one: given up */
    assert_int_equal(at_split("", "fn=(2) g\n+2 +1 1\n0x20 5 1\n", 0, READ_SPLIT_NONE), 0);
    /* `cob=` right before the split still holds for the call after it: given up */
    assert_int_equal(at_split3("", "cob=(3) lib.so\n",
                               "fn=(2) g\n0x20 5 1\ncfn=(1)\ncalls=1 0x10 3\n0x21 6 2\n", 0,
                               READ_SPLIT_NONE),
                     0);
    /* a name that looks like a placeholder: given up */
    assert_int_equal(at_split("", "fn=(2) \001o\n0x20 5 1\n", 0, READ_SPLIT_NONE), 0);
    /* a header line in the second half (an unknown one: a warning): given up */
    assert_int_equal(
        at_split("", "fn=(2) g\n0x20 5 1\narch: amd64\n0x21 1 1\n", 0, READ_SPLIT_NONE), 0);
    /* deprecated rcalls= (warned once per file): given up, warned once */
    assert_int_equal(at_split("cfn=(1)\nrcalls=1 0x10 3\n0x11 4 1\n",
                              "fn=(2) g\n0x20 5 1\ncfn=(1)\nrcalls=1 0x10 3\n0x21 6 2\n", 1,
                              READ_SPLIT_NONE),
                     0);
    /* `totals:` after the split replaces the one before, with its line */
    assert_int_equal(
        at_split("totals: 1 1\n", "fn=(2) g\n0x20 5 1\ntotals: 3 4\n", 0, READ_SPLIT_BODY), 0);
}

static void test_body_errors(void **state)
{
    (void)state;
    /* errors in the second half: the same line and message */
    assert_true(at_split("", "fn=(2) g\n0x20 5 1\nfoo=(9)\ncalls=1 0x10 3\n0x21 6 2\n", 0, 0) > 0);
    /* an id defined nowhere is a warning: the split is given up, one reader warns */
    assert_int_equal(
        at_split("", "fn=(2) g\n0x20 5 1\ncfn=(9)\ncalls=1 0x10 3\n0x21 6 2\n", 0, READ_SPLIT_NONE),
        0);
    assert_true(at_split("", "fn=(2) g\n0x20 5 1\n0x21 x 1\n", 0, 0) > 0);
    assert_true(at_split("", "fn=(2) g\n0x20 5 1 2 3\n", 0, 0) > 0);
    /* a calls= line right before the split line: its position line is missing */
    assert_true(at_split3("", "cfn=(1)\ncalls=1 0x10 3\n", "fn=(2) g\n0x20 5 1\n", 0, 0) > 0);
    /* an error in the first half: the second reader is stopped, the first error stands */
    assert_true(at_split("0x10 q\n", "fn=(2) g\n0x20 5 1\n", 0, 0) > 0);
    /* self costs that pass 2^64-1 only with both halves summed */
    assert_true(at_split("0x11 1 1 9223372036854775808\n",
                         "fn=(2) g\n0x20 5 1 9223372036854775808\n", 0, 0) > 0);
    /* call costs of one record that pass 2^64-1 only summed over both halves */
    assert_true(at_split("cfn=(1)\ncalls=1 0x10 3\n0x12 4 18446744073709551615\n",
                         "fn=(1)\n0x12 4 1\ncfn=(1)\ncalls=1 0x10 3\n0x12 4 1\n", 0, 0) > 0);
    /* call counts of the file that pass 2^64-1 */
    assert_true(at_split("cfn=(1)\ncalls=18446744073709551615 0x10 3\n0x12 4 1\n",
                         "fn=(2) g\n0x20 5 1\ncfn=(1)\ncalls=1 0x10 3\n0x21 6 2\n", 0, 0) > 0);
}

/*
 * Parts of a file, as Callgrind's --combine-dumps (combine) or concatenated
 * dumps write them; `late` goes into the last part's header; `totals`
 * writes wrong `totals:` lines (warnings).
 */
static void parts_file(struct bytebuf *b, int nparts, int combine, const char *late, int totals)
{
    for (int k = 0; k < nparts; k++) {
        if (!combine || k == 0) {
            header(b, k == nparts - 1 ? late : "");
        } else {
            put(b, "version: 1\npart: %d\n%spositions: instr line\nevents: Ir Dr\n\n", k + 1,
                k == nparts - 1 ? late : "");
        }
        functions(b, 0, 12 + k);
        if (totals) put(b, "totals: %d 1\n", k + 1);
    }
}

static void test_parts(void **state)
{
    (void)state;
    for (int combine = 0; combine < 2; combine++) {
        for (int fold = 0; fold < 2; fold++) {
            struct bytebuf b;
            memset(&b, 0, sizeof(b));
            parts_file(&b, 4, combine, "", 0);
            same(&b, fold, 0, READ_SPLIT_PART);
            same(&b, fold, 1, READ_SPLIT_PART);
            bytebuf_release(&b);
            /* warnings after the split (an unknown header line, wrong totals): given up */
            memset(&b, 0, sizeof(b));
            parts_file(&b, 4, combine, "arch: amd64\n", 0);
            same(&b, fold, 0, READ_SPLIT_NONE);
            bytebuf_release(&b);
            memset(&b, 0, sizeof(b));
            parts_file(&b, 4, combine, "", 1);
            same(&b, fold, 0, READ_SPLIT_NONE);
            bytebuf_release(&b);
        }
    }
    /* events that only the parts after the split have (the first reader's sums of the
       file's costs, by event name, take new names at the merge) */
    {
        struct bytebuf e;
        memset(&e, 0, sizeof(e));
        for (int k = 0; k < 4; k++) {
            put(&e, "version: 1\npart: %d\npositions: instr line\nevents: Ir Dr", k + 1);
            for (int x = 0; x < (k < 2 ? 0 : 40); x++) /* more than the first reader's room */
                put(&e, " E%d", x);
            put(&e, "\n\n");
            functions(&e, 0, 12 + k);
        }
        same(&e, 0, 0, READ_SPLIT_PART);
        bytebuf_release(&e);
    }
    /* an error in a later part */
    struct bytebuf b;
    memset(&b, 0, sizeof(b));
    parts_file(&b, 4, 1, "", 0);
    put(&b, "fn=f\nfoo=(77)\n");
    assert_true(same(&b, 1, 0, 0) > 0);
    bytebuf_release(&b);
    /* the split line in the middle of a part's header: given up */
    memset(&b, 0, sizeof(b));
    header(&b, "");
    functions(&b, 0, 20);
    put(&b, "totals: 1 1\npid: 43\n");
    size_t mid = b.n;
    put(&b, "version: 1\ncmd: x\nevents: Ir Dr\n");
    functions(&b, 0, 19);
    assert_true(mid > b.n / 4);
    same(&b, 0, 0, READ_SPLIT_NONE);
    bytebuf_release(&b);
}

/*
 * Functions with names of their own (part `part` of a file, n of them),
 * each calling the one before: the merge copies the second reader's names
 * and functions into the first profile, freeing them step by step (steps
 * of 16384).
 */
static void named_functions(struct bytebuf *b, int part, int n)
{
    for (int i = 0; i < n; i++) {
        int id = part * n + i + 1;
        put(b, "fl=(1)%s\nfn=(%d) part%d_a_function_with_a_longer_name_%d\n0x%x %d %d 1\n",
            part == 0 && i == 0 ? " a.c" : "", id, part, i, 0x1000 + 16 * i, 10 + i, i + 1);
        if (i)
            put(b, "cfn=(%d)\ncalls=1 0x1000 10\n0x%x %d 5 2\n", id - 1, 0x1004 + 16 * i, 10 + i);
    }
}

static void test_many_names(void **state)
{
    (void)state;
    enum { N = 20000 };
    for (int fold = 0; fold < 2; fold++) {
        /* two parts: the second reader reads the second */
        struct bytebuf b;
        memset(&b, 0, sizeof(b));
        for (int k = 0; k < 2; k++) {
            header(&b, "");
            named_functions(&b, k, N);
        }
        same(&b, fold, 0, READ_SPLIT_PART);
        bytebuf_release(&b);
        /* one part: the second reader reads the second half of its body */
        memset(&b, 0, sizeof(b));
        header(&b, "");
        named_functions(&b, 0, 2 * N);
        same(&b, fold, 0, READ_SPLIT_BODY);
        bytebuf_release(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body),        cmocka_unit_test(test_body_edges),
        cmocka_unit_test(test_body_errors), cmocka_unit_test(test_parts),
        cmocka_unit_test(test_many_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
