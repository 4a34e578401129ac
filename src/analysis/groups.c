/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groups.c - functions grouped by object, file or class, with self and
 * inclusive costs (groups.h).
 */
#include "groups.h"

#include <stdlib.h>
#include <string.h>

#include "../symbols/demangle.h"
#include "fgraph.h"
#include "inclusive.h"
#include "stacks.h"

int group_kind_parse(const char *s, enum group_kind *kind)
{
    static const char *const names[] = {"object", "file", "class"};
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *kind = (enum group_kind)i;
            return 0;
        }
    return -1;
}

const char *group_kind_name(enum group_kind kind)
{
    return kind == GROUP_OBJECT ? "object" : kind == GROUP_FILE ? "file" : "class";
}

/* ---- the scope of a C++ name ------------------------------------------------- */

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does `operator` start at s[i] as a word of its own? */
static int at_operator(const char *s, size_t i)
{
    return !strncmp(s + i, "operator", 8) && (i == 0 || !is_word(s[i - 1])) && !is_word(s[i + 8]);
}

/* The end of the name before its parameter list (the list's '('), or len when it has none. */
static size_t name_end(const char *s, size_t len)
{
    /* after the list only qualifiers: const, volatile, &, &&, noexcept, spaces */
    size_t e = len;
    while (e && (is_word(s[e - 1]) || s[e - 1] == ' ' || s[e - 1] == '&'))
        e--;
    if (!e || s[e - 1] != ')') return len;
    for (size_t k = e; k < len; k++)
        if (is_word(s[k]) && (k == e || !is_word(s[k - 1])) && strncmp(s + k, "const", 5) &&
            strncmp(s + k, "volatile", 8) && strncmp(s + k, "noexcept", 8))
            return len;
    int depth = 0;
    for (size_t k = e; k-- > 0;) {
        if (s[k] == ')') depth++;
        if (s[k] == '(' && --depth == 0) return k;
    }
    return len;
}

char *group_class_of(const char *name)
{
    size_t len = strlen(name);
    const char *clone = strstr(name, " [clone ");
    if (clone) len = (size_t)(clone - name);
    /* Callgrind's recursion levels: NAME'2 */
    size_t q = len;
    while (q && name[q - 1] >= '0' && name[q - 1] <= '9')
        q--;
    if (q < len && q && name[q - 1] == '\'') len = q - 1;
    size_t end = name_end(name, len);
    /* the last "::" and the last space before it, outside brackets */
    size_t colons = SIZE_MAX, space = SIZE_MAX;
    int depth = 0;
    for (size_t i = 0; i < end; i++) {
        char c = name[i];
        if (depth == 0 && at_operator(name, i)) break; /* the operator's name is the rest */
        if (c == '<' || c == '(' || c == '{' || c == '[')
            depth++;
        else if ((c == '>' || c == ')' || c == '}' || c == ']') && depth > 0)
            depth--;
        else if (depth == 0 && c == ':' && i + 1 < end && name[i + 1] == ':') {
            colons = i;
            i++;
        } else if (depth == 0 && c == ' ' && colons == SIZE_MAX) {
            space = i;
        } else if (depth == 0 && c == ' ') {
            /* a space after a scope: "ns::T ns::f" has a return type with a scope */
            space = i;
            colons = SIZE_MAX;
        }
    }
    if (colons == SIZE_MAX) return NULL;
    size_t start = space == SIZE_MAX ? 0 : space + 1;
    if (start >= colons) return NULL;
    /* the scope, each template argument list folded to <...> */
    char *out = xmalloc(3 * (colons - start) + 1), *o = out; /* "<>" becomes "<...>" */
    int tdepth = 0;
    for (size_t i = start; i < colons; i++) {
        char c = name[i];
        if (c == '<') {
            if (tdepth++ == 0) {
                memcpy(o, "<...>", 5);
                o += 5;
            }
            continue;
        }
        if (c == '>' && tdepth > 0) {
            tdepth--;
            continue;
        }
        if (!tdepth) *o++ = c;
    }
    *o = '\0';
    return out;
}

/* ---- the table ------------------------------------------------------------------- */

/* The group key of function fn (malloc'd for classes, else the profile's string), or NULL. */
static const char *key_of(const struct profile *p, uint32_t fn, enum group_kind kind, char **own)
{
    struct function f = profile_function_at(p, fn);
    *own = NULL;
    if (kind == GROUP_OBJECT) return f.obj ? profile_str(p, f.obj) : NULL;
    if (kind == GROUP_FILE) return f.file ? profile_str(p, f.file) : NULL;
    const char *nm = profile_str(p, f.name);
    char *dem = NULL;
    if (nm[0] == '_' && nm[1] == 'Z') dem = demangle_name(nm, DEMANGLE_AUTO, DEMANGLE_DEFAULT);
    *own = group_class_of(dem ? dem : nm);
    free(dem);
    return *own;
}

static int by_key(const void *a, const void *b, void *ctx)
{
    const char *const *keys = ctx;
    const char *x = keys[*(const uint32_t *)a], *y = keys[*(const uint32_t *)b];
    int c = strcmp(x, y);
    if (c) return c;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

struct garc {
    uint32_t from, to;
    size_t arc; /* the fgraph arc */
};

static int by_ends(const void *a, const void *b)
{
    const struct garc *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return x->arc < y->arc ? -1 : x->arc > y->arc;
}

static int add_wide(tally_wide *a, const tally_wide *b, size_t n)
{
    for (size_t c = 0; c < n; c++)
        if (__builtin_add_overflow(a[c], b[c], &a[c])) return -1;
    return 0;
}

/*
 * incl_compute() on the graph of fg's nodes mapped to node[v] (nn nodes, self costs self):
 * the calls between different nodes, summed per pair. Returns 0, or -1 with err.
 */
static int group_incl(const struct fgraph *fg, const uint32_t *node, size_t nn,
                      const tally_wide *self, size_t ncols, struct incl_result *ir,
                      const char *path, struct tally_error *err)
{
    struct garc *ga = xcalloc(fg->narcs ? fg->narcs : 1, sizeof(*ga));
    size_t na = 0;
    for (size_t a = 0; a < fg->narcs; a++)
        if (node[fg->from[a]] != node[fg->to[a]])
            ga[na++] = (struct garc){node[fg->from[a]], node[fg->to[a]], a};
    qsort(ga, na, sizeof(*ga), by_ends);
    uint32_t *from = xcalloc(na ? na : 1, sizeof(uint32_t));
    uint32_t *to = xcalloc(na ? na : 1, sizeof(uint32_t));
    tally_wide *cost = xcalloc((na ? na : 1) * (ncols ? ncols : 1), sizeof(tally_wide));
    size_t m = 0;
    int rc = 0;
    for (size_t k = 0; k < na && !rc; k++) {
        if (!m || from[m - 1] != ga[k].from || to[m - 1] != ga[k].to) {
            from[m] = ga[k].from;
            to[m] = ga[k].to;
            m++;
        }
        if (add_wide(cost + (m - 1) * ncols, fg->cost + ga[k].arc * ncols, ncols))
            rc = tally_error_set(err, path, 0, "the cost of a group's calls does not fit");
    }
    free(ga);
    memset(ir, 0, sizeof(*ir));
    if (!rc) {
        struct incl_graph ig = {.nnodes = nn,
                                .ncols = ncols,
                                .self = self,
                                .narcs = m,
                                .from = from,
                                .to = to,
                                .cost = cost};
        rc = incl_compute(&ig, ir, err);
        if (rc) incl_result_release(ir);
    }
    free(from);
    free(to);
    free(cost);
    return rc;
}

/*
 * The exact inclusive costs from the recorded stacks (p->cct): each stack
 * node's total is added to its function's group unless the group is
 * already on the path above it. Returns 1 when done, 0 when the stacks
 * cannot give them (no tree, estimated, cut, signed costs, a function
 * without a group): the graph's estimate is made then.
 */
static int exact_incl(struct group_table *g, const struct profile *p, const struct fgraph *fg,
                      const uint32_t *grp, const struct event_expr *cols, size_t ncols)
{
    if (!p->cct || p->signed_costs) return 0;
    struct stack_tree t;
    struct tally_error e2;
    struct stack_options so = {.part = 0, .event = -1, .max_depth = UINT32_MAX / 2};
    if (stacks_build(&t, p, &so, &e2)) return 0;
    size_t nf = profile_nfunctions(p), ng = g->ngroups;
    uint32_t *fgrp = xmalloc((nf ? nf : 1) * sizeof(uint32_t));
    memset(fgrp, 0xff, (nf ? nf : 1) * sizeof(uint32_t));
    for (size_t v = 0; v < fg->nnodes; v++)
        fgrp[fg->fn[v]] = grp[v];
    uint32_t *onpath = xcalloc(ng ? ng : 1, sizeof(uint32_t));
    tally_wide *incl = xcalloc((ng ? ng : 1) * (ncols ? ncols : 1), sizeof(tally_wide));
    int ok = t.kind == STACKS_EXACT && !t.truncated;
    /* depth first: enter a node (its group's count on the path goes up), then its children,
       then leave it */
    uint32_t v = ok ? t.nodes[0].first_child : 0;
    while (v && ok) {
        uint32_t gi = t.nodes[v].fn < nf ? fgrp[t.nodes[v].fn] : UINT32_MAX;
        if (gi == UINT32_MAX) {
            ok = 0;
            break;
        }
        if (onpath[gi]++ == 0)
            for (size_t c = 0; c < ncols && ok; c++) {
                tally_wide x;
                ok = !event_expr_eval(&cols[c], stack_total(&t, v), 0, &x) &&
                     !__builtin_add_overflow(incl[gi * ncols + c], x, &incl[gi * ncols + c]);
            }
        if (t.nodes[v].first_child) {
            v = t.nodes[v].first_child;
            continue;
        }
        while (v) {
            onpath[fgrp[t.nodes[v].fn]]--;
            if (t.nodes[v].next_sibling) {
                v = t.nodes[v].next_sibling;
                break;
            }
            v = t.nodes[v].parent;
        }
    }
    if (ok) {
        free(g->incl);
        g->incl = incl;
        memset(g->cycle, 0, ng * sizeof(uint32_t));
        memset(g->estimated, 0, ng);
        g->ncycles = 0;
        g->exact = 1;
    } else {
        free(incl);
    }
    free(onpath);
    free(fgrp);
    stacks_release(&t);
    return ok;
}

int group_table_build(struct group_table *g, const struct profile *p, const struct part *pt,
                      enum group_kind kind, const struct event_expr *cols, size_t ncols,
                      struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->kind = kind;
    g->ncols = ncols;
    struct fgraph fg;
    struct fgraph_options fo = {.cols = cols,
                                .ncols = ncols,
                                .no_self_calls = 1,
                                .compact = 1,
                                .msg_self = "a function's cost does not fit",
                                .msg_count = "a call count does not fit",
                                .msg_cost = "a call's cost does not fit"};
    if (fgraph_build(&fg, p, pt, &fo, err)) {
        fgraph_release(&fg);
        return -1;
    }
    size_t n = fg.nnodes;
    const char **keys = xcalloc(n ? n : 1, sizeof(char *));
    char **own = xcalloc(n ? n : 1, sizeof(char *));
    uint32_t *order = xcalloc(n ? n : 1, sizeof(uint32_t));
    for (size_t v = 0; v < n; v++) {
        keys[v] = key_of(p, fg.fn[v], kind, &own[v]);
        if (!keys[v]) keys[v] = GROUP_NONE;
        order[v] = (uint32_t)v;
    }
    qsort_r(order, n, sizeof(uint32_t), by_key, keys);
    uint32_t *grp = xcalloc(n ? n : 1, sizeof(uint32_t));
    for (size_t k = 0; k < n; k++) {
        if (!k || strcmp(keys[order[k]], keys[order[k - 1]])) g->ngroups++;
        grp[order[k]] = (uint32_t)(g->ngroups - 1);
    }
    size_t ng = g->ngroups;
    g->names = xcalloc(ng ? ng : 1, sizeof(char *));
    g->nfuncs = xcalloc(ng ? ng : 1, sizeof(size_t));
    g->self = xcalloc((ng ? ng : 1) * (ncols ? ncols : 1), sizeof(tally_wide));
    int rc = -1;
    for (size_t v = 0; v < n; v++) {
        uint32_t gi = grp[v];
        if (!g->names[gi]) g->names[gi] = xstrdup(keys[v]);
        g->nfuncs[gi]++;
        if (add_wide(g->self + (size_t)gi * ncols, fg.self + v * ncols, ncols)) {
            tally_error_set(err, p->path, 0, "a group's cost does not fit");
            goto out;
        }
    }
    /* the groups' inclusive costs; the functions of (none) have nothing in common, so for the
       other groups each of them is a node of its own (no false cycle through it), and
       (none)'s own row comes from the graph where it is one node */
    int none = -1;
    for (size_t k = 0; k < ng; k++)
        if (!strcmp(g->names[k], GROUP_NONE)) none = (int)k;
    struct incl_result r1, r2;
    memset(&r2, 0, sizeof(r2));
    if (group_incl(&fg, grp, ng, g->self, ncols, &r1, p->path, err)) goto out;
    if (none >= 0) {
        size_t nn = ng;
        uint32_t *node = xcalloc(n ? n : 1, sizeof(uint32_t));
        for (size_t v = 0; v < n; v++)
            node[v] = grp[v] == (uint32_t)none ? (uint32_t)nn++ : grp[v];
        tally_wide *self = xcalloc(nn * (ncols ? ncols : 1), sizeof(tally_wide));
        for (size_t v = 0; v < n; v++)
            if (node[v] != grp[v] || grp[v] != (uint32_t)none)
                memcpy(self + (size_t)node[v] * ncols,
                       node[v] < ng ? g->self + (size_t)node[v] * ncols : fg.self + v * ncols,
                       ncols * sizeof(tally_wide));
        int bad = group_incl(&fg, node, nn, self, ncols, &r2, p->path, err);
        free(node);
        free(self);
        if (bad) {
            incl_result_release(&r1);
            goto out;
        }
    }
    g->incl = xcalloc((ng ? ng : 1) * (ncols ? ncols : 1), sizeof(tally_wide));
    g->cycle = xcalloc(ng ? ng : 1, sizeof(uint32_t));
    g->estimated = xcalloc(ng ? ng : 1, 1);
    const struct incl_result *rg = none >= 0 ? &r2 : &r1;
    for (size_t k = 0; k < ng; k++) {
        const struct incl_result *r = (int)k == none ? &r1 : rg;
        memcpy(g->incl + k * ncols, r->incl + k * ncols, ncols * sizeof(tally_wide));
        g->estimated[k] = r->cycle[k] != 0;
        if ((int)k != none) g->cycle[k] = r->cycle[k];
    }
    g->ncycles = rg->ncycles;
    incl_result_release(&r1);
    incl_result_release(&r2);
    exact_incl(g, p, &fg, grp, cols, ncols);
    rc = 0;
out:
    for (size_t v = 0; v < n; v++)
        free(own[v]);
    free(own);
    free(keys);
    free(order);
    free(grp);
    fgraph_release(&fg);
    if (rc) group_table_release(g);
    return rc;
}

void group_table_release(struct group_table *g)
{
    for (size_t k = 0; k < g->ngroups && g->names; k++)
        free(g->names[k]);
    free(g->names);
    free(g->nfuncs);
    free(g->self);
    free(g->incl);
    free(g->cycle);
    free(g->estimated);
    memset(g, 0, sizeof(*g));
}
