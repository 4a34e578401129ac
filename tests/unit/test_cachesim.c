/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the Valgrind tool's cache simulator (valgrind/sim_cache.h),
 * compiled as host C.  Expected miss counts are worked out by hand in the
 * comments (state of a set written MRU first), or come from a second, naive
 * simulator below (per-line timestamps instead of shifting) over random
 * configurations and a pseudo-random trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Messages of the configuration code go to a buffer the tests can read. */
static char msgbuf[4096];
static void msg_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg_add(const char *fmt, ...)
{
    size_t n = strlen(msgbuf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msgbuf + n, sizeof msgbuf - n, fmt, ap);
    va_end(ap);
}
#define CACHESIM_DMSG(...) msg_add(__VA_ARGS__)
#define CACHESIM_UMSG(...) msg_add(__VA_ARGS__)

#define TALLY_SIM_HOST 1
#include "../../valgrind/sim_cache.h"

struct counts {
    ULong i1, il, d1, dl;
};

static void setup3(cache_cfg I1, cache_cfg D1, cache_cfg LL)
{
    cachesim_init(&I1, &D1, &LL);
}

static void dref(struct counts *c, Addr a, UChar size)
{
    cachesim_D1_doref(a, size, &c->d1, &c->dl);
}

static void iref(struct counts *c, Addr a, UChar size)
{
    cachesim_I1_doref(a, size, &c->i1, &c->il);
}

#define BIG_LL ((cache_cfg){1 << 20, 16, 64})

/* D1 256 B, direct-mapped, 64 B lines: 4 sets.  LL 4096 B, 4-way: 16 sets. */
static void test_direct_mapped(void **state)
{
    (void)state;
    struct counts c = {0};
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){4096, 4, 64});
    dref(&c, 0, 4); /* block 0: every tag starts 0, so it looks resident: hit */
    assert_int_equal(c.d1, 0);
    dref(&c, 64, 4);  /* block 1, set 1: miss; LL miss */
    dref(&c, 256, 4); /* block 4, set 0: miss (evicts 0); LL set 4 miss */
    dref(&c, 0, 4);   /* block 0: miss; LL set 0 still has tag 0: hit */
    dref(&c, 68, 4);  /* block 1: hit */
    dref(&c, 320, 4); /* block 5, set 1: miss; LL miss */
    dref(&c, 64, 4);  /* block 1: miss; LL hit */
    assert_int_equal(c.d1, 5);
    assert_int_equal(c.dl, 3);
    assert_int_equal(c.i1 + c.il, 0);
    cachesim_done();
}

/* D1 256 B, 2-way, 64 B lines: 2 sets; blocks 0, 2, 4, 6 share set 0. */
static void test_two_way_lru(void **state)
{
    (void)state;
    struct counts c = {0};
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){256, 2, 64}, BIG_LL);
    dref(&c, 128, 8); /* 2: miss [2 0] */
    dref(&c, 256, 8); /* 4: miss [4 2] */
    dref(&c, 128, 8); /* 2: hit  [2 4] */
    dref(&c, 384, 8); /* 6: miss [6 2] (4 was least recent) */
    assert_int_equal(c.d1, 3);
    dref(&c, 256, 8); /* 4: miss [4 6] */
    dref(&c, 384, 8); /* 6: hit  [6 4] */
    dref(&c, 128, 8); /* 2: miss [2 6] */
    dref(&c, 0, 8);   /* 0: miss [0 2] (the initial 0 was pushed out by 4) */
    dref(&c, 64, 8);  /* 1 (set 1): miss */
    assert_int_equal(c.d1, 7);
    cachesim_done();
}

/* D1 256 B, 4-way, 64 B lines: one set, fully associative. */
static void test_fully_associative(void **state)
{
    (void)state;
    struct counts c = {0};
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){256, 4, 64}, BIG_LL);
    static const int blocks[] = {1, 2, 3, 4, 1, 5, 2, 4, 3, 0};
    /* 1 2 3 4: misses [4 3 2 1]; 1 hit [1 4 3 2]; 5 miss [5 1 4 3]; 2 miss [2 5 1 4];
     * 4 hit [4 2 5 1]; 3 miss [3 4 2 5]; 0 miss (pushed out by 4) */
    static const int miss[] = {1, 1, 1, 1, 0, 1, 1, 0, 1, 1};
    ULong expect = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        dref(&c, (Addr)blocks[i] * 64 + 3, 4);
        expect += (ULong)miss[i];
        assert_int_equal(c.d1, expect);
    }
    cachesim_done();
}

/* Straddling accesses: both lines are looked up, one access, at most one miss. */
static void test_straddle(void **state)
{
    (void)state;
    struct counts c = {0};
    /* D1 8 sets 2-way, LL 32 sets 2-way */
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){1024, 2, 64}, (cache_cfg){4096, 2, 64});
    dref(&c, 60, 8); /* blocks 0 (hit, initial) and 1 (miss): one miss; LL same */
    assert_int_equal(c.d1, 1);
    assert_int_equal(c.dl, 1);
    dref(&c, 124, 8); /* blocks 1 (hit) and 2 (miss); LL: 1 hit, 2 miss */
    assert_int_equal(c.d1, 2);
    assert_int_equal(c.dl, 2);
    dref(&c, 60, 8); /* both resident */
    assert_int_equal(c.d1, 2);
    dref(&c, 16 * 64 + 60, 8); /* blocks 16 and 17 both miss: still one miss */
    assert_int_equal(c.d1, 3);
    assert_int_equal(c.dl, 3);
    dref(&c, 64, 64); /* a whole aligned line: block 1 only */
    assert_int_equal(c.d1, 3);
    cachesim_done();

    /* After a straddling L1 miss, LL sees both lines, even the one that hit
     * in L1.  D1 8 sets 2-way; LL 2048 B direct-mapped (32 sets). */
    memset(&c, 0, sizeof c);
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){1024, 2, 64}, (cache_cfg){2048, 1, 64});
    dref(&c, 33 * 64, 8); /* D1 set 1 [33 0]; LL set 1 = 33 */
    dref(&c, 1 * 64, 8);  /* D1 set 1 [1 33]; LL set 1 = 1 (33 leaves LL) */
    dref(&c, 34 * 64, 8); /* D1 set 2 [34 0]; LL set 2 = 34 */
    dref(&c, 10 * 64, 8); /* D1 set 2 [10 34]; LL set 10 */
    dref(&c, 18 * 64, 8); /* D1 set 2 [18 10] (34 leaves D1); LL set 18 */
    assert_int_equal(c.d1, 5);
    assert_int_equal(c.dl, 5);
    /* blocks 33 (D1 hit, LL miss) and 34 (D1 miss, LL hit): one D1 miss,
     * and one LL miss, which only the lookup of 33 in LL can cause */
    dref(&c, 34 * 64 - 4, 8);
    assert_int_equal(c.d1, 6);
    assert_int_equal(c.dl, 6);
    cachesim_done();
}

/* LL is shared by I and D and sees only L1 misses.  LL = one set of 2 ways. */
static void test_ll_sees_l1_misses(void **state)
{
    (void)state;
    struct counts c = {0};
    setup3((cache_cfg){1024, 2, 64}, (cache_cfg){1024, 2, 64}, (cache_cfg){128, 2, 64});
    dref(&c, 64, 4);  /* D1 miss; LL miss [1 0] */
    dref(&c, 128, 4); /* D1 miss; LL miss [2 1] */
    dref(&c, 64, 4);  /* D1 hit: LL not touched, stays [2 1] */
    iref(&c, 192, 4); /* I1 miss; LL miss, evicts 1: [3 2] */
    iref(&c, 128, 4); /* I1 miss; LL hit (brought in by a data read) [2 3] */
    assert_int_equal(c.d1, 2);
    assert_int_equal(c.dl, 2);
    assert_int_equal(c.i1, 2);
    assert_int_equal(c.il, 1);
    iref(&c, 64, 4); /* I1 miss; LL miss [1 2] */
    iref(&c, 64, 4); /* I1 hit */
    assert_int_equal(c.i1, 3);
    assert_int_equal(c.il, 2);
    /* an instruction straddling two I1 lines */
    iref(&c, 1024 + 60, 7); /* blocks 16, 17: I1 miss (one); LL 16, 17 miss (one) */
    assert_int_equal(c.i1, 4);
    assert_int_equal(c.il, 3);
    cachesim_done();
}

/* The IrNoX fast path gives the same counts as the general one. */
static void test_irnox(void **state)
{
    (void)state;
    setup3((cache_cfg){1024, 2, 64}, CACHESIM_DEFAULT_D1, (cache_cfg){4096, 4, 64});
    assert_true(cachesim_is_IrNoX(0, 4));
    assert_true(cachesim_is_IrNoX(60, 4));
    assert_false(cachesim_is_IrNoX(61, 4));
    struct counts a = {0}, b = {0};
    uint64_t x = 12345;
    Addr addrs[2000];
    UChar sizes[2000];
    for (int i = 0; i < 2000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        addrs[i] = (Addr)((x >> 33) % 16384);
        sizes[i] = (UChar)(1 + (x >> 20) % 15);
    }
    for (int i = 0; i < 2000; i++)
        iref(&a, addrs[i], sizes[i]);
    setup3((cache_cfg){1024, 2, 64}, CACHESIM_DEFAULT_D1, (cache_cfg){4096, 4, 64});
    for (int i = 0; i < 2000; i++) {
        if (cachesim_is_IrNoX(addrs[i], sizes[i]))
            cachesim_I1_doref_NoX(addrs[i], sizes[i], &b.i1, &b.il);
        else
            cachesim_I1_doref(addrs[i], sizes[i], &b.i1, &b.il);
    }
    assert_true(a.i1 > 0 && a.il > 0);
    assert_int_equal(a.i1, b.i1);
    assert_int_equal(a.il, b.il);
    /* different I1 and LL line sizes: never the fast path */
    setup3((cache_cfg){1024, 2, 32}, CACHESIM_DEFAULT_D1, (cache_cfg){4096, 4, 64});
    assert_false(cachesim_is_IrNoX(0, 4));
    cachesim_done();
}

static void check_rule(cache_cfg c, const char *part)
{
    const HChar *why = cachesim_check(&c, "D1");
    if (!part) {
        assert_null(why);
        return;
    }
    assert_non_null(why);
    if (!strstr(why, part)) fail_msg("'%s' does not contain '%s'", why, part);
    assert_true(strncmp(why, "D1 cache: ", 10) == 0);
}

/* Each rule, and the order they are checked in. */
/* --simulate-wb.  D1 512 B direct-mapped (8 sets), LL 512 B 2-way (4 sets,
 * tags = address bits above 256, bit 0 dirty); set written MRU first. */
static void test_write_back(void **state)
{
    (void)state;
    cachesim_set_models(True, False);
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){512, 1, 64}, (cache_cfg){512, 2, 64});
    /* block 0x40: D1 set 0, LL set 0 [0x1000, 0] */
    assert_int_equal(cachesim_D1_read(0x1000, 4), CACHESIM_LL_MISS);
    /* block 0x44: D1 set 4, LL set 0 [0x1100, 0x1000] */
    assert_int_equal(cachesim_D1_read(0x1100, 4), CACHESIM_LL_MISS);
    /* D1 hit; the write still reaches LL: [0x1000 dirty, 0x1100] */
    assert_int_equal(cachesim_D1_write(0x1000, 4), CACHESIM_L1_HIT);
    /* block 0x48: D1 set 0 miss; LL evicts 0x1100, clean: [0x1200, 0x1000 d] */
    assert_int_equal(cachesim_D1_read(0x1200, 4), CACHESIM_LL_MISS);
    /* D1 set 4 still holds block 0x44 */
    assert_int_equal(cachesim_D1_read(0x1100, 4), CACHESIM_L1_HIT);
    /* block 0x4c: D1 set 4 miss; LL evicts the dirty 0x1000 */
    assert_int_equal(cachesim_D1_read(0x1300, 4), CACHESIM_LL_MISS_DIRTY);
    /* block 0x50: a write miss makes its line dirty; LL evicts 0x1200:
     * [0x1400 d, 0x1300] */
    assert_int_equal(cachesim_D1_write(0x1400, 4), CACHESIM_LL_MISS);
    /* block 0x54: D1 set 4, LL evicts 0x1300: [0x1500, 0x1400 d] */
    assert_int_equal(cachesim_D1_read(0x1500, 4), CACHESIM_LL_MISS);
    /* -> 0x1600 evicts the dirty 0x1400 */
    assert_int_equal(cachesim_D1_read(0x1600, 4), CACHESIM_LL_MISS_DIRTY);
    /* block 0x55: D1 set 5 and LL set 1 both miss */
    assert_int_equal(cachesim_D1_read(0x1540, 4), CACHESIM_LL_MISS);
    /* an I1 miss reads LL the same way: 0x1500 is in LL set 0 [0x1600, 0x1500] */
    assert_int_equal(cachesim_I1_read(0x1500, 4), CACHESIM_LL_HIT);
    cachesim_done();

    /* tags start 0: in the write-back LL the first 256 bytes (4 sets * 64 B)
     * look resident in every set, not only block 0 in set 0 */
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){512, 1, 64}, (cache_cfg){512, 2, 64});
    assert_int_equal(cachesim_D1_read(0x80, 4), CACHESIM_LL_HIT);
    cachesim_done();

    /* the tags keep address bits 31..8 only: 4 GiB further on is the same
     * line (block 0x40 comes in; 0x100001000 misses D1, hits in LL) */
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){512, 1, 64}, (cache_cfg){512, 2, 64});
    assert_int_equal(cachesim_D1_read(0x1000, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x100001000ul, 4), CACHESIM_LL_HIT);
    cachesim_done();

    cachesim_set_models(False, False);
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){512, 1, 64}, (cache_cfg){512, 2, 64});
    assert_int_equal(cachesim_D1_read(0x80, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x1000, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x100001000ul, 4), CACHESIM_LL_MISS);
    cachesim_done();
}

/* --simulate-hwpref.  D1 256 B direct-mapped (4 sets), LL 4096 B 4-way (16
 * sets).  Streams: page number % 8. */
static void test_prefetch(void **state)
{
    (void)state;
    cachesim_set_models(False, True);
    setup3(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){4096, 4, 64});
    /* stream 0: blocks 0x400 (last 0: no run), 0x401 (run 1), 0x402 (run 2:
     * prefetch 0x10080 + 5 * 64 = 0x101c0), 0x403 (run 3: 0x10200) */
    assert_int_equal(cachesim_D1_read(0x10000, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x10040, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x10080, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x100c0, 4), CACHESIM_LL_MISS);
    /* both prefetched lines hit in LL (0x407 breaks the run: run 0) */
    assert_int_equal(cachesim_D1_read(0x101c0, 4), CACHESIM_LL_HIT);
    assert_int_equal(cachesim_D1_read(0x10200, 4), CACHESIM_LL_HIT);
    /* stream 1 (page 0x21), downwards: 0x847, 0x846 (run -1), 0x845 (run -2:
     * prefetch 0x21140 - 0x140 = 0x21000) */
    assert_int_equal(cachesim_D1_read(0x211c0, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x21180, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x21140, 4), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_D1_read(0x21000, 4), CACHESIM_LL_HIT);
    /* a line not prefetched */
    assert_int_equal(cachesim_D1_read(0x210c0, 4), CACHESIM_LL_MISS);
    cachesim_done();

    /* who tells the prefetcher: reads and writes on D1 misses; with
     * write-back as well, every write before D1.  Stream 0 (page 0x40):
     * reads of blocks 0x1000..0x1002 (run 2, prefetch of 0x401c0); a write
     * that hits D1 at 0x1000; a write missing D1 at 0x1003; a read at
     * 0x40200. */
    for (int wb = 0; wb < 2; wb++) {
        cachesim_set_models(wb, True);
        setup3(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){4096, 4, 64});
        cachesim_D1_read(0x40000, 4);
        cachesim_D1_read(0x40040, 4);
        cachesim_D1_read(0x40080, 4);
        assert_int_equal(cachesim_D1_write(0x40000, 4), CACHESIM_L1_HIT);
        cachesim_D1_write(0x400c0, 4);
        /* without write-back only the miss counted: 0x1003 continues the
         * run (3: prefetch of 0x40200); with it the hit at 0x1000 broke the
         * run first, so 0x1003 starts none */
        assert_int_equal(cachesim_D1_read(0x40200, 4), wb ? CACHESIM_LL_MISS : CACHESIM_LL_HIT);
        cachesim_done();
    }
    cachesim_set_models(False, False);
}

static void test_check(void **state)
{
    (void)state;
    check_rule((cache_cfg){65536, 2, 64}, NULL);
    check_rule((cache_cfg){49152, 12, 64}, NULL); /* 64 sets */
    check_rule((cache_cfg){128, 2, 64}, NULL);    /* one set */
    check_rule((cache_cfg){32, 1, 16}, NULL);
    check_rule((cache_cfg){0, 2, 64}, "positive");
    check_rule((cache_cfg){65536, 0, 64}, "positive");
    check_rule((cache_cfg){65536, 2, -64}, "positive");
    check_rule((cache_cfg){12582912, 16, 64}, "number of sets"); /* 12288 sets */
    check_rule((cache_cfg){128, 4, 64}, "number of sets");       /* size % (line*assoc) */
    check_rule((cache_cfg){144, 3, 16}, "number of sets");       /* 3 sets */
    /* 96/48 = 2 sets, line 48: passes the set rule, fails the line rule */
    check_rule((cache_cfg){96, 1, 48}, "line size is not a power of two");
    /* line 8 and 12: both too small, but 12 fails the power-of-two rule first */
    check_rule((cache_cfg){64, 1, 8}, "16-byte minimum");
    check_rule((cache_cfg){48, 1, 12}, "line size is not a power of two");
    /* 3 sets of 8-byte lines: the set rule comes before the line rules */
    check_rule((cache_cfg){24, 1, 8}, "number of sets");
    check_rule((cache_cfg){64, 1, 64}, "not larger than one line");
    check_rule((cache_cfg){16, 1, 16}, "not larger than one line");
    assert_null(cachesim_check(&(cache_cfg){65536, 2, 64}, NULL));
    const HChar *why = cachesim_check(&(cache_cfg){64, 1, 8}, NULL);
    assert_non_null(why);
    assert_true(strncmp(why, "the line size", 13) == 0);
}

static void test_parse(void **state)
{
    (void)state;
    cache_cfg i1 = CACHESIM_CFG_UNSET, d1 = CACHESIM_CFG_UNSET, ll = CACHESIM_CFG_UNSET;
    const HChar *err = "x";
    assert_false(CACHESIM_CFG_IS_SET(&i1));
    assert_true(cachesim_parse_opt_msg("--I1=32768,8,64", &i1, &d1, &ll, &err));
    assert_null(err);
    assert_int_equal(i1.size, 32768);
    assert_int_equal(i1.assoc, 8);
    assert_int_equal(i1.line_size, 64);
    assert_false(CACHESIM_CFG_IS_SET(&d1));
    assert_true(cachesim_parse_opt_msg("--D1=49152,12,64", &i1, &d1, &ll, &err));
    assert_null(err);
    assert_int_equal(d1.size, 49152);
    assert_int_equal(d1.assoc, 12);
    assert_true(cachesim_parse_opt_msg("--L2=262144,8,64", &i1, &d1, &ll, &err));
    assert_null(err);
    assert_int_equal(ll.size, 262144);
    assert_true(cachesim_parse_opt_msg("--LL=2097152,16,64", &i1, &d1, &ll, &err));
    assert_null(err);
    assert_int_equal(ll.size, 2097152);
    assert_int_equal(ll.assoc, 16);

    /* bad values: recognised, error set, cache unchanged */
    static const char *const bad[] = {
        "--LL=12582912,16,64", /* 12288 sets */
        "--LL=",
        "--LL=1,2",
        "--LL=65536,2,64,",
        "--LL=65536,2,64x",
        "--LL=a,b,c",
        "--LL=65536,,64",
        "--LL=-65536,2,64",
        "--LL=65536, 2,64",
        "--LL=2147483648,2,64", /* > INT_MAX */
        "--LL=99999999999999999999999,2,64",
        "--LL=65536,2,8",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = NULL;
        assert_true(cachesim_parse_opt_msg(bad[i], &i1, &d1, &ll, &err));
        if (!err) fail_msg("accepted %s", bad[i]);
        assert_int_equal(ll.size, 2097152);
        assert_int_equal(ll.assoc, 16);
    }
    cachesim_parse_opt_msg("--LL=2147483648,2,64", &i1, &d1, &ll, &err);
    assert_non_null(strstr(err, "too large"));
    cachesim_parse_opt_msg("--LL=12582912,16,64", &i1, &d1, &ll, &err);
    assert_non_null(strstr(err, "LL cache: "));

    /* not ours */
    assert_false(cachesim_parse_opt_msg("--I1", &i1, &d1, &ll, &err));
    assert_false(cachesim_parse_opt_msg("--L1=65536,2,64", &i1, &d1, &ll, &err));
    assert_false(cachesim_parse_opt_msg("--cache-sim=yes", &i1, &d1, &ll, &err));
    assert_false(cachesim_parse_opt_msg("-I1=65536,2,64", &i1, &d1, &ll, &err));
}

static void test_desc(void **state)
{
    (void)state;
    char buf[64];
    cachesim_desc(&(cache_cfg){65536, 16, 64}, buf);
    assert_string_equal(buf, "65536 B, 64 B, 16-way associative");
    cachesim_desc(&(cache_cfg){503316480, 30, 64}, buf);
    assert_string_equal(buf, "503316480 B, 64 B, 30-way associative");
    cachesim_desc(&(cache_cfg){2048, 1, 64}, buf);
    assert_string_equal(buf, "2048 B, 64 B, direct-mapped");
}

static void test_tweak(void **state)
{
    (void)state;
    /* 480 MiB, 16-way, 64 B: 491520 sets -> 262144 sets, assoc
     * (int)(0.5 + 1.875 * 16) = 30, size 64 * 30 * 262144 */
    cache_cfg ll = {480 * 1024 * 1024, 16, 64};
    msgbuf[0] = '\0';
    cachesim_tweak_LL(&ll);
    assert_int_equal(ll.size, 503316480);
    assert_int_equal(ll.assoc, 30);
    assert_int_equal(ll.line_size, 64);
    assert_non_null(strstr(msgbuf, "specified LL cache: line_size 64  assoc 16  total_size"));
    assert_non_null(strstr(msgbuf, "simulated LL cache: line_size 64  assoc 30  total_size"));
    /* 12 MiB 16-way: 12288 sets -> 8192, assoc 24, same size */
    ll = (cache_cfg){12 * 1024 * 1024, 16, 64};
    cachesim_tweak_LL(&ll);
    assert_int_equal(ll.size, 12 * 1024 * 1024);
    assert_int_equal(ll.assoc, 24);
    /* 5 MiB 48-way: 1706 sets -> 1024, assoc (int)(0.5 + 1.666015625 * 48) = 80 */
    ll = (cache_cfg){5 * 1024 * 1024, 48, 64};
    cachesim_tweak_LL(&ll);
    assert_int_equal(ll.assoc, 80);
    assert_int_equal(ll.size, 64 * 80 * 1024);
    /* a power-of-two set count: only the size is rounded to whole sets */
    ll = (cache_cfg){262144 + 100, 8, 64};
    cachesim_tweak_LL(&ll);
    assert_int_equal(ll.size, 262144);
    assert_int_equal(ll.assoc, 8);
    /* nothing to do: no message */
    msgbuf[0] = '\0';
    ll = (cache_cfg){262144, 8, 64};
    cachesim_tweak_LL(&ll);
    assert_int_equal(ll.size, 262144);
    assert_string_equal(msgbuf, "");
}

/* This machine as the core reports it: L1 I and D, L2 and L3 unified. */
static const cachesim_hw host_kvm[] = {
    {CACHESIM_HW_DATA, 1, 49152, 64, 12, 0},
    {CACHESIM_HW_INSN, 1, 32768, 64, 8, 0},
    {CACHESIM_HW_UNIFIED, 2, 2097152, 64, 16, 0},
    {CACHESIM_HW_UNIFIED, 3, 480 * 1024 * 1024, 64, 16, 0},
};

static void test_configure(void **state)
{
    (void)state;
    cache_cfg i1 = CACHESIM_CFG_UNSET, d1 = CACHESIM_CFG_UNSET, ll = CACHESIM_CFG_UNSET;

    /* auto-detected: L3 becomes LL and is tweaked */
    msgbuf[0] = '\0';
    assert_true(cachesim_configure_from(host_kvm, 4, 3, &i1, &d1, &ll, False, 32));
    assert_int_equal(i1.size, 32768);
    assert_int_equal(i1.assoc, 8);
    assert_int_equal(d1.size, 49152);
    assert_int_equal(d1.assoc, 12);
    assert_int_equal(ll.size, 503316480);
    assert_int_equal(ll.assoc, 30);
    assert_non_null(strstr(msgbuf, "warning: L3 cache found, using its data for the LL"));
    assert_non_null(strstr(msgbuf, "simulated LL cache"));
    assert_null(strstr(msgbuf, "Cache configuration used"));

    /* command-line caches win and are never tweaked; the warnings remain */
    msgbuf[0] = '\0';
    i1 = (cache_cfg){65536, 2, 64};
    d1 = CACHESIM_CFG_UNSET;
    ll = (cache_cfg){4194304, 16, 64};
    assert_true(cachesim_configure_from(host_kvm, 4, 3, &i1, &d1, &ll, True, 32));
    assert_int_equal(i1.size, 65536);
    assert_int_equal(i1.assoc, 2);
    assert_int_equal(d1.size, 49152);
    assert_int_equal(ll.size, 4194304);
    assert_int_equal(ll.assoc, 16);
    assert_non_null(strstr(msgbuf, "L3 cache found"));
    assert_non_null(strstr(msgbuf, "Cache configuration used:\n"));
    assert_non_null(strstr(msgbuf, "  D1: 49152 B, 12-way, 64 B lines\n"));

    /* nothing known: the defaults, with a warning unless all three were given */
    msgbuf[0] = '\0';
    i1 = d1 = ll = CACHESIM_CFG_UNSET;
    assert_true(cachesim_configure_from(NULL, 0, 0, &i1, &d1, &ll, False, 32));
    assert_int_equal(i1.size, 65536);
    assert_int_equal(i1.assoc, 2);
    assert_int_equal(d1.size, 65536);
    assert_int_equal(ll.size, 262144);
    assert_int_equal(ll.assoc, 8);
    assert_non_null(strstr(msgbuf, "Cannot auto-detect cache config, using defaults"));
    assert_null(strstr(msgbuf, "L2 cache not installed"));
    msgbuf[0] = '\0';
    i1 = d1 = ll = (cache_cfg){32768, 4, 64};
    assert_true(cachesim_configure_from(NULL, 0, 0, &i1, &d1, &ll, False, 32));
    assert_string_equal(msgbuf, "");
    assert_int_equal(ll.size, 32768);

    /* caches but no unified top level: warning, then the defaults */
    msgbuf[0] = '\0';
    i1 = d1 = ll = CACHESIM_CFG_UNSET;
    assert_true(cachesim_configure_from(host_kvm, 2, 1, &i1, &d1, &ll, False, 32));
    assert_non_null(strstr(msgbuf, "L2 cache not installed"));
    assert_non_null(strstr(msgbuf, "using defaults"));
    assert_int_equal(d1.size, 65536);
    assert_int_equal(ll.size, 262144);

    /* Pentium 4 trace cache: 12 K micro-ops simulated as 16 KiB, 32 B lines */
    static const cachesim_hw p4[] = {
        {CACHESIM_HW_INSN, 1, 12 * 1024, 0, 8, 1},
        {CACHESIM_HW_DATA, 1, 8192, 64, 4, 0},
        {CACHESIM_HW_UNIFIED, 2, 524288, 64, 8, 0},
    };
    msgbuf[0] = '\0';
    i1 = d1 = ll = CACHESIM_CFG_UNSET;
    assert_true(cachesim_configure_from(p4, 3, 2, &i1, &d1, &ll, False, 16));
    assert_int_equal(i1.size, 16384);
    assert_int_equal(i1.assoc, 8);
    assert_int_equal(i1.line_size, 32);
    assert_non_null(strstr(msgbuf, "Pentium 4 with 12 KB"));
    assert_null(strstr(msgbuf, "cache found")); /* two levels: no LL notice */

    /* a detected cache that cannot be simulated stops the run, unless given */
    static const cachesim_hw odd[] = {
        {CACHESIM_HW_DATA, 1, 49152, 64, 8, 0}, /* 96 sets */
        {CACHESIM_HW_INSN, 1, 32768, 64, 8, 0},
        {CACHESIM_HW_UNIFIED, 2, 1048576, 64, 16, 0},
    };
    msgbuf[0] = '\0';
    i1 = d1 = ll = CACHESIM_CFG_UNSET;
    assert_false(cachesim_configure_from(odd, 3, 2, &i1, &d1, &ll, False, 32));
    assert_non_null(strstr(msgbuf, "--D1="));
    msgbuf[0] = '\0';
    d1 = (cache_cfg){32768, 8, 64};
    assert_true(cachesim_configure_from(odd, 3, 2, &i1, &d1, &ll, False, 32));
    assert_int_equal(d1.size, 32768);
    assert_non_null(strstr(msgbuf, "D1 cache cannot be simulated"));

    /* lines shorter than the widest register stop the run */
    i1 = ll = CACHESIM_CFG_UNSET;
    d1 = (cache_cfg){32768, 8, 16};
    assert_false(cachesim_configure_from(host_kvm, 4, 3, &i1, &d1, &ll, False, 32));
    d1 = (cache_cfg){32768, 8, 16};
    assert_true(cachesim_configure_from(host_kvm, 4, 3, &i1, &d1, &ll, False, 16));
}

/* ---- the naive simulator ------------------------------------------------ */

/* Each set is a list of (block, last use) pairs, at most assoc of them; a
 * miss fills an empty place or replaces the pair used longest ago.  Set 0
 * starts with block 0 (Cachegrind's all-zero tags). */
struct naive_line {
    uint64_t block, used;
};
struct naive_cache {
    int sets, assoc, line;
    int *count;
    struct naive_line *lines;
    uint64_t clock;
};

static void naive_init(struct naive_cache *c, cache_cfg cfg)
{
    c->line = cfg.line_size;
    c->assoc = cfg.assoc;
    c->sets = cfg.size / cfg.line_size / cfg.assoc;
    c->count = calloc((size_t)c->sets, sizeof *c->count);
    c->lines = calloc((size_t)c->sets * (size_t)c->assoc, sizeof *c->lines);
    c->count[0] = 1;
    c->clock = 1;
}

static void naive_free(struct naive_cache *c)
{
    free(c->count);
    free(c->lines);
}

static int naive_block(struct naive_cache *c, uint64_t block)
{
    int s = (int)(block % (uint64_t)c->sets);
    struct naive_line *l = c->lines + (size_t)s * (size_t)c->assoc;
    c->clock++;
    for (int i = 0; i < c->count[s]; i++)
        if (l[i].block == block) {
            l[i].used = c->clock;
            return 0;
        }
    int victim = c->count[s];
    if (victim == c->assoc) {
        victim = 0;
        for (int i = 1; i < c->assoc; i++)
            if (l[i].used < l[victim].used) victim = i;
    } else {
        c->count[s]++;
    }
    l[victim].block = block;
    l[victim].used = c->clock;
    return 1;
}

/* 1 if any byte of [a, a+size) missed; every line touched is looked up. */
static int naive_access(struct naive_cache *c, uint64_t a, int size)
{
    int miss = 0;
    for (uint64_t b = a / (uint64_t)c->line; b <= (a + (uint64_t)size - 1) / (uint64_t)c->line; b++)
        miss |= naive_block(c, b);
    return miss;
}

static cache_cfg random_cfg(uint64_t *x, int min_line)
{
    static const int assocs[] = {1, 2, 3, 4, 6, 8, 12, 16};
    for (;;) {
        *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
        int line = 16 << ((*x >> 40) % 4); /* 16..128 */
        if (line < min_line) continue;
        int assoc = assocs[(*x >> 44) % 8];
        int sets = 1 << ((*x >> 50) % 7); /* 1..64 */
        cache_cfg c = {line * assoc * sets, assoc, line};
        if (cachesim_check(&c, NULL) == NULL) return c;
    }
}

static void test_differential(void **state)
{
    (void)state;
    uint64_t x = 42;
    /* the trace: mostly a small working set, some far addresses, a few near 0 */
    enum { N = 20000 };
    static uint64_t addr[N];
    static unsigned char size[N], is_instr[N];
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t r = x >> 16;
        unsigned kind = (unsigned)(r % 10);
        if (kind < 6)
            addr[i] = (r >> 8) % 8192;
        else if (kind < 9)
            addr[i] = 0x7ff000000000ULL + (r >> 8) % 65536;
        else
            addr[i] = (r >> 8) % 256;
        is_instr[i] = (r >> 40) % 3 == 0;
        size[i] = is_instr[i] ? (unsigned char)(1 + (r >> 44) % 15)
                              : (unsigned char)(1u << ((r >> 44) % 5)); /* 1..16 */
    }

    for (int round = 0; round < 300; round++) {
        cache_cfg cfg[3];
        for (int k = 0; k < 3; k++)
            cfg[k] = random_cfg(&x, 16);
        cachesim_init(&cfg[0], &cfg[1], &cfg[2]);
        struct naive_cache n[3];
        for (int k = 0; k < 3; k++)
            naive_init(&n[k], cfg[k]);
        struct counts got = {0}, want = {0};
        for (int i = 0; i < N; i++) {
            if (is_instr[i]) {
                if (cachesim_is_IrNoX(addr[i], size[i]))
                    cachesim_I1_doref_NoX(addr[i], size[i], &got.i1, &got.il);
                else
                    cachesim_I1_doref(addr[i], size[i], &got.i1, &got.il);
                if (naive_access(&n[0], addr[i], size[i])) {
                    want.i1++;
                    want.il += (ULong)naive_access(&n[2], addr[i], size[i]);
                }
            } else {
                cachesim_D1_doref(addr[i], size[i], &got.d1, &got.dl);
                if (naive_access(&n[1], addr[i], size[i])) {
                    want.d1++;
                    want.dl += (ULong)naive_access(&n[2], addr[i], size[i]);
                }
            }
        }
        if (got.i1 != want.i1 || got.il != want.il || got.d1 != want.d1 || got.dl != want.dl)
            fail_msg("I1 %d,%d,%d D1 %d,%d,%d LL %d,%d,%d: got %llu %llu %llu %llu, "
                     "naive %llu %llu %llu %llu",
                     cfg[0].size, cfg[0].assoc, cfg[0].line_size, cfg[1].size, cfg[1].assoc,
                     cfg[1].line_size, cfg[2].size, cfg[2].assoc, cfg[2].line_size, got.i1, got.il,
                     got.d1, got.dl, want.i1, want.il, want.d1, want.dl);
        for (int k = 0; k < 3; k++)
            naive_free(&n[k]);
    }
    cachesim_done();
}

/* --cacheuse: the charges made, by cost centre (1..3) and level (0: L1,
 * 1: LL). */
static struct {
    ULong acc, loss;
    UInt calls;
} cu_got[4][2];
static Bool cu_collect = True;

static void cu_record(void *cc, UInt who, Int level, UInt accost, UInt sploss)
{
    UWord k = (UWord)cc;
    assert_true(k >= 1 && k <= 3 && (level == 0 || level == 1));
    assert_int_equal(who, 7 * k); /* the loader's tag comes back */
    cu_got[k][level].acc += accost;
    cu_got[k][level].loss += sploss;
    cu_got[k][level].calls++;
}

static void cu_setup(cache_cfg I1, cache_cfg D1, cache_cfg LL)
{
    memset(cu_got, 0, sizeof cu_got);
    cu_collect = True;
    cachesim_set_cacheuse(True, cu_record, &cu_collect);
    cachesim_init(&I1, &D1, &LL);
}

static Int cu_read(UWord who, Addr a, UChar size)
{
    return cachesim_cu_D1(a, size, (void *)who, (UInt)(7 * who));
}

#define CU_EXPECT(k, level, a, l)                                                                  \
    do {                                                                                           \
        assert_int_equal(cu_got[k][level].acc, (a));                                               \
        assert_int_equal(cu_got[k][level].loss, (l));                                              \
    } while (0)

/* D1 256 B direct-mapped, 64 B lines (4 sets; tags: address bits 31..8);
 * LL 512 B 2-way (4 sets).  A use bit stands for 2 bytes of a line. */
static void test_cacheuse(void **state)
{
    (void)state;
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){512, 2, 64});
    /* 1 reads 0x1000 (bytes 0-3: bits 0-1): D1 set 0 and LL set 0 miss;
     * LL gives it its slot of way 1 (the least recently used) */
    assert_int_equal(cu_read(1, 0x1000, 4), CACHESIM_LL_MISS);
    /* bytes 16-23 (bits 8-11): a hit, 2 uses, 6 bits */
    assert_int_equal(cu_read(1, 0x1010, 8), CACHESIM_L1_HIT);
    /* 2 reads 0x1100 (D1 set 0): 1's line leaves D1: 1000/2, 64 - 12 bytes
     * unused; its use goes to its LL slot.  LL set 0 misses too: the line
     * of 0x1100 takes the other slot (a tag-0 line never used) */
    assert_int_equal(cu_read(2, 0x1100, 4), CACHESIM_LL_MISS);
    CU_EXPECT(1, 0, 500, 52);
    CU_EXPECT(1, 1, 0, 0);
    /* 2 reads 0x1200: its D1 line leaves (1 use, 4 bytes: 1000, 60); LL set
     * 0 evicts the least recently used 0x1000 with the use D1 passed on */
    assert_int_equal(cu_read(2, 0x1200, 4), CACHESIM_LL_MISS);
    CU_EXPECT(2, 0, 1000, 60);
    CU_EXPECT(1, 1, 500, 52);
    assert_int_equal(cu_got[1][1].calls, 1);
    /* LL lookups count no use: 0x1100 leaves D1 and LL ... */
    assert_int_equal(cu_read(3, 0x1100, 4), CACHESIM_LL_HIT);
    CU_EXPECT(2, 0, 2000, 120);
    /* the end: D1 (0x1100 of 3) first, its use to LL, then LL: 0x1100 (2's
     * line: 2 uses from D1, the same 2 bits: 500, 60), 0x1200 (2's: 1 use) */
    cachesim_cu_finish();
    CU_EXPECT(3, 0, 1000, 60);
    CU_EXPECT(2, 1, 500 + 1000, 60 + 60);
    CU_EXPECT(3, 1, 0, 0);
    /* at the end every line is charged once: a second finish adds nothing */
    cachesim_cu_finish();
    CU_EXPECT(2, 1, 1500, 120);
    cachesim_done();

    /* nothing is charged, nor passed on to LL, while not collecting */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){512, 2, 64});
    cu_read(1, 0x1000, 4);
    cu_collect = False;
    cu_read(2, 0x1100, 4);
    cu_collect = True;
    cu_read(2, 0x1200, 4); /* 0x1000 leaves LL with no use: no charge */
    CU_EXPECT(1, 0, 0, 0);
    CU_EXPECT(1, 1, 0, 0);
    CU_EXPECT(2, 0, 1000, 60);
    cu_collect = False;
    cachesim_cu_finish(); /* the end while not collecting: nothing */
    CU_EXPECT(2, 0, 1000, 60);
    CU_EXPECT(2, 1, 0, 0);
    cachesim_done();
}

/* The use bits of other line sizes, a straddle, the tags of 32 bits and
 * line 0, which never reaches LL. */
static void test_cacheuse_lines(void **state)
{
    (void)state;
    /* 16-byte lines: 2 bits a byte; 4 bytes read: 16 - 4 unused */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){64, 1, 16}, (cache_cfg){4096, 4, 16});
    cu_read(1, 0x1000, 4);
    cu_read(2, 0x1040, 1); /* D1 set 0 again */
    CU_EXPECT(1, 0, 1000, 12);
    cachesim_done();
    /* 32-byte lines: a bit a byte */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){128, 1, 32}, (cache_cfg){4096, 4, 32});
    cu_read(1, 0x1003, 5);
    cu_read(1, 0x1003, 5);
    cu_read(2, 0x1080, 1);
    CU_EXPECT(1, 0, 500, 27);
    cachesim_done();
    /* 128-byte lines: a bit for 4 bytes; bytes 3-4 touch bits 0 and 1 */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){512, 1, 128}, (cache_cfg){4096, 4, 128});
    cu_read(1, 0x1003, 2);
    cu_read(2, 0x1200, 1);
    CU_EXPECT(1, 0, 1000, 120);
    cachesim_done();

    /* D1 256 B 2-way (2 sets, tags: bits 31..7).  A straddle is one access
     * and its result the worse of its lines: 0x10fc..0x1103 brings in
     * 0x1100 (bits 0-1 used) whose other half is read ...  */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){256, 2, 64}, (cache_cfg){4096, 4, 64});
    assert_int_equal(cu_read(1, 0x1100, 4), CACHESIM_LL_MISS);
    /* ... the first line misses (LL too), the second hits: a miss; line
     * 0x10c0 gets bits 30-31, line 0x1100 bits 0-1 once more */
    assert_int_equal(cu_read(2, 0x10fc, 8), CACHESIM_LL_MISS);
    cachesim_cu_finish();
    CU_EXPECT(1, 0, 500, 60);  /* 2 uses, 4 bytes */
    CU_EXPECT(2, 0, 1000, 60); /* 1 use, 4 bytes */
    cachesim_done();

    /* tags keep address bits 31..8: 4 GiB + 0x40 is set 1's tag-0 line,
     * there from the start (and never charged: no instruction brought it) */
    cu_setup(CACHESIM_DEFAULT_I1, (cache_cfg){256, 1, 64}, (cache_cfg){512, 2, 64});
    assert_int_equal(cu_read(1, 0x100000040ul, 4), CACHESIM_L1_HIT);
    cu_read(2, 0x1040, 4);
    CU_EXPECT(1, 0, 0, 0);
    /* line 0 comes into D1 without LL being asked (an LL hit) */
    cu_read(2, 0x1000, 4);
    assert_int_equal(cu_read(3, 0x0, 4), CACHESIM_LL_HIT);
    cachesim_cu_finish();
    CU_EXPECT(2, 0, 2000, 120);
    CU_EXPECT(3, 0, 1000, 60);
    /* LL: 0x1040 (1 use); 0x1000 with 2: line 0 kept the LL slot its D1
     * slot had (0x1000's), so its use went there too, as in Callgrind */
    CU_EXPECT(2, 1, 1000 + 500, 60 + 60);
    CU_EXPECT(3, 1, 0, 0);
    /* instruction fetches go through I1 the same way */
    cachesim_done();
    cu_setup((cache_cfg){256, 1, 64}, (cache_cfg){256, 1, 64}, (cache_cfg){512, 2, 64});
    assert_int_equal(cachesim_cu_I1(0x2000, 3, (void *)1, 7), CACHESIM_LL_MISS);
    assert_int_equal(cachesim_cu_I1(0x2003, 5, (void *)1, 7), CACHESIM_L1_HIT);
    assert_int_equal(cu_read(2, 0x2000, 4), CACHESIM_LL_HIT); /* LL is shared */
    cachesim_cu_finish();
    CU_EXPECT(1, 0, 500, 56);
    CU_EXPECT(1, 1, 333, 56); /* 3 uses from I1 and D1, 8 bytes */
    cachesim_done();
    cachesim_set_cacheuse(False, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direct_mapped),
        cmocka_unit_test(test_two_way_lru),
        cmocka_unit_test(test_fully_associative),
        cmocka_unit_test(test_straddle),
        cmocka_unit_test(test_ll_sees_l1_misses),
        cmocka_unit_test(test_irnox),
        cmocka_unit_test(test_write_back),
        cmocka_unit_test(test_prefetch),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_desc),
        cmocka_unit_test(test_tweak),
        cmocka_unit_test(test_configure),
        cmocka_unit_test(test_differential),
        cmocka_unit_test(test_cacheuse),
        cmocka_unit_test(test_cacheuse_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
