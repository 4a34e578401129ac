/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the RMS/DRMS algorithm of `tally record --input-sensitive`
 * (valgrind/rms.h), compiled as plain host C, on hand-written access
 * traces. Every expected value is derived from the definition (research
 * aprof.md §1.2-§1.3) in the comment next to it; one test compares the
 * timestamp algorithm with a naive implementation of the definition (a set
 * of touched cells per live activation) on random traces.
 */
#include "testutil.h"

#define TALLY_SIM_HOST 1
#include "../../valgrind/rms.h"

static rms_global G;
static rms_thread T;
static ULong now; /* the cost clock: every event costs 1 */

static void start(UInt resolution, Bool drms)
{
    rms_global_init(&G, resolution, drms, False);
    rms_thread_init(&T);
    now = 0;
}

static void finish(void)
{
    rms_thread_release(&T);
    rms_global_release(&G);
}

static void call(UInt r)
{
    rms_call(&G, &T, r, now++);
}
static void ret(void)
{
    rms_return(&G, &T, now++);
}
static void rd(Addr a)
{
    rms_read(&G, &T, a, 4);
    now++;
}
static void wr(Addr a)
{
    rms_write(&G, &T, a, 4);
    now++;
}

/* The single tuple of routine r with input n (asserts it exists). */
static rms_tuple *tup(rms_thread *t, UInt r, ULong n)
{
    rms_tuple *p = rms_tuples_find(&t->tuples, r, n);
    if (!p) fail_msg("no tuple for routine %u at input %llu", r, n);
    return p;
}

/* Number of tuples of routine r. */
static UWord ntuples(rms_thread *t, UInt r)
{
    UWord n = 0;
    for (UWord i = 0; i < t->tuples.nslots; i++)
        for (rms_tuple *p = t->tuples.slot[i]; p; p = p->next)
            n += p->owner == r;
    return n;
}

enum { F = 1, Gr = 2, H = 3, MAIN = 9 };
#define X 0x1000
#define Y 0x1004
#define Z 0x1008
#define W 0x100c

/* Research §1.2, Example 1: f reads x, writes y, calls g; g reads x, y, z
 * and writes w; f then reads w. RMS(g) = 3 (x, y, z first read by g);
 * RMS(f) = 2 (x, z: y and w were first written by f or its child). */
static void test_worked_example(void **state)
{
    (void)state;
    start(4, False);
    call(F);
    rd(X);
    wr(Y);
    call(Gr);
    rd(X);
    rd(Y);
    assert_int_equal(T.stack[0].rms, -1); /* the transient negative partial of step 6 */
    rd(Z);
    wr(W);
    ret();
    assert_int_equal(T.stack[0].rms, 2);
    rd(W);
    ret();
    assert_int_equal(tup(&T, Gr, 3)->calls, 1);
    assert_int_equal(tup(&T, F, 2)->calls, 1);
    assert_int_equal(ntuples(&T, F), 1);
    assert_int_equal(ntuples(&T, Gr), 1);
    finish();
}

/* swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }: the parameters a
 * and b live in the frame (written by the caller), temp is written first.
 * First reads: a, *a, b, *b = RMS 4. */
static void test_swap(void **state)
{
    (void)state;
    start(4, False);
    const Addr pa = 0x7000, pb = 0x7008, tmp = 0x7010, va = 0x2000, vb = 0x2004;
    call(MAIN);
    wr(pa); /* the caller passes the arguments */
    wr(pb);
    call(F);
    rd(pa);
    rd(va);
    wr(tmp);
    rd(pb);
    rd(vb);
    rd(pa);
    wr(va);
    rd(tmp);
    rd(pb);
    wr(vb);
    ret();
    ret();
    assert_int_equal(tup(&T, F, 4)->calls, 1);
    /* main wrote pa and pb itself; va and vb were first read (by swap) */
    assert_int_equal(tup(&T, MAIN, 2)->calls, 1);
    finish();
}

/* Iterative count_zero(v, n): reads v and n (2 cells) and v[0..n-1] (n
 * cells); the counter and index are written before they are read. */
static void test_count_zero_iterative(void **state)
{
    (void)state;
    for (UInt n = 0; n <= 50; n += 10) {
        start(4, False);
        const Addr pv = 0x7000, pn = 0x7008, cnt = 0x7010, idx = 0x7014, v = 0x100000;
        call(F);
        rd(pv);
        rd(pn);
        wr(cnt);
        wr(idx);
        for (UInt i = 0; i < n; i++) {
            rd(idx);
            rd(pn);
            rd(pv);
            rd(v + 4 * i);
            rd(cnt);
            wr(cnt);
            wr(idx);
        }
        ret();
        assert_int_equal(tup(&T, F, n + 2)->calls, 1);
        finish();
    }
}

/* Recursive count_zero(v, n): activation i (1..n+1) has n_i = n-i+1; it
 * reads its two parameter cells (written by its caller: not input of the
 * caller), reads v[n_i-1] when n_i > 0 and passes (v, n_i-1) to the next.
 * Its RMS is 2 + n_i = n - i + 3: n+1 tuples, 2 .. n+2, one call each. */
static void test_count_zero_recursive(void **state)
{
    (void)state;
    const UInt n = 20;
    start(4, False);
    const Addr v = 0x100000;
    call(MAIN);
    Addr frame = 0x7ff000;
    wr(frame);
    wr(frame + 4);
    for (UInt i = 1; i <= n + 1; i++) {
        UInt ni = n - i + 1;
        call(F);
        rd(frame);     /* v */
        rd(frame + 4); /* n */
        if (ni > 0) {
            rd(v + 4 * (ni - 1));
            frame -= 32;
            wr(frame);
            wr(frame + 4);
        }
    }
    for (UInt i = 0; i <= n; i++)
        ret();
    ret();
    assert_int_equal(ntuples(&T, F), n + 1);
    for (UInt i = 1; i <= n + 1; i++)
        assert_int_equal(tup(&T, F, n - i + 3)->calls, 1);
    /* main: it wrote the first parameters itself, v[] was first read below */
    assert_int_equal(tup(&T, MAIN, n)->calls, 1);
    finish();
}

/* The cells of one access: floor(a/k) .. ceil((a+s)/k)-1. */
static ULong cells(UInt k, Addr a, SizeT size)
{
    start(k, False);
    call(F);
    rms_read(&G, &T, a, size);
    ULong r = (ULong)T.stack[0].rms;
    ret();
    finish();
    return r;
}

static void test_resolution(void **state)
{
    (void)state;
    assert_int_equal(cells(1, 0x1000, 8), 8);
    assert_int_equal(cells(2, 0x1001, 1), 1);
    assert_int_equal(cells(2, 0x1001, 2), 2); /* bytes 1001, 1002: cells 800 and 801 */
    assert_int_equal(cells(4, 0x1000, 4), 1);
    assert_int_equal(cells(4, 0x1002, 4), 2);
    assert_int_equal(cells(4, 0x1003, 1), 1);
    assert_int_equal(cells(8, 0x1004, 8), 2);
    assert_int_equal(cells(16, 0x1000, 16), 1);
    assert_int_equal(cells(16, 0x100f, 2), 2);
    assert_int_equal(cells(16, 0x1000, 512), 32);
    /* two halves of one 16-byte cell: one cell */
    start(16, False);
    call(F);
    rms_read(&G, &T, 0x1000, 8);
    rms_read(&G, &T, 0x1008, 8);
    ret();
    assert_int_equal(tup(&T, F, 1)->calls, 1);
    finish();
    /* the top of the address space, beyond 2^46 and at 2^64 - 4 */
    assert_int_equal(cells(4, (Addr)0xfffffffffffffffcull, 4), 1);
    assert_int_equal(cells(1, (Addr)0x7fff00000000ull << 8, 3), 3);
}

/* Research §1.3: f loops m times over read(fd, buf, 256); consume(buf),
 * resolution 4 so buf is 64 cells. RMS(f) = 64 whatever m (after the first
 * consume the cells carry timestamps of f's subtree); DRMS(f) = 64 m (each
 * read() makes the buffer new: syscall-induced); each consume has 64 in
 * both modes. */
static void buffered_read(Bool drms, UInt m)
{
    const Addr buf = 0x50000;
    start(4, drms);
    call(F);
    for (UInt it = 0; it < m; it++) {
        call(H); /* read() */
        rms_kernel_write(&G, buf, 256);
        ret();
        call(Gr); /* consume */
        for (UInt c = 0; c < 64; c++)
            rd(buf + 4 * c);
        ret();
    }
    ret();
}

static void test_drms_kernel(void **state)
{
    (void)state;
    for (UInt m = 1; m <= 8; m *= 2) {
        buffered_read(False, m);
        assert_int_equal(tup(&T, F, 64)->calls, 1);
        assert_int_equal(tup(&T, Gr, 64)->calls, m);
        assert_int_equal(tup(&T, F, 64)->cumul_sys, 0);
        finish();

        buffered_read(True, m);
        rms_tuple *f = tup(&T, F, 64 * m);
        assert_int_equal(f->calls, 1);
        assert_int_equal(f->cumul_sys, 64 * m); /* all in consume */
        assert_int_equal(f->self_sys, 0);
        assert_int_equal(f->cumul_thr, 0);
        rms_tuple *c = tup(&T, Gr, 64);
        assert_int_equal(c->calls, m);
        assert_int_equal(c->self_sys, 64 * m); /* summed over the m calls */
        assert_int_equal(c->cumul_sys, 64 * m);
        assert_int_equal(tup(&T, H, 0)->calls, m);
        finish();
    }
}

/* Two threads: the producer writes 10 cells m times, the consumer reads
 * them after each round. RMS(consumer loop) = 10; DRMS = 10 m, all of it
 * thread-induced; the producer's DRMS is 0 (it only writes). */
static void test_drms_threads(void **state)
{
    (void)state;
    for (int drms = 0; drms <= 1; drms++) {
        const UInt m = 5;
        rms_thread P, C;
        rms_global_init(&G, 4, (Bool)drms, False);
        rms_thread_init(&P);
        rms_thread_init(&C);
        const Addr q = 0x60000;
        rms_switch(&G);
        rms_call(&G, &P, F, 0);
        rms_switch(&G);
        rms_call(&G, &C, Gr, 0);
        for (UInt it = 0; it < m; it++) {
            rms_switch(&G); /* producer */
            for (UInt c = 0; c < 10; c++)
                rms_write(&G, &P, q + 4 * c, 4);
            rms_switch(&G); /* consumer */
            for (UInt c = 0; c < 10; c++)
                rms_read(&G, &C, q + 4 * c, 4);
        }
        rms_return(&G, &C, 100);
        rms_switch(&G);
        rms_return(&G, &P, 100);
        rms_tuple *c = tup(&C, Gr, drms ? 10 * m : 10);
        assert_int_equal(c->calls, 1);
        assert_int_equal(c->self_thr, drms ? 10 * m : 0);
        assert_int_equal(c->self_sys, 0);
        assert_int_equal(tup(&P, F, 0)->calls, 1);
        rms_thread_release(&P);
        rms_thread_release(&C);
        rms_global_release(&G);
    }
}

/* DRMS without other writers is RMS: the worked example gives the same. */
static void test_drms_equals_rms_alone(void **state)
{
    (void)state;
    start(4, True);
    call(F);
    rd(X);
    wr(Y);
    call(Gr);
    rd(X);
    rd(Y);
    rd(Z);
    wr(W);
    ret();
    rd(W);
    ret();
    assert_int_equal(tup(&T, Gr, 3)->calls, 1);
    assert_int_equal(tup(&T, F, 2)->calls, 1);
    finish();
}

/* 100000 nested activations, each reading one shared cell A and one cell
 * of its own (s_i) after its call: activation i (1..D) has RMS
 * (D - i + 1) own cells + A = D - i + 2. */
static void test_deep_stack(void **state)
{
    (void)state;
    const UInt D = 100000;
    start(4, False);
    const Addr A = 0x10, S = 0x1000000;
    for (UInt i = 1; i <= D; i++) {
        call(F);
        rd(A);
        rd(S + 4 * (Addr)i);
    }
    for (UInt i = 0; i < D; i++)
        ret();
    assert_int_equal(ntuples(&T, F), D);
    for (UInt i = 1; i <= D; i += 997)
        assert_int_equal(tup(&T, F, D - i + 2)->calls, 1);
    assert_int_equal(tup(&T, F, D + 1)->calls, 1);
    assert_int_equal(G.negative, 0);
    finish();
}

/* Costs: CALL foo@1, CALL foo@2, RET@5, RET@9 (research §1.4): cumulative
 * 4 and 8, self 4 and 4, real-sum only the outer 8. */
static void test_costs(void **state)
{
    (void)state;
    start(4, False);
    rms_call(&G, &T, F, 1);
    rms_call(&G, &T, F, 2);
    rms_read(&G, &T, X, 4);
    rms_return(&G, &T, 5); /* inner: RMS 1 */
    rms_return(&G, &T, 9); /* outer: RMS 1 */
    rms_tuple *t = tup(&T, F, 1);
    assert_int_equal(t->calls, 2);
    assert_int_equal(t->min, 3);
    assert_int_equal(t->max, 8);
    assert_int_equal(t->sum, 11);
    assert_true(t->sqr == 9 + 64);
    assert_int_equal(t->real, 8);
    assert_int_equal(t->self_sum, 3 + 5);
    assert_int_equal(t->self_min, 3);
    assert_int_equal(t->self_max, 5);
    assert_true(t->self_sqr == 9 + 25);
    /* squares beyond 64 bits are exact */
    rms_call(&G, &T, H, 0);
    rms_return(&G, &T, 1ull << 40);
    rms_call(&G, &T, H, 0);
    rms_return(&G, &T, 1ull << 40);
    t = tup(&T, H, 0);
    assert_true(t->sqr == (rms_u128)2 << 80);
    assert_false(t->overflow);
    finish();
}

/* Calling contexts: F called from MAIN and from G gets two contexts. */
static void test_cct(void **state)
{
    (void)state;
    rms_global_init(&G, 4, False, True);
    rms_thread_init(&T);
    rms_call(&G, &T, MAIN, 0);
    rms_call(&G, &T, F, 1);
    rms_return(&G, &T, 2);
    rms_call(&G, &T, Gr, 3);
    rms_call(&G, &T, F, 4);
    rms_return(&G, &T, 6);
    rms_return(&G, &T, 7);
    rms_call(&G, &T, F, 8);
    rms_return(&G, &T, 9);
    rms_return(&G, &T, 10);
    rms_cct *c = &G.contexts;
    assert_int_equal(c->n, 4); /* main, main>F, main>G, main>G>F */
    UInt m = rms_cct_child(c, 0, MAIN), mf = rms_cct_child(c, m, F), mg = rms_cct_child(c, m, Gr);
    UInt mgf = rms_cct_child(c, mg, F);
    assert_int_equal(c->n, 4);
    assert_int_equal(c->parent[mgf], mg);
    assert_int_equal(c->routine[mgf], F);
    assert_int_equal(tup(&T, mf, 0)->calls, 2);
    assert_int_equal(tup(&T, mgf, 0)->calls, 1);
    assert_int_equal(tup(&T, mgf, 0)->sum, 2);
    /* many contexts: the table grows */
    UInt p = 0;
    for (UInt i = 0; i < 5000; i++)
        p = rms_cct_child(c, p, i % 7);
    assert_int_equal(c->n, 5004);
    rms_thread_release(&T);
    rms_global_release(&G);
}

/* The definition, naively: every live activation has the set of cells
 * touched during its lifetime; a read of a cell not in the set counts. */
#define NC 48
#define MAXD 12
static void test_random_vs_naive(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 300; round++) {
        static unsigned char seen[MAXD][NC];
        long naive[MAXD];
        UInt routine[MAXD];
        UInt depth = 0;
        start(4, False);
        /* expected tuples: count per (routine, rms) of finished activations */
        static UInt expect[8][512];
        memset(expect, 0, sizeof expect);
        for (int step = 0; step < 400; step++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 8) % 100;
            if ((r < 15 && depth < MAXD) || depth == 0) {
                UInt f = (seed >> 20) % 8;
                memset(seen[depth], 0, NC);
                naive[depth] = 0;
                routine[depth] = f;
                depth++;
                rms_call(&G, &T, f, 0);
            } else if (r < 28) {
                depth--;
                expect[routine[depth]][naive[depth]]++;
                rms_return(&G, &T, 0);
            } else {
                UInt c = (seed >> 16) % NC;
                Bool is_read = r < 70;
                for (UInt d = 0; d < depth; d++)
                    if (!seen[d][c]) {
                        seen[d][c] = 1;
                        if (is_read) naive[d]++;
                    }
                if (is_read)
                    rms_read(&G, &T, 0x4000 + 4 * c, 4);
                else
                    rms_write(&G, &T, 0x4000 + 4 * c, 4);
            }
        }
        while (depth > 0) {
            depth--;
            expect[routine[depth]][naive[depth]]++;
            rms_return(&G, &T, 0);
        }
        for (UInt f = 0; f < 8; f++)
            for (UInt n = 0; n < 512; n++) {
                rms_tuple *t = rms_tuples_find(&T.tuples, f, n);
                if (expect[f][n] != (t ? t->calls : 0))
                    fail_msg("round %d: routine %u rms %u: %u calls expected, %llu seen", round, f,
                             n, expect[f][n], t ? t->calls : 0);
            }
        assert_int_equal(G.negative, 0);
        finish();
    }
}

/* A signal: f reads X at 1; the handler (under a barrier from 2 to 10)
 * reads X and Z; f then reads W and returns at 12. The handler's RMS is 2
 * (X and Z are new to it); f's is 2 (X, W): the handler neither takes X
 * from f (no decrement below the barrier) nor gives Z to it; f's cost is
 * 12 - 0 - 8 (the handler's time is not f's). */
static void test_signal_barrier(void **state)
{
    (void)state;
    start(4, False);
    rms_call(&G, &T, F, 0);
    rms_read(&G, &T, X, 4);
    rms_signal(&G, &T, 7, 2);
    rms_call(&G, &T, H, 3);
    rms_read(&G, &T, X, 4);
    rms_read(&G, &T, Z, 4);
    rms_return(&G, &T, 9);
    rms_return(&G, &T, 10);
    assert_int_equal(T.floor, 0);
    rms_read(&G, &T, W, 4);
    rms_return(&G, &T, 12);
    assert_int_equal(tup(&T, H, 2)->sum, 6);
    assert_int_equal(tup(&T, 7, 2)->sum, 8);
    rms_tuple *f = tup(&T, F, 2);
    assert_int_equal(f->sum, 4);
    assert_int_equal(f->self_sum, 4);
    finish();
}

/* Thread merging of tuples. */
static void test_merge(void **state)
{
    (void)state;
    rms_tuple a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.calls = 2, a.min = 3, a.max = 9, a.sum = 12, a.sqr = 90, a.self_min = 1, a.self_max = 2;
    b.calls = 1, b.min = 1, b.max = 1, b.sum = ~0ull, b.sqr = 1, b.self_min = 0, b.self_max = 7;
    rms_tuple_merge(&a, &b);
    assert_int_equal(a.calls, 3);
    assert_int_equal(a.min, 1);
    assert_int_equal(a.max, 9);
    assert_true(a.sum == ~0ull && a.overflow); /* saturated, flagged */
    assert_true(a.sqr == 91);
    assert_int_equal(a.self_min, 0);
    assert_int_equal(a.self_max, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_swap),
        cmocka_unit_test(test_count_zero_iterative),
        cmocka_unit_test(test_count_zero_recursive),
        cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_drms_kernel),
        cmocka_unit_test(test_drms_threads),
        cmocka_unit_test(test_drms_equals_rms_alone),
        cmocka_unit_test(test_deep_stack),
        cmocka_unit_test(test_costs),
        cmocka_unit_test(test_cct),
        cmocka_unit_test(test_random_vs_naive),
        cmocka_unit_test(test_signal_barrier),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
