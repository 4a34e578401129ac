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

#include "pprof_lines.h"
#include "../analysis/apportion.h"
#include "../io/bytebuf.h"
#include "../model/hash.h"
#include "../model/rectab.h"
#include "../model/strtab.h"
#include "folded.h"

static void pb_varint(struct bytebuf *b, uint64_t v)
{
    while (v >= 0x80) {
        bytebuf_addc(b, (char)(v | 0x80));
        v >>= 7;
    }
    bytebuf_addc(b, (char)v);
}

static void pb_key(struct bytebuf *b, unsigned field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field (proto3: zero values are left out). */
static void pb_uint(struct bytebuf *b, unsigned field, uint64_t v)
{
    if (!v) return;
    pb_key(b, field, 0);
    pb_varint(b, v);
}

static void pb_bytes(struct bytebuf *b, unsigned field, const void *data, size_t len)
{
    pb_key(b, field, 2);
    pb_varint(b, len);
    bytebuf_add(b, data, len);
}

/* Append the nested message `sub` as field `field`, and empty `sub`. */
static void pb_msg(struct bytebuf *b, unsigned field, struct bytebuf *sub)
{
    pb_bytes(b, field, sub->s, sub->n);
    sub->n = 0;
}

/* Cap on the pieces one sample is split into by call sites (leaf lines are always split). */
#define PP_MAX_PIECES 256
/* Once this many samples were made, call sites are no longer split (dominant site only). */
#define PP_SPLIT_BUDGET ((size_t)1 << 22)

struct pp_state {
    const struct stack_tree *t;
    struct strtab strs;
    size_t nfn;           /* functions of the profile; slot nfn = "[other]" */
    size_t nev, vw;       /* events; value words (nev, at least 1) */
    size_t dflt;          /* default event */
    uint64_t *start_line; /* [nfn] first source line of each function, 0 = unknown */
    struct pprof_lines pl;
    uint64_t *line_left; /* [lines * vw] self cost per line not yet given to a stack */
    int use_lines;       /* line-level locations */
    int split_off;       /* the split budget is spent */
    struct rectab fns;   /* slot << 32 | file -> (pprof function id = index + 1) */
    struct rectab locs;  /* function id, line -> (location id = index + 1) */
    struct apportion_scratch scratch;
    /* pieces of the sample being made: [np][plen] location ids, [np][vw] values */
    uint32_t *ploc, *ploc2;
    uint64_t *pval, *pval2;
    size_t np, plen, pcap_loc, pcap_loc2, pcap_val, pcap_val2;
    uint64_t *tmp; /* [vw * max(lines, sites)] apportioned values */
    size_t tmp_cap;
    /* samples, merged by location list */
    uint32_t *sloc; /* location ids of all samples */
    size_t nsloc, sloc_cap;
    size_t *soff;   /* [ns + 1] start of sample k's ids in sloc */
    uint64_t *sval; /* [ns * vw] */
    size_t ns, scap, svcap;
    uint32_t *slots; /* open addressing: sample index + 1 */
    size_t nslots;
};

static int64_t str_id(struct pp_state *s, const char *str)
{
    return (int64_t)strtab_intern(&s->strs, str, strlen(str));
}

/* Location id of (function slot, file, line). */
static uint32_t loc_at(struct pp_state *s, uint32_t slot, uint32_t file, uint64_t line)
{
    uint64_t fk = (uint64_t)slot << 32 | file;
    size_t f = rectab_get_index(&s->fns, &fk, NULL);
    uint64_t lk[2] = {f + 1, line};
    return (uint32_t)rectab_get_index(&s->locs, lk, NULL) + 1;
}

/* The location of function fn as a whole: its own file, its first line. */
static uint32_t fn_loc(struct pp_state *s, uint32_t fn)
{
    if (fn >= s->nfn) return loc_at(s, (uint32_t)s->nfn, 0, 0);
    return loc_at(s, fn, profile_function_at(s->t->p, fn).file, s->start_line[fn]);
}

/* Location of fn at source line ln (line 0 of its own file: the function
 * as a whole; line 0 of another file, such as a PLT stub's code without
 * line information, stays that file's). */
static uint32_t line_loc(struct pp_state *s, uint32_t fn, const struct pl_line *ln)
{
    if (ln->line) return loc_at(s, fn, ln->file, ln->line);
    if (fn < s->nfn && ln->file != profile_function_at(s->t->p, fn).file)
        return loc_at(s, fn, ln->file, 0);
    return fn_loc(s, fn);
}

static uint64_t sample_hash(const uint32_t *ids, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ ids[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 31;
    }
    return hash_mix64(h);
}

static void grow_slots(struct pp_state *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 1024;
    free(s->slots);
    s->slots = xcalloc(n, sizeof(*s->slots));
    s->nslots = n;
    for (size_t k = 0; k < s->ns; k++) {
        size_t h = (size_t)sample_hash(s->sloc + s->soff[k], s->soff[k + 1] - s->soff[k]);
        for (h &= n - 1; s->slots[h]; h = (h + 1) & (n - 1)) {
        }
        s->slots[h] = (uint32_t)k + 1;
    }
}

/* Add (or merge) a sample with location ids ids[0..n) and values v[vw]. */
static int add_sample(struct pp_state *s, const uint32_t *ids, size_t n, const uint64_t *v,
                      struct tally_error *err)
{
    if (2 * (s->ns + 1) > s->nslots) grow_slots(s);
    size_t h = (size_t)sample_hash(ids, n) & (s->nslots - 1);
    for (; s->slots[h]; h = (h + 1) & (s->nslots - 1)) {
        size_t k = s->slots[h] - 1;
        size_t kn = s->soff[k + 1] - s->soff[k];
        if (kn != n || memcmp(s->sloc + s->soff[k], ids, n * sizeof(*ids))) continue;
        uint64_t *dst = s->sval + k * s->vw;
        for (size_t e = 0; e < s->nev; e++) {
            if (dst[e] + v[e] < dst[e])
                return tally_error_set(err, NULL, 0, "a cost exceeds pprof's 64-bit signed values");
            dst[e] += v[e];
        }
        return 0;
    }
    if (s->ns + 1 >= UINT32_MAX) return tally_error_set(err, NULL, 0, "too many pprof samples");
    s->slots[h] = (uint32_t)s->ns + 1;
    s->sloc = xgrow(s->sloc, &s->sloc_cap, s->nsloc + n, sizeof(*s->sloc));
    memcpy(s->sloc + s->nsloc, ids, n * sizeof(*ids));
    s->nsloc += n;
    s->soff = xgrow(s->soff, &s->scap, s->ns + 2, sizeof(*s->soff));
    s->soff[s->ns + 1] = s->nsloc;
    s->sval = xgrow(s->sval, &s->svcap, (s->ns + 1) * s->vw, sizeof(*s->sval));
    memcpy(s->sval + s->ns * s->vw, v, s->vw * sizeof(*v));
    s->ns++;
    return 0;
}

static uint64_t *tmp_vals(struct pp_state *s, size_t n)
{
    s->tmp = xgrow(s->tmp, &s->tmp_cap, n * s->vw, sizeof(*s->tmp));
    return s->tmp;
}

/* Append a piece (location id `loc` after the first plen ids of `from`, values v) to buffer 2. */
static void put_piece(struct pp_state *s, size_t *np2, const uint32_t *from, uint32_t loc,
                      const uint64_t *v)
{
    size_t len = s->plen + 1;
    int any = 0;
    for (size_t e = 0; e < s->nev; e++)
        if (v[e]) any = 1;
    if (!any) return;
    s->ploc2 = xgrow(s->ploc2, &s->pcap_loc2, (*np2 + 1) * len, sizeof(*s->ploc2));
    s->pval2 = xgrow(s->pval2, &s->pcap_val2, (*np2 + 1) * s->vw, sizeof(*s->pval2));
    if (s->plen) memcpy(s->ploc2 + *np2 * len, from, s->plen * sizeof(*from));
    s->ploc2[*np2 * len + s->plen] = loc;
    memcpy(s->pval2 + *np2 * s->vw, v, s->vw * sizeof(*v));
    ++*np2;
}

/* Buffer 2 becomes the current pieces (one frame longer). */
static void swap_pieces(struct pp_state *s, size_t np2)
{
    uint32_t *l = s->ploc;
    s->ploc = s->ploc2;
    s->ploc2 = l;
    uint64_t *v = s->pval;
    s->pval = s->pval2;
    s->pval2 = v;
    size_t c = s->pcap_loc;
    s->pcap_loc = s->pcap_loc2;
    s->pcap_loc2 = c;
    c = s->pcap_val;
    s->pcap_val = s->pcap_val2;
    s->pcap_val2 = c;
    s->np = np2;
    s->plen++;
}

/*
 * The weights for event e among n items (values at base[k * vw + e]): that
 * event's, or when they are all zero, the first event's whose are not (the
 * caller falls back further when none has any).
 */
static const uint64_t *pick_weights(const struct pp_state *s, const uint64_t *base, size_t n,
                                    size_t e)
{
    for (size_t pass = 0; pass <= s->nev; pass++) {
        size_t ev = pass == 0 ? e : pass - 1;
        if (ev >= s->nev) break;
        for (size_t k = 0; k < n; k++)
            if (base[k * s->vw + ev]) return base + ev;
    }
    return NULL;
}

/*
 * The innermost frame: one piece per source line of fn with self cost.
 *
 * A stack's self cost w is split among the lines in proportion to what
 * each line has left (line_left: its self cost minus what earlier stacks of
 * fn took). Largest remainder never gives a line more than it has left
 * when w is at most the sum left, so when fn's stacks add up to its self
 * cost (stacks.h: nothing pruned), the last stack takes exactly the rest
 * and every line's pieces add up to its self cost: pprof's per-line flat
 * costs are exact. A stack that asks for more than is left (pruned or
 * rounded trees) is split by the line costs instead.
 */
static void leaf_pieces(struct pp_state *s, uint32_t fn, const uint64_t *w)
{
    size_t np2 = 0, first = 0;
    size_t n = s->use_lines && fn != STACK_NO_FN ? pprof_lines_of(&s->pl, fn, &first) : 0;
    const uint64_t *base = n ? s->pl.line_cost + first * s->vw : NULL;
    if (!n || !pick_weights(s, base, n, 0)) {
        put_piece(s, &np2, NULL, fn_loc(s, fn), w);
        swap_pieces(s, np2);
        return;
    }
    uint64_t *out = tmp_vals(s, n);
    uint64_t *one = xcalloc(n, sizeof(*one));
    uint64_t *left = s->line_left + first * s->vw;
    for (size_t e = 0; e < s->nev; e++) {
        uint64_t sum = 0;
        for (size_t k = 0; k < n && sum <= w[e]; k++) {
            uint64_t x = left[k * s->vw + e];
            sum = sum + x < sum ? UINT64_MAX : sum + x;
        }
        if (w[e] && w[e] <= sum) {
            apportion(w[e], left + e, s->vw, n, one, APPORTION_ZERO_EVEN, &s->scratch);
            for (size_t k = 0; k < n; k++)
                left[k * s->vw + e] -= one[k];
        } else {
            apportion(w[e], pick_weights(s, base, n, e), s->vw, n, one, APPORTION_ZERO_EVEN,
                      &s->scratch);
        }
        for (size_t k = 0; k < n; k++)
            out[k * s->vw + e] = one[k];
    }
    free(one);
    for (size_t k = 0; k < n; k++)
        put_piece(s, &np2, NULL, line_loc(s, fn, &s->pl.lines[first + k]), out + k * s->vw);
    swap_pieces(s, np2);
}

/* The caller frame `caller` of `callee`: its call site line(s). */
static void caller_pieces(struct pp_state *s, uint32_t caller, uint32_t callee)
{
    size_t np2 = 0, first = 0;
    size_t n = s->use_lines ? pprof_lines_sites(&s->pl, caller, callee, &first) : 0;
    const uint64_t *cost = n ? s->pl.site_cost + first * s->vw : NULL;
    const uint64_t *count = n ? s->pl.site_count + first : NULL;
    if (n > 1 && (s->split_off || s->np * n > PP_MAX_PIECES)) {
        /* the dominant site: largest inclusive cost in the default event, then calls */
        size_t best = 0;
        for (size_t k = 1; k < n; k++) {
            uint64_t a = cost[k * s->vw + s->dflt], b = cost[best * s->vw + s->dflt];
            if (a > b || (a == b && count[k] > count[best])) best = k;
        }
        first += best;
        n = 1;
    }
    if (n <= 1) {
        uint32_t loc = n ? line_loc(s, caller, &s->pl.sites[first]) : fn_loc(s, caller);
        for (size_t p = 0; p < s->np; p++)
            put_piece(s, &np2, s->ploc + p * s->plen, loc, s->pval + p * s->vw);
        swap_pieces(s, np2);
        return;
    }
    uint32_t *locs = xcalloc(n, sizeof(*locs));
    for (size_t k = 0; k < n; k++)
        locs[k] = line_loc(s, caller, &s->pl.sites[first + k]);
    uint64_t *out = tmp_vals(s, n), *one = xcalloc(n, sizeof(*one));
    for (size_t p = 0; p < s->np; p++) {
        const uint64_t *pv = s->pval + p * s->vw;
        for (size_t e = 0; e < s->nev; e++) {
            const uint64_t *wt = cost + e;
            size_t stride = s->vw;
            int zero = 1;
            for (size_t k = 0; k < n && zero; k++)
                if (wt[k * stride]) zero = 0;
            if (zero) wt = count, stride = 1; /* all zero too: an even split */
            apportion(pv[e], wt, stride, n, one, APPORTION_ZERO_EVEN, &s->scratch);
            for (size_t k = 0; k < n; k++)
                out[k * s->vw + e] = one[k];
        }
        for (size_t k = 0; k < n; k++)
            put_piece(s, &np2, s->ploc + p * s->plen, locs[k], out + k * s->vw);
    }
    free(one);
    free(locs);
    swap_pieces(s, np2);
}

/* The sample(s) of node i (0 = the root's own weight), if it has weight. */
static int put_node(struct pp_state *s, uint32_t i, struct tally_error *err)
{
    const struct stack_tree *t = s->t;
    int any = 0;
    uint64_t *w = xcalloc(s->vw, sizeof(*w));
    for (size_t e = 0; e < t->nev; e++) {
        w[e] = folded_weight(t, i, e);
        if (w[e] > (uint64_t)INT64_MAX) {
            free(w);
            return tally_error_set(err, NULL, 0, "a cost exceeds pprof's 64-bit signed values");
        }
        if (w[e]) any = 1;
    }
    if (!any) {
        free(w);
        return 0;
    }
    s->np = 1;
    s->plen = 0;
    leaf_pieces(s, i == 0 ? STACK_NO_FN : t->nodes[i].fn, w);
    free(w);
    if (i != 0)
        for (uint32_t k = i; t->nodes[k].parent != 0; k = t->nodes[k].parent)
            caller_pieces(s, t->nodes[t->nodes[k].parent].fn, t->nodes[k].fn);
    for (size_t p = 0; p < s->np; p++)
        if (add_sample(s, s->ploc + p * s->plen, s->plen, s->pval + p * s->vw, err)) return -1;
    if (s->ns >= PP_SPLIT_BUDGET) s->split_off = 1;
    return 0;
}

/* Samples: one per node with weight and source line(s), leaf first. */
static int put_samples(struct pp_state *s, struct bytebuf *out, struct tally_error *err)
{
    int rc = put_node(s, 0, err);
    for (uint32_t i = folded_next(s->t, 0); i && rc == 0; i = folded_next(s->t, i))
        rc = put_node(s, i, err);
    if (rc) return rc;
    struct bytebuf smp = {0}, packed = {0};
    for (size_t k = 0; k < s->ns && rc == 0; k++) {
        for (size_t j = s->soff[k]; j < s->soff[k + 1]; j++)
            pb_varint(&packed, s->sloc[j]);
        pb_msg(&smp, 1, &packed);
        for (size_t e = 0; e < s->nev; e++) {
            uint64_t v = s->sval[k * s->vw + e];
            if (v > (uint64_t)INT64_MAX)
                rc = tally_error_set(err, NULL, 0, "a cost exceeds pprof's 64-bit signed values");
            pb_varint(&packed, v);
        }
        pb_msg(&smp, 2, &packed);
        pb_msg(out, 2, &smp);
    }
    free(smp.s);
    free(packed.s);
    return rc;
}

static void pp_release(struct pp_state *s)
{
    free(s->start_line);
    free(s->line_left);
    pprof_lines_release(&s->pl);
    rectab_release(&s->fns);
    rectab_release(&s->locs);
    apportion_scratch_release(&s->scratch);
    free(s->ploc);
    free(s->ploc2);
    free(s->pval);
    free(s->pval2);
    free(s->tmp);
    free(s->sloc);
    free(s->soff);
    free(s->sval);
    free(s->slots);
    strtab_release(&s->strs);
}

int pprof_encode(const struct stack_tree *t, const struct pprof_options *o, uint8_t **outp,
                 size_t *lenp, struct tally_error *err)
{
    struct pp_state s;
    memset(&s, 0, sizeof(s));
    s.t = t;
    strtab_init(&s.strs);
    s.nfn = t->p ? profile_nfunctions(t->p) : 0;
    s.nev = t->nev;
    s.vw = t->nev ? t->nev : 1;
    s.dflt = o && o->default_event < t->nev ? o->default_event : 0;
    s.start_line = folded_start_lines(t->p);
    rectab_init(&s.fns, 1, 1);
    rectab_init(&s.locs, 2, 1);
    s.soff = xgrow(NULL, &s.scap, 1, sizeof(*s.soff));
    s.soff[0] = 0;
    struct bytebuf out = {0}, sub = {0}, sub2 = {0};
    size_t dflt = s.dflt;
    int rc = -1;
    uint32_t *map_of_fn = NULL, *obj_of_map = NULL;
    if (t->p && pprof_lines_build(&s.pl, t->p, (const char *const *)t->ev_names, t->nev, err))
        goto done;
    s.use_lines = s.pl.has_lines;
    if (s.use_lines) {
        size_t nl = s.pl.line_first[s.nfn];
        s.line_left = xcalloc((nl ? nl : 1) * s.vw, sizeof(uint64_t));
        memcpy(s.line_left, s.pl.line_cost, nl * s.vw * sizeof(uint64_t));
    }

    int64_t count = str_id(&s, "count");
    for (size_t e = 0; e < t->nev; e++) {
        pb_uint(&sub, 1, (uint64_t)str_id(&s, t->ev_names[e]));
        pb_uint(&sub, 2, (uint64_t)count);
        pb_msg(&out, 1, &sub);
    }
    if (t->n && put_samples(&s, &out, err)) goto done;

    /* mappings: one per object, in order of first use */
    const struct profile *p = t->p;
    size_t nf = s.fns.count;
    map_of_fn = xcalloc(nf + 1, sizeof(*map_of_fn));
    obj_of_map = xcalloc(nf + 2, sizeof(*obj_of_map));
    uint32_t nmaps = 0;
    for (size_t f = 0; f < nf; f++) {
        uint32_t slot = (uint32_t)(rectab_at(&s.fns, f)[0] >> 32);
        uint32_t obj = slot < s.nfn ? profile_function_at(p, slot).obj : 0;
        uint32_t m = 0;
        for (uint32_t k = 1; k <= nmaps && !m; k++)
            if (obj_of_map[k] == obj) m = k;
        if (!m) obj_of_map[m = ++nmaps] = obj;
        map_of_fn[f] = m;
    }
    /* pprof takes the first mapping for the main binary ("File:"): the
       object named like the command's program, when there is one */
    const char *cmd = p && p->nparts ? p->parts[0]->cmd : NULL;
    if (cmd && nmaps > 1) {
        size_t cl = strcspn(cmd, " \t");
        const char *prog = cmd;
        for (size_t i = 0; i < cl; i++)
            if (cmd[i] == '/') prog = cmd + i + 1;
        size_t pl = (size_t)(cmd + cl - prog);
        uint32_t main_map = 0;
        for (uint32_t m = 1; m <= nmaps && !main_map && pl; m++) {
            const char *ob = profile_str(p, obj_of_map[m]), *base = strrchr(ob, '/');
            base = base ? base + 1 : ob;
            if (strlen(base) == pl && memcmp(base, prog, pl) == 0) main_map = m;
        }
        if (main_map > 1) {
            uint32_t tmp = obj_of_map[1];
            obj_of_map[1] = obj_of_map[main_map];
            obj_of_map[main_map] = tmp;
            for (size_t f = 0; f < nf; f++)
                map_of_fn[f] = map_of_fn[f] == 1          ? main_map
                               : map_of_fn[f] == main_map ? 1
                                                          : map_of_fn[f];
        }
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
    /* locations: one line each (function id, line) */
    for (size_t l = 0; l < s.locs.count; l++) {
        const uint64_t *k = rectab_at(&s.locs, l);
        pb_uint(&sub, 1, l + 1);
        pb_uint(&sub, 2, map_of_fn[k[0] - 1]);
        pb_uint(&sub2, 1, k[0]);
        pb_uint(&sub2, 2, k[1]);
        pb_msg(&sub, 4, &sub2);
        pb_msg(&out, 4, &sub);
    }
    /* functions: (name, file); the start line is known for the function's own file */
    for (size_t f = 0; f < nf; f++) {
        uint64_t key = rectab_at(&s.fns, f)[0];
        uint32_t slot = (uint32_t)(key >> 32), file = (uint32_t)key;
        const char *name = "[other]", *fname = "";
        uint64_t start = 0;
        if (slot < s.nfn) {
            struct function fn = profile_function_at(p, slot);
            name = profile_str(p, fn.name);
            fname = profile_str(p, file);
            if (file == fn.file) start = s.start_line[slot];
        }
        int64_t nid = str_id(&s, *name ? name : "???");
        pb_uint(&sub, 1, f + 1);
        pb_uint(&sub, 2, (uint64_t)nid);
        pb_uint(&sub, 3, (uint64_t)nid);
        pb_uint(&sub, 4, (uint64_t)str_id(&s, fname));
        pb_uint(&sub, 5, start);
        pb_msg(&out, 5, &sub);
    }

    char *how = xasprintf("stacks %s", t->method                 ? t->method
                                       : t->kind == STACKS_EXACT ? "exact"
                                                                 : "estimated");
    int64_t method = str_id(&s, how);
    free(how);
    int64_t lines = 0;
    if (s.use_lines)
        lines = str_id(
            &s, "lines apportioned: a frame's cost is split among its function's source lines "
                "by their self costs, a caller frame among its call sites by their inclusive "
                "costs (whole counts, largest remainder); the frames are as the stacks say");
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
    if (lines) pb_uint(&out, 13, (uint64_t)lines);
    pb_uint(&out, 14, (uint64_t)dname);
    rc = 0;
done:
    free(sub.s);
    free(sub2.s);
    free(map_of_fn);
    free(obj_of_map);
    pp_release(&s);
    if (rc) {
        free(out.s);
        return rc;
    }
    *outp = out.s ? (uint8_t *)out.s : xmalloc(1);
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
