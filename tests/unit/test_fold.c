/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_fold.c - the callgrind reader's direct fold: with merge_parts, call
 * counts only and no jumps (what `tally annotate --auto=no` asks for), a
 * part after the first adds its records straight to part 0 instead of to
 * its own, and checks its `summary:`/`totals:` against sums kept line by
 * line (formats/callgrind_rd.h). Each case reads a file that way and the
 * reference way, every part on its own (merge_parts off) added up after by
 * profile_merge_parts(), and checks that both give the same error at the
 * same line, or the same profile byte for byte as the writer writes it,
 * with the same warnings and last mentions. Each case also says how many
 * parts must have been read directly, so that a fold that silently never
 * happens fails the test.
 */
#include "testutil.h"

#include "io/bytebuf.h"

#define put bytebuf_printf

struct outcome {
    struct profile *p;
    struct tally_error err;
    size_t direct; /* read_options.callgrind.direct_out */
    int how;       /* READ_SPLIT_* */
};

/* Read lean; `fold`: merge_parts (else the parts are added up after); `split`:
   read_options.callgrind.split_min (READ_SPLIT_NEVER: one thread; 1: split whatever the size). */
static struct outcome read_text(const struct bytebuf *b, int fold, int drop_line, size_t split)
{
    struct outcome o = {0};
    struct input in;
    tally_error_clear(&o.err);
    assert_int_equal(input_open_mem(&in, "test", b->s, b->n, &o.err), 0);
    struct read_options opt = {0};
    opt.callgrind.split_min = split;
    opt.merge_parts = fold;
    opt.drop_addr = 1;
    opt.drop_line = drop_line;
    opt.drop_jumps = 1;
    opt.callgrind.call_counts_only = 1;
    opt.callgrind.direct_out = &o.direct;
    opt.callgrind.split_out = &o.how;
    o.p = profile_new();
    o.p->path = xstrdup("test");
    int rc = callgrind_read(&in, o.p, &opt, &o.err);
    input_close(&in);
    /* as profile_read() does after a read with merge_parts (parts left when a fold failed) */
    if (!rc) rc = profile_merge_parts(o.p, &o.err);
    if (rc) {
        profile_free(o.p);
        o.p = NULL;
    }
    return o;
}

/* Are two outcomes the same (the same error, or the same profile)? Frees both. */
static void compare(struct outcome a, struct outcome s)
{
    if (!a.p || !s.p) {
        if (a.p || s.p)
            fail_msg("one read failed: %s:%lu: %s / %s:%lu: %s", a.err.file, a.err.line, a.err.msg,
                     s.err.file, s.err.line, s.err.msg);
        assert_int_equal(a.err.line, s.err.line);
        assert_string_equal(a.err.msg, s.err.msg);
        return;
    }
    assert_int_equal(a.p->nparts, 1);
    test_same_profile(a.p, s.p);
    profile_free(a.p);
    profile_free(s.p);
}

/*
 * Read directly and the reference way, on one thread; `direct` is the
 * number of parts that must have been read directly. Returns -1 when the
 * file loaded, else the line of the error (both give it; 0: no line).
 */
static long same(const struct bytebuf *b, size_t direct)
{
    long line = -1;
    for (int drop_line = 0; drop_line < 2; drop_line++) {
        struct outcome ref = read_text(b, 0, drop_line, READ_SPLIT_NEVER);
        struct outcome d = read_text(b, 1, drop_line, READ_SPLIT_NEVER);
        assert_int_equal(ref.direct, 0);
        if (d.p) assert_int_equal(d.direct, direct);
        line = d.p ? -1 : (long)d.err.line;
        compare(ref, d);
    }
    return line;
}

/*
 * Functions f<from>..f<to-1> of one part: each costs on three lines (the
 * third inlined from a header, fi=), calls f0 twice from two lines, and
 * jumps (its jump lines have a self cost).
 */
static void functions(struct bytebuf *b, int from, int to)
{
    for (int i = from; i < to; i++) {
        put(b, "fl=(%d)%s\n", 1 + i % 2, i < 2 ? (i % 2 ? " b.c" : " a.c") : "");
        if (i == 0)
            put(b, "fn=(1) f0\n");
        else
            put(b, "fn=(%d) f%d\n", i + 1, i);
        put(b, "%d %d 1\n+1 2\nfi=(3) h.h\n+9 1 1\nfe=(%d)\n", 10 + i, i + 1, 1 + i % 2);
        if (i)
            put(b, "cfl=(1)\ncfn=(1)\ncalls=%d 10\n+3 %d 2\ncfl=(1)\ncfn=(1)\ncalls=1 10\n+1 4 4\n",
                i, 5 * i);
        put(b, "jump=2 +5\n+1 1\n\n");
    }
}

static void part_header(struct bytebuf *b, int k, const char *events)
{
    put(b,
        "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd: ./prog\n"
        "part: %d\npositions: line\nevents: %s\n\n",
        k + 1, events);
}

/*
 * Parts of a file. `events[k]` gives part k's events (NULL: "Ir Dr");
 * `totals[k]`, a `totals:` line of part k (NULL: none).
 */
static void parts_file(struct bytebuf *b, int nparts, const char *const *events,
                       const char *const *totals)
{
    for (int k = 0; k < nparts; k++) {
        part_header(b, k, events && events[k] ? events[k] : "Ir Dr");
        functions(b, 0, 6 + 2 * k);
        if (totals && totals[k]) put(b, "totals: %s\n", totals[k]);
    }
}

/* The self costs of each part of a file, as `totals:` values, read the reference way. */
static char **part_totals(const struct bytebuf *b, int nparts)
{
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "test", b->s, b->n, &err), 0);
    struct read_options opt = {.drop_jumps = 1, .callgrind.split_min = READ_SPLIT_NEVER};
    struct profile *p = profile_new();
    assert_int_equal(callgrind_read(&in, p, &opt, &err), 0);
    input_close(&in);
    assert_int_equal(p->nparts, nparts);
    char **t = xcalloc((size_t)nparts, sizeof(*t));
    for (int k = 0; k < nparts; k++) {
        uint64_t sum[2];
        assert_int_equal(p->parts[k]->events.n, 2);
        assert_int_equal(part_self_total(p, p->parts[k], sum), 0);
        t[k] = xasprintf("%llu %llu", (unsigned long long)sum[0], (unsigned long long)sum[1]);
    }
    profile_free(p);
    return t;
}

static void free_totals(char **t, int n)
{
    for (int k = 0; k < n; k++)
        free(t[k]);
    free(t);
}

static void test_parts(void **state)
{
    (void)state;
    struct bytebuf b = {0};
    parts_file(&b, 4, NULL, NULL);
    assert_int_equal(same(&b, 3), -1);
    /* `totals:` lines that are right: no warning; the sums of the direct parts are checked */
    char **t = part_totals(&b, 4);
    b.n = 0;
    parts_file(&b, 4, NULL, (const char *const *)t);
    assert_int_equal(same(&b, 3), -1);
    struct outcome d = read_text(&b, 1, 1, READ_SPLIT_NEVER);
    assert_non_null(d.p);
    assert_int_equal(d.p->warnings.n, 0);
    profile_free(d.p);
    /* wrong ones in two parts (one read directly): the same warnings */
    const char *wrong[4] = {t[0], "1 2", t[2], "5 5"};
    b.n = 0;
    parts_file(&b, 4, NULL, wrong);
    assert_int_equal(same(&b, 3), -1);
    d = read_text(&b, 1, 1, READ_SPLIT_NEVER);
    assert_non_null(d.p);
    assert_true(d.p->warnings.n > 0);
    profile_free(d.p);
    free_totals(t, 4);
    /* a first part with no records and no totals, then parts with theirs (as a
       reader that adds them at the end of each part, part 0 then holds nothing:
       the totals of the others are kept) */
    b.n = 0;
    part_header(&b, 0, "Ir Dr");
    struct bytebuf rest = {0};
    parts_file(&rest, 3, NULL, NULL);
    t = part_totals(&rest, 3);
    rest.n = 0;
    parts_file(&rest, 3, NULL, (const char *const *)t);
    bytebuf_add(&b, rest.s, rest.n);
    assert_int_equal(same(&b, 3), -1);
    d = read_text(&b, 1, 1, READ_SPLIT_NEVER);
    assert_non_null(d.p);
    assert_non_null(d.p->parts[0]->totals);
    profile_free(d.p);
    free_totals(t, 3);
    bytebuf_release(&rest);
    bytebuf_release(&b);
}

/*
 * A part with the same events in another order is folded at its end (its
 * counts are mapped by name); one with other events cannot be folded, nor
 * can any later part: the same error either way.
 */
static void test_other_events(void **state)
{
    (void)state;
    struct bytebuf b = {0};
    const char *swapped[4] = {NULL, NULL, "Dr Ir", NULL};
    parts_file(&b, 4, swapped, NULL);
    assert_int_equal(same(&b, 2), -1);
    b.n = 0;
    const char *more[3] = {NULL, "Ir Dr Bc", NULL};
    parts_file(&b, 3, more, NULL);
    assert_int_equal(same(&b, 0), 0);
    bytebuf_release(&b);
}

/*
 * The file's self costs stay under 2^64 (formats/sumbound.h): a count of
 * 2^63 in the third part makes the bound fail there, and from then on
 * the sums are kept line by line, starting from those of the parts that
 * ended and of the third part so far (which a direct part keeps itself).
 * With V the largest sum that fits, the file loads; with V + 1 the line
 * that passes 2^64-1 is refused.
 */
static void test_bound(void **state)
{
    (void)state;
    struct bytebuf b = {0};
    parts_file(&b, 2, NULL, NULL);
    part_header(&b, 2, "Ir Dr");
    functions(&b, 0, 3);
    put(&b, "fn=(40) big\n5 9223372036854775808 1\n");
    const struct bytebuf head = b;
    /* the Ir of the file so far, read the reference way */
    struct bytebuf tmp = {0};
    bytebuf_add(&tmp, head.s, head.n);
    char **t = part_totals(&tmp, 3);
    unsigned long long sum = 0;
    for (int k = 0; k < 3; k++)
        sum += strtoull(t[k], NULL, 10);
    free_totals(t, 3);
    bytebuf_release(&tmp);
    unsigned long long room = UINT64_MAX - sum;
    struct bytebuf at = {0}, past = {0};
    /* at the limit no later line may cost more than 0 */
    bytebuf_add(&at, head.s, head.n);
    put(&at, "6 %llu\nfn=(41) zero\n7 0 0\n", room);
    assert_int_equal(same(&at, 2), -1);
    bytebuf_add(&past, head.s, head.n);
    put(&past, "6 %llu\n", room + 1);
    functions(&past, 3, 5);
    long line = same(&past, 2);
    assert_true(line > 0);
    bytebuf_release(&b);
    bytebuf_release(&at);
    bytebuf_release(&past);
}

/*
 * Read on two threads (split forced) and on one, both directly: the second
 * reader starts at a part (its parts after its first are read directly)
 * or inside the body of a part the first reader reads directly.
 */
static void test_split(void **state)
{
    (void)state;
    for (int body = 0; body < 2; body++) {
        struct bytebuf b = {0};
        if (body) {
            /* part 2 is most of the file: the split falls inside its body */
            part_header(&b, 0, "Ir Dr");
            functions(&b, 0, 4);
            part_header(&b, 1, "Ir Dr");
            functions(&b, 0, 200);
            put(&b, "totals: 1 1\n"); /* wrong: the same warning */
        } else {
            parts_file(&b, 9, NULL, NULL);
        }
        for (int drop_line = 0; drop_line < 2; drop_line++) {
            struct outcome one = read_text(&b, 1, drop_line, READ_SPLIT_NEVER);
            struct outcome two = read_text(&b, 1, drop_line, 1);
            assert_non_null(one.p);
            assert_int_equal(one.direct, body ? 1 : 8);
            if (two.how != (body ? READ_SPLIT_BODY : READ_SPLIT_PART))
                fail_msg("split read went way %d", two.how);
            assert_true(two.direct >= (body ? 1 : 6));
            compare(one, two);
        }
        bytebuf_release(&b);
    }
}

/*
 * profile_ahead (the next input read on the second CPU): the profiles come
 * in order, the same as read one by one; a read that fails gives its error
 * at its turn; a stop before the end frees what was read ahead.
 */
static void test_ahead(void **state)
{
    (void)state;
    enum { N = 6 };
    struct bytebuf b[N];
    struct input ins[N], *pins[N];
    memset(b, 0, sizeof(b));
    for (int k = 0; k < N; k++) {
        parts_file(&b[k], 1 + k % 3, NULL, NULL);
        if (k == 4) put(&b[k], "fn=(1)\nx y z\n"); /* an error on the last line */
    }
    for (int stop_at = 2; stop_at <= N; stop_at += N - 2) {
        struct tally_error err;
        for (int k = 0; k < N; k++) {
            assert_int_equal(input_open_mem(&ins[k], "test", b[k].s, b[k].n, &err), 0);
            pins[k] = &ins[k];
        }
        struct read_options opt = {0};
        struct profile_ahead *pa = profile_ahead_start(pins, N, &opt);
        for (int k = 0; k < stop_at; k++) {
            tally_error_clear(&err);
            struct profile *p = profile_ahead_next(pa, &err);
            struct tally_error e1;
            struct profile *one = test_read_string(b[k].s, &opt, &e1);
            if (!one) {
                assert_null(p);
                assert_int_equal(err.line, e1.line);
                assert_string_equal(err.msg, e1.msg);
                break;
            }
            assert_non_null(p);
            test_same_profile(p, one);
            profile_free(p);
            profile_free(one);
        }
        profile_ahead_stop(pa);
        for (int k = 0; k < N; k++)
            input_close(&ins[k]);
    }
    for (int k = 0; k < N; k++)
        bytebuf_release(&b[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts), cmocka_unit_test(test_other_events),
        cmocka_unit_test(test_bound), cmocka_unit_test(test_split),
        cmocka_unit_test(test_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
