/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_split.c - reading one mapped callgrind file on two threads.
 *
 * The first reader (the caller's) reads the file from its start up to a
 * split line near the middle; a second reader, on its own thread and into
 * its own profile, reads from that line to the end. Where the split goes:
 *   - at the start of a part (a `version:` line), when a part starts in
 *     the middle quarter of the file: the second reader reads whole parts;
 *   - else at a `fn=` line past the middle: the second reader continues
 *     the first one's part. It reads the first part's header (to know the
 *     events and the position layout), then goes on from the split line
 *     without the object, file and last positions in force there.
 * Either way it does not know the names defined before the split. What it
 * does not know it stands in placeholders for, or gives up (callgrind_rd.h,
 * struct rd's spec bits). It numbers lines from the split line; the merge
 * adds the first reader's count to the line numbers it keeps (`summary:`,
 * `totals:`). A warning would carry a number of its own: a second reader
 * that warned is not merged, nor one that failed (the first reader then
 * reads on and gives the message with the file's line).
 *
 * When both are done, the second reader's result is merged into the first
 * one's as if the first reader had read on: names are interned, functions
 * numbered and records created in the same order, and the counters of the
 * file-wide checks are added. Every check that could fail is made before
 * anything is merged; if one fails, or the second reader gave up or met an
 * error, its result is dropped and the first reader reads the rest itself,
 * so that errors and warnings are exactly those of one thread. The result
 * is the same either way; tests/fuzz/fuzz_callgrind.c checks that on every
 * input it runs.
 *
 * read_options.callgrind.split_min sets the smallest file that is split (the CLI
 * takes it from TALLY_READ_SPLIT); the default is 1 MiB.
 */
#include "callgrind_rd.h"

#include <stdlib.h>
#include <string.h>

#include "../io/worker.h"
#include "../model/profile.h"

/* the first part's `events:` line must be within this many bytes */
#define HEADER_MAX ((size_t)1 << 20)

enum { SPLIT_PART, SPLIT_CONT };

int rd_spec_fail(struct rd *r)
{
    return rd_fail(r, "split read: left to the first reader");
}

struct half {
    struct rd r;             /* the second reader */
    struct read_options opt; /* the first reader's, without its part_done: the second
                                reader's parts are the first one's only once merged */
    struct profile *p;
    struct tally_error err;
    int mode; /* SPLIT_* */
    const char *data, *hdr_end, *split, *end;
    struct worker_job job; /* half_main() on the second CPU */
    int rc;
};

/* The end of the first line that starts with "events:", within HEADER_MAX. */
static const char *events_line_end(const char *s, const char *end)
{
    const char *lim = end - s > (ptrdiff_t)HEADER_MAX ? s + HEADER_MAX : end;
    while (s < lim) {
        const char *nl = memchr(s, '\n', (size_t)(lim - s));
        if (!nl) return NULL;
        if (nl - s >= 7 && !memcmp(s, "events:", 7)) return nl + 1;
        s = nl + 1;
    }
    return NULL;
}

/*
 * The `version:` line in the middle quarter of the file nearest to its middle,
 * or NULL. The search reads the pages it passes, which would then count as
 * the process's memory until the readers pass them: it gives them back a
 * window at a time (the readers read them again from the page cache).
 */
static const char *part_start(struct input *in, const char *data, size_t len)
{
    const size_t window = (size_t)1 << 20;
    const char *lo = data + len / 8 * 3, *hi = data + len / 8 * 5, *mid = data + len / 2;
    const char *best = NULL;
    for (const char *w = lo; w < hi; w += window) {
        const char *from = w == lo ? w : w - 8; /* a match across windows */
        const char *to = (size_t)(hi - w) > window ? w + window : hi;
        const char *s = from, *hit;
        int past = 0;
        while ((hit = memmem(s, (size_t)(to - s), "\nversion:", 9))) {
            const char *line = hit + 1;
            if (!best ||
                (line > mid ? line - mid : mid - line) < (best > mid ? best - mid : mid - best))
                best = line;
            s = line;
            if ((past = line > mid)) break;
        }
        input_discard_range(in, w, to);
        if (past) break;
    }
    return best;
}

/*
 * Does the line at s start a part, whatever the first reader's state (the
 * lines that end a body: a new header)? Blank and comment lines before it
 * are skipped. `event:`, `summary:` and `totals:` may belong to a body.
 */
static int starts_part(const char *s, const char *end)
{
    static const char *const keys[] = {"version:", "creator:", "pid:",    "thread:",    "part:",
                                       "cmd:",     "desc:",    "events:", "positions:", "===="};
    while (s < end && (*s == '\n' || *s == '#')) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) return 0;
        s = nl + 1;
    }
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        size_t n = strlen(keys[k]);
        if ((size_t)(end - s) >= n && !memcmp(s, keys[k], n)) return 1;
    }
    return 0;
}

/* The second reader of SPLIT_CONT, at the split line: everything before it is unknown. */
static void cont_begin(struct rd *r)
{
    struct part *pt = r->pt;
    free(pt->summary);
    free(pt->totals);
    pt->summary = pt->totals = NULL;
    pt->summary_line = pt->totals_line = 0;
    rd_reset_context(r);
    char ph[2] = {RD_PLACEHOLDER, 'o'};
    r->ob = profile_intern(r->p, ph, 2);
    ph[1] = 'l';
    r->fl = r->src = profile_intern(r->p, ph, 2);
    r->split.spec = SPEC_NAMES | SPEC_CONT;
    r->split.spec_unknown = 0;
    for (unsigned i = 0; i < r->npos; i++)
        r->split.spec_unknown |= 1u << r->poskind[i];
    r->split.spec_abs = 0;
    r->split.spec_fast = r->fast;
    r->fast = FAST_NONE;
    if (r->sums.tot) memset(r->sums.tot, 0, r->sums.tot_cap * sizeof(*r->sums.tot));
    r->sums.tot_or = SUMBOUND_OR_8DIGITS;
    r->sums.calls = 0;
    r->header_open = 0;
}

static void half_main(void *arg)
{
    struct half *h = arg;
    struct rd *r = &h->r;
    int rc = 0;
    if (h->mode == SPLIT_CONT) {
        rc = rd_read_lines(r, h->data, h->hdr_end);
        if (!rc && !(r->body && r->pt && r->p->nparts == 1 && !r->nread)) rc = -1;
        if (!rc) cont_begin(r);
    } else {
        r->split.spec = SPEC_NAMES;
        if (!starts_part(h->split, h->end)) rc = -1;
    }
    if (!rc) {
        /* line numbers from the split line on: the merge adds the first reader's */
        r->lineno = 0;
        rc = rd_read_lines(r, h->split, h->end);
    }
    /* the last part ends with the file; SPLIT_CONT's is the first reader's part */
    if (!rc && h->mode == SPLIT_PART) rc = rd_finish_part(r);
    /* the merge reads the profile and the counters only */
    rd_drop_maps(r);
    xtrim();
    h->rc = rc;
}

static void half_free(struct half *h)
{
    rd_release(&h->r);
    profile_free(h->p);
    free(h);
}

/*
 * Add a part's inclusive call costs (per event name of `names`) and jump
 * counts to 128-bit sums: no record that sums them can pass 2^64-1 while
 * these stay under it. Returns -1 if the part has an event not in `names`.
 */
static int arc_sums(const struct part *pt, const struct eventset *names, unsigned __int128 *cost,
                    unsigned __int128 jumps[2])
{
    size_t n = pt->events.n;
    int *to = xmalloc((n ? n : 1) * sizeof(*to));
    int bad = 0;
    for (size_t e = 0; e < n; e++)
        bad |= (to[e] = eventset_index(names, pt->events.names[e])) < 0;
    for (size_t i = 0; i < pt->calls.count && !bad; i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        for (size_t e = 0; e < n && c.cost; e++) /* no costs: call_counts_only */
            cost[to[e]] += c.cost[e];
    }
    for (size_t i = 0; i < pt->jumps.count && !bad; i++) {
        struct jump_rec j;
        part_jump_get(pt, i, &j);
        jumps[0] += *j.executed;
        jumps[1] += *j.taken;
    }
    free(to);
    return bad ? -1 : 0;
}

/* Do the parts' call costs and jump counts stay under 2^64-1 summed? */
static int arcs_fit(const struct part *a, const struct part *b)
{
    size_t n = a->events.n;
    unsigned __int128 *sum = xcalloc(n ? n : 1, sizeof(*sum)), jumps[2] = {0, 0};
    int ok = !arc_sums(a, &a->events, sum, jumps) && !arc_sums(b, &a->events, sum, jumps) &&
             jumps[0] <= UINT64_MAX && jumps[1] <= UINT64_MAX;
    for (size_t e = 0; e < n; e++)
        ok &= sum[e] <= UINT64_MAX;
    free(sum);
    return ok;
}

/* The first reader's name id for the second one's name i: placeholders resolved. */
static uint32_t resolve_name(const struct rd *r, const struct profile *q, uint32_t i)
{
    const char *s = profile_str(q, i);
    if (s[0] != RD_PLACEHOLDER) return UINT32_MAX - 1; /* a real name: interned later */
    if (s[1] == 'o') return r->ob;
    if (s[1] == 'l') return r->fl;
    int kind = s[1] - '0';
    if (kind < 0 || kind >= NAME_KINDS) return UINT32_MAX;
    return rd_name_of(r, kind, strtoull(s + 2, NULL, 10));
}

/*
 * The file-wide counters of both readers fit together: the bound of the
 * self-cost sums, and the call counts. Placeholders all resolve (into
 * nm[], UINT32_MAX - 1 for real names).
 */
static int counters_fit(const struct rd *r, const struct half *h, uint32_t *nm)
{
    const struct rd *s = &h->r;
    /* the bound of both stretches (sumbound.h); past it, one reader checks line by line */
    if (r->sums.tot_exact || s->sums.tot_exact ||
        !sumbound_holds(r->lineno + s->lineno, r->sums.tot_or | s->sums.tot_or))
        return 0;
    if (r->sums.calls + s->sums.calls < r->sums.calls) return 0;
    /* a signed first half (the second gives up at a negative cost): read on alone */
    if (r->p->signed_costs) return 0;
    nm[0] = 0;
    for (uint32_t i = 1; i < h->p->names.n; i++)
        if ((nm[i] = resolve_name(r, h->p, i)) == UINT32_MAX) return 0;
    return 1;
}

/*
 * Add the second reader's counters to the first one's (counters_fit() said
 * yes): the sums of the parts it ended (by event name; within the bound),
 * its costs' OR, its call counts and lines.
 */
static void add_counters(struct rd *r, const struct rd *s)
{
    r->sums.tot_or |= s->sums.tot_or;
    for (uint32_t j = 0; j < s->sums.tot_names.n; j++) {
        /* first: a new name grows r->sums.tot (moving it) */
        uint32_t k = rd_total_of(r, strtab_str(&s->sums.tot_names, j));
        r->sums.tot[k] += s->sums.tot[j];
    }
    r->sums.calls += s->sums.calls;
    r->fold.ndirect += s->fold.ndirect;
    r->lineno += s->lineno;
}

/* A line number of the second reader (0 = none) as the file's. */
static unsigned long file_line(const struct rd *r, unsigned long line)
{
    return line ? r->lineno + line : 0;
}

/*
 * Names and functions of the second profile in the first: nm[] completed,
 * fnmap[] made. Both profiles then hold every name and function, the peak
 * of the merge: q's names and functions are freed as they are copied (the
 * records are mapped through nm[] and fnmap[], nothing reads them again).
 */
static uint32_t *map_functions(struct profile *p, struct profile *q, uint32_t *nm)
{
    /* a few steps: each gives the memory back with a malloc_trim() */
    const size_t step = (size_t)4 << RECTAB_BLOCK_SHIFT;
    for (uint32_t i = 1; i < q->names.n; i++) {
        if (i % step == 0) strtab_free_below(&q->names, i);
        if (nm[i] == UINT32_MAX - 1)
            nm[i] = profile_intern(p, profile_str(q, i), strtab_len(&q->names, i));
    }
    strtab_free_below(&q->names, SIZE_MAX);
    size_t nf = profile_nfunctions(q);
    uint32_t *fnmap = xmalloc((nf ? nf : 1) * sizeof(*fnmap));
    uint64_t base = p->mentions;
    for (size_t f = 0; f < nf; f++) {
        if (f % step == 0) rectab_free_below(&q->funcs, f);
        struct function fn = profile_function_at(q, (uint32_t)f);
        fnmap[f] = profile_function(p, nm[fn.obj], nm[fn.file], nm[fn.name]);
        uint64_t m = profile_function_mention(q, (uint32_t)f);
        if (m) profile_raise_mention(p, fnmap[f], base + m);
    }
    rectab_free_below(&q->funcs, SIZE_MAX);
    p->mentions = base + q->mentions;
    return fnmap;
}

static uint64_t *copy_costs(const uint64_t *v, size_t n)
{
    uint64_t *c = xmalloc((n ? n : 1) * sizeof(*c));
    memcpy(c, v, n * sizeof(*c));
    return c;
}

/* One half of add_records(): the costs, or the calls and jumps (what: PART_ACC_*). */
struct fold_half {
    struct profile *p;
    struct part *pt;
    const struct profile *q;
    struct part *qt;
    const uint32_t *fnmap, *nm;
    unsigned what;
    int bad;
};

static void fold_half(void *arg)
{
    struct fold_half *f = arg;
    struct tally_error e;
    f->bad = part_accumulate_some(f->p, f->pt, f->q, f->qt, f->fnmap, f->nm, f->what | PART_ACC_EAT,
                                  &e) != 0;
}

/*
 * Add the records of the second profile's part qt to pt (its metadata, if
 * wanted, is added before): the costs here, the calls and jumps on the
 * other CPU (separate tables; worker_both()). qt's records are freed as
 * they are added. Returns nonzero on overflow, which the checks before
 * exclude.
 */
static int add_records(struct profile *p, struct part *pt, const struct profile *q, struct part *qt,
                       const uint32_t *fnmap, const uint32_t *nm)
{
    struct fold_half costs = {p, pt, q, qt, fnmap, nm, PART_ACC_COSTS, 0};
    struct fold_half arcs = {p, pt, q, qt, fnmap, nm, PART_ACC_ARCS, 0};
    worker_both(fold_half, &costs, fold_half, &arcs);
    part_clear_records(qt);
    return costs.bad || arcs.bad;
}

/*
 * SPLIT_CONT: the second reader's records continue the first reader's
 * part. The first reader must have reached the split line in a body of the
 * layout the second one assumed, with nothing pending.
 */
static int merge_cont(struct rd *r, struct half *h, uint32_t *nm)
{
    struct rd *s = &h->r;
    struct profile *p = r->p, *q = h->p;
    if (s->pending || s->nread || q->nparts != 1 || s->split.spec_unknown || q->warnings.n)
        return 0;
    if (!r->pt || !r->body || r->pending) return 0;
    if (r->have_cob || r->have_cfile || r->have_cfn || r->have_jfile || r->have_jfn) return 0;
    if (r->nev != s->nev || r->npos != s->npos || r->fast != s->split.spec_fast) return 0;
    if (memcmp(r->poskind, s->poskind, sizeof(r->poskind))) return 0;
    struct part *pt = r->pt, *rec = r->fold.dst; /* the part, and where its records go */
    struct part *qt = s->pt;
    if (!eventset_same(&pt->events, &qt->events)) return 0;
    if (!counters_fit(r, h, nm) || !arcs_fit(rec, qt)) return 0;
    /* merged from here on: the first reader has read its last line */
    rd_drop_maps(r);

    size_t n = r->nev;
    if (r->fold.direct) {
        /* the part's own self costs go on from the second reader's (within the file's bound) */
        uint64_t *self = xmalloc((n ? n : 1) * sizeof(*self));
        part_self_total(q, qt, self);
        for (size_t i = 0; i < n; i++)
            r->fold.psum[i] += self[i];
        free(self);
    }
    uint32_t *fnmap = map_functions(p, q, nm);
    rectab_reserve(&rec->costs, rec->costs.count + qt->costs.count);
    rectab_reserve(&rec->calls, rec->calls.count + qt->calls.count);
    rectab_reserve(&rec->jumps, rec->jumps.count + qt->jumps.count);
    int bad = add_records(p, rec, q, qt, fnmap, nm);
    free(fnmap);
    if (bad) return -1; /* cannot happen: the sums were checked */
    pt->counts_complete = pt->counts_complete && qt->counts_complete;
    /* a `summary:` or `totals:` line after the split replaces an earlier one, as when read on */
    if (qt->summary) {
        free(pt->summary);
        pt->summary = copy_costs(qt->summary, n);
        pt->summary_line = file_line(r, qt->summary_line);
    }
    if (qt->totals) {
        free(pt->totals);
        pt->totals = copy_costs(qt->totals, n);
        pt->totals_line = file_line(r, qt->totals_line);
    }
    add_counters(r, s);
    memcpy(r->last, s->last, sizeof(r->last));
    r->header_open = 0;
    return 1;
}

/* A copy in p of the second profile's part qt (a new last part), or -1. */
static int append_part(const struct rd *r, struct part *qt, const struct profile *q,
                       const uint32_t *fnmap, const uint32_t *nm)
{
    struct profile *p = r->p;
    struct part *prev = p->parts[p->nparts - 1];
    struct part *pt = profile_add_part(p);
    struct tally_error e;
    if (part_accumulate_consume(p, pt, q, qt, fnmap, nm, &e)) return -1;
    /* what a part does not give, it takes from the part before (see header_part()) */
    pt->has_pid = qt->has_pid || prev->has_pid;
    pt->pid = qt->has_pid ? qt->pid : prev->pid;
    pt->has_thread = qt->has_thread || prev->has_thread;
    pt->thread = qt->has_thread ? qt->thread : prev->thread;
    if (!pt->cmd && prev->cmd) pt->cmd = xstrdup(prev->cmd);
    pt->has_part = qt->has_part;
    pt->part_no = qt->part_no;
    if (qt->timerange) pt->timerange = xstrdup(qt->timerange);
    pt->positions = qt->positions;
    pt->summary_line = file_line(r, qt->summary_line);
    pt->totals_line = file_line(r, qt->totals_line);
    return 0;
}

/*
 * SPLIT_PART: the second reader read whole parts. The first reader's part
 * ends at the split line (as the header line there would end it), then the
 * second reader's parts follow, or are folded into part 0.
 */
static int merge_parts(struct rd *r, struct half *h, uint32_t *nm)
{
    struct rd *s = &h->r;
    struct profile *p = r->p, *q = h->p;
    if (s->pt || s->fold.fold_off || !q->nparts || q->warnings.n) return 0;
    if (r->pt && (!r->body || r->pending)) return 0;
    /* what the `version:` line there would do; reading on from it is still right */
    if (r->pt && rd_finish_part(r)) return 0;
    if (r->fold.fold_off || !p->nparts || !counters_fit(r, h, nm)) return 0;
    int fold = r->opt->merge_parts;
    if (fold && (!eventset_same(&p->parts[0]->events, &q->parts[0]->events) ||
                 !arcs_fit(p->parts[0], q->parts[0])))
        return 0;
    /* merged from here on: the first reader has read its last line */
    rd_drop_maps(r);
    uint32_t *fnmap = map_functions(p, q, nm);
    int bad = 0;
    if (fold) {
        /* no rectab_reserve() here: growing step by step keeps the peak lower */
        struct part *pt = p->parts[0];
        struct part *qt = q->parts[0];
        struct tally_error e;
        bad = part_accumulate_some(p, pt, q, qt, fnmap, nm, PART_ACC_META, &e);
        if (!bad) bad = add_records(p, pt, q, qt, fnmap, nm);
    } else {
        for (size_t k = 0; k < q->nparts && !bad; k++)
            bad = append_part(r, q->parts[k], q, fnmap, nm);
    }
    free(fnmap);
    if (bad) return -1; /* cannot happen: the sums were checked */
    if (q->creator && !p->creator) p->creator = xstrdup(q->creator); /* the first dump's */
    if (q->version) p->version = q->version;
    r->had_total = xgrow(r->had_total, &r->had_cap, r->nread + s->nread, 1);
    memcpy(r->had_total + r->nread, s->had_total, s->nread);
    r->nread += s->nread;
    add_counters(r, s);
    r->pt = NULL;
    r->body = 0;
    r->fast = FAST_NONE;
    return 1;
}

int rd_read_split(struct rd *r, const char *data, size_t len)
{
    size_t min = r->opt->callgrind.split_min ? r->opt->callgrind.split_min : READ_SPLIT_MIN_DEFAULT;
    if (r->split.spec || r->opt->callgrind.no_split || r->pt || min == READ_SPLIT_NEVER ||
        len < min || !worker_two_cpus())
        return 1;
    const char *end = data + len;
    struct half *h = xcalloc(1, sizeof(*h));
    h->data = data;
    h->end = end;
    h->mode = SPLIT_PART;
    h->split = part_start(r->in, data, len);
    if (!h->split) {
        h->mode = SPLIT_CONT;
        h->hdr_end = events_line_end(data, end);
        const char *mid = data + len / 2;
        if (h->hdr_end && mid < h->hdr_end) mid = h->hdr_end;
        const char *hit = h->hdr_end ? memmem(mid - 1, (size_t)(end - mid + 1), "\nfn=", 4) : NULL;
        h->split = hit ? hit + 1 : NULL;
    }
    if (!h->split) {
        free(h);
        return 1;
    }
    h->p = profile_new();
    h->p->format = PROFILE_FORMAT_CALLGRIND;
    if (r->p->path) h->p->path = xstrdup(r->p->path); /* warnings name it */
    struct rd *s = &h->r;
    h->opt = *r->opt;
    h->opt.part_done = NULL;
    rd_init(s, r->in, h->p, &h->opt, &h->err);
    s->path = r->path;
    s->split.spec_job = &h->job;
    if (!worker_job_start(&h->job, half_main, h)) {
        worker_job_cancel(&h->job);
        half_free(h);
        return 1;
    }
    const char *split = h->split;
    if (rd_read_lines(r, data, split)) {
        worker_job_cancel(&h->job);
        half_free(h);
        return -1;
    }
    /* what this heap freed while reading (indexes that grew) is given back while the second
       reader may still be reading: its profile is still growing */
    xtrim();
    worker_job_finish(&h->job);
    int merged = 0;
    if (!h->rc) {
        uint32_t *nm = xmalloc((h->p->names.n + 1) * sizeof(*nm));
        merged = h->mode == SPLIT_CONT ? merge_cont(r, h, nm) : merge_parts(r, h, nm);
        free(nm);
    }
    if (merged > 0 && r->opt->callgrind.split_out)
        *r->opt->callgrind.split_out = h->mode == SPLIT_CONT ? READ_SPLIT_BODY : READ_SPLIT_PART;
    half_free(h);
    if (merged < 0) return rd_fail(r, "costs overflow 64 bits when added together");
    if (merged) return 0;
    return rd_read_lines(r, split, end) ? -1 : 0;
}
