/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symspec.c - parsing symspecs and turning them into address ranges.
 */
#include "symspec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"
#include "../model/search.h"

void symspec_set_init(struct symspec_set *s)
{
    memset(s, 0, sizeof(*s));
}

static void part_release(struct symspec_part *p)
{
    free(p->file);
    free(p->name);
    memset(p, 0, sizeof(*p));
}

void symspec_set_release(struct symspec_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        part_release(&s->specs[i].left);
        part_release(&s->specs[i].right);
        free(s->specs[i].lranges.r);
        free(s->specs[i].rranges.r);
    }
    free(s->specs);
    for (int t = 0; t < SYMSPEC_NTABLES; t++)
        free(s->tables[t].r);
    memset(s, 0, sizeof(*s));
}

void symspec_parse_part(const char *spec, struct symspec_part *out)
{
    memset(out, 0, sizeof(*out));
    const char *colon = strrchr(spec, ':');
    const char *rest = spec;
    if (colon) {
        if (colon > spec) out->file = xstrndup(spec, (size_t)(colon - spec));
        rest = colon + 1;
        if (*rest) {
            if (isdigit((unsigned char)*rest))
                out->line = (unsigned)atoi(rest);
            else
                out->name = xstrdup(rest);
        }
    } else if (*spec) {
        if (strchr(spec, '.'))
            out->file = xstrdup(spec);
        else if (isdigit((unsigned char)*spec))
            out->line = (unsigned)atoi(spec);
        else
            out->name = xstrdup(spec);
    }
    out->any = !out->file && !out->name && !out->line;
}

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void symspec_set_add(struct symspec_set *s, const char *spec, enum symspec_table_id t)
{
    s->specs = xgrow(s->specs, &s->cap, s->n + 1, sizeof(*s->specs));
    struct symspec *sp = &s->specs[s->n++];
    memset(sp, 0, sizeof(*sp));
    sp->table = t;
    const char *slash = strchr(spec, '/');
    if (slash) {
        char *l = xstrndup(spec, (size_t)(slash - spec));
        symspec_parse_part(l, &sp->left);
        free(l);
        symspec_parse_part(slash + 1, &sp->right);
        sp->has_right = true;
    } else {
        symspec_parse_part(spec, &sp->left);
    }
}

static void ranges_push(struct symspec_ranges *r, uint64_t lo, uint64_t hi)
{
    r->r = xgrow(r->r, &r->cap, r->n + 1, sizeof(*r->r));
    r->r[r->n].lo = lo;
    r->r[r->n].hi = hi;
    r->n++;
}

static int cmp_range(const void *a, const void *b)
{
    const struct symspec_range *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return 0;
}

/* The symbols that part p matches: the file, when p names one, is the base
 * name of the symbol's file; the line, when given, is the symbol's line;
 * the name, when given, is the symbol's name (an empty spec, "" or ":",
 * matches every symbol, as gprof's does). A name (file)
 * gives the same answer as the previous symbol's when it is the same
 * pointer (the -l line symbols of one function share their name and file
 * strings), so strcmp runs once per run of equal pointers. */
static void match_into(const struct symspec_part *p, const struct symspec_sym *syms, size_t n,
                       struct symspec_ranges *out)
{
    out->n = 0;
    size_t prev = (size_t)-1;
    const char *last_name = NULL, *last_file = NULL;
    bool name_ok = false, file_ok = false, have_name = false, have_file = false;
    for (size_t i = 0; i < n; i++) {
        const struct symspec_sym *y = &syms[i];
        if (p->line && p->line != y->line) continue;
        if (p->file) {
            if (!have_file || y->file != last_file) {
                have_file = true;
                last_file = y->file;
                file_ok = y->file && strcmp(p->file, base_of(y->file)) == 0;
            }
            if (!file_ok) continue;
        }
        if (p->name) {
            if (!have_name || y->name != last_name) {
                have_name = true;
                last_name = y->name;
                name_ok = y->name && y->name[0] == p->name[0] && strcmp(p->name, y->name) == 0;
            }
            if (!name_ok) continue;
        }
        if (prev != (size_t)-1 && prev + 1 == i && out->n)
            out->r[out->n - 1].hi = y->end_addr;
        else
            ranges_push(out, y->addr, y->end_addr);
        prev = i;
    }
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_part(const struct symspec_part *a, const struct symspec_part *b)
{
    return a->line == b->line && same_str(a->file, b->file) && same_str(a->name, b->name);
}

static void copy_ranges(struct symspec_ranges *to, const struct symspec_ranges *from)
{
    to->n = 0;
    for (size_t k = 0; k < from->n; k++)
        ranges_push(to, from->r[k].lo, from->r[k].hi);
}

void symspec_set_resolve(struct symspec_set *s, const struct symspec_sym *syms, size_t n)
{
    for (int t = 0; t < SYMSPEC_NTABLES; t++)
        s->tables[t].n = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct symspec *sp = &s->specs[i];
        /* a spec given for several tables (the default exclusions are in
         * three) matches the same symbols each time: match it once */
        size_t k = 0;
        while (k < i && !same_part(&s->specs[k].left, &sp->left))
            k++;
        if (k < i)
            copy_ranges(&sp->lranges, &s->specs[k].lranges);
        else
            match_into(&sp->left, syms, n, &sp->lranges);
        if (sp->has_right) match_into(&sp->right, syms, n, &sp->rranges);
        for (size_t r = 0; r < sp->lranges.n; r++)
            ranges_push(&s->tables[sp->table], sp->lranges.r[r].lo, sp->lranges.r[r].hi);
    }
    for (int t = 0; t < SYMSPEC_NTABLES; t++)
        if (s->tables[t].n > 1)
            qsort(s->tables[t].r, s->tables[t].n, sizeof(struct symspec_range), cmp_range);
}

bool symspec_ranges_find(const struct symspec_ranges *r, uint64_t addr)
{
    /* Ranges may overlap (several specs): find the last range starting at
     * or before addr, then look back while ranges could still hold it. */
    size_t lo = SEARCH_UPPER(r->r, r->n, lo, addr);
    for (size_t i = lo; i > 0; i--) {
        if (r->r[i - 1].hi >= addr) return true;
        if (i - 1 == 0) break;
        /* Ranges from one spec never overlap; a few specs at most do. */
        if (lo - i > 64) break;
    }
    return false;
}

bool symspec_arc_in(const struct symspec_set *s, enum symspec_table_id t, uint64_t from,
                    uint64_t to)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct symspec *sp = &s->specs[i];
        if (sp->table != t || !sp->has_right) continue;
        if (symspec_ranges_find(&sp->lranges, from) && symspec_ranges_find(&sp->rranges, to))
            return true;
    }
    return false;
}

bool symspec_arcs_empty(const struct symspec_set *s, enum symspec_table_id t)
{
    return s->tables[t].n == 0;
}
