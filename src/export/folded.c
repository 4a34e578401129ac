/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * folded.c - folded stack lines from a stack tree (see folded.h).
 */
#include "folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../io/bytebuf.h"

uint64_t folded_weight(const struct stack_tree *t, uint32_t i, size_t ev)
{
    uint64_t w = stack_total(t, i)[ev];
    for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling) {
        uint64_t ct = stack_total(t, c)[ev];
        w = ct > w ? 0 : w - ct;
    }
    return w;
}

uint32_t folded_next(const struct stack_tree *t, uint32_t i)
{
    if (t->n == 0) return 0;
    if (t->nodes[i].first_child) return t->nodes[i].first_child;
    while (i != 0) {
        if (t->nodes[i].next_sibling) return t->nodes[i].next_sibling;
        i = t->nodes[i].parent;
    }
    return 0;
}

static const char *fn_string(const struct stack_tree *t, uint32_t i, int what)
{
    uint32_t fn = t->nodes[i].fn;
    if (fn == STACK_NO_FN || !t->p || fn >= profile_nfunctions(t->p)) return "";
    struct function f = profile_function_at(t->p, fn);
    return profile_str(t->p, what == 0 ? f.name : f.file);
}

const char *folded_name(const struct stack_tree *t, uint32_t i)
{
    return fn_string(t, i, 0);
}
const char *folded_file(const struct stack_tree *t, uint32_t i)
{
    return fn_string(t, i, 1);
}

uint64_t *folded_start_lines(const struct profile *p)
{
    size_t nfn = p ? profile_nfunctions(p) : 0;
    uint64_t *start = xcalloc(nfn + 1, sizeof(*start));
    for (size_t k = 0; p && k < p->nparts; k++)
        for (size_t i = 0; i < part_ncosts(p->parts[k]); i++) {
            struct cost_rec r;
            part_cost_get(p->parts[k], i, &r);
            if (r.fn >= nfn || !r.pos.line) continue;
            if (r.pos.file != profile_function_at(p, r.fn).file) continue;
            if (!start[r.fn] || r.pos.line < start[r.fn]) start[r.fn] = r.pos.line;
        }
    return start;
}

/* Append frame name s to b, with ';' and line breaks replaced. */
static void append_frame(struct bytebuf *b, const char *s, int sep)
{
    if (sep) bytebuf_addc(b, ';');
    size_t at = b->n;
    bytebuf_add(b, s, strlen(s));
    for (size_t k = at; k < b->n; k++) {
        char c = b->s[k];
        b->s[k] = c == ';' ? ',' : (c == '\n' || c == '\r') ? ' ' : c;
    }
    if (b->n == at) bytebuf_addc(b, '?'); /* an empty frame would vanish */
}

int folded_write(const struct stack_tree *t, size_t ev, FILE *fp, struct tally_error *err)
{
    if (ev >= t->nev) return tally_error_set(err, NULL, 0, "no event %zu in the stacks", ev);
    uint32_t maxdepth = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->nodes[i].depth > maxdepth) maxdepth = t->nodes[i].depth;
    size_t *off = xcalloc((size_t)maxdepth + 2, sizeof(*off));
    struct bytebuf buf = {0};
    if (t->n && folded_weight(t, 0, ev))
        fprintf(fp, "[other] %" PRIu64 "\n", folded_weight(t, 0, ev));
    for (uint32_t i = folded_next(t, 0); i; i = folded_next(t, i)) {
        uint32_t d = t->nodes[i].depth;
        if (d == 0 || d > maxdepth) continue; /* not a frame (cannot happen in a good tree) */
        buf.n = off[d - 1];
        append_frame(&buf, folded_name(t, i), d > 1);
        off[d] = buf.n;
        uint64_t w = folded_weight(t, i, ev);
        if (w) fprintf(fp, "%s %" PRIu64 "\n", buf.s, w);
    }
    bytebuf_release(&buf);
    free(off);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "write error");
    return 0;
}
