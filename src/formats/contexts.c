/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contexts.c - reader and writer of the tally contexts format (see
 * contexts.h and docs/internals/contexts.md).
 */
#include "contexts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../io/parse.h"
#include "../model/cct.h"

struct ctx_reader {
    struct input *in;
    struct profile *p;
    struct part *pt;
    struct tally_error *err;
    unsigned long lineno;
    struct rectab obs, fls, fns, nodes; /* file id -> value */
    int have_events, in_body;
    unsigned pending_depth; /* `depth:` */
    uint64_t *tot;          /* [nevents] the file's self costs of each event, kept under 2^64 */
};

static int bad(struct ctx_reader *r, const char *fmt, const char *arg)
{
    return tally_error_set(r->err, r->in->path, r->lineno, fmt, arg);
}

/* One number field; "what" names it in messages. */
static int field(struct ctx_reader *r, const char **s, const char *end, uint64_t *v,
                 const char *what)
{
    parse_skip_space(s, end);
    int rc = parse_u64(s, end, v);
    if (rc == PARSE_NONE) return bad(r, "expected a number (%s)", what);
    if (rc == PARSE_OVERFLOW) return bad(r, "number too large (%s)", what);
    if (*s < end && !parse_is_space(**s)) return bad(r, "bad character in a number (%s)", what);
    return 0;
}

static int rest(struct ctx_reader *r, const char **s, const char *end, const char *what)
{
    parse_skip_space(s, end);
    if (*s == end) return bad(r, "missing %s", what);
    return 0;
}

/* ob/fl lines: ID PATH. */
static int name_line(struct ctx_reader *r, struct rectab *tab, const char *s, const char *end,
                     const char *what)
{
    uint64_t id;
    if (field(r, &s, end, &id, what)) return -1;
    if (id == 0) return bad(r, "%s id 0 is reserved for 'unknown'", what);
    if (rest(r, &s, end, "name")) return -1;
    int created;
    uint64_t *v = rectab_get(tab, &id, &created);
    if (!created) return bad(r, "%s id defined twice", what);
    *v = profile_intern(r->p, s, (size_t)(end - s));
    return 0;
}

static int lookup(struct ctx_reader *r, struct rectab *tab, uint64_t id, const char *what,
                  uint32_t *out)
{
    if (id == 0) {
        *out = 0;
        return 0;
    }
    const uint64_t *v = rectab_find(tab, &id);
    if (!v) return bad(r, "%s id used before its definition", what);
    *out = (uint32_t)*v;
    return 0;
}

static int fn_line(struct ctx_reader *r, const char *s, const char *end)
{
    uint64_t id, ob, fl;
    if (field(r, &s, end, &id, "function id") || field(r, &s, end, &ob, "object id") ||
        field(r, &s, end, &fl, "file id"))
        return -1;
    if (id == 0) return bad(r, "%s id 0 is reserved", "function");
    uint32_t obj = 0, file = 0;
    if (lookup(r, &r->obs, ob, "object", &obj) || lookup(r, &r->fls, fl, "file", &file)) return -1;
    if (rest(r, &s, end, "function name")) return -1;
    int created;
    uint64_t *v = rectab_get(&r->fns, &id, &created);
    if (!created) return bad(r, "%s id defined twice", "function");
    uint32_t name = profile_intern(r->p, s, (size_t)(end - s));
    *v = profile_function(r->p, obj, file, name);
    return 0;
}

static int x_line(struct ctx_reader *r, const char *s, const char *end)
{
    struct cct *c = r->p->cct;
    uint64_t id, parent, fid, calls;
    if (field(r, &s, end, &id, "context id") || field(r, &s, end, &parent, "parent id") ||
        field(r, &s, end, &fid, "function id") || field(r, &s, end, &calls, "calls"))
        return -1;
    if (id == 0) return bad(r, "%s id 0 is reserved", "context");
    uint32_t pidx = CCT_ROOT, fn = 0;
    if (parent) {
        const uint64_t *v = rectab_find(&r->nodes, &parent);
        if (!v) return bad(r, "%s", "the parent context is not defined before this line");
        pidx = (uint32_t)*v;
    }
    if (fid == 0) return bad(r, "%s", "a context needs a function (id 0 is unknown)");
    if (lookup(r, &r->fns, fid, "function", &fn)) return -1;
    if (cct_find(c, pidx, fn)) return bad(r, "%s", "the same function twice under one parent");
    int created;
    uint64_t *v = rectab_get(&r->nodes, &id, &created);
    if (!created) return bad(r, "%s id defined twice", "context");
    uint32_t ni = cct_child(c, pidx, fn);
    if (ni == UINT32_MAX) return bad(r, "%s", "too many contexts");
    *v = ni;
    c->nodes[ni].calls = calls;
    uint64_t *cost = cct_self(c, ni);
    size_t k = 0;
    for (;;) {
        parse_skip_space(&s, end);
        if (s == end) break;
        if (k == c->nevents) return bad(r, "%s", "more costs than events");
        if (field(r, &s, end, &cost[k], "cost")) return -1;
        k++;
    }
    /* counts are 64-bit, and so is every sum of them (as in the callgrind reader) */
    if (!r->tot) r->tot = xcalloc(c->nevents ? c->nevents : 1, sizeof(*r->tot));
    for (size_t i = 0; i < k; i++)
        if (r->tot[i] + cost[i] < cost[i])
            return bad(r, "the costs of event %s sum past 2^64-1 (the largest count)",
                       r->pt->events.names[i]);
    for (size_t i = 0; i < k; i++)
        r->tot[i] += cost[i];
    return 0;
}

static int costs_line(struct ctx_reader *r, const char *s, const char *end, uint64_t *out, size_t n)
{
    size_t k = 0;
    for (;;) {
        parse_skip_space(&s, end);
        if (s == end) break;
        if (k == n) return bad(r, "%s", "more costs than events");
        if (field(r, &s, end, &out[k], "cost")) return -1;
        k++;
    }
    return 0;
}

static int header_line(struct ctx_reader *r, const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len), *end = s + len;
    if (!colon) return bad(r, "%s", "expected 'key: value', a name or a context line");
    size_t klen = (size_t)(colon - s);
    const char *v = colon + 1;
    parse_skip_space(&v, end);
    size_t vlen = (size_t)(end - v);
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(s, k, klen) == 0)
    if (KEY("totals")) {
        if (!r->have_events) return bad(r, "%s", "'totals:' before 'events:'");
        if (r->pt->totals) return bad(r, "%s", "'totals:' given twice");
        r->pt->totals = xcalloc(r->pt->events.n ? r->pt->events.n : 1, sizeof(uint64_t));
        r->pt->totals_line = r->lineno;
        return costs_line(r, v, end, r->pt->totals, r->pt->events.n);
    }
    if (r->in_body) return bad(r, "%s", "header line after the first name or context line");
    if (KEY("creator")) {
        free(r->p->creator);
        r->p->creator = xstrndup(v, vlen);
    } else if (KEY("cmd")) {
        free(r->pt->cmd);
        r->pt->cmd = xstrndup(v, vlen);
    } else if (KEY("pid") || KEY("thread") || KEY("depth")) {
        uint64_t n;
        if (field(r, &v, end, &n, "header value")) return -1;
        parse_skip_space(&v, end);
        if (v != end) return bad(r, "%s", "trailing text after the number");
        if (KEY("pid")) {
            r->pt->has_pid = 1;
            r->pt->pid = n;
        } else if (KEY("thread")) {
            r->pt->has_thread = 1;
            r->pt->thread = n;
        } else {
            if (n > UINT32_MAX) return bad(r, "%s", "depth too large");
            r->pending_depth = (unsigned)n;
        }
    } else if (KEY("events")) {
        if (r->have_events) return bad(r, "%s", "'events:' given twice");
        if (eventset_set_base(&r->pt->events, v, vlen, r->err) ||
            eventset_finish(&r->pt->events, r->err)) {
            r->err->line = r->lineno;
            snprintf(r->err->file, sizeof(r->err->file), "%s", r->in->path);
            return -1;
        }
        if (r->pt->events.n == 0) return bad(r, "%s", "'events:' names no event");
        r->have_events = 1;
    } else {
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(klen < 60 ? klen : 60), s);
        return bad(r, "unknown header key '%s'", key);
    }
#undef KEY
    return 0;
}

/* Enter the body: events must be known; make the tree. */
static int start_body(struct ctx_reader *r)
{
    if (r->in_body) return 0;
    if (!r->have_events) return bad(r, "%s", "no 'events:' line before the first name or context");
    r->in_body = 1;
    r->p->cct = cct_new(r->pt->events.n);
    r->p->cct->depth_limit = r->pending_depth;
    r->p->cct->has_thread = r->pt->has_thread;
    r->p->cct->thread = r->pt->thread;
    return 0;
}

/*
 * Self costs and call arcs of the profile, from the tree. The arc of a
 * node (its parent's function -> its own) has the node's calls and, when
 * its function is not on the stack above it (an outermost node), the
 * node's inclusive cost; a call into a function that is already on the
 * stack adds no cost, as that cost is inside the arc into the outer
 * activation. So the costs of the arcs into a function add up to its cost
 * while on the stack (cct_on_stack_costs()), less its top-level nodes',
 * and the part's desc says so (PART_DESC_OUTERMOST).
 */
static int derive(struct ctx_reader *r)
{
    struct cct *c = r->p->cct;
    struct profile *p = r->p;
    size_t ne = c->nevents;
    uint64_t *incl = xmalloc(c->n * ne * sizeof(uint64_t));
    unsigned char *outer = xmalloc(c->n);
    uint64_t *none = xcalloc(ne ? ne : 1, sizeof(uint64_t));
    int rc = cct_inclusive(c, incl, r->err);
    if (!rc) rc = cct_outermost(c, profile_nfunctions(p), outer, r->err);
    if (rc) {
        snprintf(r->err->file, sizeof(r->err->file), "%s", r->in->path);
        goto out;
    }
    for (size_t i = 1; i < c->n; i++) {
        const struct cct_node *nd = &c->nodes[i];
        struct function f = profile_function_at(p, nd->fn);
        struct position pos = {.file = f.file};
        if (part_add_cost(p, r->pt, nd->fn, &pos, cct_self(c, (uint32_t)i), ne)) goto overflow;
        if (nd->parent == CCT_ROOT) continue;
        uint32_t caller = c->nodes[nd->parent].fn;
        struct position site = {.file = profile_function_at(p, caller).file};
        if (part_add_call(p, r->pt, caller, &site, nd->fn, &pos, nd->calls,
                          outer[i] ? incl + i * ne : none, ne))
            goto overflow;
    }
    part_set_calls_outermost(r->pt, 1);
    goto out;
overflow:
    rc = tally_error_set(r->err, r->in->path, 0, "%s", "cost overflow while summing contexts");
out:
    free(none);
    free(outer);
    free(incl);
    return rc;
}

int contexts_read(struct input *in, struct profile *p, struct tally_error *err)
{
    struct ctx_reader r;
    memset(&r, 0, sizeof(r));
    r.in = in;
    r.p = p;
    r.err = err;
    r.pt = profile_add_part(p);
    rectab_init(&r.obs, 1, 1);
    rectab_init(&r.fls, 1, 1);
    rectab_init(&r.fns, 1, 1);
    rectab_init(&r.nodes, 1, 1);
    int rc = -1;
    const char *line;
    size_t len;
    int got;
    while ((got = input_getline(in, &line, &len, err)) == 1) {
        r.lineno++;
        const char *end = line + len;
        if (r.lineno == 1) {
            if (len != sizeof(CONTEXTS_MAGIC) - 1 || memcmp(line, CONTEXTS_MAGIC, len) != 0) {
                bad(&r, "%s",
                    "not a tally contexts file (first line must be '" CONTEXTS_MAGIC "')");
                goto out;
            }
            continue;
        }
        if (memchr(line, 0, len) || memchr(line, '\r', len)) {
            bad(&r, "%s",
                memchr(line, 0, len) ? "NUL byte in a line" : "carriage return inside a line");
            goto out;
        }
        if (len == 0 || line[0] == '#') continue;
        const char *s = line + 2;
        if (len >= 2 && line[0] == 'x' && line[1] == ' ') {
            if (start_body(&r) || x_line(&r, s, end)) goto out;
        } else if (len >= 3 && line[2] == ' ' && memcmp(line, "ob", 2) == 0) {
            s = line + 3;
            if (start_body(&r) || name_line(&r, &r.obs, s, end, "object")) goto out;
        } else if (len >= 3 && line[2] == ' ' && memcmp(line, "fl", 2) == 0) {
            s = line + 3;
            if (start_body(&r) || name_line(&r, &r.fls, s, end, "file")) goto out;
        } else if (len >= 3 && line[2] == ' ' && memcmp(line, "fn", 2) == 0) {
            s = line + 3;
            if (start_body(&r) || fn_line(&r, s, end)) goto out;
        } else if (header_line(&r, line, len)) {
            goto out;
        }
    }
    if (got < 0) goto out;
    if (r.lineno == 0) {
        tally_error_set(err, in->path, 0, "%s", "empty file, not a contexts file");
        goto out;
    }
    if (start_body(&r)) {
        r.lineno = 0;
        tally_error_set(err, in->path, 0, "%s", "no 'events:' line");
        goto out;
    }
    if (derive(&r)) goto out;
    /* tally writes `totals:` as the last line: without it the file was cut short */
    if (!r.pt->totals)
        profile_warn(p, "%s: no 'totals:' line at the end: the file looks truncated",
                     in->path ? in->path : "(input)");
    part_check_totals(p, r.pt);
    rc = 0;
out:
    rectab_release(&r.obs);
    rectab_release(&r.fls);
    rectab_release(&r.fns);
    rectab_release(&r.nodes);
    free(r.tot);
    return rc;
}

/* ---- writer ------------------------------------------------------------------ */

/* Ids given to names on first use: name id -> file id. */
struct idmap {
    struct rectab tab;
    uint64_t next;
};

static uint64_t idmap_get(struct idmap *m, uint32_t name, int *created)
{
    uint64_t key = name;
    uint64_t *v = rectab_get(&m->tab, &key, created);
    if (*created) *v = ++m->next;
    return *v;
}

static void write_costs(FILE *fp, const uint64_t *v, size_t n)
{
    while (n && v[n - 1] == 0)
        n--;
    for (size_t k = 0; k < n; k++)
        fprintf(fp, " %" PRIu64, v[k]);
}

/* Text of a header value on one line (newlines would break the format). */
static void write_value(FILE *fp, const char *key, const char *s)
{
    fprintf(fp, "%s: ", key);
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
    fputc('\n', fp);
}

int contexts_write(const struct profile *p, FILE *fp, struct tally_error *err)
{
    const struct cct *c = p->cct;
    if (!c || !p->nparts)
        return tally_error_set(err, p->path, 0, "%s",
                               "the profile has no calling-context tree to write (only contexts "
                               "files have one)");
    const struct part *pt = p->parts[0];
    if (c->nevents != pt->events.n)
        return tally_error_set(err, p->path, 0, "%s", "context tree and events disagree");
    if (p->signed_costs)
        return tally_error_set(err, p->path, 0, "%s", "signed costs cannot be written");
    fprintf(fp, "%s\n", CONTEXTS_MAGIC);
    if (p->creator) write_value(fp, "creator", p->creator);
    if (pt->cmd) write_value(fp, "cmd", pt->cmd);
    if (pt->has_pid) fprintf(fp, "pid: %" PRIu64 "\n", pt->pid);
    if (pt->has_thread) fprintf(fp, "thread: %" PRIu64 "\n", pt->thread);
    char *evs = eventset_join(&pt->events);
    fprintf(fp, "events: %s\n", evs);
    free(evs);
    if (c->depth_limit) fprintf(fp, "depth: %u\n", c->depth_limit);
    struct idmap obs = {.next = 0}, fls = {.next = 0}, fns = {.next = 0};
    rectab_init(&obs.tab, 1, 1);
    rectab_init(&fls.tab, 1, 1);
    rectab_init(&fns.tab, 1, 1);
    uint64_t *sum = xcalloc(c->nevents ? c->nevents : 1, sizeof(uint64_t));
    int rc = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct cct_node *nd = &c->nodes[i];
        const uint64_t *self = cct_self(c, (uint32_t)i);
        for (size_t k = 0; k < c->nevents; k++) {
            if (sum[k] + self[k] < sum[k]) rc = -1;
            sum[k] += self[k];
        }
        if (i == 0) continue; /* the root has no line (its cost, if any, is lost) */
        struct function f = profile_function_at(p, nd->fn);
        int created;
        uint64_t ob = 0, fl = 0;
        if (f.obj) {
            ob = idmap_get(&obs, f.obj, &created);
            if (created) fprintf(fp, "ob %" PRIu64 " %s\n", ob, profile_str(p, f.obj));
        }
        if (f.file) {
            fl = idmap_get(&fls, f.file, &created);
            if (created) fprintf(fp, "fl %" PRIu64 " %s\n", fl, profile_str(p, f.file));
        }
        uint64_t fid = idmap_get(&fns, nd->fn, &created);
        if (created) {
            const char *name = profile_str(p, f.name);
            fprintf(fp, "fn %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", fid, ob, fl,
                    *name ? name : "???");
        }
        fprintf(fp, "x %zu %" PRIu32 " %" PRIu64 " %" PRIu64, i, nd->parent, fid, nd->calls);
        write_costs(fp, self, c->nevents);
        fputc('\n', fp);
    }
    fputs("totals:", fp);
    for (size_t k = 0; k < c->nevents; k++)
        fprintf(fp, " %" PRIu64, sum[k]);
    fputc('\n', fp);
    free(sum);
    rectab_release(&obs.tab);
    rectab_release(&fls.tab);
    rectab_release(&fns.tab);
    if (rc) return tally_error_set(err, p->path, 0, "%s", "cost overflow in the context tree");
    if (ferror(fp)) return tally_error_set(err, p->path, 0, "%s", "write error");
    return 0;
}

int contexts_tree_current(const struct profile *p)
{
    const struct cct *c = p->cct;
    if (!c || p->nparts != 1 || p->signed_costs || c->nevents != p->parts[0]->events.n) return 0;
    size_t ne = c->nevents;
    uint64_t *a = xcalloc(ne + 1, sizeof(uint64_t)), *b = xcalloc(ne + 1, sizeof(uint64_t));
    int ok = part_self_total(p, p->parts[0], a) == 0;
    for (size_t i = 0; ok && i < c->n; i++)
        for (size_t e = 0; e < ne; e++) {
            if (b[e] + cct_self(c, (uint32_t)i)[e] < b[e]) ok = 0;
            b[e] += cct_self(c, (uint32_t)i)[e];
        }
    ok = ok && memcmp(a, b, ne * sizeof(uint64_t)) == 0;
    free(a);
    free(b);
    return ok;
}
