/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the gmon.out reader and writer.
 *
 * Byte 0 chooses the reading flavour (bits 0-1: auto, bsd, 4.4bsd, magic),
 * the address size (bit 2: 4 or 8), the byte order (bit 3), sign extension
 * of 32-bit addresses (bit 4), the system rate for old BSD files (bit 5:
 * 100 or unknown) and whether the rest is read as one file or as two files
 * summed (bit 6; byte 1 then says where to split). The rest is the file.
 *
 * When the input is accepted it is written in the GNU format and read
 * back: the result must be readable and hold the same histograms (bins
 * modulo 16 bits), arcs (counts modulo 32 bits) and basic blocks. The BSD
 * writer is run too, for crashes only (an old BSD file whose first bins
 * spell the 4.4BSD version word is legitimately read back differently).
 */
#include "formats/gmon.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *write_mem(const struct gmon *g, const struct gmon_write_opts *w, size_t *len, int *rc)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) abort();
    struct tally_error err;
    *rc = gmon_write_fp(g, fp, "out", w, &err);
    fclose(fp);
    if (*rc && !err.msg[0]) abort();
    return buf;
}

static int read_part(struct gmon *g, const uint8_t *d, size_t n, const struct gmon_read_opts *o)
{
    struct tally_error err;
    tally_error_clear(&err);
    int rc = gmon_read_mem(g, "fuzz", d, n, o, &err);
    /* a failure always says which file, and what */
    if (rc && (!err.msg[0] || strcmp(err.file, "fuzz") != 0 || err.line != 0)) abort();
    return rc;
}

/*
 * b is a re-read by the GNU writer's output. With 4-byte addresses the
 * 8-byte fields of version-0 basic-block records are cut to 4 bytes on
 * writing (and may then merge), so blocks are compared with 8-byte ones only.
 */
static void check_same(const struct gmon *a, const struct gmon *b, unsigned addr_size)
{
    if (a->nhists != b->nhists || a->narcs != b->narcs) abort();
    if (addr_size == 8 ? a->nbbs != b->nbbs : a->nbbs < b->nbbs) abort();
    for (size_t i = 0; i < a->nhists; i++) {
        const struct gmon_hist *x = &a->hists[i], *y = &b->hists[i];
        if (x->low_pc != y->low_pc || x->high_pc != y->high_pc || x->nbins != y->nbins) abort();
        for (uint32_t j = 0; j < x->nbins; j++)
            if ((x->bins[j] & 0xffff) != y->bins[j]) abort();
    }
    for (size_t i = 0; i < a->narcs; i++)
        if (a->arcs[i].from_pc != b->arcs[i].from_pc || a->arcs[i].self_pc != b->arcs[i].self_pc ||
            (a->arcs[i].count & 0xffffffffu) != b->arcs[i].count)
            abort();
    for (size_t i = 0; addr_size == 8 && i < a->nbbs; i++)
        if (a->bbs[i].addr != b->bbs[i].addr || a->bbs[i].count != b->bbs[i].count) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t sel = data[0], split = data[1];
    data += 2;
    size -= 2;
    struct gmon_read_opts o = {0};
    o.flavour = (enum gmon_flavour)(sel & 3);
    o.layout.addr_size = sel & 4 ? 8 : 4;
    o.layout.big_endian = !!(sel & 8);
    o.layout.sign_extend = !!(sel & 16);
    o.hertz = sel & 32 ? 0 : 100;

    struct gmon g;
    gmon_init(&g);
    int rc;
    if (sel & 64) {
        size_t cut = (size_t)split * size / 256;
        rc = read_part(&g, data, cut, &o);
        if (!rc) rc = read_part(&g, data + cut, size - cut, &o);
    } else {
        rc = read_part(&g, data, size, &o);
    }
    if (rc) {
        gmon_release(&g);
        return 0;
    }

    struct gmon_write_opts w = {0};
    w.layout = o.layout;
    w.hertz = 100;
    size_t len = 0;
    int wrc;
    char *out = write_mem(&g, &w, &len, &wrc);
    if (wrc) abort(); /* the GNU writer cannot refuse */
    struct gmon h;
    gmon_init(&h);
    struct gmon_read_opts o2 = o;
    o2.flavour = GMON_FLAVOUR_MAGIC;
    if (read_part(&h, (const uint8_t *)out, len, &o2)) abort();
    /* what the writer wrote was what g said had been read */
    if (!(g.input & GMON_INPUT_HIST) && h.nhists) abort();
    if (g.input & GMON_INPUT_HIST) {
        if (h.hz != (h.nhists ? g.hz : 0)) abort();
    }
    struct gmon gg = g;
    if (!(g.input & GMON_INPUT_HIST)) gg.nhists = 0;
    if (!(g.input & GMON_INPUT_ARCS)) gg.narcs = 0;
    if (!(g.input & GMON_INPUT_BB)) gg.nbbs = 0;
    check_same(&gg, &h, o.layout.addr_size);
    gmon_release(&h);
    free(out);

    w.flavour = GMON_FLAVOUR_BSD;
    out = write_mem(&g, &w, &len, &wrc);
    if (!wrc) {
        gmon_init(&h);
        o2.flavour = GMON_FLAVOUR_BSD;
        (void)read_part(&h, (const uint8_t *)out, len, &o2);
        gmon_release(&h);
    } else if (g.nhists) {
        abort(); /* the BSD writer refuses only when there is no histogram */
    }
    free(out);
    gmon_release(&g);
    return 0;
}
