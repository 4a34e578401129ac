/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the profile model: interned strings, record tables,
 * event sets (derived events and formula errors), functions, costs, calls
 * and jumps, checked arithmetic, accumulating parts, signed profiles and
 * the summary/totals check. Every expected value is worked out by hand
 * from the inputs written in the test.
 */
#include "testutil.h"

#include <inttypes.h>

#include "model/eventset.h"
#include "model/rectab.h"
#include "model/strtab.h"

/* ---------------------------------------------------------------- strtab */

static void test_strtab_basics(void **state)
{
    (void)state;
    struct strtab t;
    strtab_init(&t);
    /* id 0 is the empty string from the start */
    assert_int_equal(t.n, 1);
    assert_string_equal(strtab_str(&t, 0), "");
    assert_int_equal(strtab_intern(&t, "", 0), 0);

    uint32_t a = strtab_intern(&t, "main", 4);
    uint32_t b = strtab_intern(&t, "main.c", 6);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    /* a slice that is not NUL-terminated: "main" out of "mainframe" */
    assert_int_equal(strtab_intern(&t, "mainframe", 4), a);
    assert_string_equal(strtab_str(&t, a), "main");
    assert_int_equal(strtab_len(&t, b), 6);
    assert_int_equal(strtab_find(&t, "main.c", 6), b);
    assert_int_equal(strtab_find(&t, "main.h", 6), UINT32_MAX);
    /* find never adds */
    assert_int_equal(t.n, 3);
    /* embedded NUL bytes are part of the string */
    uint32_t z = strtab_intern(&t, "a\0b", 3);
    assert_int_not_equal(z, strtab_intern(&t, "a", 1));
    assert_int_equal(strtab_len(&t, z), 3);
    strtab_release(&t);
}

static void test_strtab_many(void **state)
{
    (void)state;
    struct strtab t;
    strtab_init(&t);
    enum { N = 20000 };
    const char *first = NULL;
    char buf[64];
    /* well past the first 1024 slots and the first 64 KiB arena block */
    for (int i = 0; i < N; i++) {
        int len = snprintf(buf, sizeof(buf), "function_number_%d", i);
        uint32_t id = strtab_intern(&t, buf, (size_t)len);
        assert_int_equal(id, (uint32_t)i + 1);
        if (i == 0) first = strtab_str(&t, id);
    }
    assert_int_equal(t.n, N + 1);
    /* pointers stay valid as the table grows */
    assert_ptr_equal(first, strtab_str(&t, 1));
    assert_string_equal(first, "function_number_0");
    for (int i = 0; i < N; i += 997) {
        int len = snprintf(buf, sizeof(buf), "function_number_%d", i);
        assert_int_equal(strtab_find(&t, buf, (size_t)len), (uint32_t)i + 1);
        assert_string_equal(strtab_str(&t, (uint32_t)i + 1), buf);
    }
    /* a string longer than an arena block */
    size_t big = 100000;
    char *s = malloc(big);
    memset(s, 'x', big);
    uint32_t id = strtab_intern(&t, s, big);
    assert_int_equal(strtab_len(&t, id), big);
    assert_int_equal(strtab_find(&t, s, big), id);
    free(s);
    strtab_release(&t);
}

/* How many arena blocks hold only strings of ids below upto: found from the
   strings' addresses (a string that does not follow the one before in memory
   starts a block), not from the table's own bookkeeping. */
static size_t blocks_below(const struct strtab *t, size_t upto)
{
    size_t starts = 1; /* id 0 starts the first block */
    for (size_t i = 1; i < t->n; i++) {
        if (t->strs[i] == t->strs[i - 1] + t->lens[i - 1] + 1) continue;
        if (i <= upto)
            starts++;
        else
            return starts - 1;
    }
    return upto >= t->n ? starts : starts - 1;
}

static void test_strtab_free_below(void **state)
{
    (void)state;
    struct strtab t;
    strtab_init(&t);
    enum { N = 30000 };
    char buf[64];
    for (int i = 0; i < N; i++) {
        if (i == N / 2) {
            /* a string longer than an arena block gets a block of its own */
            size_t big = 100000;
            char *s = malloc(big);
            memset(s, 'y', big);
            assert_int_equal(strtab_intern(&t, s, big), (uint32_t)i + 1);
            free(s);
            continue;
        }
        int len = snprintf(buf, sizeof(buf), "some_function_name_%d", i);
        assert_int_equal(strtab_intern(&t, buf, (size_t)len), (uint32_t)i + 1);
    }
    assert_true(t.nblocks > 5);
    /* bounds inside a block, at the big string and just past it, then all */
    size_t bounds[] = {1, 5000, N / 2 + 1, N / 2 + 2, N - 3, SIZE_MAX};
    for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
        size_t upto = bounds[b];
        size_t expect = upto == SIZE_MAX ? t.nblocks : blocks_below(&t, upto);
        strtab_free_below(&t, upto);
        assert_int_equal(t.nfreed, expect);
        assert_int_equal(t.nslots, 0);
        for (size_t k = 0; k < t.nblocks; k++) {
            if (k < expect)
                assert_null(t.blocks[k]);
            else
                assert_non_null(t.blocks[k]);
        }
        if (upto == SIZE_MAX) break;
        /* the strings from the bound on are still there (ASan checks the memory) */
        for (size_t id = upto; id < t.n; id++) {
            if (id == N / 2 + 1) {
                assert_int_equal(strtab_len(&t, (uint32_t)id), 100000);
                assert_int_equal(strtab_str(&t, (uint32_t)id)[99999], 'y');
                continue;
            }
            int len = snprintf(buf, sizeof(buf), "some_function_name_%zu", id - 1);
            assert_int_equal(strtab_len(&t, (uint32_t)id), (size_t)len);
            assert_string_equal(strtab_str(&t, (uint32_t)id), buf);
        }
    }
    assert_null(t.strs);
    assert_null(t.lens);
    assert_int_equal(t.n, N + 1); /* ids keep their count */
    strtab_release(&t);
    /* a table freed whole at once */
    strtab_init(&t);
    strtab_intern(&t, "a", 1);
    strtab_free_below(&t, 2);
    assert_null(t.strs);
    assert_null(t.blocks[0]);
    strtab_release(&t);
}

/* ---------------------------------------------------------------- rectab */

static void test_rectab_order_and_values(void **state)
{
    (void)state;
    struct rectab t;
    rectab_init(&t, 2, 3);
    assert_null(rectab_find(&t, (uint64_t[]){1, 2}));
    int created = -1;
    uint64_t *v = rectab_get(&t, (uint64_t[]){7, 8}, &created);
    assert_int_equal(created, 1);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[1], 0);
    assert_int_equal(v[2], 0);
    v[0] = 11;
    v[2] = 33;
    rectab_get(&t, (uint64_t[]){1, 2}, &created);
    assert_int_equal(created, 1);
    /* (8,7) is a different key from (7,8) */
    rectab_get(&t, (uint64_t[]){8, 7}, NULL);
    uint64_t *again = rectab_get(&t, (uint64_t[]){7, 8}, &created);
    assert_int_equal(created, 0);
    assert_ptr_equal(again, v);
    assert_int_equal(again[0], 11);
    assert_int_equal(again[2], 33);
    assert_int_equal(t.count, 3);
    /* iteration is in first-seen order; the key comes first */
    assert_int_equal(rectab_at(&t, 0)[0], 7);
    assert_int_equal(rectab_at(&t, 0)[1], 8);
    assert_int_equal(rectab_at(&t, 1)[0], 1);
    assert_int_equal(rectab_at(&t, 2)[0], 8);
    assert_ptr_equal(rectab_val(&t, 0), v);
    assert_int_equal(rectab_get_index(&t, (uint64_t[]){1, 2}, &created), 1);
    assert_int_equal(created, 0);
    assert_ptr_equal(rectab_find(&t, (uint64_t[]){8, 7}), rectab_val(&t, 2));
    rectab_clear(&t);
    assert_int_equal(t.count, 0);
    assert_int_equal(t.key_words, 2);
    assert_int_equal(t.val_words, 3);
    assert_null(rectab_find(&t, (uint64_t[]){7, 8}));
    rectab_get(&t, (uint64_t[]){5, 5}, &created);
    assert_int_equal(created, 1);
    assert_int_equal(t.count, 1);
    rectab_release(&t);
}

static void test_rectab_many(void **state)
{
    (void)state;
    struct rectab t;
    rectab_init(&t, 1, 1);
    enum { N = 3 * 4096 + 17 }; /* several blocks and several resizes */
    uint64_t *first = NULL;
    /* insert keys in a scrambled order; record i gets key (i*7919)^0x55 */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t key = (i * 7919) ^ 0x55;
        int created;
        uint64_t *v = rectab_get(&t, &key, &created);
        assert_int_equal(created, 1);
        *v = i * 3;
        if (i == 0) first = v;
    }
    assert_int_equal(t.count, N);
    assert_ptr_equal(first, rectab_val(&t, 0)); /* records never move */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t key = (i * 7919) ^ 0x55;
        assert_int_equal(rectab_at(&t, i)[0], key);
        assert_int_equal(*rectab_val(&t, i), i * 3);
        uint64_t *v = rectab_find(&t, &key);
        assert_non_null(v);
        assert_int_equal(*v, i * 3);
    }
    uint64_t absent = 1; /* (i*7919)^0x55 == 1 would need i*7919 == 0x54 */
    assert_null(rectab_find(&t, &absent));
    rectab_release(&t);
}

/* The last-found hint: walking records in order, or asking for the same
 * one again, must give exactly what a hashed lookup gives. */
static void test_rectab_hint(void **state)
{
    (void)state;
    struct rectab t;
    rectab_init(&t, 2, 1);
    enum { N = 5000 };
    for (uint64_t i = 0; i < N; i++)
        *rectab_get(&t, (uint64_t[]){i, i * 11}, NULL) = i + 100;
    int created;
    /* in order (the hint's next record), twice over */
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < N; i++) {
            uint64_t *v = rectab_get(&t, (uint64_t[]){i, i * 11}, &created);
            assert_int_equal(created, 0);
            assert_ptr_equal(v, rectab_val(&t, i));
            assert_int_equal(*v, i + 100);
        }
    /* the same record again, then backwards (no hint hit), then jumps */
    for (int k = 0; k < 3; k++)
        assert_int_equal(rectab_get_index(&t, (uint64_t[]){7, 77}, &created), 7);
    for (uint64_t i = N; i-- > 0;)
        assert_int_equal(*rectab_get(&t, (uint64_t[]){i, i * 11}, NULL), i + 100);
    for (uint64_t i = 0; i < N; i += 37)
        assert_int_equal(
            rectab_get_index(&t, (uint64_t[]){(i * 7) % N, ((i * 7) % N) * 11}, &created),
            (i * 7) % N);
    /* keys that differ only in the second word from the hinted record */
    assert_int_equal(rectab_get_index(&t, (uint64_t[]){8, 88}, NULL), 8);
    uint64_t *nv = rectab_get(&t, (uint64_t[]){8, 89}, &created);
    assert_int_equal(created, 1);
    assert_int_equal(*nv, 0);
    assert_int_equal(t.count, N + 1);
    assert_int_equal(rectab_get_index(&t, (uint64_t[]){9, 99}, &created), 9);
    assert_int_equal(created, 0);
    /* after clear the hint must not find old records */
    rectab_clear(&t);
    assert_int_equal(rectab_get_index(&t, (uint64_t[]){1, 11}, &created), 0);
    assert_int_equal(created, 1);
    assert_int_equal(rectab_get_index(&t, (uint64_t[]){0, 0}, &created), 1);
    assert_int_equal(created, 1);
    assert_int_equal(*rectab_get(&t, (uint64_t[]){1, 11}, NULL), 0);
    rectab_release(&t);
}

/* -------------------------------------------------------------- eventset */

static void set_base(struct eventset *es, const char *names)
{
    struct tally_error err;
    assert_int_equal(eventset_set_base(es, names, strlen(names), &err), 0);
}

static void define(struct eventset *es, const char *text)
{
    struct tally_error err;
    assert_int_equal(eventset_define(es, text, strlen(text), &err), 0);
}

static int64_t eval_named(const struct eventset *es, const char *name, const uint64_t *costs)
{
    struct event_expr e;
    assert_int_equal(eventset_lookup(es, name, &e), 0);
    tally_wide v = -12345;
    assert_int_equal(event_expr_eval(&e, costs, 0, &v), 0);
    event_expr_release(&e);
    return v;
}

static void test_eventset_base(void **state)
{
    (void)state;
    struct eventset es;
    struct tally_error err;
    eventset_init(&es);
    set_base(&es, "  Ir\tDr  Dw \r");
    assert_int_equal(es.n, 3);
    assert_string_equal(es.names[0], "Ir");
    assert_string_equal(es.names[1], "Dr");
    assert_string_equal(es.names[2], "Dw");
    assert_int_equal(eventset_index(&es, "Dw"), 2);
    assert_int_equal(eventset_index(&es, "D"), -1);
    char *j = eventset_join(&es);
    assert_string_equal(j, "Ir Dr Dw");
    free(j);
    /* a second events: line in one part */
    assert_int_equal(eventset_set_base(&es, "Ir", 2, &err), -1);
    assert_non_null(strstr(err.msg, "second"));
    assert_int_equal(eventset_finish(&es, &err), 0);
    eventset_release(&es);

    eventset_init(&es);
    assert_int_equal(eventset_set_base(&es, "Ir Dr Ir", 8, &err), -1);
    assert_non_null(strstr(err.msg, "'Ir' listed twice"));
    eventset_release(&es);

    eventset_init(&es);
    assert_int_equal(eventset_set_base(&es, "   ", 3, &err), -1);
    assert_non_null(strstr(err.msg, "no event"));
    eventset_release(&es);

    eventset_init(&es);
    assert_int_equal(eventset_set_base(&es, "Ir D=r", 6, &err), -1);
    assert_non_null(strstr(err.msg, "bad event name 'D=r'"));
    eventset_release(&es);
}

static void test_eventset_derived(void **state)
{
    (void)state;
    struct eventset es;
    struct tally_error err;
    eventset_init(&es);
    /* event: lines may come before events: and refer to each other */
    define(&es, "Ir : Instruction Fetches");
    define(&es, "Sum = Ir + 2 Dr : Weighted sum");
    define(&es, "Big = Sum + 3*Dw + Ir");
    define(&es, "Ratio=Dr+Dw:a=b");
    set_base(&es, "Ir Dr Dw");
    assert_int_equal(eventset_finish(&es, &err), 0);
    assert_string_equal(es.long_names[0], "Instruction Fetches");
    assert_null(es.long_names[1]);
    assert_int_equal(es.nderived, 3);
    assert_string_equal(es.derived[0].name, "Sum");
    assert_string_equal(es.derived[0].formula, "Ir + 2 Dr");
    assert_string_equal(es.derived[0].long_name, "Weighted sum");
    assert_null(es.derived[1].long_name);
    assert_string_equal(es.derived[2].name, "Ratio");
    assert_string_equal(es.derived[2].formula, "Dr+Dw");
    assert_string_equal(es.derived[2].long_name, "a=b");

    uint64_t c[3] = {100, 10, 1};
    assert_int_equal(eval_named(&es, "Ir", c), 100);
    assert_int_equal(eval_named(&es, "Dw", c), 1);
    assert_int_equal(eval_named(&es, "Sum", c), 100 + 2 * 10);
    /* Big = (Ir + 2 Dr) + 3 Dw + Ir = 2 Ir + 2 Dr + 3 Dw */
    assert_int_equal(eval_named(&es, "Big", c), 200 + 20 + 3);
    assert_int_equal(eval_named(&es, "Ratio", c), 11);
    struct event_expr e;
    assert_int_equal(eventset_lookup(&es, "Big", &e), 0);
    assert_int_equal(e.nterms, 3); /* Ir's two terms are folded into one */
    for (size_t i = 0; i < e.nterms; i++)
        if (e.terms[i].event == 0) assert_int_equal(e.terms[i].factor, 2);
    event_expr_release(&e);
    assert_int_equal(eventset_lookup(&es, "Nope", &e), -1);

    /* a copy is deep and equal */
    struct eventset cp;
    eventset_copy(&cp, &es);
    eventset_release(&es);
    assert_int_equal(eval_named(&cp, "Big", c), 223);
    assert_string_equal(cp.long_names[0], "Instruction Fetches");
    assert_string_equal(cp.derived[0].long_name, "Weighted sum");
    eventset_release(&cp);
}

static void test_eventset_eval_overflow(void **state)
{
    (void)state;
    struct eventset es;
    struct tally_error err;
    eventset_init(&es);
    define(&es, "Twice = 2 A");
    define(&es, "Both = A + B");
    set_base(&es, "A B");
    assert_int_equal(eventset_finish(&es, &err), 0);
    struct event_expr tw, both;
    assert_int_equal(eventset_lookup(&es, "Twice", &tw), 0);
    assert_int_equal(eventset_lookup(&es, "Both", &both), 0);
    tally_wide v;
    uint64_t half[2] = {(uint64_t)INT64_MAX / 2, 1};
    assert_int_equal(event_expr_eval(&tw, half, 0, &v), 0);
    assert_int_equal(v, INT64_MAX - 1);
    /* the result is 128-bit: sums past 2^63 and 2^64 are exact */
    uint64_t over[2] = {(uint64_t)INT64_MAX / 2 + 1, 1};
    assert_int_equal(event_expr_eval(&tw, over, 0, &v), 0);
    assert_true(v == (tally_wide)INT64_MAX + 1);
    uint64_t sum_over[2] = {UINT64_MAX, UINT64_MAX};
    assert_int_equal(event_expr_eval(&both, sum_over, 0, &v), 0);
    assert_true(v == (tally_wide)UINT64_MAX * 2);
    assert_int_equal(event_expr_eval(&tw, sum_over, 0, &v), 0);
    assert_true(v == (tally_wide)UINT64_MAX * 2);
    /* an unsigned count above INT64_MAX is itself */
    uint64_t huge[2] = {UINT64_MAX, 0};
    assert_int_equal(event_expr_eval(&both, huge, 0, &v), 0);
    assert_true(v == (tally_wide)UINT64_MAX);
    /* ...but read as signed it is -1 */
    assert_int_equal(event_expr_eval(&both, huge, 1, &v), 0);
    assert_true(v == -1);
    uint64_t neg[2] = {(uint64_t)-5, 3};
    assert_int_equal(event_expr_eval(&tw, neg, 1, &v), 0);
    assert_true(v == -10);
    assert_int_equal(event_expr_eval(&both, neg, 1, &v), 0);
    assert_true(v == -2);
    event_expr_release(&tw);
    event_expr_release(&both);
    eventset_release(&es);
}

/* Build an event set from `defs` (one event: value per line) and "A B". */
static int finish_with(const char *defs, struct tally_error *err)
{
    struct eventset es;
    eventset_init(&es);
    int rc = 0;
    const char *p = defs;
    while (*p && rc == 0) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        rc = eventset_define(&es, p, len, err);
        p += len + (nl != NULL);
    }
    if (rc == 0) rc = eventset_set_base(&es, "A B", 3, err);
    if (rc == 0) rc = eventset_finish(&es, err);
    eventset_release(&es);
    return rc;
}

static void expect_formula_error(const char *defs, const char *needle)
{
    struct tally_error err;
    tally_error_clear(&err);
    assert_int_equal(finish_with(defs, &err), -1);
    if (!strstr(err.msg, needle)) fail_msg("'%s': message '%s' lacks '%s'", defs, err.msg, needle);
}

/* Formulas: the grammar, built-in events and definitions (formula.c). */
static void test_eventset_formulas(void **state)
{
    (void)state;
    struct eventset es;
    struct tally_error err;
    eventset_init(&es);
    set_base(&es, "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw");
    assert_int_equal(eventset_finish(&es, &err), 0);
    uint64_t c[9] = {1000, 300, 200, 7, 11, 13, 2, 3, 5};
    /* each value below is the formula worked out by hand from c */
    assert_int_equal(eventset_add_definition(&es, "A=Ir - Dr", &err), 0);
    assert_int_equal(eval_named(&es, "A", c), 700);
    assert_int_equal(eventset_add_definition(&es, " B = 2*(Dr+Dw)*3 + Ir*2 ", &err), 0);
    assert_int_equal(eval_named(&es, "B", c), 2 * 500 * 3 + 2000);
    assert_int_equal(eventset_add_definition(&es, "C=-A + 10 I1mr", &err), 0);
    assert_int_equal(eval_named(&es, "C", c), -700 + 70);
    /* built-ins: L1m = 7+11+13, LLm = 2+3+5; Bm, Ge and L2m absent count 0 */
    assert_int_equal(eval_named(&es, "L1m", c), 31);
    assert_int_equal(eval_named(&es, "CEst", c), 1000 + 10 * 31 + 100 * 10);
    assert_int_equal(eval_named(&es, "Cyc", c), 1000 + 10 * 31 + 100 * 10);
    struct event_expr e;
    assert_int_equal(eventset_lookup(&es, "Bm", &e), -1); /* none of Bim, Bcm */
    struct strlist absent = {0};
    assert_int_equal(eventset_builtin_expr(&es, "CEst", &e, &absent), 0);
    event_expr_release(&e);
    assert_int_equal(absent.n, 6); /* Bim Bcm Ge I2mr D2mr D2mw */
    strlist_release(&absent);
    /* a definition may use a built-in and redefine one */
    assert_int_equal(eventset_add_definition(&es, "D=CEst+Dr", &err), 0);
    assert_int_equal(eval_named(&es, "D", c), 2310 + 300);
    assert_int_equal(eventset_add_definition(&es, "L1m=I1mr", &err), 0);
    assert_int_equal(eval_named(&es, "L1m", c), 7);
    /* refused, the set unchanged */
    size_t nd = es.nderived;
    assert_int_equal(eventset_add_definition(&es, "Ir=Dr", &err), -1);
    assert_non_null(strstr(err.msg, "already an event"));
    assert_int_equal(eventset_add_definition(&es, "E=Ir*Dr", &err), -1);
    assert_non_null(strstr(err.msg, "a product of two events"));
    assert_int_equal(eventset_add_definition(&es, "E=Ir+Foo", &err), -1);
    assert_non_null(strstr(err.msg, "no event 'Foo'"));
    assert_int_equal(eventset_add_definition(&es, "Ir+Dr", &err), -1);
    assert_non_null(strstr(err.msg, "NAME=FORMULA"));
    assert_int_equal(es.nderived, nd);
    /* the shape alone, before any profile is read */
    assert_int_equal(event_definition_check("X=Anything + 3*Other", &err), 0);
    assert_int_equal(event_definition_check("X= ", &err), -1);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(event_definition_check("=Ir", &err), -1);
    assert_int_equal(event_definition_check("Ir", &err), -1);
    assert_int_equal(event_definition_check("10=Ir", &err), -1); /* a number is no name */
    eventset_release(&es);

    /* names that are no identifiers: the profile's names are matched first */
    eventset_init(&es);
    set_base(&es, "Time_(10ns) L1-miss 1stLevel");
    assert_int_equal(eventset_finish(&es, &err), 0);
    uint64_t t[3] = {50, 4, 3};
    assert_int_equal(eventset_add_definition(&es, "T=Time_(10ns)+2*L1-miss", &err), 0);
    assert_int_equal(eval_named(&es, "T", t), 58);
    assert_int_equal(eventset_add_definition(&es, "U=10 1stLevel-1stLevel", &err), 0);
    assert_int_equal(eval_named(&es, "U", t), 27);
    assert_int_equal(eventset_lookup(&es, "CEst", &e), -1); /* no Ir, no cache event */
    eventset_release(&es);
}

static void test_eventset_formula_errors(void **state)
{
    (void)state;
    struct tally_error err;
    assert_int_equal(finish_with("S = A + B\nT = S + 4 S", &err), 0);
    expect_formula_error("S = A + C", "no event 'C'");
    expect_formula_error("S = T\nT = S", "in terms of itself");
    expect_formula_error("S = S + A", "in terms of itself");
    expect_formula_error("S = A +", "missing at the end");
    expect_formula_error("S = A B", "a product of two events");
    expect_formula_error("S = A * (B + 1)", "a product of two events");
    expect_formula_error("S = A + 3", "a number alone");
    expect_formula_error("S = (A + B", "not closed");
    expect_formula_error("S = A + B)", "has no '('");
    expect_formula_error("S = 1.5 A", "whole numbers");
    expect_formula_error("S =   ", "empty formula");
    expect_formula_error("S = A\nS = B", "defined twice");
    expect_formula_error("A = B", "also a base event");
    expect_formula_error("= A", "bad event name");
    expect_formula_error("S = 99999999999999999999 A", "too large");
    /* factors multiply through nested events: 2^32 * 2^32 overflows */
    expect_formula_error("S = 4294967296 A\nT = 4294967296 S", "too large");
}

static void test_eventset_same(void **state)
{
    (void)state;
    struct eventset a, b, c;
    eventset_init(&a);
    eventset_init(&b);
    eventset_init(&c);
    set_base(&a, "Ir Dr");
    set_base(&b, "Ir  Dr");
    set_base(&c, "Dr Ir");
    assert_true(eventset_same(&a, &b));
    assert_false(eventset_same(&a, &c)); /* same set, other order */
    eventset_release(&c);
    eventset_init(&c);
    set_base(&c, "Ir");
    assert_false(eventset_same(&a, &c));
    eventset_release(&a);
    eventset_release(&b);
    eventset_release(&c);
}

/* --------------------------------------------------------------- profile */

/* A profile with one part counting `events`. */
static struct profile *new_profile(const char *events, struct part **pt)
{
    struct profile *p = profile_new();
    *pt = profile_add_part(p);
    set_base(&(*pt)->events, events);
    struct tally_error err;
    assert_int_equal(eventset_finish(&(*pt)->events, &err), 0);
    return p;
}

static uint32_t fn_named(struct profile *p, const char *obj, const char *file, const char *name)
{
    return profile_function(p, profile_intern(p, obj, strlen(obj)),
                            profile_intern(p, file, strlen(file)),
                            profile_intern(p, name, strlen(name)));
}

static struct position at(struct profile *p, const char *file, uint64_t line, uint64_t addr)
{
    struct position pos = {profile_intern(p, file, strlen(file)), line, addr, 0};
    return pos;
}

static void test_profile_functions(void **state)
{
    (void)state;
    struct part *pt;
    struct profile *p = new_profile("Ir", &pt);
    assert_int_equal(pt->positions, POS_LINE);
    assert_int_equal(profile_nfunctions(p), 0);
    uint32_t f0 = fn_named(p, "prog", "a.c", "main");
    uint32_t f1 = fn_named(p, "prog", "a.c", "helper");
    /* same name in another file or object is another function */
    uint32_t f2 = fn_named(p, "prog", "b.c", "helper");
    uint32_t f3 = fn_named(p, "libc.so", "b.c", "helper");
    assert_int_equal(f0, 0);
    assert_int_equal(f1, 1);
    assert_int_equal(f2, 2);
    assert_int_equal(f3, 3);
    assert_int_equal(fn_named(p, "prog", "a.c", "helper"), f1);
    assert_int_equal(profile_nfunctions(p), 4);
    struct function f = profile_function_at(p, f3);
    assert_string_equal(profile_str(p, f.obj), "libc.so");
    assert_string_equal(profile_str(p, f.file), "b.c");
    assert_string_equal(profile_str(p, f.name), "helper");
    /* the unknown object is id 0, the empty string */
    uint32_t f4 = profile_function(p, 0, 0, profile_intern(p, "x", 1));
    f = profile_function_at(p, f4);
    assert_int_equal(f.obj, 0);
    assert_string_equal(profile_str(p, f.obj), "");
    profile_warn(p, "odd %s %d", "thing", 7);
    assert_int_equal(p->warnings.n, 1);
    assert_string_equal(p->warnings.items[0], "odd thing 7");
    profile_free(p);
    profile_free(NULL);
}

static void test_costs_accumulate_in_order(void **state)
{
    (void)state;
    struct part *pt;
    struct profile *p = new_profile("Ir Dr Dw", &pt);
    uint32_t m = fn_named(p, "prog", "a.c", "main");
    uint32_t h = fn_named(p, "prog", "a.c", "helper");
    struct position l10 = at(p, "a.c", 10, 0), l12 = at(p, "a.c", 12, 0);
    struct position inl = at(p, "inline.h", 3, 0); /* fi= file inside main */
    assert_int_equal(part_add_cost(p, pt, m, &l12, (uint64_t[]){5, 1, 2}, 3), 0);
    assert_int_equal(part_add_cost(p, pt, h, &l10, (uint64_t[]){7}, 1), 0); /* Dr, Dw = 0 */
    assert_int_equal(part_add_cost(p, pt, m, &l10, (uint64_t[]){1, 1, 1}, 3), 0);
    assert_int_equal(part_add_cost(p, pt, m, &inl, (uint64_t[]){4, 0, 0}, 3), 0);
    assert_int_equal(part_add_cost(p, pt, m, &l12, (uint64_t[]){10, 20}, 2), 0);
    assert_int_equal(part_ncosts(pt), 4);
    struct cost_rec r;
    part_cost_get(pt, 0, &r);
    assert_int_equal(r.fn, m);
    assert_int_equal(r.pos.line, 12);
    assert_string_equal(profile_str(p, r.pos.file), "a.c");
    assert_int_equal(r.cost[0], 15);
    assert_int_equal(r.cost[1], 21);
    assert_int_equal(r.cost[2], 2);
    part_cost_get(pt, 1, &r);
    assert_int_equal(r.fn, h);
    assert_int_equal(r.cost[0], 7);
    assert_int_equal(r.cost[1], 0);
    assert_int_equal(r.cost[2], 0);
    part_cost_get(pt, 2, &r);
    assert_int_equal(r.fn, m);
    assert_int_equal(r.pos.line, 10);
    part_cost_get(pt, 3, &r);
    assert_string_equal(profile_str(p, r.pos.file), "inline.h");
    assert_int_equal(r.cost[0], 4);
    /* writable through the record */
    r.cost[1] = 9;
    part_cost_get(pt, 3, &r);
    assert_int_equal(r.cost[1], 9);
    /* part_cost_vector gives the same record, and creates new ones zeroed */
    assert_ptr_equal(part_cost_vector(pt, m, &inl), r.cost);
    struct position l99 = at(p, "a.c", 99, 0);
    uint64_t *nv = part_cost_vector(pt, h, &l99);
    assert_int_equal(part_ncosts(pt), 5);
    assert_int_equal(nv[0], 0);
    assert_int_equal(nv[2], 0);
    part_cost_get(pt, 4, &r);
    assert_ptr_equal(r.cost, nv);
    assert_int_equal(r.fn, h);
    assert_int_equal(r.pos.line, 99);
    uint64_t tot[3];
    assert_int_equal(part_self_total(p, pt, tot), 0);
    assert_int_equal(tot[0], 15 + 7 + 1 + 4);
    assert_int_equal(tot[1], 21 + 0 + 1 + 9);
    assert_int_equal(tot[2], 2 + 0 + 1 + 0);
    profile_free(p);
}

static void test_instruction_positions(void **state)
{
    (void)state;
    struct part *pt;
    struct profile *p = new_profile("Ir", &pt);
    pt->positions = POS_INSTR | POS_LINE;
    uint32_t m = fn_named(p, "prog", "a.c", "main");
    /* the same line at two addresses: two records */
    struct position a = at(p, "a.c", 5, 0x401000), b = at(p, "a.c", 5, 0x401004);
    struct position bb = a;
    bb.bb = 3; /* and another basic block */
    assert_int_equal(part_add_cost(p, pt, m, &a, (uint64_t[]){1}, 1), 0);
    assert_int_equal(part_add_cost(p, pt, m, &b, (uint64_t[]){2}, 1), 0);
    assert_int_equal(part_add_cost(p, pt, m, &bb, (uint64_t[]){4}, 1), 0);
    assert_int_equal(part_add_cost(p, pt, m, &a, (uint64_t[]){8}, 1), 0);
    assert_int_equal(part_ncosts(pt), 3);
    struct cost_rec r;
    part_cost_get(pt, 0, &r);
    assert_int_equal(r.pos.addr, 0x401000);
    assert_int_equal(r.pos.bb, 0);
    assert_int_equal(r.cost[0], 9);
    part_cost_get(pt, 1, &r);
    assert_int_equal(r.pos.addr, 0x401004);
    assert_int_equal(r.cost[0], 2);
    part_cost_get(pt, 2, &r);
    assert_int_equal(r.pos.bb, 3);
    assert_int_equal(r.cost[0], 4);
    profile_free(p);
}

static void test_calls_and_jumps(void **state)
{
    (void)state;
    struct part *pt;
    struct profile *p = new_profile("Ir Dr", &pt);
    uint32_t m = fn_named(p, "prog", "a.c", "main");
    uint32_t h = fn_named(p, "prog", "b.c", "helper");
    struct position site = at(p, "a.c", 20, 0x10), site2 = at(p, "a.c", 21, 0x14);
    struct position entry = at(p, "b.c", 3, 0x100), other = at(p, "b.c", 99, 0x999);
    assert_int_equal(part_add_call(p, pt, m, &site, h, &entry, 2, (uint64_t[]){300, 30}, 2), 0);
    assert_int_equal(part_add_call(p, pt, m, &site2, h, &entry, 1, (uint64_t[]){50}, 1), 0);
    /* the same arc again: counts and costs add; the first target is kept */
    assert_int_equal(part_add_call(p, pt, m, &site, h, &other, 3, (uint64_t[]){100, 1}, 2), 0);
    /* recursion: helper calls itself */
    assert_int_equal(part_add_call(p, pt, h, &entry, h, &entry, 4, (uint64_t[]){8, 0}, 2), 0);
    assert_int_equal(part_ncalls(pt), 3);
    struct call_rec c;
    part_call_get(pt, 0, &c);
    assert_int_equal(c.caller, m);
    assert_int_equal(c.callee, h);
    assert_int_equal(c.site.line, 20);
    assert_int_equal(c.site.addr, 0x10);
    assert_string_equal(profile_str(p, c.site.file), "a.c");
    assert_int_equal(c.target.line, 3);
    assert_int_equal(c.target.addr, 0x100);
    assert_string_equal(profile_str(p, c.target.file), "b.c");
    assert_int_equal(*c.count, 5);
    assert_int_equal(c.cost[0], 400);
    assert_int_equal(c.cost[1], 31);
    part_call_get(pt, 1, &c);
    assert_int_equal(c.site.line, 21);
    assert_int_equal(*c.count, 1);
    assert_int_equal(c.cost[0], 50);
    assert_int_equal(c.cost[1], 0);
    part_call_get(pt, 2, &c);
    assert_int_equal(c.caller, h);
    assert_int_equal(c.callee, h);
    assert_int_equal(*c.count, 4);

    /* jumps: conditional and unconditional are different records */
    struct position j0 = at(p, "a.c", 30, 0x20), j1 = at(p, "a.c", 40, 0x40);
    assert_int_equal(part_add_jump(p, pt, m, &j0, m, &j1, 1, 10, 9), 0);
    assert_int_equal(part_add_jump(p, pt, m, &j0, m, &j1, 0, 6, 6), 0);
    assert_int_equal(part_add_jump(p, pt, m, &j0, m, &j1, 1, 5, 1), 0);
    assert_int_equal(part_add_jump(p, pt, m, &j1, h, &entry, 0, 2, 2), 0);
    assert_int_equal(part_njumps(pt), 3);
    struct jump_rec j;
    part_jump_get(pt, 0, &j);
    assert_int_equal(j.conditional, 1);
    assert_int_equal(j.fn, m);
    assert_int_equal(j.src.line, 30);
    assert_int_equal(j.target.line, 40);
    assert_int_equal(*j.executed, 15);
    assert_int_equal(*j.taken, 10);
    part_jump_get(pt, 1, &j);
    assert_int_equal(j.conditional, 0);
    assert_int_equal(*j.executed, 6);
    part_jump_get(pt, 2, &j);
    assert_int_equal(j.target_fn, h);
    assert_int_equal(j.target.addr, 0x100);
    assert_string_equal(profile_str(p, j.target.file), "b.c");
    profile_free(p);
}

static void test_checked_overflow(void **state)
{
    (void)state;
    uint64_t a[2] = {UINT64_MAX, 5};
    assert_int_equal(cost_add(a, (uint64_t[]){0, 1}, 2, 0), 0);
    assert_int_equal(a[0], UINT64_MAX);
    assert_int_equal(cost_add(a, (uint64_t[]){1, 1}, 2, 0), -1);
    /* the overflowing element keeps its value, the others still add */
    assert_int_equal(a[0], UINT64_MAX);
    assert_int_equal(a[1], 7);
    /* signed: INT64_MAX + 1 overflows, -1 + 1 does not */
    uint64_t s[2] = {(uint64_t)INT64_MAX, (uint64_t)-1};
    assert_int_equal(cost_add(s, (uint64_t[]){0, 1}, 2, 1), 0);
    assert_int_equal(s[1], 0);
    assert_int_equal(cost_add(s, (uint64_t[]){1, 0}, 2, 1), -1);
    assert_int_equal(s[0], (uint64_t)INT64_MAX);
    uint64_t m[1] = {(uint64_t)INT64_MIN};
    assert_int_equal(cost_add(m, (uint64_t[]){(uint64_t)-1}, 1, 1), -1);
    uint64_t d[2] = {3, (uint64_t)INT64_MIN};
    assert_int_equal(cost_sub_signed(d, (uint64_t[]){5, 0}, 2), 0);
    assert_int_equal((int64_t)d[0], -2);
    assert_int_equal(cost_sub_signed(d, (uint64_t[]){0, 1}, 2), -1);
    assert_int_equal(d[1], (uint64_t)INT64_MIN);

    /* through the model: 2^64-1 + 1 at the same position is refused */
    struct part *pt;
    struct profile *p = new_profile("Ir Dr", &pt);
    uint32_t f = fn_named(p, "o", "f.c", "f");
    struct position pos = at(p, "f.c", 1, 0);
    assert_int_equal(part_add_cost(p, pt, f, &pos, (uint64_t[]){UINT64_MAX, 1}, 2), 0);
    assert_int_equal(part_add_cost(p, pt, f, &pos, (uint64_t[]){1}, 1), -1);
    struct cost_rec r;
    part_cost_get(pt, 0, &r);
    assert_int_equal(r.cost[0], UINT64_MAX);
    assert_int_equal(r.cost[1], 1);
    struct position pos2 = at(p, "f.c", 2, 0);
    assert_int_equal(part_add_call(p, pt, f, &pos2, f, &pos, UINT64_MAX, (uint64_t[]){0}, 1), 0);
    assert_int_equal(part_add_call(p, pt, f, &pos2, f, &pos, 1, (uint64_t[]){0}, 1), -1);
    assert_int_equal(part_add_call(p, pt, f, &pos, f, &pos, 0, (uint64_t[]){0, UINT64_MAX}, 2), 0);
    assert_int_equal(part_add_call(p, pt, f, &pos, f, &pos, 0, (uint64_t[]){0, 1}, 2), -1);
    assert_int_equal(part_add_jump(p, pt, f, &pos, f, &pos2, 1, UINT64_MAX, 0), 0);
    assert_int_equal(part_add_jump(p, pt, f, &pos, f, &pos2, 1, 1, 0), -1);
    /* a second record whose sum with the first overflows the total */
    assert_int_equal(part_add_cost(p, pt, f, &pos2, (uint64_t[]){1}, 1), 0);
    uint64_t tot[2];
    assert_int_equal(part_self_total(p, pt, tot), -1);
    profile_free(p);
}

/* ---------------------------------------------------- accumulate / merge */

static void test_accumulate_reorders_events(void **state)
{
    (void)state;
    struct tally_error err;
    struct part *dst, *src;
    struct profile *dp = new_profile("Ir Dr Dw", &dst);
    struct profile *sp = new_profile("Dw Ir Dr", &src);
    sp->path = xstrdup("second.out");
    /* give the two profiles different name ids for the same names */
    profile_intern(sp, "padding", 7);
    uint32_t dm = fn_named(dp, "prog", "a.c", "main");
    uint32_t sh = fn_named(sp, "prog", "b.c", "helper");
    uint32_t sm = fn_named(sp, "prog", "a.c", "main");
    struct position dl = at(dp, "a.c", 4, 0), sl = at(sp, "a.c", 4, 0), hl = at(sp, "b.c", 9, 0);
    assert_int_equal(part_add_cost(dp, dst, dm, &dl, (uint64_t[]){100, 10, 1}, 3), 0);
    /* in src order Dw Ir Dr: Ir=200 Dr=20 Dw=2 */
    assert_int_equal(part_add_cost(sp, src, sm, &sl, (uint64_t[]){2, 200, 20}, 3), 0);
    assert_int_equal(part_add_cost(sp, src, sh, &hl, (uint64_t[]){3, 300, 30}, 3), 0);
    assert_int_equal(part_add_call(sp, src, sm, &sl, sh, &hl, 1, (uint64_t[]){3, 300, 30}, 3), 0);
    struct position j1 = at(sp, "a.c", 5, 0);
    assert_int_equal(part_add_jump(sp, src, sm, &sl, sm, &j1, 1, 4, 2), 0);
    src->cmd = xstrdup("./prog 1");
    strlist_push(&src->desc, "I1 cache: 32768 B");

    assert_int_equal(part_accumulate(dp, dst, sp, src, &err), 0);
    assert_int_equal(dst->events.n, 3);
    assert_string_equal(dst->events.names[0], "Ir"); /* dst keeps its order */
    assert_int_equal(part_ncosts(dst), 2);
    struct cost_rec r;
    part_cost_get(dst, 0, &r);
    assert_int_equal(r.fn, dm);
    assert_int_equal(r.cost[0], 300);
    assert_int_equal(r.cost[1], 30);
    assert_int_equal(r.cost[2], 3);
    part_cost_get(dst, 1, &r);
    struct function f = profile_function_at(dp, r.fn);
    assert_string_equal(profile_str(dp, f.name), "helper");
    assert_string_equal(profile_str(dp, f.file), "b.c");
    assert_string_equal(profile_str(dp, r.pos.file), "b.c");
    assert_int_equal(r.pos.line, 9);
    assert_int_equal(r.cost[0], 300);
    assert_int_equal(r.cost[1], 30);
    assert_int_equal(r.cost[2], 3);
    struct call_rec c;
    assert_int_equal(part_ncalls(dst), 1);
    part_call_get(dst, 0, &c);
    assert_int_equal(c.caller, dm);
    assert_int_equal(c.callee, r.fn);
    assert_string_equal(profile_str(dp, c.target.file), "b.c");
    assert_int_equal(c.cost[0], 300);
    assert_int_equal(c.cost[2], 3);
    struct jump_rec j;
    assert_int_equal(part_njumps(dst), 1);
    part_jump_get(dst, 0, &j);
    assert_int_equal(j.fn, dm);
    assert_int_equal(j.target.line, 5);
    assert_int_equal(*j.executed, 4);
    /* metadata copied because dst had none */
    assert_string_equal(dst->cmd, "./prog 1");
    assert_int_equal(dst->desc.n, 1);

    /* accumulating again doubles src's contribution; dst's cmd is kept */
    free(src->cmd);
    src->cmd = xstrdup("./prog 2");
    assert_int_equal(part_accumulate(dp, dst, sp, src, &err), 0);
    part_cost_get(dst, 0, &r);
    assert_int_equal(r.cost[0], 500);
    assert_int_equal(r.cost[2], 5);
    assert_string_equal(dst->cmd, "./prog 1");
    assert_int_equal(dst->desc.n, 1);
    profile_free(dp);
    profile_free(sp);
}

static void test_accumulate_mismatch(void **state)
{
    (void)state;
    struct tally_error err;
    struct part *dst, *src;
    struct profile *dp = new_profile("Ir Dr", &dst);
    struct profile *sp = new_profile("Ir Dw", &src);
    sp->path = xstrdup("b.out");
    tally_error_clear(&err);
    assert_int_equal(part_accumulate(dp, dst, sp, src, &err), -1);
    assert_string_equal(err.file, "b.out");
    assert_string_equal(err.msg, "events differ: 'Ir Dr' versus 'Ir Dw'");
    profile_free(sp);
    /* a different number of events */
    sp = new_profile("Ir", &src);
    assert_int_equal(part_accumulate(dp, dst, sp, src, &err), -1);
    assert_string_equal(err.msg, "events differ: 'Ir Dr' versus 'Ir'");
    profile_free(sp);
    profile_free(dp);
}

static void test_accumulate_into_empty_and_totals(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *dp = profile_new();
    struct part *dst = profile_add_part(dp);
    struct part *a, *b;
    struct profile *pa = new_profile("Ir Dr", &a);
    struct profile *pb = new_profile("Dr Ir", &b);
    a->positions = POS_INSTR | POS_LINE;
    a->summary = xcalloc(2, sizeof(uint64_t));
    a->summary[0] = 10;
    a->summary[1] = 1;
    a->totals = xcalloc(2, sizeof(uint64_t));
    b->summary = xcalloc(2, sizeof(uint64_t));
    b->summary[0] = 2;  /* Dr */
    b->summary[1] = 20; /* Ir */
    uint32_t fa = fn_named(pa, "o", "x.c", "x");
    struct position pos = at(pa, "x.c", 1, 0);
    assert_int_equal(part_add_cost(pa, a, fa, &pos, (uint64_t[]){10, 1}, 2), 0);

    /* an empty destination takes the events and positions of the first part */
    assert_int_equal(part_accumulate(dp, dst, pa, a, &err), 0);
    assert_int_equal(dst->events.n, 2);
    assert_string_equal(dst->events.names[1], "Dr");
    assert_int_equal(dst->positions, POS_INSTR | POS_LINE);
    assert_non_null(dst->summary);
    assert_int_equal(dst->summary[0], 10);
    assert_non_null(dst->totals);
    /* b has a summary (in its own order) but no totals: totals are dropped */
    assert_int_equal(part_accumulate(dp, dst, pb, b, &err), 0);
    assert_non_null(dst->summary);
    assert_int_equal(dst->summary[0], 30);
    assert_int_equal(dst->summary[1], 3);
    assert_null(dst->totals);
    profile_free(pa);
    profile_free(pb);
    profile_free(dp);
}

static void test_accumulate_overflow(void **state)
{
    (void)state;
    struct tally_error err;
    struct part *dst, *src;
    struct profile *dp = new_profile("Ir", &dst);
    struct profile *sp = new_profile("Ir", &src);
    sp->path = xstrdup("big.out");
    uint32_t fd = fn_named(dp, "o", "f.c", "f"), fs = fn_named(sp, "o", "f.c", "f");
    struct position pd = at(dp, "f.c", 1, 0), ps = at(sp, "f.c", 1, 0);
    assert_int_equal(part_add_cost(dp, dst, fd, &pd, (uint64_t[]){UINT64_MAX}, 1), 0);
    assert_int_equal(part_add_cost(sp, src, fs, &ps, (uint64_t[]){1}, 1), 0);
    assert_int_equal(part_accumulate(dp, dst, sp, src, &err), -1);
    assert_string_equal(err.file, "big.out");
    assert_non_null(strstr(err.msg, "overflow"));
    profile_free(dp);
    profile_free(sp);
}

static void test_merge_parts(void **state)
{
    (void)state;
    struct tally_error err;
    struct part *p0;
    struct profile *p = new_profile("Ir Dr", &p0);
    struct part *p1 = profile_add_part(p), *p2 = profile_add_part(p);
    set_base(&p1->events, "Dr Ir");
    set_base(&p2->events, "Ir Dr");
    p0->has_part = 1;
    p0->part_no = 1;
    uint32_t m = fn_named(p, "o", "a.c", "main"), g = fn_named(p, "o", "a.c", "g");
    struct position l1 = at(p, "a.c", 1, 0), l2 = at(p, "a.c", 2, 0);
    assert_int_equal(part_add_cost(p, p0, m, &l1, (uint64_t[]){1, 2}, 2), 0);
    assert_int_equal(part_add_cost(p, p1, m, &l1, (uint64_t[]){20, 10}, 2), 0); /* Dr Ir */
    assert_int_equal(part_add_cost(p, p1, g, &l2, (uint64_t[]){0, 5}, 2), 0);
    assert_int_equal(part_add_call(p, p1, m, &l1, g, &l2, 1, (uint64_t[]){0, 5}, 2), 0);
    assert_int_equal(part_add_cost(p, p2, g, &l2, (uint64_t[]){100, 200}, 2), 0);
    assert_int_equal(part_add_call(p, p2, m, &l1, g, &l2, 2, (uint64_t[]){100, 200}, 2), 0);
    assert_int_equal(profile_merge_parts(p, &err), 0);
    assert_int_equal(p->nparts, 1);
    assert_ptr_equal(p->parts[0], p0);
    assert_int_equal(p0->part_no, 1);
    assert_int_equal(part_ncosts(p0), 2);
    struct cost_rec r;
    part_cost_get(p0, 0, &r);
    assert_int_equal(r.fn, m);
    assert_int_equal(r.cost[0], 11);
    assert_int_equal(r.cost[1], 22);
    part_cost_get(p0, 1, &r);
    assert_int_equal(r.fn, g);
    assert_int_equal(r.cost[0], 105);
    assert_int_equal(r.cost[1], 200);
    struct call_rec c;
    assert_int_equal(part_ncalls(p0), 1);
    part_call_get(p0, 0, &c);
    assert_int_equal(*c.count, 3);
    assert_int_equal(c.cost[0], 105);
    assert_int_equal(c.cost[1], 200);
    /* a single part is left alone */
    assert_int_equal(profile_merge_parts(p, &err), 0);
    profile_free(p);

    /* parts with other events cannot be merged */
    p = new_profile("Ir", &p0);
    p1 = profile_add_part(p);
    set_base(&p1->events, "Dr");
    assert_int_equal(profile_merge_parts(p, &err), -1);
    assert_non_null(strstr(err.msg, "events differ"));
    profile_free(p);
}

/* ---------------------------------------------------------------- signed */

static void test_make_signed(void **state)
{
    (void)state;
    struct tally_error err;
    struct part *pt;
    struct profile *p = new_profile("Ir Dr", &pt);
    uint32_t f = fn_named(p, "o", "f.c", "f");
    struct position pos = at(p, "f.c", 1, 0x1000);
    assert_int_equal(part_add_cost(p, pt, f, &pos, (uint64_t[]){10, 3}, 2), 0);
    /* a call target address above INT64_MAX is not a count: it is fine */
    struct position hi = at(p, "f.c", 2, 0xffffffffffff0000ULL);
    assert_int_equal(part_add_call(p, pt, f, &pos, f, &hi, 1, (uint64_t[]){4, 0}, 2), 0);
    assert_int_equal(profile_make_signed(p, &err), 0);
    assert_int_equal(p->signed_costs, 1);
    assert_int_equal(profile_make_signed(p, &err), 0); /* idempotent */
    /* now negative values add with checks */
    uint64_t minus[2] = {(uint64_t)-25, (uint64_t)-3};
    assert_int_equal(part_add_cost(p, pt, f, &pos, minus, 2), 0);
    struct cost_rec r;
    part_cost_get(pt, 0, &r);
    assert_int_equal((int64_t)r.cost[0], -15);
    assert_int_equal((int64_t)r.cost[1], 0);
    uint64_t tot[2];
    assert_int_equal(part_self_total(p, pt, tot), 0);
    assert_int_equal((int64_t)tot[0], -15);
    uint64_t low[2] = {(uint64_t)INT64_MIN, 0};
    assert_int_equal(part_add_cost(p, pt, f, &pos, low, 2), -1);
    profile_free(p);

    /* a count above 2^63-1 cannot become signed */
    p = new_profile("Ir", &pt);
    f = fn_named(p, "o", "f.c", "f");
    pos = at(p, "f.c", 1, 0);
    p->path = xstrdup("huge.out");
    assert_int_equal(part_add_cost(p, pt, f, &pos, (uint64_t[]){(uint64_t)INT64_MAX + 1}, 1), 0);
    assert_int_equal(profile_make_signed(p, &err), -1);
    assert_string_equal(err.file, "huge.out");
    assert_int_equal(p->signed_costs, 0);
    profile_free(p);

    /* nor can such a total */
    p = new_profile("Ir", &pt);
    pt->totals = xcalloc(1, sizeof(uint64_t));
    pt->totals[0] = UINT64_MAX;
    assert_int_equal(profile_make_signed(p, &err), -1);
    assert_non_null(strstr(err.msg, "total"));
    profile_free(p);
}

/* --------------------------------------------------------- check totals */

static void test_check_totals(void **state)
{
    (void)state;
    struct part *pt;
    struct profile *p = new_profile("Ir Dr", &pt);
    p->path = xstrdup("prof.out");
    uint32_t f = fn_named(p, "o", "f.c", "f");
    struct position l1 = at(p, "f.c", 1, 0), l2 = at(p, "f.c", 2, 0);
    assert_int_equal(part_add_cost(p, pt, f, &l1, (uint64_t[]){100, 7}, 2), 0);
    assert_int_equal(part_add_cost(p, pt, f, &l2, (uint64_t[]){23, 0}, 2), 0);
    /* nothing stated: nothing to check */
    assert_int_equal(part_check_totals(p, pt), 0);
    assert_int_equal(p->warnings.n, 0);

    pt->summary = xcalloc(2, sizeof(uint64_t));
    pt->summary[0] = 123;
    pt->summary[1] = 7;
    pt->summary_line = 9;
    pt->totals = xcalloc(2, sizeof(uint64_t));
    pt->totals[0] = 123;
    pt->totals[1] = 7;
    assert_int_equal(part_check_totals(p, pt), 0);
    assert_int_equal(p->warnings.n, 0);

    pt->summary[1] = 8;
    pt->totals[0] = 122;
    pt->totals[1] = 6;
    pt->totals_line = 40;
    assert_int_equal(part_check_totals(p, pt), 3);
    assert_int_equal(p->warnings.n, 3);
    assert_string_equal(p->warnings.items[0],
                        "prof.out:9: 'summary:' line gives Dr = 8, but the costs add up to 7");
    assert_string_equal(p->warnings.items[1],
                        "prof.out:40: 'totals:' line gives Ir = 122, but the costs add up to 123");
    assert_string_equal(p->warnings.items[2],
                        "prof.out:40: 'totals:' line gives Dr = 6, but the costs add up to 7");
    profile_free(p);

    /* callgrind: summary: may exceed the self costs, totals: may not */
    p = new_profile("Ir", &pt);
    p->format = PROFILE_FORMAT_CALLGRIND;
    p->path = xstrdup("cg.out");
    f = fn_named(p, "o", "f.c", "f");
    l1 = at(p, "f.c", 1, 0);
    assert_int_equal(part_add_cost(p, pt, f, &l1, (uint64_t[]){50}, 1), 0);
    pt->summary = xcalloc(1, sizeof(uint64_t));
    pt->summary[0] = 52;
    pt->totals = xcalloc(1, sizeof(uint64_t));
    pt->totals[0] = 50;
    assert_int_equal(part_check_totals(p, pt), 0);
    pt->totals[0] = 51;
    pt->summary[0] = 49;
    assert_int_equal(part_check_totals(p, pt), 2);
    assert_string_equal(p->warnings.items[0],
                        "cg.out: 'summary:' line gives Ir = 49, but the costs add up to 50");
    assert_string_equal(p->warnings.items[1],
                        "cg.out: 'totals:' line gives Ir = 51, but the costs add up to 50");
    profile_free(p);

    /* signed profiles print signed numbers; unknown line: no ":LINE" */
    p = new_profile("Ir", &pt);
    f = fn_named(p, "o", "f.c", "f");
    l1 = at(p, "f.c", 1, 0);
    struct tally_error err;
    assert_int_equal(profile_make_signed(p, &err), 0);
    assert_int_equal(part_add_cost(p, pt, f, &l1, (uint64_t[]){(uint64_t)-4}, 1), 0);
    pt->totals = xcalloc(1, sizeof(uint64_t));
    pt->totals[0] = (uint64_t)-5;
    assert_int_equal(part_check_totals(p, pt), 1);
    assert_string_equal(p->warnings.items[0],
                        "(input): 'totals:' line gives Ir = -5, but the costs add up to -4");
    profile_free(p);
}

/* ----------------------------------------------------------------- error */

static void test_error_format(void **state)
{
    (void)state;
    struct tally_error err;
    char buf[256];
    assert_int_equal(tally_error_set(&err, "f.out", 12, "bad %s", "line"), -1);
    assert_string_equal(tally_error_format(&err, buf, sizeof(buf)), "f.out:12: bad line");
    tally_error_set(&err, "f.out", 0, "gone");
    assert_string_equal(tally_error_format(&err, buf, sizeof(buf)), "f.out: gone");
    tally_error_set(&err, NULL, 5, "plain");
    assert_string_equal(tally_error_format(&err, buf, sizeof(buf)), "plain");
    assert_int_equal(tally_error_set(NULL, "x", 1, "ignored"), -1);
    tally_error_clear(&err);
    assert_string_equal(err.msg, "");
    struct strlist l = {0};
    strlist_push(&l, "one");
    strlist_pushf(&l, "%d-%s", 2, "two");
    assert_int_equal(l.n, 2);
    assert_string_equal(l.items[1], "2-two");
    strlist_release(&l);
    assert_int_equal(l.n, 0);
    char *s = xasprintf("%s=%d", "x", 42);
    assert_string_equal(s, "x=42");
    free(s);
    size_t cap = 0;
    int *arr = xgrow(NULL, &cap, 100, sizeof(int));
    assert_true(cap >= 100);
    arr[99] = 1;
    free(arr);
}

/* The outermost marker of the desc lines survives a sum only when every
 * part added has it (the sum's calls count each recursion once only
 * then); the other desc lines are kept as before. */
static void test_outermost_marker(void **state)
{
    (void)state;
    struct tally_error err;
    for (int second = 0; second < 2; second++) {
        struct part *p0;
        struct profile *p = new_profile("Ir", &p0);
        struct part *p1 = profile_add_part(p);
        set_base(&p1->events, "Ir");
        uint32_t m = fn_named(p, "o", "a.c", "main");
        struct position l1 = at(p, "a.c", 1, 0);
        assert_int_equal(part_add_cost(p, p0, m, &l1, (uint64_t[]){1}, 1), 0);
        assert_int_equal(part_add_cost(p, p1, m, &l1, (uint64_t[]){2}, 1), 0);
        strlist_push(&p0->desc, "I1 cache: 32768 B");
        part_set_calls_outermost(p0, 1);
        part_set_calls_outermost(p0, 1); /* once, however often it is set */
        assert_int_equal(p0->desc.n, 2);
        if (second) part_set_calls_outermost(p1, 1);
        assert_int_equal(profile_merge_parts(p, &err), 0);
        assert_int_equal(part_calls_outermost(p->parts[0]), second);
        assert_string_equal(p->parts[0]->desc.items[0], "I1 cache: 32768 B");
        profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outermost_marker),
        cmocka_unit_test(test_strtab_basics),
        cmocka_unit_test(test_strtab_many),
        cmocka_unit_test(test_strtab_free_below),
        cmocka_unit_test(test_rectab_order_and_values),
        cmocka_unit_test(test_rectab_many),
        cmocka_unit_test(test_rectab_hint),
        cmocka_unit_test(test_eventset_base),
        cmocka_unit_test(test_eventset_derived),
        cmocka_unit_test(test_eventset_eval_overflow),
        cmocka_unit_test(test_eventset_formulas),
        cmocka_unit_test(test_eventset_formula_errors),
        cmocka_unit_test(test_eventset_same),
        cmocka_unit_test(test_profile_functions),
        cmocka_unit_test(test_costs_accumulate_in_order),
        cmocka_unit_test(test_instruction_positions),
        cmocka_unit_test(test_calls_and_jumps),
        cmocka_unit_test(test_checked_overflow),
        cmocka_unit_test(test_accumulate_reorders_events),
        cmocka_unit_test(test_accumulate_mismatch),
        cmocka_unit_test(test_accumulate_into_empty_and_totals),
        cmocka_unit_test(test_accumulate_overflow),
        cmocka_unit_test(test_merge_parts),
        cmocka_unit_test(test_make_signed),
        cmocka_unit_test(test_check_totals),
        cmocka_unit_test(test_error_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
