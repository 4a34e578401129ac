/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gmon.c - the gmon.out reader, summing rules and writer.
 *
 * Every file here is built byte by byte by the small builder below, in the
 * byte order and address size under test, following the layouts described
 * in /work/shared/research/gprof.md section 1 (not tally's own writer), so
 * the expected values are known by construction.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <unistd.h>

#include "formats/gmon.h"

/* ------------------------------------------------------------------------ */
/* A byte builder                                                           */
/* ------------------------------------------------------------------------ */

struct bld {
    unsigned char d[8192];
    size_t n;
    int be;
    unsigned A;
};

static void put(struct bld *b, uint64_t v, unsigned n)
{
    assert_true(n <= 8 && b->n + n <= sizeof b->d);
    for (unsigned i = 0; i < n; i++) {
        unsigned shift = b->be ? 8 * (n - 1 - i) : 8 * i;
        b->d[b->n++] = (unsigned char)(v >> shift);
    }
}

static void vma(struct bld *b, uint64_t v)
{
    put(b, v, b->A);
}

static void raw(struct bld *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->d);
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void gnu_header(struct bld *b, uint32_t version)
{
    raw(b, "gmon", 4);
    put(b, version, 4);
    for (int i = 0; i < 12; i++)
        put(b, 0, 1);
}

/* A histogram record's tag and header, without the bins. */
static void gnu_hist_hdr(struct bld *b, uint64_t low, uint64_t high, uint32_t nbins, uint32_t rate,
                         const char *dimen, char abbrev)
{
    put(b, 0, 1);
    vma(b, low);
    vma(b, high);
    put(b, nbins, 4);
    put(b, rate, 4);
    char d[15] = {0};
    memcpy(d, dimen, strlen(dimen) < 15 ? strlen(dimen) : 15);
    raw(b, d, 15);
    put(b, (unsigned char)abbrev, 1);
}

/* A whole histogram record; bins NULL = all zero. */
static void gnu_hist(struct bld *b, uint64_t low, uint64_t high, uint32_t nbins, uint32_t rate,
                     const char *dimen, char abbrev, const uint16_t *bins)
{
    gnu_hist_hdr(b, low, high, nbins, rate, dimen, abbrev);
    for (uint32_t i = 0; i < nbins; i++)
        put(b, bins ? bins[i] : 0, 2);
}

static void gnu_arc(struct bld *b, uint64_t from, uint64_t self, uint32_t count)
{
    put(b, 1, 1);
    vma(b, from);
    vma(b, self);
    put(b, count, 4);
}

/* Version-1 BB record with n (addr, count) pairs. */
static void gnu_bb(struct bld *b, uint32_t n, const uint64_t *pairs)
{
    put(b, 2, 1);
    put(b, n, 4);
    for (uint32_t i = 0; i < 2 * n; i++)
        vma(b, pairs[i]);
}

/* BSD: old (rate == 0) or 4.4BSD header, then bins, then arcs added by the caller. */
static void bsd_header(struct bld *b, uint64_t low, uint64_t high, uint32_t nbins, int bsd44,
                       uint32_t rate)
{
    unsigned hdr = bsd44 ? (b->A == 4 ? 32 : 40) : (b->A == 4 ? 12 : 20);
    vma(b, low);
    vma(b, high);
    put(b, nbins * 2 + hdr, 4);
    if (bsd44) {
        put(b, 0x00051879, 4);
        put(b, rate, 4);
        for (int i = 0; i < 12; i++)
            put(b, 0, 1);
    }
    assert_int_equal(b->n, hdr);
}

static void bsd_arc(struct bld *b, uint64_t from, uint64_t self, uint64_t count)
{
    vma(b, from);
    vma(b, self);
    put(b, count, b->A);
}

static struct gmon_read_opts ropts(const struct bld *b)
{
    struct gmon_read_opts o = {0};
    o.flavour = GMON_FLAVOUR_AUTO;
    o.layout.addr_size = b->A;
    o.layout.big_endian = b->be;
    o.hertz = 100;
    return o;
}

static void must_read(struct gmon *g, const struct bld *b, const struct gmon_read_opts *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    if (gmon_read_mem(g, "t.out", b->d, b->n, o, &err))
        fail_msg("unexpected error: %s: %s", err.file, err.msg);
}

/* The read must fail with a message containing `part`, naming the file. */
static void must_fail(struct gmon *g, const struct bld *b, const struct gmon_read_opts *o,
                      const char *part)
{
    struct tally_error err;
    tally_error_clear(&err);
    if (gmon_read_mem(g, "t.out", b->d, b->n, o, &err) == 0)
        fail_msg("no error, expected '%s'", part);
    assert_string_equal(err.file, "t.out");
    assert_int_equal(err.line, 0);
    if (!strstr(err.msg, part)) fail_msg("got '%s', expected '%s'", err.msg, part);
}

static const uint16_t bins4[4] = {1, 0, 7, 65535};

/* ------------------------------------------------------------------------ */
/* GNU format                                                               */
/* ------------------------------------------------------------------------ */

/* Records in mixed order, each layout; every value checked. */
static void gnu_mixed(int be, unsigned A)
{
    struct bld b = {.be = be, .A = A};
    gnu_header(&b, 1);
    gnu_arc(&b, 0x1240, 0x11d7, 900);
    gnu_hist(&b, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
    uint64_t pairs[] = {0x1100, 5, 0x1200, 6, 0x1100, 10};
    gnu_bb(&b, 3, pairs);
    gnu_arc(&b, 0x1250, 0x11d7, 0xffffffffu);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_read(&g, &b, &o);
    assert_int_equal(g.version, 1);
    assert_int_equal(g.input, GMON_INPUT_HIST | GMON_INPUT_ARCS | GMON_INPUT_BB);
    assert_int_equal(g.last.flavour, GMON_FLAVOUR_MAGIC);
    assert_int_equal(g.last.nhist, 1);
    assert_int_equal(g.last.narcs, 2);
    assert_int_equal(g.last.nbb, 1);
    assert_int_equal(g.hz, 100);
    assert_string_equal(g.dimen, "seconds");
    assert_int_equal(g.dimen_abbrev, 's');
    assert_true(g.hist_scale == 2.0); /* (0x10 / 2) / 4 */
    assert_int_equal(g.nhists, 1);
    assert_int_equal(g.hists[0].low_pc, 0x1000);
    assert_int_equal(g.hists[0].high_pc, 0x1010);
    assert_int_equal(g.hists[0].nbins, 4);
    assert_int_equal(g.hists[0].prof_rate, 100);
    for (int i = 0; i < 4; i++)
        assert_int_equal(g.hists[0].bins[i], bins4[i]);
    assert_int_equal(g.narcs, 2);
    assert_int_equal(g.arcs[0].from_pc, 0x1240);
    assert_int_equal(g.arcs[0].self_pc, 0x11d7);
    assert_int_equal(g.arcs[0].count, 900);
    assert_int_equal(g.arcs[1].from_pc, 0x1250);
    assert_int_equal(g.arcs[1].count, 0xffffffffu);
    assert_int_equal(g.nbbs, 2); /* 0x1100 summed */
    assert_int_equal(g.bbs[0].addr, 0x1100);
    assert_int_equal(g.bbs[0].count, 15);
    assert_int_equal(g.bbs[1].addr, 0x1200);
    assert_int_equal(g.bbs[1].count, 6);
    assert_int_equal(g.warnings.n, 0);
    gmon_release(&g);
}

static void test_gnu_layouts(void **state)
{
    gnu_mixed(0, 8);
    gnu_mixed(1, 8);
    gnu_mixed(0, 4);
    gnu_mixed(1, 4);
}

/* The first bytes of a real glibc 2.36 x86-64 gmon.out (research §1.4 hex dump). */
static void test_gnu_real_header(void **state)
{
    static const unsigned char head[] = {
        0x67, 0x6d, 0x6f, 0x6e, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x48, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd4, 0x04,
        0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x73, 0x65, 0x63, 0x6f, 0x6e, 0x64, 0x73,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x73};
    struct bld b = {.be = 0, .A = 8};
    raw(&b, head, sizeof head);
    assert_int_equal(b.n, 0x3d); /* the bins start here */
    for (int i = 0; i < 1236; i++)
        put(&b, i == 1152 ? 16 : 0, 2);
    assert_int_equal(b.n, 0x9e5);
    static const unsigned char arc[] = {0x01, 0x40, 0x12, 0, 0, 0, 0,    0,    0, 0xd7, 0x11,
                                        0,    0,    0,    0, 0, 0, 0x84, 0x03, 0, 0};
    raw(&b, arc, sizeof arc);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_read(&g, &b, &o);
    assert_int_equal(g.hists[0].low_pc, 0);
    assert_int_equal(g.hists[0].high_pc, 0x1348);
    assert_int_equal(g.hists[0].nbins, 1236);
    assert_int_equal(g.hz, 100);
    assert_int_equal(g.hists[0].bins[1152], 16);
    assert_true(fabs(g.hist_scale - 2468.0 / 1236.0) < 1e-12); /* 1.99676 */
    assert_int_equal(g.arcs[0].from_pc, 0x1240);
    assert_int_equal(g.arcs[0].self_pc, 0x11d7);
    assert_int_equal(g.arcs[0].count, 900);
    gmon_release(&g);
}

static void test_gnu_version0(void **state)
{
    for (int be = 0; be <= 1; be++) {
        struct bld b = {.be = be, .A = 8};
        gnu_header(&b, 0);
        gnu_hist(&b, 0, 8, 2, 60, "seconds", 's', bins4);
        /* v0 BB: count, a name, then (ncalls 8, addr 8, string, string, int line) per block */
        put(&b, 2, 1);
        put(&b, 2, 4);
        raw(&b, "file.c", 7);
        put(&b, 42, 8);
        put(&b, 0x400, 8);
        raw(&b, "f", 2);
        raw(&b, "file.c", 7);
        put(&b, 12, 4);
        put(&b, 3, 8);
        put(&b, 0x400, 8);
        raw(&b, "", 1);
        raw(&b, "", 1);
        put(&b, 13, 4);
        gnu_arc(&b, 1, 2, 3);
        struct gmon g;
        gmon_init(&g);
        struct gmon_read_opts o = ropts(&b);
        must_read(&g, &b, &o);
        assert_int_equal(g.version, 0);
        assert_int_equal(g.last.version, 0);
        assert_int_equal(g.hz, 60);
        assert_int_equal(g.nbbs, 1);
        assert_int_equal(g.bbs[0].addr, 0x400);
        assert_int_equal(g.bbs[0].count, 45);
        assert_int_equal(g.narcs, 1);
        assert_int_equal(g.arcs[0].count, 3);
        gmon_release(&g);
    }
}

static void test_gnu_sign_extend(void **state)
{
    struct bld b = {.be = 1, .A = 4};
    gnu_header(&b, 1);
    gnu_arc(&b, 0x80001000u, 0x10, 1);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_read(&g, &b, &o);
    assert_int_equal(g.arcs[0].from_pc, 0x80001000u);
    o.layout.sign_extend = 1;
    must_read(&g, &b, &o);
    assert_int_equal(g.arcs[1].from_pc, 0xffffffff80001000ull);
    assert_int_equal(g.input, GMON_INPUT_ARCS);
    assert_int_equal(g.nhists, 0);
    assert_int_equal(g.hz, 0); /* no histogram: hz unknown, as gprof */
    gmon_release(&g);
}

static void test_gnu_errors(void **state)
{
    struct gmon g;
    gmon_init(&g);
    struct bld b = {.A = 8};
    struct gmon_read_opts o = ropts(&b);

    gnu_header(&b, 2);
    must_fail(&g, &b, &o, "unsupported gmon.out version 2");

    b.n = 0;
    gnu_header(&b, 1);
    gnu_arc(&b, 1, 2, 3);
    put(&b, 7, 1);
    must_fail(&g, &b, &o, "bad record tag 7 at byte 41");

    b.n = 0;
    raw(&b, "gmon", 4);
    must_fail(&g, &b, &o, "too short");

    /* -O magic on a file without the cookie */
    b.n = 0;
    bsd_header(&b, 0, 8, 2, 0, 0);
    put(&b, 0, 4);
    o.flavour = GMON_FLAVOUR_MAGIC;
    must_fail(&g, &b, &o, "bad magic cookie");

    o.layout.addr_size = 2;
    o.flavour = GMON_FLAVOUR_AUTO;
    must_fail(&g, &b, &o, "address size");
    gmon_release(&g);
}

/* ------------------------------------------------------------------------ */
/* BSD formats                                                              */
/* ------------------------------------------------------------------------ */

static void bsd_case(int be, unsigned A, int bsd44)
{
    struct bld b = {.be = be, .A = A};
    bsd_header(&b, 0x2000, 0x2010, 4, bsd44, 1000);
    for (int i = 0; i < 4; i++)
        put(&b, bins4[i], 2);
    bsd_arc(&b, 0x2004, 0x2008, 5);
    uint64_t big = A == 8 ? 0x100000005ull : 0xfffffff0u;
    bsd_arc(&b, 0x2008, 0x2004, big);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_read(&g, &b, &o);
    assert_int_equal(g.last.flavour, bsd44 ? GMON_FLAVOUR_BSD44 : GMON_FLAVOUR_BSD);
    assert_int_equal(g.last.version, 0);
    assert_int_equal(g.last.nhist, 1);
    assert_int_equal(g.last.narcs, 2);
    assert_int_equal(g.input, GMON_INPUT_HIST | GMON_INPUT_ARCS);
    assert_int_equal(g.hz, bsd44 ? 1000 : 100);
    assert_int_equal(g.nhists, 1);
    assert_int_equal(g.hists[0].low_pc, 0x2000);
    assert_int_equal(g.hists[0].high_pc, 0x2010);
    assert_int_equal(g.hists[0].nbins, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(g.hists[0].bins[i], bins4[i]);
    assert_true(g.hist_scale == 2.0);
    assert_string_equal(g.dimen, "seconds");
    assert_int_equal(g.narcs, 2);
    assert_int_equal(g.arcs[0].from_pc, 0x2004);
    assert_int_equal(g.arcs[0].self_pc, 0x2008);
    assert_int_equal(g.arcs[0].count, 5);
    assert_int_equal(g.arcs[1].count, big);
    assert_int_equal(g.warnings.n, 0);
    /* forced flavours */
    struct gmon h;
    gmon_init(&h);
    o.flavour = GMON_FLAVOUR_BSD44;
    if (bsd44)
        must_read(&h, &b, &o);
    else
        must_fail(&h, &b, &o, "bad magic cookie");
    gmon_release(&h);
    gmon_init(&h);
    o.flavour = GMON_FLAVOUR_BSD;
    must_read(&h, &b, &o);
    assert_int_equal(h.narcs, 2);
    gmon_release(&h);
    gmon_release(&g);
}

static void test_bsd_layouts(void **state)
{
    for (int be = 0; be <= 1; be++)
        for (unsigned A = 4; A <= 8; A += 4)
            for (int bsd44 = 0; bsd44 <= 1; bsd44++)
                bsd_case(be, A, bsd44);
}

static void test_bsd_hz_and_trailing(void **state)
{
    struct bld b = {.A = 8};
    bsd_header(&b, 0, 8, 2, 0, 0);
    put(&b, 3, 2);
    put(&b, 4, 2);
    bsd_arc(&b, 1, 2, 3);
    put(&b, 9, 5); /* not a whole arc: ignored, as gprof */
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    o.hertz = 0;
    must_read(&g, &b, &o);
    assert_int_equal(g.hz, 1);
    assert_int_equal(g.narcs, 1);
    assert_int_equal(g.warnings.n, 2);
    assert_non_null(strstr(g.warnings.items[0], "5 trailing bytes"));
    assert_non_null(strstr(g.warnings.items[1], "time is in ticks"));
    /* a second old BSD file keeps the rate and sums into the first histogram */
    must_read(&g, &b, &o);
    assert_int_equal(g.hz, 1);
    assert_int_equal(g.hists[0].bins[0], 6);
    assert_int_equal(g.hists[0].bins[1], 8);
    assert_int_equal(g.narcs, 2);
    gmon_release(&g);

    /* a GNU histogram first: the old BSD file keeps its rate, the version is the GNU one */
    struct bld c = {.A = 8};
    gnu_header(&c, 1);
    gnu_hist(&c, 0, 8, 2, 250, "seconds", 's', bins4);
    gmon_init(&g);
    must_read(&g, &c, &o);
    b.n -= 5;
    must_read(&g, &b, &o);
    assert_int_equal(g.hz, 250);
    assert_int_equal(g.last.version, 1);
    assert_int_equal(g.hists[0].bins[0], 4);
    assert_int_equal(g.hists[0].bins[1], 4);
    gmon_release(&g);
}

static void test_bsd_errors(void **state)
{
    struct gmon g;
    struct bld b = {.A = 4};
    struct gmon_read_opts o = ropts(&b);

    /* ncnt below the header size */
    gmon_init(&g);
    vma(&b, 0);
    vma(&b, 8);
    put(&b, 4, 4);
    put(&b, 0, 8);
    must_fail(&g, &b, &o, "does not appear to be in gmon.out format");
    gmon_release(&g);

    /* low above high */
    gmon_init(&g);
    b.n = 0;
    bsd_header(&b, 8, 0, 2, 0, 0);
    put(&b, 0, 8);
    must_fail(&g, &b, &o, "low_pc above high_pc");
    gmon_release(&g);

    /* a second file with another range, or another 4.4BSD rate */
    gmon_init(&g);
    b.n = 0;
    bsd_header(&b, 0, 8, 2, 1, 100);
    put(&b, 0, 4);
    must_read(&g, &b, &o);
    b.n = 0;
    bsd_header(&b, 0, 16, 4, 1, 100);
    put(&b, 0, 8);
    must_fail(&g, &b, &o, "incompatible with first gmon file");
    b.n = 0;
    bsd_header(&b, 0, 8, 2, 1, 60);
    put(&b, 0, 4);
    must_fail(&g, &b, &o, "profiling rate 60 incompatible");
    gmon_release(&g);

    /* truncated bins */
    gmon_init(&g);
    b.n = 0;
    bsd_header(&b, 0, 0x100, 100, 0, 0);
    for (int i = 0; i < 20; i++)
        put(&b, 0, 1);
    must_fail(&g, &b, &o, "truncated BSD histogram (10 of 100 samples present) at byte 12");
    gmon_release(&g);
}

/* ------------------------------------------------------------------------ */
/* Summing                                                                  */
/* ------------------------------------------------------------------------ */

static void test_sum_rules(void **state)
{
    struct bld a = {.A = 8}, b = {.A = 8};
    gnu_header(&a, 1);
    gnu_hist(&a, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
    gnu_arc(&a, 1, 2, 3);
    uint64_t p1[] = {0x10, 1};
    gnu_bb(&a, 1, p1);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&a);
    must_read(&g, &a, &o);
    must_read(&g, &a, &o); /* same range: summed */
    assert_int_equal(g.nhists, 1);
    assert_int_equal(g.hists[0].bins[0], 2);
    assert_int_equal(g.hists[0].bins[2], 14);
    assert_int_equal(g.hists[0].bins[3], 131070); /* beyond 16 bits in memory */
    assert_int_equal(g.narcs, 2);                 /* appended */
    assert_int_equal(g.nbbs, 1);
    assert_int_equal(g.bbs[0].count, 2); /* summed per address */

    /* disjoint range, other rate (not checked): appended */
    gnu_header(&b, 1);
    gnu_hist(&b, 0x1010, 0x1020, 4, 7, "seconds", 's', bins4);
    must_read(&g, &b, &o);
    assert_int_equal(g.nhists, 2);
    assert_int_equal(g.hists[1].low_pc, 0x1010);
    assert_int_equal(g.hists[1].bins[3], 65535);
    assert_int_equal(g.hz, 100);

    /* partial overlap */
    b.n = 0;
    gnu_header(&b, 1);
    gnu_hist(&b, 0x1008, 0x1018, 4, 100, "seconds", 's', bins4);
    must_fail(&g, &b, &o, "overlapping histogram records");

    /* dimension, abbreviation, scale */
    b.n = 0;
    gnu_header(&b, 1);
    gnu_hist(&b, 0x1000, 0x1010, 4, 100, "cycles", 's', bins4);
    must_fail(&g, &b, &o,
              "dimension unit changed between histogram records (from 'seconds' to "
              "'cycles')");
    b.n = 0;
    gnu_header(&b, 1);
    gnu_hist(&b, 0x1000, 0x1010, 4, 100, "seconds", 'x', bins4);
    must_fail(&g, &b, &o, "dimension abbreviation changed");
    b.n = 0;
    gnu_header(&b, 1);
    gnu_hist(&b, 0x2000, 0x2020, 4, 100, "seconds", 's', bins4);
    must_fail(&g, &b, &o, "different scales");
    gmon_release(&g);

    /* a 15-character dimension has no NUL on disk */
    gmon_init(&g);
    b.n = 0;
    gnu_header(&b, 1);
    gnu_hist(&b, 0, 8, 2, 1, "abcdefghijklmnopq", 'z', bins4);
    must_read(&g, &b, &o);
    assert_string_equal(g.dimen, "abcdefghijklmno");
    assert_string_equal(g.hists[0].dimen, "abcdefghijklmno");
    assert_int_equal(g.dimen_abbrev, 'z');
    gmon_release(&g);
}

/* Every strict prefix of a file fails cleanly, except at record boundaries. */
static void prefixes(struct bld *full, const size_t *bounds, size_t nb, int bsd)
{
    for (size_t len = 0; len < full->n; len++) {
        struct gmon g;
        gmon_init(&g);
        struct bld p = *full;
        p.n = len;
        struct gmon_read_opts o = ropts(&p);
        struct tally_error err;
        tally_error_clear(&err);
        int rc = gmon_read_mem(&g, "t.out", p.d, p.n, &o, &err);
        int boundary = 0;
        for (size_t i = 0; i < nb; i++)
            if (bounds[i] == len) boundary = 1;
        if (boundary || (bsd && len >= bounds[0])) {
            if (rc) fail_msg("prefix %zu: unexpected error %s", len, err.msg);
        } else {
            if (rc == 0) fail_msg("prefix %zu of %zu read without error", len, full->n);
            assert_string_equal(err.file, "t.out");
            assert_true(err.msg[0] != 0);
        }
        gmon_release(&g);
    }
}

static void test_truncation(void **state)
{
    for (unsigned A = 4; A <= 8; A += 4) {
        struct bld b = {.A = A, .be = A == 4};
        size_t bounds[8], nb = 0;
        gnu_header(&b, 1);
        bounds[nb++] = b.n;
        gnu_hist(&b, 0, 8, 2, 100, "seconds", 's', bins4);
        bounds[nb++] = b.n;
        gnu_arc(&b, 1, 2, 3);
        bounds[nb++] = b.n;
        uint64_t pairs[] = {1, 2, 3, 4};
        gnu_bb(&b, 2, pairs);
        bounds[nb++] = b.n;
        prefixes(&b, bounds, nb, 0);

        struct bld v0 = {.A = A};
        gnu_header(&v0, 0);
        bounds[0] = v0.n;
        put(&v0, 2, 1);
        put(&v0, 1, 4);
        raw(&v0, "x", 2);
        put(&v0, 1, 8);
        put(&v0, 2, 8);
        raw(&v0, "a", 2);
        raw(&v0, "b", 2);
        put(&v0, 3, 4);
        bounds[1] = v0.n;
        prefixes(&v0, bounds, 2, 0);

        /* BSD: anything from the end of the bins on is accepted (partial arcs ignored) */
        struct bld c = {.A = A};
        bsd_header(&c, 0, 8, 2, 1, 100);
        put(&c, 1, 2);
        put(&c, 2, 2);
        bounds[0] = c.n;
        bsd_arc(&c, 1, 2, 3);
        prefixes(&c, bounds, 1, 1);
    }
    /* the message says where */
    struct bld b = {.A = 8};
    gnu_header(&b, 1);
    gnu_hist(&b, 0, 0x100, 64, 100, "seconds", 's', NULL);
    b.n -= 3;
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_fail(&g, &b, &o, "truncated histogram record (62 of 64 samples present) at byte 20");
    b.n = 20 + 1 + 10;
    must_fail(&g, &b, &o, "truncated histogram record header at byte 20");
    gmon_release(&g);
}

/* A count that promises far more data than the file holds is refused before allocating. */
static void test_huge_counts(void **state)
{
    struct bld b = {.A = 8};
    gnu_header(&b, 1);
    gnu_hist_hdr(&b, 0, 0xffffffffffull, 0xffffffffu, 100, "seconds", 's');
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_fail(&g, &b, &o, "truncated histogram record (0 of 4294967295 samples present)");
    b.n = 0;
    gnu_header(&b, 1);
    put(&b, 2, 1);
    put(&b, 0xffffffffu, 4);
    must_fail(&g, &b, &o, "truncated basic-block record (0 of 4294967295 blocks present)");
    gmon_release(&g);
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/* ------------------------------------------------------------------------ */

static unsigned char *write_mem(const struct gmon *g, const struct gmon_write_opts *w, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    assert_non_null(fp);
    struct tally_error err;
    if (gmon_write_fp(g, fp, "sum", w, &err)) fail_msg("write: %s", err.msg);
    fclose(fp);
    return (unsigned char *)buf;
}

static void same_gmon(const struct gmon *a, const struct gmon *b)
{
    assert_int_equal(a->nhists, b->nhists);
    assert_int_equal(a->hz, b->hz);
    assert_string_equal(a->dimen, b->dimen);
    assert_int_equal(a->dimen_abbrev, b->dimen_abbrev);
    for (size_t i = 0; i < a->nhists; i++) {
        assert_int_equal(a->hists[i].low_pc, b->hists[i].low_pc);
        assert_int_equal(a->hists[i].high_pc, b->hists[i].high_pc);
        assert_int_equal(a->hists[i].nbins, b->hists[i].nbins);
        for (uint32_t j = 0; j < a->hists[i].nbins; j++)
            assert_int_equal(a->hists[i].bins[j], b->hists[i].bins[j]);
    }
    assert_int_equal(a->narcs, b->narcs);
    for (size_t i = 0; i < a->narcs; i++) {
        assert_int_equal(a->arcs[i].from_pc, b->arcs[i].from_pc);
        assert_int_equal(a->arcs[i].self_pc, b->arcs[i].self_pc);
        assert_int_equal(a->arcs[i].count, b->arcs[i].count);
    }
    assert_int_equal(a->nbbs, b->nbbs);
    for (size_t i = 0; i < a->nbbs; i++) {
        assert_int_equal(a->bbs[i].addr, b->bbs[i].addr);
        assert_int_equal(a->bbs[i].count, b->bbs[i].count);
    }
}

static void test_write_gnu_roundtrip(void **state)
{
    for (int be = 0; be <= 1; be++)
        for (unsigned A = 4; A <= 8; A += 4) {
            struct bld b = {.be = be, .A = A};
            gnu_header(&b, 1);
            gnu_hist(&b, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
            gnu_hist(&b, 0x3000, 0x3010, 4, 100, "seconds", 's', bins4);
            gnu_arc(&b, 0x1004, 0x3008, 77);
            uint64_t pairs[] = {0x1100, 5, 0x1200, 6};
            gnu_bb(&b, 2, pairs);
            struct gmon g, h;
            gmon_init(&g);
            struct gmon_read_opts o = ropts(&b);
            must_read(&g, &b, &o);
            struct gmon_write_opts w = {.layout = o.layout, .hertz = 100};
            size_t len;
            unsigned char *out = write_mem(&g, &w, &len);
            /* here the writer's output is exactly the hand-built input */
            assert_int_equal(len, b.n);
            assert_memory_equal(out, b.d, len);
            gmon_init(&h);
            struct bld c = {.be = be, .A = A};
            raw(&c, out, len);
            must_read(&h, &c, &o);
            same_gmon(&g, &h);
            free(out);
            gmon_release(&h);
            gmon_release(&g);
        }
}

/* Summed bins are written as 16 bits: 1000 x 66 = 66000 is written as 464. */
static void test_write_truncates_bins(void **state)
{
    struct bld b = {.A = 8};
    uint16_t one[1] = {66};
    gnu_header(&b, 1);
    gnu_hist(&b, 0, 4, 1, 100, "seconds", 's', one);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    for (int i = 0; i < 1000; i++)
        must_read(&g, &b, &o);
    assert_int_equal(g.hists[0].bins[0], 66000);
    struct gmon_write_opts w = {.layout = o.layout, .hertz = 100};
    size_t len;
    unsigned char *out = write_mem(&g, &w, &len);
    assert_int_equal(len, 20 + 1 + 40 + 2);
    assert_int_equal(out[61], 464 & 0xff);
    assert_int_equal(out[62], 464 >> 8);
    /* spare header bytes are zero */
    for (int i = 8; i < 20; i++)
        assert_int_equal(out[i], 0);
    free(out);
    gmon_release(&g);
}

/* The arc list given by the caller is written as given, in its order. */
static void test_write_given_arcs(void **state)
{
    struct bld b = {.A = 8};
    gnu_header(&b, 1);
    gnu_arc(&b, 0x1240, 0x11d7, 900);
    gnu_arc(&b, 0x1250, 0x11d7, 100);
    struct gmon g;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    must_read(&g, &b, &o);
    struct gmon_arc merged[] = {{0x1230, 0x11c9, 1000}};
    struct gmon_write_opts w = {.layout = o.layout, .hertz = 100, .arcs = merged, .narcs = 1};
    size_t len;
    unsigned char *out = write_mem(&g, &w, &len);
    struct bld e = {.A = 8};
    gnu_header(&e, 1);
    gnu_arc(&e, 0x1230, 0x11c9, 1000);
    assert_int_equal(len, e.n); /* no histogram was read: none written */
    assert_memory_equal(out, e.d, len);
    free(out);
    gmon_release(&g);
}

static void test_write_bsd(void **state)
{
    for (int be = 0; be <= 1; be++)
        for (unsigned A = 4; A <= 8; A += 4)
            for (int bsd44 = 0; bsd44 <= 1; bsd44++) {
                /* expected file, built by hand */
                struct bld e = {.be = be, .A = A};
                uint32_t rate = bsd44 ? 1000 : 100;
                bsd_header(&e, 0x2000, 0x2010, 4, bsd44, rate);
                for (int i = 0; i < 4; i++)
                    put(&e, bins4[i], 2);
                bsd_arc(&e, 0x2004, 0x2008, 5);
                /* the same data as a GNU file */
                struct bld b = {.be = be, .A = A};
                gnu_header(&b, 1);
                gnu_hist(&b, 0x2000, 0x2010, 4, rate, "seconds", 's', bins4);
                gnu_arc(&b, 0x2004, 0x2008, 5);
                struct gmon g;
                gmon_init(&g);
                struct gmon_read_opts o = ropts(&b);
                must_read(&g, &b, &o);
                /* 4.4BSD when asked, or when the rate is not the system's (100) */
                struct gmon_write_opts w = {.layout = o.layout, .hertz = 100};
                w.flavour = GMON_FLAVOUR_BSD;
                size_t len;
                unsigned char *out = write_mem(&g, &w, &len);
                assert_int_equal(len, e.n);
                assert_memory_equal(out, e.d, len);
                free(out);
                if (bsd44) {
                    w.flavour = GMON_FLAVOUR_BSD44;
                    out = write_mem(&g, &w, &len);
                    assert_memory_equal(out, e.d, len);
                    free(out);
                }
                gmon_release(&g);
            }
    /* nothing to write as BSD without a histogram */
    struct gmon g;
    gmon_init(&g);
    struct gmon_write_opts w = {.flavour = GMON_FLAVOUR_BSD, .layout = {8, 0, 0}};
    struct tally_error err;
    FILE *fp = tmpfile();
    assert_int_equal(gmon_write_fp(&g, fp, "x", &w, &err), -1);
    assert_non_null(strstr(err.msg, "no histogram"));
    fclose(fp);
    gmon_release(&g);
}

/* Files on disk: gmon_read, gmon_write atomically, a missing file. */
static void test_files(void **state)
{
    struct bld b = {.A = 8};
    gnu_header(&b, 1);
    gnu_hist(&b, 0, 8, 2, 100, "seconds", 's', bins4);
    gnu_arc(&b, 1, 2, 3);
    char *path = test_tmpfile(b.d, b.n);
    struct gmon g, h;
    gmon_init(&g);
    struct gmon_read_opts o = ropts(&b);
    struct tally_error err;
    assert_int_equal(gmon_read(&g, path, &o, &err), 0);
    char out[64];
    snprintf(out, sizeof out, "%s.sum", path);
    struct gmon_write_opts w = {.layout = o.layout, .hertz = 100};
    assert_int_equal(gmon_write(&g, out, &w, &err), 0);
    gmon_init(&h);
    assert_int_equal(gmon_read(&h, out, &o, &err), 0);
    same_gmon(&g, &h);
    gmon_release(&h);
    /* a failed write leaves no file */
    unlink(out);
    w.flavour = GMON_FLAVOUR_BSD;
    gmon_release(&g);
    gmon_init(&g);
    assert_int_equal(gmon_write(&g, out, &w, &err), -1);
    assert_int_equal(access(out, F_OK), -1);
    assert_int_equal(gmon_read(&g, "/nonexistent/gmon.out", &o, &err), -1);
    assert_string_equal(err.file, "/nonexistent/gmon.out");
    assert_non_null(strstr(err.msg, "cannot open"));
    gmon_release(&g);
    unlink(path);
    free(path);
}

static void test_flavour_names(void **state)
{
    assert_int_equal(gmon_flavour_from_name("auto"), GMON_FLAVOUR_AUTO);
    assert_int_equal(gmon_flavour_from_name("a"), GMON_FLAVOUR_AUTO);
    assert_int_equal(gmon_flavour_from_name("bsd"), GMON_FLAVOUR_BSD);
    assert_int_equal(gmon_flavour_from_name("b"), GMON_FLAVOUR_BSD);
    assert_int_equal(gmon_flavour_from_name("4.4bsd"), GMON_FLAVOUR_BSD44);
    assert_int_equal(gmon_flavour_from_name("4"), GMON_FLAVOUR_BSD44);
    assert_int_equal(gmon_flavour_from_name("magic"), GMON_FLAVOUR_MAGIC);
    assert_int_equal(gmon_flavour_from_name("m"), GMON_FLAVOUR_MAGIC);
    assert_int_equal(gmon_flavour_from_name("prof"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gnu_layouts),
        cmocka_unit_test(test_gnu_real_header),
        cmocka_unit_test(test_gnu_version0),
        cmocka_unit_test(test_gnu_sign_extend),
        cmocka_unit_test(test_gnu_errors),
        cmocka_unit_test(test_bsd_layouts),
        cmocka_unit_test(test_bsd_hz_and_trailing),
        cmocka_unit_test(test_bsd_errors),
        cmocka_unit_test(test_sum_rules),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_huge_counts),
        cmocka_unit_test(test_write_gnu_roundtrip),
        cmocka_unit_test(test_write_truncates_bins),
        cmocka_unit_test(test_write_given_arcs),
        cmocka_unit_test(test_write_bsd),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_flavour_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
