/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the branch predictors of `tally record` (valgrind/sim_branch.h),
 * compiled as plain host C.  The expected mispredict counts are worked out by
 * hand from Cachegrind 3.19's model (docs/internals/branchsim.md shows the
 * working); a second, deliberately naive implementation of the same rules
 * (history kept as a list of outcomes, index built bit by bit, counters as
 * ints with explicit saturation) is compared on long random sequences.
 */
#include "testutil.h"

#define TALLY_SIM_HOST 1
#include "../../valgrind/sim_branch.h"

/* one conditional branch; returns 1 on a mispredict */
static int cond(Addr a, int taken)
{
    ULong m = 0;
    branchsim_cond(a, taken, &m);
    assert_true(m <= 1);
    return (int)m;
}

static int ind(Addr a, Addr dst)
{
    ULong m = 0;
    branchsim_ind(a, dst, &m);
    assert_true(m <= 1);
    return (int)m;
}

static int setup(void **state)
{
    (void)state;
    branchsim_init();
    return 0;
}

/* Never taken: every counter starts at 0 (predict not taken) and the history
 * stays 0, so nothing is ever mispredicted. */
static void test_never_taken(void **state)
{
    (void)state;
    int miss = 0;
    for (int i = 0; i < 1000; i++)
        miss += cond(0x401000 + (i % 5) * 3, 0);
    assert_int_equal(miss, 0);
}

/* Always taken at one address: the history before the k-th branch is 0, 1, 3,
 * 7, 15, 31, 63, 127, 127, ...  The first eight each meet a fresh counter (0:
 * predict not taken, miss).  From the eighth on the index is fixed at
 * (127 << 7) | (a & 127); its counter is 0 at the eighth, 1 at the ninth
 * (miss again) and 2 at the tenth (hit), then 3.  So 9 mispredicts whatever
 * the length (>= 9). */
static void test_always_taken(void **state)
{
    (void)state;
    int miss = 0;
    for (int i = 0; i < 9; i++)
        miss += cond(0x40123a, 1);
    assert_int_equal(miss, 9);
    for (int i = 0; i < 1000; i++)
        miss += cond(0x40123a, 1);
    assert_int_equal(miss, 9);
}

/* Taken / not taken alternately at one address.  Before the m-th taken one
 * (m = 0, 1, ...) the history's low 7 bits are 1010...10 (m pairs): 0, 2, 10,
 * 42, then 42 for ever; before the not-taken ones they are 1, 5, 21, 85, 85 ...
 * The not-taken ones always meet a counter at 0: no miss.  The taken ones
 * miss at 0, 2, 10 (fresh) and twice at 42 (counter 0, then 1), then hit:
 * 5 mispredicts in all. */
static void test_alternating(void **state)
{
    (void)state;
    int miss_t = 0, miss_n = 0;
    for (int i = 0; i < 500; i++) {
        miss_t += cond(0x400010, 1);
        miss_n += cond(0x400010, 0);
    }
    assert_int_equal(miss_t, 5);
    assert_int_equal(miss_n, 0);
}

/* A period-3 pattern T T N at one address: the history settles into 3
 * repeating 7-bit values (one per phase), so each phase trains its own
 * counter and mispredicts stop.  Hand count: before phase outcomes the low 7
 * bits run 0,1,3 | 6,13,27 | 54,109,91 | 54,109,91 ...  The first six branches
 * meet fresh counters: T(0) miss, T(1) miss, N(3) hit, T(6) miss, T(13) miss,
 * N(27) hit.  Then phases at 54/109/91 repeat: T at 54 misses twice (counter
 * 0, 1), T at 109 misses twice, N at 91 never.  Total 4 + 4 = 8. */
static void test_period_three(void **state)
{
    (void)state;
    int miss = 0;
    for (int i = 0; i < 300; i++) {
        miss += cond(0x400020, 1);
        miss += cond(0x400020, 1);
        miss += cond(0x400020, 0);
    }
    assert_int_equal(miss, 8);
}

/* Put the history at 127 (seven taken branches at an address whose low bits
 * differ from the one under test), so the branch under test always uses the
 * same counter; its own mispredicts are counted apart. */
static int at_fixed_index(Addr a, int taken)
{
    ULong ignored = 0;
    for (int i = 0; i < 7; i++)
        branchsim_cond(0x500001, 1, &ignored);
    return cond(a, taken);
}

/* The two-bit counter: saturates at 3 and at 0. */
static void test_saturation(void **state)
{
    (void)state;
    const Addr a = 0x400040;
    /* 0 -> 1 -> 2 -> 3 -> 3 -> 3: miss, miss, hit, hit, hit */
    static const int up[] = {1, 1, 0, 0, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(at_fixed_index(a, 1), up[i]);
    /* 3 -> 2 -> 1: both predicted taken, so both miss; a counter that had
     * gone on to 5 would still predict taken after them */
    assert_int_equal(at_fixed_index(a, 0), 1);
    assert_int_equal(at_fixed_index(a, 0), 1);
    assert_int_equal(at_fixed_index(a, 1), 1); /* 1 predicts not taken; -> 2 */
    assert_int_equal(at_fixed_index(a, 1), 0); /* 2 predicts taken; -> 3 */
    /* down to 0 and below: 3 -> 2 -> 1 -> 0 -> 0 -> 0 */
    static const int down[] = {1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        assert_int_equal(at_fixed_index(a, 0), down[i]);
    /* from 0 two takens are needed before a taken prediction */
    assert_int_equal(at_fixed_index(a, 1), 1);
    assert_int_equal(at_fixed_index(a, 1), 1);
    assert_int_equal(at_fixed_index(a, 1), 0);
}

/* Only the 7 low address bits select a counter: a and a + 128 (or + 4096)
 * share one, a + 1 does not. */
static void test_address_aliasing(void **state)
{
    (void)state;
    const Addr a = 0x400100;
    for (int i = 0; i < 20; i++)
        cond(a, 1); /* counter (127 << 7 | 0) now 3 */
    assert_int_equal(cond(a + 128, 1), 0);
    assert_int_equal(cond(a + 4096, 1), 0);
    assert_int_equal(cond(a + 0x7f0000000080ul, 1), 0);
    assert_int_equal(cond(a + 1, 1), 1); /* (127 << 7 | 1) is fresh */
}

/* The history is global: a branch's counter depends on the outcomes of the
 * previous seven conditional branches anywhere, and only those seven. */
static void test_history_mixing(void **state)
{
    (void)state;
    const Addr a = 0x400200, b = 0x400301;
    /* train a's counter under history 0: a taken, preceded by 7 not-taken b */
    ULong ignored = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 7; j++)
            branchsim_cond(b, 0, &ignored);
        cond(a, 1);
    }
    /* counter (0 << 7 | 0) is now 3: after 7 not-taken branches a is predicted
     * taken, even after a long taken run before them (older bits fall out) */
    for (int j = 0; j < 50; j++)
        branchsim_cond(b, 1, &ignored);
    for (int j = 0; j < 7; j++)
        branchsim_cond(b, 0, &ignored);
    assert_int_equal(cond(a, 1), 0);
    /* but with one taken branch among the last seven, another counter (fresh)
     * is used: predicted not taken */
    for (int j = 0; j < 6; j++)
        branchsim_cond(b, 0, &ignored);
    branchsim_cond(b, 1, &ignored);
    assert_int_equal(cond(a, 1), 1);
    /* the taken bit six branches back still selects a different counter */
    branchsim_cond(b, 1, &ignored);
    for (int j = 0; j < 6; j++)
        branchsim_cond(b, 0, &ignored);
    assert_int_equal(cond(a, 1), 1);
    /* seven back it has fallen out */
    branchsim_cond(b, 1, &ignored);
    for (int j = 0; j < 7; j++)
        branchsim_cond(b, 0, &ignored);
    assert_int_equal(cond(a, 1), 0);
}

/* The mispredict count is added to, never overwritten, and any nonzero
 * `taken` means taken. */
static void test_accumulates(void **state)
{
    (void)state;
    ULong m = 41;
    branchsim_cond(0x400300, 1, &m);
    assert_int_equal(m, 42);
    branchsim_cond(0x400300, 0, &m);
    assert_int_equal(m, 42);
    m = 7;
    branchsim_ind(0x400300, 0x1234, &m);
    assert_int_equal(m, 8);
    branchsim_ind(0x400300, 0x1234, &m);
    assert_int_equal(m, 8);
}

/* branchsim_init forgets counters, history and targets. */
static void test_init_resets(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++)
        cond(0x400400, 1);
    ind(0x400400, 0xdead);
    branchsim_init();
    assert_int_equal(cond(0x400400, 1), 1); /* history 0, counter 0 again */
    assert_int_equal(ind(0x400400, 0xdead), 1);
}

/* Indirect: one slot per 9 low address bits, holding the last target. */
static void test_indirect(void **state)
{
    (void)state;
    const Addr a = 0x401234;
    assert_int_equal(ind(a, 0x402000), 1); /* slot starts at 0 */
    assert_int_equal(ind(a, 0x402000), 0);
    assert_int_equal(ind(a, 0x402000), 0);
    /* alternating between two targets mispredicts every time (Bi 1000,
     * Bim 1000 in the research's [RUN] of Cachegrind) */
    int miss = 0;
    for (int i = 0; i < 1000; i++)
        miss += ind(a, (i & 1) ? 0x402000 : 0x403000);
    assert_int_equal(miss, 1000);
    /* the last target was 0x402000; a + 512 shares the slot, a + 1 does not */
    assert_int_equal(ind(a + 512, 0x402000), 0);
    assert_int_equal(ind(a + 1, 0x402000), 1);
    /* a + 512 going elsewhere evicts a's target */
    assert_int_equal(ind(a + 512, 0x404000), 1);
    assert_int_equal(ind(a, 0x402000), 1);
    /* a target of 0 in an untouched slot is "predicted" */
    assert_int_equal(ind(0x4011ff, 0), 0);
    /* conditional branches do not touch the indirect table, nor the reverse */
    for (int i = 0; i < 100; i++)
        cond(a, i & 1);
    assert_int_equal(ind(a, 0x402000), 0);
}

/* ---- a naive second implementation for the differential check ---------- */
static struct {
    int recent[7]; /* recent[0] = outcome of the latest conditional branch */
    int counter[16384];
    unsigned long long btac[512];
} naive;

static void naive_init(void)
{
    memset(&naive, 0, sizeof naive);
}

static int naive_cond(unsigned long long addr, int taken)
{
    int index = 0;
    for (int k = 6; k >= 0; k--)
        index = index * 2 + naive.recent[k];
    index = index * 128 + (int)(addr % 128);
    int predicted = naive.counter[index] >= 2;
    if (taken && naive.counter[index] < 3) naive.counter[index]++;
    if (!taken && naive.counter[index] > 0) naive.counter[index]--;
    for (int k = 6; k > 0; k--)
        naive.recent[k] = naive.recent[k - 1];
    naive.recent[0] = taken;
    return predicted != taken;
}

static int naive_ind(unsigned long long addr, unsigned long long dst)
{
    int miss = naive.btac[addr % 512] != dst;
    naive.btac[addr % 512] = dst;
    return miss;
}

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned long long rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random programs: a pool of branch sites (addresses with random low and
 * high bits, so that some alias), each with its own bias, some following a
 * short loop pattern; interleaved indirect sites with 1..4 targets. */
static void test_differential(void **state)
{
    (void)state;
    enum { SITES = 300, STEPS = 400000 };
    for (int round = 0; round < 4; round++) {
        static unsigned long long site[SITES], target[SITES][4];
        static int bias[SITES], period[SITES], ntarget[SITES];
        for (int s = 0; s < SITES; s++) {
            /* round 0: few distinct low bits (heavy aliasing); later: spread */
            unsigned long long low = round == 0 ? rng() % 16 : rng() % 4096;
            site[s] = 0x400000 + (rng() % 64) * 0x10000 + low;
            bias[s] = (int)(rng() % 101);
            period[s] = (int)(rng() % 8); /* 0: random by bias, else a loop of that trip */
            ntarget[s] = 1 + (int)(rng() % 4);
            for (int t = 0; t < 4; t++)
                target[s][t] = rng() & 0xffffffffffull;
        }
        branchsim_init();
        naive_init();
        ULong bcm = 0, bim = 0;
        long long nbcm = 0, nbim = 0;
        int count[SITES] = {0};
        for (int i = 0; i < STEPS; i++) {
            int s = (int)(rng() % SITES);
            if (rng() % 8 == 0) {
                unsigned long long d = target[s][rng() % (unsigned)ntarget[s]];
                ULong before = bim;
                branchsim_ind(site[s], d, &bim);
                int n = naive_ind(site[s], d);
                nbim += n;
                if ((int)(bim - before) != n) fail_msg("indirect step %d differs", i);
            } else {
                int taken =
                    period[s] ? (++count[s] % period[s]) != 0 : (int)(rng() % 100) < bias[s];
                ULong before = bcm;
                branchsim_cond(site[s], taken, &bcm);
                int n = naive_cond(site[s], taken);
                nbcm += n;
                if ((int)(bcm - before) != n) fail_msg("conditional step %d differs", i);
            }
        }
        assert_int_equal(bcm, nbcm);
        assert_int_equal(bim, nbim);
        assert_true(bcm > 0 && bim > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_never_taken, setup),
        cmocka_unit_test_setup(test_always_taken, setup),
        cmocka_unit_test_setup(test_alternating, setup),
        cmocka_unit_test_setup(test_period_three, setup),
        cmocka_unit_test_setup(test_saturation, setup),
        cmocka_unit_test_setup(test_address_aliasing, setup),
        cmocka_unit_test_setup(test_history_mixing, setup),
        cmocka_unit_test_setup(test_accumulates, setup),
        cmocka_unit_test_setup(test_init_resets, setup),
        cmocka_unit_test_setup(test_indirect, setup),
        cmocka_unit_test_setup(test_differential, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
