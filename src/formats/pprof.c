/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof.c - profile.proto from a stack tree, encoded by hand and gzipped
 * (see pprof.h).
 *
 * Protobuf wire format used here: a field is a key varint
 * (field_number << 3 | wire_type) then its value; wire type 0 is a varint
 * (7 bits per byte, low group first, high bit set on all but the last
 * byte), wire type 2 is a varint length then that many bytes (strings,
 * nested messages, packed repeated varints).
 */
#include "pprof.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../model/strtab.h"
#include "folded.h"

struct pbuf {
    uint8_t *d;
    size_t n, cap;
};

static void pb_byte(struct pbuf *b, uint8_t c)
{
    b->d = xgrow(b->d, &b->cap, b->n + 1, 1);
    b->d[b->n++] = c;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
    while (v >= 0x80) {
        pb_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    pb_byte(b, (uint8_t)v);
}

static void pb_key(struct pbuf *b, unsigned field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field (proto3: zero values are left out). */
static void pb_uint(struct pbuf *b, unsigned field, uint64_t v)
{
    if (!v) return;
    pb_key(b, field, 0);
    pb_varint(b, v);
}

static void pb_bytes(struct pbuf *b, unsigned field, const void *data, size_t len)
{
    pb_key(b, field, 2);
    pb_varint(b, len);
    b->d = xgrow(b->d, &b->cap, b->n + len + 1, 1);
    if (len) memcpy(b->d + b->n, data, len);
    b->n += len;
}

/* Append the nested message `sub` as field `field`, and empty `sub`. */
static void pb_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
    pb_bytes(b, field, sub->d, sub->n);
    sub->n = 0;
}

struct pp_state {
    const struct stack_tree *t;
    struct strtab strs;
    size_t nfn;          /* functions of the profile; slot nfn = "[other]" */
    uint32_t *loc_of_fn; /* [nfn + 1] location (= function) id, 0 = none yet */
    uint32_t *fn_of_loc; /* [nlocs + 1] slot of each location id */
    uint32_t nlocs;
    uint64_t *start_line; /* [nfn] first source line of each function, 0 = unknown */
};

static int64_t str_id(struct pp_state *s, const char *str)
{
    return (int64_t)strtab_intern(&s->strs, str, strlen(str));
}

static uint32_t loc_id(struct pp_state *s, uint32_t fn)
{
    size_t slot = fn < s->nfn ? fn : s->nfn;
    if (!s->loc_of_fn[slot]) {
        s->loc_of_fn[slot] = ++s->nlocs;
        s->fn_of_loc[s->nlocs] = (uint32_t)slot;
    }
    return s->loc_of_fn[slot];
}

/* The sample of node i (0 = the root's own weight), if it has weight. */
static int put_sample(struct pp_state *s, uint32_t i, struct pbuf *out, struct pbuf *smp,
                      struct pbuf *packed, struct tally_error *err)
{
    const struct stack_tree *t = s->t;
    int any = 0;
    for (size_t e = 0; e < t->nev; e++) {
        uint64_t w = folded_weight(t, i, e);
        if (w > (uint64_t)INT64_MAX)
            return tally_error_set(err, NULL, 0, "a cost exceeds pprof's 64-bit signed values");
        if (w) any = 1;
    }
    if (!any) return 0;
    if (i == 0)
        pb_varint(packed, loc_id(s, STACK_NO_FN));
    else
        for (uint32_t k = i; k != 0; k = t->nodes[k].parent)
            pb_varint(packed, loc_id(s, t->nodes[k].fn));
    pb_msg(smp, 1, packed);
    for (size_t e = 0; e < t->nev; e++)
        pb_varint(packed, folded_weight(t, i, e));
    pb_msg(smp, 2, packed);
    pb_msg(out, 2, smp);
    return 0;
}

/* Samples: one per node with weight, leaf first. */
static int put_samples(struct pp_state *s, struct pbuf *out, struct tally_error *err)
{
    struct pbuf smp = {0}, packed = {0};
    int rc = put_sample(s, 0, out, &smp, &packed, err);
    for (uint32_t i = folded_next(s->t, 0); i && rc == 0; i = folded_next(s->t, i))
        rc = put_sample(s, i, out, &smp, &packed, err);
    free(smp.d);
    free(packed.d);
    return rc;
}

int pprof_encode(const struct stack_tree *t, const struct pprof_options *o, uint8_t **outp,
                 size_t *lenp, struct tally_error *err)
{
    struct pp_state s;
    memset(&s, 0, sizeof(s));
    s.t = t;
    strtab_init(&s.strs);
    s.nfn = t->p ? profile_nfunctions(t->p) : 0;
    s.loc_of_fn = xcalloc(s.nfn + 1, sizeof(*s.loc_of_fn));
    s.fn_of_loc = xcalloc(s.nfn + 2, sizeof(*s.fn_of_loc));
    s.start_line = folded_start_lines(t->p);
    struct pbuf out = {0}, sub = {0}, sub2 = {0};
    size_t dflt = o && o->default_event < t->nev ? o->default_event : 0;
    int rc = -1;

    int64_t count = str_id(&s, "count");
    for (size_t e = 0; e < t->nev; e++) {
        pb_uint(&sub, 1, (uint64_t)str_id(&s, t->ev_names[e]));
        pb_uint(&sub, 2, (uint64_t)count);
        pb_msg(&out, 1, &sub);
    }
    if (t->n && put_samples(&s, &out, err)) goto done;

    /* mappings: one per object, in order of first use */
    const struct profile *p = t->p;
    uint32_t *map_of_loc = xcalloc((size_t)s.nlocs + 1, sizeof(*map_of_loc));
    uint32_t *obj_of_map = xcalloc((size_t)s.nlocs + 2, sizeof(*obj_of_map));
    uint32_t nmaps = 0;
    for (uint32_t l = 1; l <= s.nlocs; l++) {
        uint32_t slot = s.fn_of_loc[l];
        uint32_t obj = slot < s.nfn ? profile_function_at(p, slot).obj : 0;
        uint32_t m = 0;
        for (uint32_t k = 1; k <= nmaps && !m; k++)
            if (obj_of_map[k] == obj) m = k;
        if (!m) obj_of_map[m = ++nmaps] = obj;
        map_of_loc[l] = m;
    }
    for (uint32_t m = 1; m <= nmaps; m++) {
        pb_uint(&sub, 1, m);
        const char *obj = p ? profile_str(p, obj_of_map[m]) : "";
        pb_uint(&sub, 5, (uint64_t)str_id(&s, obj));
        pb_uint(&sub, 7, 1); /* has_functions */
        pb_uint(&sub, 8, 1); /* has_filenames */
        pb_uint(&sub, 9, 1); /* has_line_numbers */
        pb_msg(&out, 3, &sub);
    }
    /* locations and functions: location l holds function l */
    for (uint32_t l = 1; l <= s.nlocs; l++) {
        uint32_t slot = s.fn_of_loc[l];
        pb_uint(&sub, 1, l);
        pb_uint(&sub, 2, map_of_loc[l]);
        pb_uint(&sub2, 1, l);
        if (slot < s.nfn) pb_uint(&sub2, 2, s.start_line[slot]);
        pb_msg(&sub, 4, &sub2);
        pb_msg(&out, 4, &sub);
    }
    for (uint32_t l = 1; l <= s.nlocs; l++) {
        uint32_t slot = s.fn_of_loc[l];
        const char *name = "[other]", *file = "";
        if (slot < s.nfn) {
            struct function f = profile_function_at(p, slot);
            name = profile_str(p, f.name);
            file = profile_str(p, f.file);
        }
        int64_t nid = str_id(&s, *name ? name : "???");
        pb_uint(&sub, 1, l);
        pb_uint(&sub, 2, (uint64_t)nid);
        pb_uint(&sub, 3, (uint64_t)nid);
        pb_uint(&sub, 4, (uint64_t)str_id(&s, file));
        if (slot < s.nfn) pb_uint(&sub, 5, s.start_line[slot]);
        pb_msg(&out, 5, &sub);
    }
    free(map_of_loc);
    free(obj_of_map);

    char *how = xasprintf("stacks %s", t->method                 ? t->method
                                       : t->kind == STACKS_EXACT ? "exact"
                                                                 : "estimated");
    int64_t method = str_id(&s, how);
    free(how);
    int64_t comment = o && o->comment ? str_id(&s, o->comment) : 0;
    int64_t dname = t->nev ? str_id(&s, t->ev_names[dflt]) : 0;
    /* string table: every id interned so far, in id order */
    for (size_t i = 0; i < s.strs.n; i++)
        pb_bytes(&out, 6, strtab_str(&s.strs, (uint32_t)i), strtab_len(&s.strs, (uint32_t)i));
    pb_uint(&sub, 1, (uint64_t)dname);
    pb_uint(&sub, 2, (uint64_t)count);
    pb_msg(&out, 11, &sub);
    pb_uint(&out, 12, 1);
    if (comment) pb_uint(&out, 13, (uint64_t)comment);
    pb_uint(&out, 13, (uint64_t)method);
    pb_uint(&out, 14, (uint64_t)dname);
    rc = 0;
done:
    free(sub.d);
    free(sub2.d);
    free(s.loc_of_fn);
    free(s.fn_of_loc);
    free(s.start_line);
    strtab_release(&s.strs);
    if (rc) {
        free(out.d);
        return rc;
    }
    *outp = out.d ? out.d : xmalloc(1);
    *lenp = out.n;
    return 0;
}

int pprof_write(const struct stack_tree *t, FILE *fp, const struct pprof_options *o,
                struct tally_error *err)
{
    uint8_t *msg;
    size_t len;
    if (pprof_encode(t, o, &msg, &len, err)) return -1;
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    /* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        free(msg);
        return tally_error_set(err, NULL, 0, "cannot start gzip compression");
    }
    unsigned char chunk[1 << 16];
    zs.next_in = msg;
    int rc = 0, zr;
    size_t left = len;
    do {
        uInt take = left > (1u << 30) ? (1u << 30) : (uInt)left;
        zs.next_in = msg + (len - left);
        zs.avail_in = take;
        left -= take;
        int flush = left ? Z_NO_FLUSH : Z_FINISH;
        do {
            zs.next_out = chunk;
            zs.avail_out = sizeof(chunk);
            zr = deflate(&zs, flush);
            size_t have = sizeof(chunk) - zs.avail_out;
            if (have && fwrite(chunk, 1, have, fp) != have) rc = -1;
        } while (zs.avail_out == 0 && rc == 0);
    } while (left && rc == 0);
    if (rc == 0 && zr != Z_STREAM_END) rc = -1;
    deflateEnd(&zs);
    free(msg);
    if (rc || ferror(fp)) return tally_error_set(err, NULL, 0, "write error");
    return 0;
}
