/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.c - histogram credit, call arcs, cycles and time propagation.
 * See gprof.h and docs/internals/gprof.md for the rules followed.
 */
#include "gprof.h"

#include <stdlib.h>
#include <string.h>

#include "../model/error.h"
#include "../model/search.h"

void gprof_init(struct gprof *g, const struct elf_sym *syms, size_t n, bool line_mode)
{
    memset(g, 0, sizeof(*g));
    g->line_mode = line_mode;
    g->syms = xcalloc(n ? n : 1, sizeof(*g->syms));
    g->nsyms = n;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *s = &g->syms[i];
        s->name = syms[i].name;
        s->file = syms[i].file;
        s->line = syms[i].line;
        s->addr = syms[i].addr;
        s->end_addr = syms[i].end_addr;
        s->is_func = syms[i].is_func;
        s->is_static = syms[i].is_static;
        s->scaled_addr = s->addr / 2;
        s->cyc_head = s;
        s->pos = i;
    }
    /* A directory of address buckets (about one symbol each) narrows the
     * binary search of gprof_lookup to the symbols of one bucket. */
    if (n > 0 && n < UINT32_MAX / 2) {
        uint64_t lo = g->syms[0].addr, range = g->syms[n - 1].addr - lo;
        unsigned shift = 0;
        while (shift < 63 && (range >> shift) >= 2 * (uint64_t)n)
            shift++;
        size_t nb = (size_t)(range >> shift) + 1;
        g->lk_first = xmalloc((nb + 1) * sizeof(*g->lk_first));
        size_t j = 0;
        for (size_t b = 0; b <= nb; b++) {
            uint64_t start = lo + ((uint64_t)b << shift);
            while (j < n && g->syms[j].addr < start)
                j++;
            g->lk_first[b] = (uint32_t)j;
        }
        g->lk_lo = lo;
        g->lk_shift = shift;
        g->lk_n = nb;
    }
}

void gprof_release(struct gprof *g)
{
    for (size_t i = 0; i < g->nsyms; i++) {
        free(g->syms[i].demangled);
        free(g->syms[i].bb_addr);
    }
    free(g->syms);
    free(g->cycles);
    free(g->arcs);
    free(g->timed);
    free(g->lk_first);
    free(g->hash);
    for (size_t i = 0; i < g->nchunks; i++)
        free(g->chunks[i]);
    free(g->chunks);
    memset(g, 0, sizeof(*g));
}

struct gprof_sym *gprof_lookup(const struct gprof *g, uint64_t addr)
{
    size_t lo = 0, hi = g->nsyms;
    if (g->lk_first && addr >= g->lk_lo) {
        /* the symbols before lk_first[b] start below the bucket (so at or
         * below addr), those from lk_first[b + 1] on above it */
        uint64_t b = (addr - g->lk_lo) >> g->lk_shift;
        if (b < g->lk_n) {
            lo = g->lk_first[b];
            hi = g->lk_first[b + 1];
        } else {
            lo = g->nsyms;
        }
    }
    if (hi > lo) lo += SEARCH_UPPER(g->syms + lo, hi - lo, addr, addr);
    if (lo == 0) return NULL;
    struct gprof_sym *s = &g->syms[lo - 1];
    return addr <= s->end_addr ? s : NULL;
}

/* ---- histogram -------------------------------------------------------- */

static void assign_one(struct gprof *g, const struct gmon_hist *h, const struct symspec_set *s)
{
    uint64_t lowpc = h->low_pc / 2;
    size_t n = g->nsyms;
    size_t j, k = 1;
    for (uint32_t i = 0; i < h->nbins; i++) {
        uint64_t bin_count = h->bins[i];
        if (!bin_count) continue;
        uint64_t bin_low = lowpc + (uint64_t)(g->hist_scale * i);
        uint64_t bin_high = lowpc + (uint64_t)(g->hist_scale * (i + 1));
        double count_time = (double)(unsigned)bin_count;
        g->total_time += count_time;
        for (j = k - 1; j < n; k = ++j) {
            uint64_t sym_low = g->syms[j].scaled_addr;
            uint64_t sym_high =
                j + 1 < n ? g->syms[j + 1].scaled_addr : (g->syms[j].end_addr + 1) / 2;
            if (bin_high < sym_low) break;
            if (bin_low >= sym_high) continue;
            uint64_t overlap = (bin_high < sym_high ? bin_high : sym_high) -
                               (bin_low > sym_low ? bin_low : sym_low);
            if (overlap > 0) {
                double credit = (double)overlap * count_time / g->hist_scale;
                if (symspec_selected(s, SYMSPEC_INCL_FLAT, g->syms[j].addr))
                    g->syms[j].hist_time += credit;
                else
                    g->total_time -= credit;
            }
        }
    }
}

void gprof_assign_hist(struct gprof *g, const struct gmon *gm, const struct symspec_set *s)
{
    g->hz = gm->hz;
    g->hist_scale = gm->hist_scale;
    g->have_hist = (gm->input & GMON_INPUT_HIST) != 0;
    if (gm->nhists) {
        g->clip_lo = gm->hists[0].low_pc;
        g->clip_hi = gm->hists[0].high_pc;
    }
    if (!g->nsyms) {
        for (size_t r = 0; r < gm->nhists; r++)
            for (uint32_t i = 0; i < gm->hists[r].nbins; i++)
                g->total_time += (double)(unsigned)gm->hists[r].bins[i];
        return;
    }
    for (size_t r = 0; r < gm->nhists; r++)
        assign_one(g, &gm->hists[r], s);
}

/* ---- arcs ------------------------------------------------------------- */

static size_t arc_hash(const struct gprof_sym *p, const struct gprof_sym *c)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)c;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (size_t)x;
}

struct gprof_arc *gprof_arc_find(const struct gprof *g, const struct gprof_sym *parent,
                                 const struct gprof_sym *child)
{
    if (!g->hash_cap) return NULL;
    size_t mask = g->hash_cap - 1;
    for (size_t h = arc_hash(parent, child) & mask;; h = (h + 1) & mask) {
        struct gprof_arc *a = g->hash[h];
        if (!a) return NULL;
        if (a->parent == parent && a->child == child) return a;
    }
}

static void hash_insert(struct gprof *g, struct gprof_arc *a)
{
    if ((g->hash_n + 1) * 2 > g->hash_cap) {
        size_t ncap = g->hash_cap ? g->hash_cap * 2 : 1024;
        struct gprof_arc **nh = xcalloc(ncap, sizeof(*nh));
        for (size_t i = 0; i < g->hash_cap; i++) {
            struct gprof_arc *x = g->hash[i];
            if (!x) continue;
            size_t h = arc_hash(x->parent, x->child) & (ncap - 1);
            while (nh[h])
                h = (h + 1) & (ncap - 1);
            nh[h] = x;
        }
        free(g->hash);
        g->hash = nh;
        g->hash_cap = ncap;
    }
    size_t mask = g->hash_cap - 1;
    size_t h = arc_hash(a->parent, a->child) & mask;
    while (g->hash[h])
        h = (h + 1) & mask;
    g->hash[h] = a;
    g->hash_n++;
}

static struct gprof_arc *arc_alloc(struct gprof *g)
{
    if (g->pool_n == g->pool_cap) {
        g->pool_cap = 4096;
        g->pool = xcalloc(g->pool_cap, sizeof(*g->pool));
        g->pool_n = 0;
        g->chunks = xgrow(g->chunks, &g->chunks_cap, g->nchunks + 1, sizeof(*g->chunks));
        g->chunks[g->nchunks++] = g->pool;
    }
    return &g->pool[g->pool_n++];
}

struct gprof_arc *gprof_arc_add(struct gprof *g, struct gprof_sym *parent, struct gprof_sym *child,
                                uint64_t count)
{
    struct gprof_arc *a = gprof_arc_find(g, parent, child);
    if (a) {
        a->count += count;
        return a;
    }
    a = arc_alloc(g);
    a->parent = parent;
    a->child = child;
    a->count = count;
    if (parent != child) {
        g->arcs = xgrow(g->arcs, &g->arcs_cap, g->narcs + 1, sizeof(*g->arcs));
        g->arcs[g->narcs++] = a;
    }
    g->nall_arcs++;
    a->next_child = parent->children;
    parent->children = a;
    a->next_parent = child->parents;
    child->parents = a;
    hash_insert(g, a);
    return a;
}

void gprof_tally(struct gprof *g, uint64_t from_pc, uint64_t self_pc, uint64_t count,
                 const struct symspec_set *s)
{
    g->have_arcs = true;
    struct gprof_sym *parent = gprof_lookup(g, from_pc);
    struct gprof_sym *child = gprof_lookup(g, self_pc);
    if (!parent || !child) return;
    while (!child->is_func) {
        if (child == g->syms) return;
        child--;
    }
    bool keep = symspec_arc_in(s, SYMSPEC_INCL_ARCS, parent->addr, child->addr) ||
                (symspec_arcs_empty(s, SYMSPEC_INCL_ARCS) &&
                 !symspec_arc_in(s, SYMSPEC_EXCL_ARCS, parent->addr, child->addr));
    if (!keep) return;
    child->ncalls += count;
    gprof_arc_add(g, parent, child, count);
}

void gprof_add_bbs(struct gprof *g, const struct gmon *gm)
{
    for (size_t i = 0; i < gm->nbbs; i++) {
        struct gprof_sym *s = gprof_lookup(g, gm->bbs[i].addr);
        if (!s) continue;
        unsigned k;
        for (k = 0; k < s->nbb; k++)
            if (s->bb_addr[k] == gm->bbs[i].addr) break;
        if (k < s->nbb) {
            s->bb_calls[k] += gm->bbs[i].count;
        } else if (s->nbb < GPROF_NBB) {
            if (!s->bb_addr) {
                s->bb_addr = xcalloc(2 * GPROF_NBB, sizeof(*s->bb_addr));
                s->bb_calls = s->bb_addr + GPROF_NBB;
            }
            s->bb_addr[s->nbb] = gm->bbs[i].addr;
            s->bb_calls[s->nbb] = gm->bbs[i].count;
            s->nbb++;
        }
    }
}

/* ---- stable merge sort (glibc msort's split and merge) ----------------- */

static void msort_rec(void **b, size_t n, void **tmp, int (*cmp)(const void *, const void *))
{
    if (n <= 1) return;
    size_t n1 = n / 2, n2 = n - n1;
    void **b1 = b, **b2 = b + n1;
    msort_rec(b1, n1, tmp, cmp);
    msort_rec(b2, n2, tmp, cmp);
    void **t = tmp;
    while (n1 > 0 && n2 > 0) {
        if (cmp(*b1, *b2) <= 0) {
            *t++ = *b1++;
            n1--;
        } else {
            *t++ = *b2++;
            n2--;
        }
    }
    if (n1 > 0) memcpy(t, b1, n1 * sizeof(void *));
    memcpy(b, tmp, (n - n2) * sizeof(void *));
}

void gprof_msort(void **base, size_t n, int (*cmp)(const void *, const void *))
{
    if (n <= 1) return;
    void **tmp = xmalloc(n * sizeof(void *));
    msort_rec(base, n, tmp, cmp);
    free(tmp);
}

/* ---- depth-first numbering and cycles (gprof's cg_dfn) ----------------- */

struct dfn_frame {
    struct gprof_sym *sym;
    struct gprof_arc *next; /* next child arc to visit */
};

struct dfn {
    struct dfn_frame *stack; /* stack[1..depth] */
    size_t depth, cap;
    int counter;
    /* the stack places (ascending) whose symbol is still the head of its
     * cycle list: find_cycle merges only those, so it need not look at the
     * members above the cycle's top one by one (gprof does, which makes a
     * program that is one big cycle quadratic) */
    size_t *heads;
    size_t nheads, capheads;
};

static bool on_stack(const struct dfn *d, const struct gprof_sym *s)
{
    return s->dfn_pos > 0 && s->dfn_pos <= d->depth && d->stack[s->dfn_pos].sym == s;
}

/* gprof's find_cycle, with the same result: the topmost stack place
 * holding child or child's cycle head, then every list head above it
 * appended (in stack order) to the list of the symbol found there. */
static void find_cycle(struct dfn *d, struct gprof_sym *child)
{
    size_t top = on_stack(d, child) ? child->dfn_pos : 0;
    if (child->cyc_head != child && on_stack(d, child->cyc_head) && child->cyc_head->dfn_pos > top)
        top = child->cyc_head->dfn_pos;
    if (top == 0) return;        /* cannot happen with a consistent graph */
    if (top == d->depth) return; /* a call to the function on top: not a cycle */
    struct gprof_sym *head = d->stack[top].sym->cyc_head;
    struct gprof_sym *tail = head->cyc_tail;
    size_t first = d->nheads;
    while (first > 0 && d->heads[first - 1] > top)
        first--;
    for (size_t k = first; k < d->nheads; k++) {
        struct gprof_sym *c = d->stack[d->heads[k]].sym;
        if (c->cyc_head != c) continue;
        tail->cyc_next = c;
        c->cyc_head = head;
        for (tail = c; tail->cyc_next; tail = tail->cyc_next)
            tail->cyc_next->cyc_head = head;
    }
    d->nheads = first;
    head->cyc_tail = tail;
}

static void post_visit(struct dfn *d, struct gprof_sym *parent)
{
    if (parent->cyc_head == parent) {
        ++d->counter;
        for (struct gprof_sym *m = parent; m; m = m->cyc_next)
            m->top_order = d->counter;
    }
    if (d->nheads > 0 && d->heads[d->nheads - 1] == d->depth) d->nheads--;
    d->depth--;
}

/* Returns true when the symbol was pushed (must be descended into). */
static bool dfn_enter(struct dfn *d, struct gprof_sym *s)
{
    if (s->top_order != 0 && s->top_order != -1) return false; /* numbered */
    if (s->top_order == -1) {                                  /* busy */
        find_cycle(d, s);
        return false;
    }
    d->stack = xgrow(d->stack, &d->cap, d->depth + 2, sizeof(*d->stack));
    d->depth++;
    d->stack[d->depth].sym = s;
    d->stack[d->depth].next = s->children;
    s->dfn_pos = d->depth;
    s->top_order = -1;
    d->heads = xgrow(d->heads, &d->capheads, d->nheads + 1, sizeof(*d->heads));
    d->heads[d->nheads++] = d->depth;
    return true;
}

static void dfn_run(struct dfn *d, struct gprof_sym *root)
{
    size_t base = d->depth;
    if (!dfn_enter(d, root)) return;
    while (d->depth > base) {
        struct dfn_frame *f = &d->stack[d->depth];
        if (f->next) {
            struct gprof_arc *a = f->next;
            f->next = a->next_child;
            dfn_enter(d, a->child);
        } else {
            post_visit(d, f->sym);
        }
    }
}

/* ---- -c: direct calls found in the text -------------------------------- */

static void find_calls(struct gprof *g, struct gprof_sym *parent, uint64_t lo, uint64_t hi,
                       const struct elf_image *img, uint64_t hlo, uint64_t hhi)
{
    /* clip to the histogram range */
    if (lo < hlo) lo = hlo;
    if (hi > hhi) hi = hhi;
    for (uint64_t pc = lo; pc < hi; pc++) {
        size_t avail;
        const unsigned char *p = elf_image_text_at(img, pc, &avail);
        if (!p || avail < 5) continue;
        if (p[0] != 0xe8) continue;
        uint32_t disp;
        if (img->big_endian)
            disp = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
        else
            disp = (uint32_t)p[4] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[2] << 8 | p[1];
        /* gprof adds the displacement without sign extension and checks the
         * target as a 32-bit number: backward calls are missed. */
        uint64_t dest = (uint64_t)disp + pc + 5;
        uint32_t dest32 = (uint32_t)dest;
        if (!(dest32 >= hlo && dest32 < hhi)) continue;
        struct gprof_sym *child = gprof_lookup(g, dest);
        if (child && child->addr == dest) gprof_arc_add(g, parent, child, 0);
    }
}

/* ---- assemble ---------------------------------------------------------- */

static int cmp_topo(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    return l->top_order - r->top_order;
}

static int cmp_total(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    double t1 = l->prop_self + l->prop_child;
    double t2 = r->prop_self + r->prop_child;
    if (t2 > t1) return 1;
    if (t2 < t1) return -1;
    if (!l->name && l->cyc_num != 0) return -1;
    if (!r->name && r->cyc_num != 0) return 1;
    if (!l->name) return -1;
    if (!r->name) return 1;
    if (l->name[0] != '_' && r->name[0] == '_') return -1;
    if (l->name[0] == '_' && r->name[0] != '_') return 1;
    if (l->ncalls > r->ncalls) return -1;
    if (l->ncalls < r->ncalls) return 1;
    return l->name == r->name ? 0 : strcmp(l->name, r->name);
}

static void inherit_flags(struct gprof_sym *child)
{
    struct gprof_sym *head = child->cyc_head;
    if (child == head) {
        child->print_flag = false;
        child->fract = 0.0;
        for (struct gprof_arc *a = child->parents; a; a = a->next_parent) {
            struct gprof_sym *parent = a->parent;
            if (child == parent) continue;
            child->print_flag |= parent->print_flag;
            if (child->ncalls != 0)
                child->fract += parent->fract * (((double)a->count) / ((double)child->ncalls));
        }
    } else {
        head->print_flag = false;
        head->fract = 0.0;
        for (struct gprof_sym *m = head->cyc_next; m; m = m->cyc_next) {
            for (struct gprof_arc *a = m->parents; a; a = a->next_parent) {
                if (a->parent->cyc_head == head) continue;
                struct gprof_sym *parent = a->parent;
                head->print_flag |= parent->print_flag;
                if (head->ncalls != 0)
                    head->fract += parent->fract * (((double)a->count) / ((double)head->ncalls));
            }
        }
        for (struct gprof_sym *m = head; m; m = m->cyc_next) {
            m->print_flag = head->print_flag;
            m->fract = head->fract;
        }
    }
}

static void propagate_flags(struct gprof *g, struct gprof_sym **order, const struct symspec_set *s)
{
    struct gprof_sym *old_head = NULL;
    for (size_t i = g->nsyms; i-- > 0;) {
        struct gprof_sym *child = order[i];
        if (child->cyc_head != old_head) {
            old_head = child->cyc_head;
            inherit_flags(child);
        }
        uint64_t addr = child->addr;
        if (child->print_flag) {
            if (symspec_in(s, SYMSPEC_EXCL_GRAPH, addr) && !symspec_in(s, SYMSPEC_INCL_GRAPH, addr))
                child->print_flag = false;
        } else {
            if (symspec_in(s, SYMSPEC_INCL_GRAPH, addr) ||
                (symspec_empty(s, SYMSPEC_INCL_GRAPH) && !symspec_in(s, SYMSPEC_EXCL_GRAPH, addr)))
                child->print_flag = true;
        }
        if (child->fract == 0.0) {
            if (symspec_in(s, SYMSPEC_INCL_TIME, addr) ||
                (symspec_empty(s, SYMSPEC_INCL_TIME) && !symspec_in(s, SYMSPEC_EXCL_TIME, addr)))
                child->fract = 1.0;
        } else {
            if (symspec_in(s, SYMSPEC_EXCL_TIME, addr) && !symspec_in(s, SYMSPEC_INCL_TIME, addr))
                child->fract = 0.0;
        }
        child->prop_self = child->hist_time * child->fract;
        g->print_time += child->prop_self;
    }
}

static void propagate_time(struct gprof_sym *parent)
{
    if (parent->fract == 0.0) return;
    for (struct gprof_arc *a = parent->children; a; a = a->next_child) {
        struct gprof_sym *child = a->child;
        if (a->count == 0 || child == parent || child->fract == 0) continue;
        if (child->cyc_head != child) {
            if (parent->cyc_num == child->cyc_num) continue;
            child = child->cyc_head;
        }
        if (child->ncalls == 0) continue;
        a->time = child->hist_time * (((double)a->count) / ((double)child->ncalls));
        a->child_time = child->child_time * (((double)a->count) / ((double)child->ncalls));
        double share = a->time + a->child_time;
        parent->child_time += share;
        double prop_share = parent->fract * share;
        parent->prop_child += prop_share;
        a->time *= parent->fract;
        a->child_time *= parent->fract;
        if (parent->cyc_head != parent) {
            parent->cyc_head->child_time += share;
            parent->cyc_head->prop_child += prop_share;
        }
    }
}

/* ---- the total order (index numbers) ------------------------------------
 *
 * gprof sorts every symbol and cycle with cmp_total. Within glibc's merge
 * the comparator is always called as (element of the left run, element of
 * the right run), and its only inconsistent answers (two cycle headers, or
 * two symbols without a name: "the first one is smaller") then keep the
 * left one first, which is what a stable sort does with "equal". So the
 * result is the stable sort by the consistent key (total time descending;
 * cycle headers, then other nameless symbols, then names not starting
 * with '_', then the others; calls descending; name by strcmp).
 *
 * With -l nearly all symbols have no time, and sorting them with strcmp is
 * most of the work. Every symbol with time comes before every one without,
 * so the two groups are sorted apart: the timed ones with cmp_total as
 * before, the others by a 64-bit key (class, calls, the rank of the name
 * among the distinct names, the original position for stability) with a
 * radix sort. When the key does not fit, or a time is negative or NaN, the
 * plain merge sort is used. */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static unsigned bits_for(uint64_t v)
{
    unsigned b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Stable LSD radix sort of keys (16-bit digits; passes whose digit is the
 * same in every key are skipped). */
static void radix_sort_u64(uint64_t *k, size_t n)
{
    uint64_t *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
    size_t *cnt = xmalloc(65537 * sizeof(*cnt));
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        all_or |= k[i];
        all_and &= k[i];
    }
    for (unsigned shift = 0; shift < 64; shift += 16) {
        if ((((all_or ^ all_and) >> shift) & 0xffff) == 0) continue;
        memset(cnt, 0, 65537 * sizeof(*cnt));
        for (size_t i = 0; i < n; i++)
            cnt[((k[i] >> shift) & 0xffff) + 1]++;
        for (size_t d = 0; d < 65536; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(k[i] >> shift) & 0xffff]++] = k[i];
        memcpy(k, tmp, n * sizeof(*k));
    }
    free(cnt);
    free(tmp);
}

/* Sort z[0..n) (all of total time 0, in their original order) by the key
 * above. Returns false (z unchanged) when the key does not fit. */
static bool sort_untimed(struct gprof_sym **z, size_t n)
{
    if (n < 2) return true;
    uint32_t *id = xmalloc(n * sizeof(*id));
    size_t cap = 1024;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *slot = xmalloc(cap * sizeof(*slot)); /* id + 1, 0 = free */
    memset(slot, 0, cap * sizeof(*slot));
    const char **uniq = xmalloc(n * sizeof(*uniq));
    size_t nuniq = 0;
    uint64_t maxc = 0;
    const char *prev = NULL;
    uint32_t prev_id = 0;
    for (size_t i = 0; i < n; i++) {
        if (z[i]->ncalls > maxc) maxc = z[i]->ncalls;
        const char *nm = z[i]->name;
        if (!nm) {
            id[i] = 0;
            continue;
        }
        if (nm != prev) { /* line symbols of one function share the pointer */
            size_t h = (size_t)name_hash(nm) & (cap - 1);
            while (slot[h] && strcmp(uniq[slot[h] - 1], nm) != 0)
                h = (h + 1) & (cap - 1);
            if (!slot[h]) {
                uniq[nuniq] = nm;
                slot[h] = (uint32_t)++nuniq;
            }
            prev = nm;
            prev_id = slot[h] - 1;
        }
        id[i] = prev_id;
    }
    free(slot);
    unsigned bi = bits_for(n - 1), br = bits_for(nuniq), bc = bits_for(maxc);
    if (2 + bc + br + bi > 64) {
        free(id);
        free(uniq);
        return false;
    }
    /* rank of each distinct name in strcmp order */
    const char **sorted = xmalloc((nuniq ? nuniq : 1) * sizeof(*sorted));
    memcpy(sorted, uniq, nuniq * sizeof(*sorted));
    qsort(sorted, nuniq, sizeof(*sorted), cmp_str_ptr);
    /* uniq[i] -> rank: find each sorted name's id again through a small
     * hash of pointers (the uniq strings are distinct pointers) */
    uint32_t *rank = xmalloc((nuniq ? nuniq : 1) * sizeof(*rank));
    {
        size_t pcap = 1024;
        while (pcap < 2 * nuniq)
            pcap *= 2;
        uint32_t *ps = xcalloc(pcap, sizeof(*ps));
        for (size_t u = 0; u < nuniq; u++) {
            size_t h = (size_t)(((uintptr_t)uniq[u] >> 3) * 0x9E3779B97F4A7C15ull) & (pcap - 1);
            while (ps[h])
                h = (h + 1) & (pcap - 1);
            ps[h] = (uint32_t)u + 1;
        }
        for (size_t r = 0; r < nuniq; r++) {
            size_t h = (size_t)(((uintptr_t)sorted[r] >> 3) * 0x9E3779B97F4A7C15ull) & (pcap - 1);
            while (uniq[ps[h] - 1] != sorted[r])
                h = (h + 1) & (pcap - 1);
            rank[ps[h] - 1] = (uint32_t)r;
        }
        free(ps);
    }
    uint64_t *key = xmalloc(n * sizeof(*key));
    for (size_t i = 0; i < n; i++) {
        const struct gprof_sym *y = z[i];
        uint64_t cls = !y->name ? (y->cyc_num != 0 ? 0 : 1) : y->name[0] != '_' ? 2 : 3;
        uint64_t k = cls;
        k = (k << bc) | (maxc - y->ncalls);
        k = (k << br) | (y->name ? rank[id[i]] : 0);
        k = (k << bi) | i;
        key[i] = k;
    }
    radix_sort_u64(key, n);
    struct gprof_sym **out = xmalloc(n * sizeof(*out));
    uint64_t imask = bi ? (~(uint64_t)0 >> (64 - bi)) : 0;
    for (size_t i = 0; i < n; i++)
        out[i] = z[key[i] & imask];
    memcpy(z, out, n * sizeof(*z));
    free(out);
    free(key);
    free(rank);
    free(sorted);
    free(uniq);
    free(id);
    return true;
}

static void sort_timed(struct gprof *g)
{
    size_t n = g->ntimed, npos = 0, nzero = 0;
    struct gprof_sym **v = g->timed;
    for (size_t i = 0; i < n; i++) {
        double t = v[i]->prop_self + v[i]->prop_child;
        if (!(t >= 0.0)) { /* negative or NaN: not the split below */
            gprof_msort((void **)v, n, cmp_total);
            return;
        }
        if (t == 0.0) nzero++;
    }
    struct gprof_sym **z = xmalloc((nzero ? nzero : 1) * sizeof(*z));
    nzero = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i]->prop_self + v[i]->prop_child == 0.0)
            z[nzero++] = v[i];
        else
            v[npos++] = v[i];
    }
    if (!sort_untimed(z, nzero)) gprof_msort((void **)z, nzero, cmp_total);
    gprof_msort((void **)v, npos, cmp_total);
    memcpy(v + npos, z, nzero * sizeof(*z));
    free(z);
}

void gprof_assemble(struct gprof *g, const struct symspec_set *s, const struct elf_image *img)
{
    size_t n = g->nsyms;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *p = &g->syms[i];
        /* a self arc would be on p's list of children */
        struct gprof_arc *a = p->children ? gprof_arc_find(g, p, p) : NULL;
        if (a) {
            p->ncalls -= a->count;
            p->self_calls = a->count;
        }
        p->fract = p->prop_self = p->prop_child = 0.0;
        p->print_flag = false;
        p->top_order = 0;
        p->cyc_num = 0;
        p->cyc_head = p;
        p->cyc_tail = p;
        p->cyc_next = NULL;
        p->dfn_pos = 0;
    }
    if (img && img->text && g->have_hist) {
        /* -c: gprof clips each symbol to the (first) histogram's range. */
        for (size_t i = 0; i < n; i++) {
            uint64_t hi = i + 1 < n ? g->syms[i + 1].addr : g->syms[i].end_addr + 1;
            find_calls(g, &g->syms[i], g->syms[i].addr, hi, img, g->clip_lo, g->clip_hi);
        }
    }

    struct dfn d = {0};
    for (size_t i = 0; i < n; i++)
        if (g->syms[i].top_order == 0) dfn_run(&d, &g->syms[i]);
    free(d.stack);
    free(d.heads);

    /* cycle_link */
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (g->syms[i].cyc_head == &g->syms[i] && g->syms[i].cyc_next) nc++;
    g->cycles = xcalloc(nc ? nc : 1, sizeof(*g->cycles));
    g->ncycles = nc;
    int num = 0;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *sym = &g->syms[i];
        if (!(sym->cyc_head == sym && sym->cyc_next)) continue;
        struct gprof_sym *cyc = &g->cycles[num++];
        cyc->print_flag = true;
        cyc->cyc_num = num;
        cyc->cyc_head = cyc;
        cyc->cyc_next = sym;
        for (struct gprof_sym *m = sym; m; m = m->cyc_next) {
            m->cyc_num = num;
            m->cyc_head = cyc;
        }
        for (struct gprof_sym *m = sym; m; m = m->cyc_next)
            for (struct gprof_arc *a = m->parents; a; a = a->next_parent) {
                if (a->parent == m) continue;
                if (a->parent->cyc_num == num)
                    cyc->self_calls += a->count;
                else
                    cyc->ncalls += a->count;
            }
    }

    /* gprof sorts by top_order with qsort; cmp_topo is a consistent order
     * on an integer key (1..d.counter after the numbering), so a stable
     * counting sort gives the same order as the stable merge sort. */
    struct gprof_sym **order = xmalloc((n ? n : 1) * sizeof(*order));
    bool small_keys = d.counter >= 0;
    for (size_t i = 0; i < n && small_keys; i++)
        small_keys = g->syms[i].top_order >= 0 && g->syms[i].top_order <= d.counter;
    if (small_keys) {
        size_t *start = xcalloc((size_t)d.counter + 2, sizeof(*start));
        for (size_t i = 0; i < n; i++)
            start[g->syms[i].top_order + 1]++;
        for (int k = 0; k <= d.counter; k++)
            start[k + 1] += start[k];
        for (size_t i = 0; i < n; i++)
            order[start[g->syms[i].top_order]++] = &g->syms[i];
        free(start);
    } else {
        for (size_t i = 0; i < n; i++)
            order[i] = &g->syms[i];
        gprof_msort((void **)order, n, cmp_topo);
    }

    g->print_time = 0.0;
    propagate_flags(g, order, s);

    for (size_t c = 0; c < nc; c++) {
        struct gprof_sym *cyc = &g->cycles[c];
        for (struct gprof_sym *m = cyc->cyc_next; m; m = m->cyc_next) {
            if (m->fract == 0.0) continue;
            cyc->hist_time += m->hist_time;
        }
        cyc->prop_self = cyc->fract * cyc->hist_time;
    }

    for (size_t i = 0; i < n; i++)
        propagate_time(order[i]);
    free(order);

    g->ntimed = n + nc;
    g->timed = xmalloc((g->ntimed ? g->ntimed : 1) * sizeof(*g->timed));
    for (size_t i = 0; i < n; i++)
        g->timed[i] = &g->syms[i];
    for (size_t c = 0; c < nc; c++)
        g->timed[n + c] = &g->cycles[c];
    sort_timed(g);
    for (size_t i = 0; i < g->ntimed; i++)
        g->timed[i]->index = (int)i + 1;
    g->assembled = true;
}
