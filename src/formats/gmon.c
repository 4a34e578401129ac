/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gmon.c - gmon.out files: the GNU, old BSD and 4.4BSD layouts; summing
 * several files; writing gmon.sum. See gmon.h for the API and
 * docs/internals/gmon.md for the layouts and the rules as implemented.
 *
 * A plain file is mapped and decoded byte by byte with explicit byte
 * order, so no structure is ever overlaid on file data. Every count taken
 * from the file is checked against the bytes that are left before
 * anything is allocated for it. A pipe or a compressed file is read as the
 * decoding goes (rd_left() asks for the bytes it needs), so its bytes are
 * only kept up to the first impossible one: /dev/zero is refused after its
 * first header, and a count is never trusted beyond the bytes that came.
 */
#include "gmon.h"
#include "../io/input.h"
#include "../io/outfile.h"
#include "../model/hash.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GMON_HDR_SIZE 20
#define BSD44_VERSION 0x00051879u
#define TAG_HIST 0
#define TAG_ARC 1
#define TAG_BB 2

/* ------------------------------------------------------------------------ */
/* The struct                                                               */
/* ------------------------------------------------------------------------ */

void gmon_init(struct gmon *g)
{
    memset(g, 0, sizeof *g);
    memcpy(g->dimen, "seconds", sizeof "seconds");
    g->dimen_abbrev = 's';
}

void gmon_release(struct gmon *g)
{
    for (size_t i = 0; i < g->nhists; i++)
        free(g->hists[i].bins);
    free(g->hists);
    free(g->arcs);
    free(g->bbs);
    free(g->bb_index);
    strlist_release(&g->warnings);
    memset(g, 0, sizeof *g);
}

int gmon_flavour_from_name(const char *name)
{
    if (!strcmp(name, "auto") || !strcmp(name, "a")) return GMON_FLAVOUR_AUTO;
    if (!strcmp(name, "bsd") || !strcmp(name, "b")) return GMON_FLAVOUR_BSD;
    if (!strcmp(name, "4.4bsd") || !strcmp(name, "4")) return GMON_FLAVOUR_BSD44;
    if (!strcmp(name, "magic") || !strcmp(name, "m")) return GMON_FLAVOUR_MAGIC;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Byte decoding                                                            */
/* ------------------------------------------------------------------------ */

struct rd {
    const unsigned char *p;
    size_t size, pos;
    const char *name;
    struct gmon_layout lay;
    struct tally_error *err;
    struct input *in;   /* streamed: more bytes come from here; NULL: p holds them all */
    size_t max_line;    /* the longest string looked for in a stream (the input's line limit) */
    unsigned char *own; /* streamed: the bytes read so far (p == own) */
    size_t cap;
    int failed;         /* streamed: a read error is in err */
    size_t base;        /* streamed: bytes given back before p (offsets in messages add it) */
    size_t nrecs;       /* records read so far */
    size_t max_records; /* gmon_read_opts.max_records, or GMON_MAX_RECORDS_DEFAULT */
};

#define RD_CHUNK ((size_t)1 << 20)

/* One more record (histogram, arc or basic block) at byte `at`: -1 past the limit. */
static int count_record(struct rd *r, size_t at)
{
    if (++r->nrecs <= r->max_records) return 0;
    return tally_error_set(r->err, r->name, 0,
                           "more than %zu records (arcs, blocks, histograms) at byte %zu: "
                           "not a gmon file, or raise the limit with tally --max-records=N",
                           r->max_records, at);
}

/*
 * The bytes left after pos, reading more of a streamed input until `want`
 * of them are there (or the input ends). Every check is `rd_left(r, n) <
 * n`, so a count in a header never makes more bytes be read than arrive.
 */
static size_t rd_left(struct rd *r, size_t want)
{
    while (r->in && !r->failed && r->size < r->pos + want) {
        if (r->pos >= RD_CHUNK) {
            /* give the bytes decoded already back: a stream costs what is still to decode */
            memmove(r->own, r->own + r->pos, r->size - r->pos);
            r->base += r->pos;
            r->size -= r->pos;
            r->pos = 0;
        }
        size_t need = r->pos + want - r->size;
        if (need > RD_CHUNK) need = RD_CHUNK;
        if (need < 65536) need = 65536;
        r->own = xgrow(r->own, &r->cap, r->size + need, 1);
        r->p = r->own;
        long long got = input_read(r->in, r->own + r->size, need, r->err);
        if (got < 0) r->failed = 1;
        if (got <= 0) {
            r->in = NULL;
            break;
        }
        r->size += (size_t)got;
    }
    return r->pos < r->size ? r->size - r->pos : 0;
}

static uint64_t dec(const unsigned char *b, unsigned n, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b[big ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

static void enc(unsigned char *b, uint64_t v, unsigned n, int big)
{
    for (unsigned i = 0; i < n; i++)
        b[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Callers check rd_left() first. */
static uint64_t rd_u(struct rd *r, unsigned n)
{
    uint64_t v = dec(r->p + r->pos, n, r->lay.big_endian);
    r->pos += n;
    return v;
}

static uint64_t rd_vma(struct rd *r)
{
    uint64_t v = rd_u(r, r->lay.addr_size);
    if (r->lay.addr_size == 4 && r->lay.sign_extend && (v & 0x80000000u))
        v |= 0xffffffff00000000ull;
    return v;
}

static int truncated(struct rd *r, size_t at, const char *what)
{
    if (r->failed) return -1; /* the read error is in err */
    return tally_error_set(r->err, r->name, 0, "truncated %s at byte %zu (file has %zu bytes)",
                           what, at, r->base + r->size);
}

/* ------------------------------------------------------------------------ */
/* Accumulating into struct gmon                                            */
/* ------------------------------------------------------------------------ */

static double scale_of(uint64_t low, uint64_t high, uint32_t nbins)
{
    double units = (double)((high - low) / 2);
    if (nbins == 0) return units == 0 ? NAN : INFINITY; /* what x/0.0 gives, without the trap */
    return units / nbins;
}

static struct gmon_hist *add_hist(struct gmon *g, uint64_t low, uint64_t high, uint32_t nbins,
                                  uint32_t rate)
{
    g->hists = xgrow(g->hists, &g->hists_cap, g->nhists + 1, sizeof *g->hists);
    struct gmon_hist *h = &g->hists[g->nhists++];
    memset(h, 0, sizeof *h);
    h->low_pc = low;
    h->high_pc = high;
    h->nbins = nbins;
    h->prof_rate = rate;
    memcpy(h->dimen, g->dimen, sizeof h->dimen);
    h->dimen_abbrev = g->dimen_abbrev;
    h->bins = xcalloc(nbins ? nbins : 1, sizeof *h->bins);
    return h;
}

static void add_arc(struct gmon *g, uint64_t from, uint64_t self, uint64_t count)
{
    g->arcs = xgrow(g->arcs, &g->arcs_cap, g->narcs + 1, sizeof *g->arcs);
    g->arcs[g->narcs++] = (struct gmon_arc){from, self, count};
}

static void bb_rehash(struct gmon *g, size_t cap)
{
    free(g->bb_index);
    g->bb_index = xmalloc(cap * sizeof *g->bb_index);
    for (size_t i = 0; i < cap; i++)
        g->bb_index[i] = SIZE_MAX;
    g->bb_index_cap = cap;
    for (size_t i = 0; i < g->nbbs; i++) {
        size_t s = hash_mix64(g->bbs[i].addr) & (cap - 1);
        while (g->bb_index[s] != SIZE_MAX)
            s = (s + 1) & (cap - 1);
        g->bb_index[s] = i;
    }
}

static void add_bb(struct gmon *g, uint64_t addr, uint64_t count)
{
    if ((g->nbbs + 1) * 2 > g->bb_index_cap)
        bb_rehash(g, g->bb_index_cap ? g->bb_index_cap * 2 : 64);
    size_t mask = g->bb_index_cap - 1;
    size_t s = hash_mix64(addr) & mask;
    while (g->bb_index[s] != SIZE_MAX) {
        struct gmon_bb *b = &g->bbs[g->bb_index[s]];
        if (b->addr == addr) {
            b->count += count;
            return;
        }
        s = (s + 1) & mask;
    }
    g->bbs = xgrow(g->bbs, &g->bbs_cap, g->nbbs + 1, sizeof *g->bbs);
    g->bbs[g->nbbs] = (struct gmon_bb){addr, count};
    g->bb_index[s] = g->nbbs++;
}

/* ------------------------------------------------------------------------ */
/* GNU format                                                               */
/* ------------------------------------------------------------------------ */

static int read_gnu_hist(struct gmon *g, struct rd *r)
{
    size_t at = r->base + r->pos - 1; /* the tag */
    unsigned A = r->lay.addr_size;
    if (count_record(r, at)) return -1;
    if (rd_left(r, 2 * A + 4 + 4 + 16) < 2 * A + 4 + 4 + 16)
        return truncated(r, at, "histogram record header");
    uint64_t low = rd_vma(r), high = rd_vma(r);
    uint32_t nbins = (uint32_t)rd_u(r, 4), rate = (uint32_t)rd_u(r, 4);
    char dimen[16];
    memcpy(dimen, r->p + r->pos, 15);
    dimen[15] = 0;
    char abbrev = (char)r->p[r->pos + 15];
    r->pos += 16;
    if (low > high)
        return tally_error_set(r->err, r->name, 0,
                               "histogram record at byte %zu: low_pc 0x%" PRIx64
                               " above high_pc 0x%" PRIx64,
                               at, low, high);
    double scale = scale_of(low, high, nbins);

    if (g->nhists == 0) {
        g->hz = rate;
        memcpy(g->dimen, dimen, sizeof dimen);
        g->dimen_abbrev = abbrev;
        g->hist_scale = scale;
    } else {
        if (strncmp(dimen, g->dimen, 15) != 0)
            return tally_error_set(r->err, r->name, 0,
                                   "histogram record at byte %zu: dimension unit changed "
                                   "between histogram records (from '%s' to '%s')",
                                   at, g->dimen, dimen);
        if (abbrev != g->dimen_abbrev)
            return tally_error_set(r->err, r->name, 0,
                                   "histogram record at byte %zu: dimension abbreviation changed "
                                   "between histogram records (from '%c' to '%c')",
                                   at, g->dimen_abbrev, abbrev);
        /* as gprof: NaN differences (empty histograms) pass */
        if (fabs(g->hist_scale - scale) > 0.000001)
            return tally_error_set(r->err, r->name, 0,
                                   "histogram record at byte %zu: different scales in histogram "
                                   "records (%g instead of %g address units per bin)",
                                   at, scale, g->hist_scale);
    }

    struct gmon_hist *h = NULL;
    for (size_t i = 0; i < g->nhists; i++)
        if (g->hists[i].low_pc == low && g->hists[i].high_pc == high) {
            h = &g->hists[i];
            break;
        }
    if (h && h->nbins != nbins)
        return tally_error_set(r->err, r->name, 0,
                               "histogram record at byte %zu: %" PRIu32
                               " bins where the earlier record for 0x%" PRIx64 "-0x%" PRIx64
                               " had %" PRIu32,
                               at, nbins, low, high, h->nbins);
    if (!h) {
        for (size_t i = 0; i < g->nhists; i++) {
            const struct gmon_hist *o = &g->hists[i];
            uint64_t lo = o->low_pc > low ? o->low_pc : low;
            uint64_t hi = o->high_pc < high ? o->high_pc : high;
            if (lo < hi)
                return tally_error_set(r->err, r->name, 0,
                                       "histogram record at byte %zu: overlapping histogram "
                                       "records (0x%" PRIx64 "-0x%" PRIx64
                                       " partly overlaps 0x%" PRIx64 "-0x%" PRIx64 ")",
                                       at, low, high, o->low_pc, o->high_pc);
        }
    }
    if (rd_left(r, 2 * (size_t)nbins) / 2 < nbins) {
        char what[96];
        snprintf(what, sizeof what, "histogram record (%zu of %" PRIu32 " samples present)",
                 rd_left(r, 0) / 2, nbins);
        return truncated(r, at, what);
    }
    if (!h) h = add_hist(g, low, high, nbins, rate);
    for (uint32_t i = 0; i < nbins; i++)
        h->bins[i] += rd_u(r, 2);
    return 0;
}

static int read_gnu_arc(struct gmon *g, struct rd *r)
{
    size_t at = r->base + r->pos - 1;
    unsigned A = r->lay.addr_size;
    if (rd_left(r, 2 * A + 4) < 2 * A + 4) return truncated(r, at, "call-graph record");
    uint64_t from = rd_vma(r), self = rd_vma(r);
    uint64_t count = rd_u(r, 4);
    if (count_record(r, at)) return -1;
    add_arc(g, from, self, count);
    return 0;
}

/* Skip a NUL-terminated string; 0 when the NUL was found. */
static int skip_string(struct rd *r)
{
    size_t look = 0, left;
    const unsigned char *nul = NULL;
    /* a streamed string is looked for as far as the longest text line */
    while (!nul && (left = rd_left(r, look + 1)) > look && look < r->max_line) {
        nul = memchr(r->p + r->pos + look, 0, left - look);
        look = left;
    }
    if (!nul) return -1;
    const unsigned char *s = r->p + r->pos;
    r->pos += (size_t)(nul - s) + 1;
    return 0;
}

static int read_gnu_bb(struct gmon *g, struct rd *r, int version)
{
    size_t at = r->base + r->pos - 1;
    unsigned A = r->lay.addr_size;
    if (rd_left(r, 4) < 4) return truncated(r, at, "basic-block record");
    uint32_t n = (uint32_t)rd_u(r, 4);
    if (version == 0) {
        /*
         * Version 0: a string, then per block an 8-byte count, an 8-byte
         * address, two strings and a 4-byte line number (the layout of
         * gprof's 64-bit host; decoded here in the executable's byte order).
         */
        if (skip_string(r)) return truncated(r, at, "basic-block record (version 0 name)");
        if (rd_left(r, 22 * (size_t)n) / 22 < n)
            return truncated(r, at, "basic-block record (version 0)");
        for (uint32_t i = 0; i < n; i++) {
            if (rd_left(r, 16) < 16) return truncated(r, at, "basic-block record (version 0)");
            uint64_t count = rd_u(r, 8), addr = rd_u(r, 8);
            if (skip_string(r) || skip_string(r) || rd_left(r, 4) < 4)
                return truncated(r, at, "basic-block record (version 0)");
            r->pos += 4;
            if (count_record(r, at)) return -1;
            add_bb(g, addr, count);
        }
        return 0;
    }
    if (rd_left(r, 2 * A * (size_t)n) / (2 * A) < n) {
        char what[96];
        snprintf(what, sizeof what, "basic-block record (%zu of %" PRIu32 " blocks present)",
                 rd_left(r, 0) / (2 * A), n);
        return truncated(r, at, what);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t addr = rd_vma(r), count = rd_vma(r);
        if (count_record(r, at)) return -1;
        add_bb(g, addr, count);
    }
    return 0;
}

static int read_gnu(struct gmon *g, struct rd *r)
{
    uint32_t version = (uint32_t)dec(r->p + 4, 4, r->lay.big_endian);
    if (version != 1 && version != 0)
        return tally_error_set(r->err, r->name, 0, "unsupported gmon.out version %" PRId32,
                               (int32_t)version);
    g->version = (int)version;
    g->last.version = (int)version;
    g->last.flavour = GMON_FLAVOUR_MAGIC;
    r->pos = GMON_HDR_SIZE;
    while (rd_left(r, 1)) {
        unsigned tag = r->p[r->pos++];
        int rc;
        switch (tag) {
        case TAG_HIST:
            g->last.nhist++;
            g->input |= GMON_INPUT_HIST;
            rc = read_gnu_hist(g, r);
            break;
        case TAG_ARC:
            g->last.narcs++;
            g->input |= GMON_INPUT_ARCS;
            rc = read_gnu_arc(g, r);
            break;
        case TAG_BB:
            g->last.nbb++;
            g->input |= GMON_INPUT_BB;
            rc = read_gnu_bb(g, r, (int)version);
            break;
        default:
            return tally_error_set(r->err, r->name, 0,
                                   "bad record tag %u at byte %zu (file corrupted?)", tag,
                                   r->base + r->pos - 1);
        }
        if (rc) return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* BSD formats                                                              */
/* ------------------------------------------------------------------------ */

static int read_bsd(struct gmon *g, struct rd *r, const struct gmon_read_opts *o)
{
    unsigned A = r->lay.addr_size;
    g->last.version = g->version;
    r->pos = 0;
    if (rd_left(r, 2 * A + 8) < 2 * A + 8) return truncated(r, 0, "BSD header");
    uint64_t low = rd_vma(r), high = rd_vma(r);
    uint32_t ncnt = (uint32_t)rd_u(r, 4);
    uint32_t version = (uint32_t)rd_u(r, 4);
    uint32_t hdr;
    if (version == BSD44_VERSION) {
        if (rd_left(r, 4) < 4) return truncated(r, 0, "4.4BSD header");
        uint32_t rate = (uint32_t)rd_u(r, 4);
        if (g->nhists == 0)
            g->hz = rate;
        else if (g->hz != rate)
            return tally_error_set(r->err, r->name, 0,
                                   "profiling rate %" PRIu32
                                   " incompatible with first gmon file (%" PRIu32 ")",
                                   rate, g->hz);
        hdr = A == 4 ? 32 : 40;
        g->last.flavour = GMON_FLAVOUR_BSD44;
    } else {
        if (o->flavour == GMON_FLAVOUR_BSD44)
            return tally_error_set(r->err, r->name, 0,
                                   "bad magic cookie: not a 4.4BSD gmon file (version word "
                                   "0x%08" PRIx32 ")",
                                   version);
        hdr = A == 4 ? 12 : 20;
        g->last.flavour = GMON_FLAVOUR_BSD;
    }
    /* gprof's arithmetic: an int byte count, then halved as an unsigned size */
    uint32_t diff = ncnt - hdr;
    int64_t samp = diff >= 0x80000000u ? (int64_t)diff - 0x100000000ll : (int64_t)diff;
    uint32_t nbins = (uint32_t)((uint64_t)samp / 2);
    if (g->nhists &&
        (low != g->hists[0].low_pc || high != g->hists[0].high_pc || nbins != g->hists[0].nbins))
        return tally_error_set(
            r->err, r->name, 0,
            "incompatible with first gmon file (range 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu32
            " bins; first: 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu32 " bins)",
            low, high, nbins, g->hists[0].low_pc, g->hists[0].high_pc, g->hists[0].nbins);
    if (samp < 0 || low > high)
        return tally_error_set(r->err, r->name, 0, "does not appear to be in gmon.out format (%s)",
                               samp < 0 ? "sample byte count below the header size"
                                        : "low_pc above high_pc");
    r->pos = hdr;
    if (rd_left(r, 2 * (size_t)nbins) / 2 < nbins) {
        char what[96];
        snprintf(what, sizeof what, "BSD histogram (%zu of %" PRIu32 " samples present)",
                 rd_left(r, 0) / 2, nbins);
        return truncated(r, hdr, what);
    }
    g->input = GMON_INPUT_HIST | GMON_INPUT_ARCS; /* as gprof: this also drops the BB flag */
    struct gmon_hist *h;
    if (g->nhists == 0) {
        h = add_hist(g, low, high, nbins, version == BSD44_VERSION ? g->hz : 0);
        g->hist_scale = scale_of(low, high, nbins);
    } else {
        h = &g->hists[0];
    }
    if (nbins) g->last.nhist++;
    for (uint32_t i = 0; i < nbins; i++)
        h->bins[i] += rd_u(r, 2);
    size_t arc_size = 3 * (size_t)A; /* the count is address-sized here */
    while (rd_left(r, arc_size) >= arc_size) {
        if (count_record(r, r->base + r->pos)) return -1;
        uint64_t from = rd_vma(r), self = rd_vma(r);
        uint64_t count = rd_u(r, A);
        add_arc(g, from, self, count);
        g->last.narcs++;
    }
    if (r->failed) return -1;
    if (rd_left(r, 0))
        strlist_pushf(&g->warnings, "%s: ignoring %zu trailing bytes at byte %zu (not a whole arc)",
                      r->name, rd_left(r, 0), r->base + r->pos);
    if (g->hz == 0) {
        g->hz = o->hertz;
        if (g->hz == 0) {
            g->hz = 1;
            strlist_pushf(&g->warnings, "%s: time is in ticks, not seconds", r->name);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

/* Decode the file behind `r` (p and size set, or an input to stream). */
static int read_rd(struct gmon *g, struct rd *r, const struct gmon_read_opts *o)
{
    r->max_records = o->max_records ? o->max_records : GMON_MAX_RECORDS_DEFAULT;
    memset(&g->last, 0, sizeof g->last);
    if (r->lay.addr_size != 4 && r->lay.addr_size != 8)
        return tally_error_set(r->err, r->name, 0, "address size has unexpected value of %u",
                               r->lay.addr_size * 8);
    if (rd_left(r, GMON_HDR_SIZE) < GMON_HDR_SIZE) {
        if (r->failed) return -1;
        return tally_error_set(r->err, r->name, 0, "file too short to be a gmon file (%zu bytes)",
                               r->size);
    }
    int magic = memcmp(r->p, "gmon", 4) == 0;
    if (o->flavour == GMON_FLAVOUR_MAGIC && !magic)
        return tally_error_set(r->err, r->name, 0, "bad magic cookie: not a GNU gmon.out file");
    int rc = o->flavour == GMON_FLAVOUR_MAGIC || (o->flavour == GMON_FLAVOUR_AUTO && magic)
                 ? read_gnu(g, r)
                 : read_bsd(g, r, o);
    return rc || r->failed ? -1 : 0;
}

int gmon_read_mem(struct gmon *g, const char *name, const void *data, size_t size,
                  const struct gmon_read_opts *o, struct tally_error *err)
{
    struct rd r = {.p = data,
                   .size = size,
                   .name = name,
                   .lay = o->layout,
                   .err = err,
                   .max_line = INPUT_MAX_LINE_DEFAULT};
    return read_rd(g, &r, o);
}

int gmon_read_input(struct gmon *g, struct input *in, const struct gmon_read_opts *o,
                    struct tally_error *err)
{
    struct rd r = {
        .name = in->path, .lay = o->layout, .err = err, .in = in, .max_line = in->max_line};
    if (in->kind == INPUT_MAP || (in->kind == INPUT_MEM && in->data)) {
        /* all of it is in memory already */
        r.p = (const unsigned char *)in->data + in->pos;
        r.size = in->size - in->pos;
        r.in = NULL;
    }
    int rc = read_rd(g, &r, o);
    free(r.own);
    return rc;
}

int gmon_read(struct gmon *g, const char *path, const struct gmon_read_opts *o,
              struct tally_error *err)
{
    struct input in;
    if (input_open(&in, path, err)) return -1;
    int rc = gmon_read_input(g, &in, o, err);
    input_close(&in);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/* ------------------------------------------------------------------------ */

struct wr {
    FILE *fp;
    struct gmon_layout lay;
};

static void wr_u(struct wr *w, uint64_t v, unsigned n)
{
    unsigned char b[8];
    enc(b, v, n, w->lay.big_endian);
    fwrite(b, 1, n, w->fp);
}

static void wr_vma(struct wr *w, uint64_t v)
{
    wr_u(w, v, w->lay.addr_size);
}

static void write_gnu(const struct gmon *g, struct wr *w, const struct gmon_arc *arcs, size_t narcs)
{
    unsigned char hdr[GMON_HDR_SIZE] = {'g', 'm', 'o', 'n'};
    enc(hdr + 4, 1, 4, w->lay.big_endian);
    fwrite(hdr, 1, sizeof hdr, w->fp);
    if (g->input & GMON_INPUT_HIST) {
        for (size_t i = 0; i < g->nhists; i++) {
            const struct gmon_hist *h = &g->hists[i];
            fputc(TAG_HIST, w->fp);
            wr_vma(w, h->low_pc);
            wr_vma(w, h->high_pc);
            wr_u(w, h->nbins, 4);
            wr_u(w, g->hz, 4);
            unsigned char d[16] = {0};
            memcpy(d, g->dimen, strnlen(g->dimen, 15));
            d[15] = (unsigned char)g->dimen_abbrev;
            fwrite(d, 1, 16, w->fp);
            for (uint32_t b = 0; b < h->nbins; b++)
                wr_u(w, h->bins[b] & 0xffff, 2); /* 16 bits, truncated as gprof does */
        }
    }
    if (g->input & GMON_INPUT_ARCS) {
        for (size_t i = 0; i < narcs; i++) {
            fputc(TAG_ARC, w->fp);
            wr_vma(w, arcs[i].from_pc);
            wr_vma(w, arcs[i].self_pc);
            wr_u(w, arcs[i].count & 0xffffffffu, 4);
        }
    }
    if (g->input & GMON_INPUT_BB) {
        size_t done = 0;
        do {
            size_t n = g->nbbs - done;
            if (n > UINT32_MAX) n = UINT32_MAX;
            fputc(TAG_BB, w->fp);
            wr_u(w, n, 4);
            for (size_t i = done; i < done + n; i++) {
                wr_vma(w, g->bbs[i].addr);
                wr_vma(w, g->bbs[i].count);
            }
            done += n;
        } while (done < g->nbbs);
    }
}

static int write_bsd(const struct gmon *g, struct wr *w, const struct gmon_write_opts *o,
                     const struct gmon_arc *arcs, size_t narcs, const char *name,
                     struct tally_error *err)
{
    if (g->nhists == 0)
        return tally_error_set(err, name, 0, "no histogram to write in the BSD gmon.out format");
    const struct gmon_hist *h = &g->hists[0];
    unsigned A = w->lay.addr_size;
    int bsd44 = o->flavour == GMON_FLAVOUR_BSD44 || g->hz != o->hertz;
    uint32_t hdr = bsd44 ? (A == 4 ? 32 : 40) : (A == 4 ? 12 : 20);
    wr_vma(w, h->low_pc);
    wr_vma(w, h->high_pc);
    wr_u(w, (uint32_t)((uint64_t)h->nbins * 2 + hdr), 4);
    if (bsd44) {
        static const unsigned char spare[12];
        wr_u(w, BSD44_VERSION, 4);
        wr_u(w, g->hz, 4);
        fwrite(spare, 1, sizeof spare, w->fp);
    }
    for (uint32_t b = 0; b < h->nbins; b++)
        wr_u(w, h->bins[b] & 0xffff, 2);
    for (size_t i = 0; i < narcs; i++) {
        wr_vma(w, arcs[i].from_pc);
        wr_vma(w, arcs[i].self_pc);
        wr_u(w, arcs[i].count, A);
    }
    return 0;
}

int gmon_write_fp(const struct gmon *g, FILE *fp, const char *name, const struct gmon_write_opts *o,
                  struct tally_error *err)
{
    struct wr w = {fp, o->layout};
    if (w.lay.addr_size != 4 && w.lay.addr_size != 8)
        return tally_error_set(err, name, 0, "address size has unexpected value of %u",
                               w.lay.addr_size * 8);
    const struct gmon_arc *arcs = o->arcs ? o->arcs : g->arcs;
    size_t narcs = o->arcs ? o->narcs : g->narcs;
    int rc = 0;
    if (o->flavour == GMON_FLAVOUR_BSD || o->flavour == GMON_FLAVOUR_BSD44)
        rc = write_bsd(g, &w, o, arcs, narcs, name, err);
    else
        write_gnu(g, &w, arcs, narcs);
    if (rc == 0 && ferror(fp)) return tally_error_set(err, name, 0, "write error");
    return rc;
}

int gmon_write(const struct gmon *g, const char *path, const struct gmon_write_opts *o,
               struct tally_error *err)
{
    struct outfile of;
    if (outfile_open(&of, path, err)) return -1;
    if (gmon_write_fp(g, of.fp, path, o, err)) {
        outfile_abort(&of);
        return -1;
    }
    return outfile_commit(&of, err);
}
