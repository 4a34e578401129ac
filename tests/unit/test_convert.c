/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_convert.c - the writers of `tally convert`: JSON strings, the
 * tally-profile JSON document, folded stacks, speedscope and pprof
 * (decoded here by a protobuf reader written for the test, and gunzipped
 * with zlib). Stack trees are built by hand, so every expected value is
 * worked out from the tree.
 */
#include "testutil.h"

#include <zlib.h>

#include "analysis/apportion.h"
#include "export/pprof_lines.h"
#include "analysis/stacks.h"
#include "export/export.h"
#include "export/folded.h"
#include "formats/format.h"
#include "export/json.h"
#include "export/pprof.h"
#include "export/speedscope.h"

/* Run a writer into memory and return the text (caller frees). */
#define CAPTURE(buf, call)                                                                         \
    do {                                                                                           \
        size_t cap_len_;                                                                           \
        FILE *fp = open_memstream(&(buf), &cap_len_);                                              \
        assert_non_null(fp);                                                                       \
        call;                                                                                      \
        fclose(fp);                                                                                \
    } while (0)

static void test_json_string(void **state)
{
    (void)state;
    char *out = NULL;
    CAPTURE(out, json_put_string(fp, "a\"b\\c\nd\te\x01"));
    assert_string_equal(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    free(out);
    /* valid UTF-8 is kept; a lone continuation byte, an overlong form and
     * a truncated sequence become U+FFFD */
    CAPTURE(out, json_put_string(fp, "\xc3\xa9|\x80|\xc0\xaf|\xe2\x82"));
    assert_string_equal(out, "\"\xc3\xa9|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\"");
    free(out);
    CAPTURE(out, json_put_string(fp, NULL));
    assert_string_equal(out, "\"\"");
    free(out);
}

/* main (self 10) calls f twice (inclusive 30); f and g call each other
 * (a cycle: f self 20, g self 10, f->g inclusive 10, g->f 5 calls 0 cost). */
static const char *cg_text = "events: Ir\n"
                             "fl=m.c\n"
                             "fn=main\n"
                             "1 10\n"
                             "cfn=f\n"
                             "calls=2 5\n"
                             "2 30\n"
                             "fn=f\n"
                             "5 20\n"
                             "cfn=g\n"
                             "calls=1 9\n"
                             "6 10\n"
                             "fn=g\n"
                             "9 10\n"
                             "cfn=f\n"
                             "calls=1 5\n"
                             "10 0\n";

static void test_json_document(void **state)
{
    (void)state;
    struct read_options ro = {.merge_parts = 1};
    struct profile *p = test_read_string(cg_text, &ro, NULL);
    assert_non_null(p);
    struct tally_error err;
    char *out = NULL;
    struct json_options o = {.lines = 1, .source = "in.cg"};
    int rc;
    CAPTURE(out, rc = json_write(p, fp, &o, &err));
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "\"schema\": \"tally-profile\""));
    assert_non_null(strstr(out, "\"source\": \"in.cg\""));
    assert_non_null(strstr(out, "\"totals\": [40]"));
    /* main: self 10, inclusive 10 + 30; the cycle: entered by 30 from
     * main, at f only, so f is on the stack whenever the cycle is: 30 (an
     * estimate: the file's calls may nest); g: the call into it, 10 */
    assert_non_null(strstr(out, "\"name\": \"main\", \"object\": \"\", \"file\": \"m.c\",\n"
                                "     \"self\": [10], \"inclusive\": [40], \"cycle\": 0"));
    assert_non_null(
        strstr(out, "\"self\": [20], \"inclusive\": [30], \"cycle\": 1, \"estimated\": true"));
    assert_non_null(
        strstr(out, "\"self\": [10], \"inclusive\": [10], \"cycle\": 1, \"estimated\": true"));
    assert_non_null(
        strstr(out, "{\"caller\": 0, \"callee\": 1, \"count\": 2, \"inclusive\": [30]}"));
    assert_non_null(strstr(out, "\"members\": [1, 2], \"self\": [30], \"inclusive\": [30]"));
    assert_non_null(strstr(out, "{\"file\": \"m.c\", \"line\": 5, \"self\": [20]}"));
    free(out);
    profile_free(p);
}

/*
 * A hand-made tree over a profile with functions main (m.c, /bin/a),
 * work (w.c, /bin/a), "x;y\nz" (x.c, /lib/b):
 *   0 root   total 25          own weight 25 - 20 = 5
 *   1 main   total 20, self 5  own weight 20 - 10 - 4 = 6
 *   2 work   total 10, self 10 own weight 10 (child of main)
 *   3 x;y\nz total 4, self 1   own weight 4 (pruned cost kept in its total)
 * Second event: every value times 100 (so 300 needs a two-byte varint).
 */
struct hand_tree {
    struct profile *p;
    struct stack_tree t;
    struct stack_node nodes[4];
    uint64_t self[8], total[8];
    const char *names[2];
};

static void hand_tree_init(struct hand_tree *h)
{
    memset(h, 0, sizeof(*h));
    struct profile *p = h->p = profile_new();
    uint32_t a = profile_intern(p, "/bin/a", 6), b = profile_intern(p, "/lib/b", 6);
    uint32_t fmain =
        profile_function(p, a, profile_intern(p, "m.c", 3), profile_intern(p, "main", 4));
    uint32_t fwork =
        profile_function(p, a, profile_intern(p, "w.c", 3), profile_intern(p, "work", 4));
    uint32_t fx =
        profile_function(p, b, profile_intern(p, "x.c", 3), profile_intern(p, "x;y\nz", 5));
    struct stack_node n0 = {STACK_NO_FN, 0, 1, 0, 0, 0, 0};
    struct stack_node n1 = {fmain, 0, 2, 0, 1, 0, 1};
    struct stack_node n2 = {fwork, 1, 0, 3, 2, 0, 7};
    struct stack_node n3 = {fx, 1, 0, 0, 2, 0, 1};
    h->nodes[0] = n0;
    h->nodes[1] = n1;
    h->nodes[2] = n2;
    h->nodes[3] = n3;
    uint64_t self[4] = {0, 5, 10, 1}, total[4] = {25, 20, 10, 4};
    for (int i = 0; i < 4; i++) {
        h->self[2 * i] = self[i];
        h->self[2 * i + 1] = self[i] * 100;
        h->total[2 * i] = total[i];
        h->total[2 * i + 1] = total[i] * 100;
    }
    h->names[0] = "Ir";
    h->names[1] = "Dr";
    h->t.p = p;
    h->t.kind = STACKS_EXACT;
    h->t.method = "exact: by hand";
    h->t.nev = 2;
    h->t.ev_names = h->names;
    h->t.n = h->t.cap = 4;
    h->t.nodes = h->nodes;
    h->t.self = h->self;
    h->t.total = h->total;
}

static void test_folded(void **state)
{
    (void)state;
    struct hand_tree h;
    hand_tree_init(&h);
    assert_int_equal(folded_weight(&h.t, 0, 0), 5);
    assert_int_equal(folded_weight(&h.t, 1, 0), 6);
    assert_int_equal(folded_weight(&h.t, 3, 1), 400);
    assert_int_equal(folded_next(&h.t, 0), 1);
    assert_int_equal(folded_next(&h.t, 1), 2);
    assert_int_equal(folded_next(&h.t, 2), 3);
    assert_int_equal(folded_next(&h.t, 3), 0);
    struct tally_error err;
    char *out = NULL;
    int rc;
    CAPTURE(out, rc = folded_write(&h.t, 0, fp, &err));
    assert_int_equal(rc, 0);
    assert_string_equal(out, "[other] 5\n"
                             "main 6\n"
                             "main;work 10\n"
                             "main;x,y z 4\n");
    free(out);
    CAPTURE(out, rc = folded_write(&h.t, 1, fp, &err));
    assert_string_equal(out, "[other] 500\nmain 600\nmain;work 1000\nmain;x,y z 400\n");
    free(out);
    CAPTURE(out, rc = folded_write(&h.t, 2, fp, &err));
    assert_int_equal(rc, -1);
    free(out);
    profile_free(h.p);
}

static void test_speedscope(void **state)
{
    (void)state;
    struct hand_tree h;
    hand_tree_init(&h);
    struct tally_error err;
    char *out = NULL;
    struct speedscope_options o = {.name = "./a", .exporter = "tally test"};
    int rc;
    CAPTURE(out, rc = speedscope_write(&h.t, fp, &o, &err));
    assert_int_equal(rc, 0);
    assert_non_null(
        strstr(out, "\"$schema\": \"https://www.speedscope.app/file-format-schema.json\""));
    /* frames in walk order, then [other] */
    assert_non_null(strstr(out, "{\"name\": \"main\", \"file\": \"m.c\"},\n"
                                "    {\"name\": \"work\", \"file\": \"w.c\"},\n"
                                "    {\"name\": \"x;y\\nz\", \"file\": \"x.c\"},\n"
                                "    {\"name\": \"[other]\"}"));
    assert_non_null(strstr(out, "{\"type\": \"sampled\", \"name\": \"Ir\", \"unit\": \"none\", "
                                "\"startValue\": 0, \"endValue\": 25,\n"
                                "     \"samples\": [[3],\n       [0],\n       [0, 1],\n"
                                "       [0, 2]],\n"
                                "     \"weights\": [5, 6, 10, 4]}"));
    assert_non_null(strstr(out, "\"endValue\": 2500"));
    assert_non_null(strstr(out, "\"weights\": [500, 600, 1000, 400]"));
    assert_non_null(strstr(out, "\"name\": \"./a (exact: by hand)\""));
    assert_non_null(strstr(out, "\"exporter\": \"tally test\""));
    free(out);
    profile_free(h.p);
}

/* --- a protobuf reader for the test ------------------------------------- */

struct pbr {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_varint(struct pbr *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

/* Next field: its number, wire type, and varint value or bytes. */
static int rd_field(struct pbr *r, unsigned *field, uint64_t *v, struct pbr *sub)
{
    if (r->p >= r->end || r->bad) return 0;
    uint64_t key = rd_varint(r);
    *field = (unsigned)(key >> 3);
    unsigned wire = key & 7;
    if (wire == 0) {
        *v = rd_varint(r);
    } else if (wire == 2) {
        uint64_t len = rd_varint(r);
        if (len > (uint64_t)(r->end - r->p)) {
            r->bad = 1;
            return 0;
        }
        sub->p = r->p;
        sub->end = r->p + len;
        sub->bad = 0;
        r->p += len;
    } else {
        r->bad = 1;
        return 0;
    }
    return !r->bad;
}

struct decoded {
    char strs[32][32];
    int nstrs;
    int nsample_types, sample_type_name[4];
    int nsamples;
    uint64_t locs[8][4];
    int nlocs[8];
    uint64_t vals[8][2];
    uint64_t loc_fn[8];      /* location id -> function id */
    uint64_t fn_name[8];     /* function id -> name string index */
    uint64_t map_file[8];    /* mapping id -> filename string index */
    uint64_t loc_mapping[8]; /* location id -> mapping id */
    uint64_t loc_line[8];    /* location id -> its line's line number */
    int ncomments;
    uint64_t comments[4];
    uint64_t default_type, period;
};

static void decode(const uint8_t *buf, size_t len, struct decoded *d)
{
    memset(d, 0, sizeof(*d));
    struct pbr r = {buf, buf + len, 0}, s, s2;
    unsigned f, f2, f3;
    uint64_t v, v2, v3;
    while (rd_field(&r, &f, &v, &s)) {
        switch (f) {
        case 1:
            while (rd_field(&s, &f2, &v2, &s2))
                if (f2 == 1) d->sample_type_name[d->nsample_types] = (int)v2;
            d->nsample_types++;
            break;
        case 2: {
            /* (tables hold 8 entries: more samples or ids fail the test, not memory) */
            assert_true(d->nsamples < 8);
            int i = d->nsamples++;
            while (rd_field(&s, &f2, &v2, &s2)) {
                int k = 0;
                while (s2.p < s2.end && k < 4) { /* packed varints */
                    uint64_t x = rd_varint(&s2);
                    if (f2 == 1 && d->nlocs[i] < 4) d->locs[i][d->nlocs[i]++] = x;
                    if (f2 == 2 && k < 2) d->vals[i][k] = x;
                    k++;
                }
            }
            break;
        }
        case 3: {
            uint64_t id = 0, file = 0;
            while (rd_field(&s, &f2, &v2, &s2)) {
                if (f2 == 1) id = v2;
                if (f2 == 5) file = v2;
            }
            assert_true(id < 8);
            d->map_file[id] = file;
            break;
        }
        case 4: {
            uint64_t id = 0, fn = 0, m = 0;
            while (rd_field(&s, &f2, &v2, &s2)) {
                if (f2 == 1) id = v2;
                if (f2 == 2) m = v2;
                if (f2 == 4)
                    while (rd_field(&s2, &f3, &v3, &s)) {
                        if (f3 == 1) fn = v3;
                        if (f3 == 2 && id < 8) d->loc_line[id] = v3;
                    }
            }
            assert_true(id < 8);
            d->loc_fn[id] = fn;
            d->loc_mapping[id] = m;
            break;
        }
        case 5: {
            uint64_t id = 0, name = 0;
            while (rd_field(&s, &f2, &v2, &s2)) {
                if (f2 == 1) id = v2;
                if (f2 == 2) name = v2;
            }
            assert_true(id < 8);
            d->fn_name[id] = name;
            break;
        }
        case 6:
            snprintf(d->strs[d->nstrs++], 32, "%.*s", (int)(s.end - s.p), (const char *)s.p);
            break;
        case 12:
            d->period = v;
            break;
        case 13:
            d->comments[d->ncomments++] = v;
            break;
        case 14:
            d->default_type = v;
            break;
        }
    }
    assert_false(r.bad);
    assert_true(r.p == r.end);
}

/* Name of the function at location id l. */
static const char *loc_name(const struct decoded *d, uint64_t l)
{
    return d->strs[d->fn_name[d->loc_fn[l]]];
}

static void test_pprof(void **state)
{
    (void)state;
    struct hand_tree h;
    hand_tree_init(&h);
    struct tally_error err;
    uint8_t *buf;
    size_t len;
    struct pprof_options o = {.default_event = 1, .comment = "cmd: ./a"};
    assert_int_equal(pprof_encode(&h.t, &o, &buf, &len, &err), 0);
    struct decoded d;
    decode(buf, len, &d);
    assert_string_equal(d.strs[0], "");
    assert_int_equal(d.nsample_types, 2);
    assert_string_equal(d.strs[d.sample_type_name[0]], "Ir");
    assert_string_equal(d.strs[d.sample_type_name[1]], "Dr");
    assert_string_equal(d.strs[d.default_type], "Dr");
    assert_int_equal(d.period, 1);
    assert_int_equal(d.ncomments, 2);
    assert_string_equal(d.strs[d.comments[0]], "cmd: ./a");
    assert_string_equal(d.strs[d.comments[1]], "stacks exact: by hand");
    /* samples: [other], main, work<-main, x<-main; leaf first */
    assert_int_equal(d.nsamples, 4);
    assert_int_equal(d.nlocs[0], 1);
    assert_string_equal(loc_name(&d, d.locs[0][0]), "[other]");
    assert_int_equal(d.vals[0][0], 5);
    assert_int_equal(d.vals[0][1], 500);
    assert_int_equal(d.nlocs[2], 2);
    assert_string_equal(loc_name(&d, d.locs[2][0]), "work");
    assert_string_equal(loc_name(&d, d.locs[2][1]), "main");
    assert_int_equal(d.vals[2][0], 10);
    assert_int_equal(d.vals[2][1], 1000);
    assert_string_equal(loc_name(&d, d.locs[3][0]), "x;y\nz");
    assert_int_equal(d.vals[3][1], 400);
    /* main and work share the mapping of /bin/a, x has /lib/b */
    assert_string_equal(d.strs[d.map_file[d.loc_mapping[d.locs[2][0]]]], "/bin/a");
    assert_true(d.loc_mapping[d.locs[2][0]] == d.loc_mapping[d.locs[2][1]]);
    assert_string_equal(d.strs[d.map_file[d.loc_mapping[d.locs[3][0]]]], "/lib/b");
    uint64_t sum = 0;
    for (int i = 0; i < d.nsamples; i++)
        sum += d.vals[i][0];
    assert_int_equal(sum, 25);

    /* gzip: what pprof_write produces gunzips to the same message */
    char *path = test_tmpfile("", 0);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(pprof_write(&h.t, fp, &o, &err), 0);
    fclose(fp);
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    uint8_t *back = malloc(len + 16);
    int n = gzread(gz, back, (unsigned)len + 16);
    gzclose(gz);
    assert_int_equal(n, (int)len);
    assert_memory_equal(back, buf, len);
    fp = fopen(path, "rb");
    unsigned char magic[2] = {0};
    assert_int_equal(fread(magic, 1, 2, fp), 2);
    fclose(fp);
    assert_int_equal(magic[0], 0x1f);
    assert_int_equal(magic[1], 0x8b);
    unlink(path);
    free(path);
    free(back);
    free(buf);

    /* a cost that int64 cannot hold is an error */
    h.total[0] = UINT64_MAX;
    assert_int_equal(pprof_encode(&h.t, &o, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "64-bit"));
    profile_free(h.p);
}

/* --- apportioning whole counts (analysis/apportion.h) ---------------------- */

static void test_apportion(void **state)
{
    (void)state;
    struct apportion_scratch sc = {0};
    uint64_t out[4];
    /* 10 over 1:1:1 -> 3.33 each; the unit left goes to the first (ties: lower index) */
    uint64_t w1[3] = {1, 1, 1};
    apportion(10, w1, 1, 3, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0], 4);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 3);
    /* 7 over 5:3:0 -> 4.375, 2.625, 0: the unit left goes to the larger remainder */
    uint64_t w2[3] = {5, 3, 0};
    apportion(7, w2, 1, 3, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0], 4);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 0);
    /* stride: every second value; 3 over 3:1 -> 2.25, 0.75 -> 2, 1 */
    uint64_t w3[4] = {3, 99, 1, 99};
    apportion(3, w3, 2, 2, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 1);
    /* all weights zero: an even split, still exact */
    uint64_t w4[4] = {0, 0, 0, 0};
    apportion(6, w4, 1, 4, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
    assert_int_equal(out[3], 1);
    /* huge values: products need 128 bits; the parts still add up exactly */
    uint64_t w5[3] = {UINT64_MAX, UINT64_MAX - 1, 3};
    uint64_t big = (uint64_t)INT64_MAX;
    apportion(big, w5, 1, 3, out, APPORTION_ZERO_EVEN, &sc);
    assert_true(out[0] + out[1] + out[2] == big);
    assert_true(out[0] >= out[1] && out[1] > out[2]);
    /* 0 gives zeros; one part takes everything */
    apportion(0, w2, 1, 3, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0] + out[1] + out[2], 0);
    apportion(5, w4, 1, 1, out, APPORTION_ZERO_EVEN, &sc);
    assert_int_equal(out[0], 5);
    /* many parts: the sum is exact and no part is off by more than one */
    uint64_t w6[100], o6[100], sum = 0;
    for (int i = 0; i < 100; i++)
        w6[i] = (uint64_t)(i * 7 + 1);
    struct apportion_scratch sc2 = {0};
    apportion(12345, w6, 1, 100, o6, APPORTION_ZERO_EVEN, &sc2);
    uint64_t wsum = 0;
    for (int i = 0; i < 100; i++)
        wsum += w6[i];
    for (int i = 0; i < 100; i++) {
        sum += o6[i];
        double exact = 12345.0 * (double)w6[i] / (double)wsum;
        assert_true((double)o6[i] > exact - 1.0 && (double)o6[i] < exact + 1.0);
    }
    assert_int_equal(sum, 12345);
    /* the other zero rule (the stack estimates): all of it to part 0 */
    apportion(6, w4, 1, 4, out, APPORTION_ZERO_FIRST, &sc);
    assert_int_equal(out[0], 6);
    assert_int_equal(out[1] + out[2] + out[3], 0);
    /* in place (out = weights): 9 over 1:2 -> 3, 6 */
    uint64_t w7[2] = {1, 2};
    apportion(9, w7, 1, 2, w7, APPORTION_ZERO_FIRST, &sc);
    assert_int_equal(w7[0], 3);
    assert_int_equal(w7[1], 6);
    /* a few units left over go to the largest remainders too: 5 over 1:1:1:1:1:1
       -> 0.83 each, one unit to each of the first five */
    uint64_t w8[6] = {1, 1, 1, 1, 1, 1};
    uint64_t o8[6];
    apportion(5, w8, 1, 6, o8, APPORTION_ZERO_FIRST, &sc);
    for (int i = 0; i < 5; i++)
        assert_int_equal(o8[i], 1);
    assert_int_equal(o8[5], 0);
    apportion_scratch_release(&sc);
    apportion_scratch_release(&sc2);
}

/*
 * A profile with lines: F has self cost on lines 10 (Ir 30, Dr 3) and 12
 * (70, 1); G (line 20: 5, 1) calls F from line 21 (inclusive 40, 3) and
 * line 25 (60, 1). By hand: F's node (100, 4) splits over its lines as
 * (30, 3) and (70, 1), then each over G's call sites: Ir 40:60, Dr 3:1
 * (3 -> 2.25, 0.75 -> 2, 1; 1 -> 0.75, 0.25 -> 1, 0).
 */
static void test_pprof_lines(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    assert_int_equal(eventset_set_base(&pt->events, "Ir Dr", 5, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    uint32_t ob = profile_intern(p, "/bin/h", 6), fl = profile_intern(p, "h.c", 3);
    uint32_t F = profile_function(p, ob, fl, profile_intern(p, "F", 1));
    uint32_t G = profile_function(p, ob, fl, profile_intern(p, "G", 1));
    struct position at = {fl, 10, 0, 0}, entry = {fl, 10, 0, 0};
    uint64_t c[2] = {30, 3};
    assert_int_equal(part_add_cost(p, pt, F, &at, c, 2), 0);
    at.line = 12, c[0] = 70, c[1] = 1;
    assert_int_equal(part_add_cost(p, pt, F, &at, c, 2), 0);
    at.line = 20, c[0] = 5, c[1] = 1;
    assert_int_equal(part_add_cost(p, pt, G, &at, c, 2), 0);
    at.line = 21, c[0] = 40, c[1] = 3;
    assert_int_equal(part_add_call(p, pt, G, &at, F, &entry, 1, c, 2), 0);
    at.line = 25, c[0] = 60, c[1] = 1;
    assert_int_equal(part_add_call(p, pt, G, &at, F, &entry, 3, c, 2), 0);

    struct pprof_lines pl;
    const char *evs[2] = {"Dr", "Ir"}; /* by name, in the tree's order */
    assert_int_equal(pprof_lines_build(&pl, p, evs, 2, &err), 0);
    assert_true(pl.has_lines);
    size_t first = 0;
    assert_int_equal(pprof_lines_of(&pl, F, &first), 2);
    assert_int_equal(pl.lines[first].line, 10);
    assert_int_equal(pl.line_cost[first * 2], 3); /* Dr first */
    assert_int_equal(pl.line_cost[first * 2 + 1], 30);
    assert_int_equal(pprof_lines_sites(&pl, G, F, &first), 2);
    assert_int_equal(pl.sites[first + 1].line, 25);
    assert_int_equal(pl.site_count[first + 1], 3);
    assert_int_equal(pl.site_cost[(first + 1) * 2 + 1], 60);
    assert_int_equal(pprof_lines_sites(&pl, F, G, &first), 0);
    pprof_lines_release(&pl);

    struct stack_tree t;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    uint8_t *buf;
    size_t len;
    struct pprof_options o = {.default_event = 0, .comment = NULL};
    assert_int_equal(pprof_encode(&t, &o, &buf, &len, &err), 0);
    struct decoded d;
    decode(buf, len, &d);
    assert_int_equal(d.nsamples, 5);
    /* want[k]: leaf line, caller line (0 = none), Ir, Dr */
    static const uint64_t want[5][4] = {
        {20, 0, 5, 1}, {10, 21, 12, 2}, {10, 25, 18, 1}, {12, 21, 28, 1}, {12, 25, 42, 0}};
    int seen[5] = {0};
    uint64_t sum[2] = {0, 0};
    for (int i = 0; i < d.nsamples; i++) {
        uint64_t leaf = d.loc_line[d.locs[i][0]];
        uint64_t site = d.nlocs[i] > 1 ? d.loc_line[d.locs[i][1]] : 0;
        assert_string_equal(loc_name(&d, d.locs[i][0]), leaf == 20 ? "G" : "F");
        if (d.nlocs[i] > 1) assert_string_equal(loc_name(&d, d.locs[i][1]), "G");
        int k = 0;
        while (k < 5 && !(want[k][0] == leaf && want[k][1] == site))
            k++;
        assert_true(k < 5);
        assert_false(seen[k]);
        seen[k] = 1;
        assert_int_equal(d.vals[i][0], want[k][2]);
        assert_int_equal(d.vals[i][1], want[k][3]);
        sum[0] += d.vals[i][0];
        sum[1] += d.vals[i][1];
    }
    assert_int_equal(sum[0], 105);
    assert_int_equal(sum[1], 5);
    /* locations: one per (function, line): G 20, 21, 25 and F 10, 12 */
    int nloc = 0;
    for (int l = 1; l < 8; l++)
        if (d.loc_fn[l]) nloc++;
    assert_int_equal(nloc, 5);
    assert_int_equal(d.ncomments, 2);
    assert_non_null(strstr(d.strs[d.comments[1]], "lines apportio"));
    free(buf);
    stacks_release(&t);
    profile_free(p);
}

/*
 * Blow-up guard: G calls F from 300 lines (more than the 256 pieces a stack
 * may be split into), the call from line 1000 + k costing k + 1 (line 1150
 * costs 1000: the dominant site). F's whole sample goes to that line.
 */
static void test_pprof_lines_cap(void **state)
{
    (void)state;
    struct tally_error err;
    struct profile *p = profile_new();
    struct part *pt = profile_add_part(p);
    assert_int_equal(eventset_set_base(&pt->events, "Ir", 2, &err), 0);
    assert_int_equal(eventset_finish(&pt->events, &err), 0);
    uint32_t ob = profile_intern(p, "/bin/h", 6), fl = profile_intern(p, "h.c", 3);
    uint32_t F = profile_function(p, ob, fl, profile_intern(p, "F", 1));
    uint32_t G = profile_function(p, ob, fl, profile_intern(p, "G", 1));
    struct position at = {fl, 10, 0, 0}, entry = {fl, 10, 0, 0};
    uint64_t c = 0, want = 0;
    for (int k = 0; k < 300; k++) {
        at.line = 1000 + (uint64_t)k;
        c = k == 150 ? 1000 : (uint64_t)k + 1;
        want += c;
        assert_int_equal(part_add_call(p, pt, G, &at, F, &entry, 1, &c, 1), 0);
    }
    at.line = 10;
    assert_int_equal(part_add_cost(p, pt, F, &at, &want, 1), 0);
    at.line = 5, c = 7;
    assert_int_equal(part_add_cost(p, pt, G, &at, &c, 1), 0);
    struct stack_tree t;
    assert_int_equal(stacks_build(&t, p, NULL, &err), 0);
    uint8_t *buf;
    size_t len;
    struct pprof_options o = {.default_event = 0, .comment = NULL};
    assert_int_equal(pprof_encode(&t, &o, &buf, &len, &err), 0);
    struct decoded d;
    decode(buf, len, &d);
    assert_int_equal(d.nsamples, 2);
    int f = d.nlocs[0] == 2 ? 0 : 1;
    assert_int_equal(d.nlocs[f], 2);
    assert_int_equal(d.loc_line[d.locs[f][0]], 10);
    assert_int_equal(d.loc_line[d.locs[f][1]], 1150);
    assert_int_equal(d.vals[f][0], want);
    assert_int_equal(d.loc_line[d.locs[1 - f][0]], 5);
    assert_int_equal(d.vals[1 - f][0], 7);
    free(buf);
    stacks_release(&t);
    profile_free(p);
}

/* The two registration tables: what each row says, and lookups by name. */
static void test_tables(void **state)
{
    (void)state;
    const struct exporter *x = exporter_find("pprof");
    assert_non_null(x);
    assert_int_equal(x->binary, 1);
    assert_int_equal(x->needs_stacks, EXPORT_STACKS_ALL);
    assert_int_equal(exporter_find("folded")->needs_stacks, EXPORT_STACKS_ONE_EVENT);
    assert_int_equal(exporter_find("json")->needs_stacks, EXPORT_NO_STACKS);
    assert_int_equal(exporter_find("speedscope")->binary, 0);
    assert_null(exporter_find("callgrind")); /* a format, not an exporter */
    assert_null(exporter_find("Pprof"));
    for (const struct format_ops *f = profile_formats; f->name; f++) {
        assert_ptr_equal(format_ops_of(f->id), f);
        assert_int_equal(format_from_name(f->name), f->id);
        assert_string_equal(format_name(f->id), f->name);
    }
    assert_null(format_ops_of(PROFILE_FORMAT_UNKNOWN));
    assert_int_equal(format_from_name("json"), PROFILE_FORMAT_UNKNOWN);
    assert_string_equal(format_name(PROFILE_FORMAT_UNKNOWN), "unknown");
    assert_int_equal(format_ops_of(PROFILE_FORMAT_CALLGRIND)->convert, 1);
    assert_int_equal(format_ops_of(PROFILE_FORMAT_CONTEXTS)->convert, 0);
    /* detection: the strongest sign wins whichever row gives it */
    static const char ctx[] = "# tally contexts 1\nversion: 1\nevents: Ir\n";
    assert_int_equal(format_detect(ctx, sizeof(ctx) - 1), PROFILE_FORMAT_CONTEXTS);
    static const char cg_key[] = "cmd: x\nevents: Ir\ncalls=1 2\n";
    assert_int_equal(format_detect(cg_key, sizeof(cg_key) - 1), PROFILE_FORMAT_CALLGRIND);
    static const char cmd[] = "desc: a\ncmd: x\nevents: Ir\n";
    assert_int_equal(format_detect(cmd, sizeof(cmd) - 1), PROFILE_FORMAT_CACHEGRIND);
    static const char ev[] = "desc: a\nevents: Ir\n";
    assert_int_equal(format_detect(ev, sizeof(ev) - 1), PROFILE_FORMAT_CALLGRIND);
    static const char desc[] = "desc: a\n";
    assert_int_equal(format_detect(desc, sizeof(desc) - 1), PROFILE_FORMAT_CACHEGRIND);
    assert_int_equal(format_detect("x\n", 2), PROFILE_FORMAT_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_string), cmocka_unit_test(test_json_document),
        cmocka_unit_test(test_folded),      cmocka_unit_test(test_speedscope),
        cmocka_unit_test(test_pprof),       cmocka_unit_test(test_apportion),
        cmocka_unit_test(test_pprof_lines), cmocka_unit_test(test_pprof_lines_cap),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
