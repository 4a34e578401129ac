/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symspec.h - gprof's symbol specifications ("symspecs") and the address
 * tables they turn into.
 *
 * A symspec names symbols by source file, function, line or a mix:
 *   file.c        every symbol whose source file has that basename
 *                 (a spec without ':' is a file name if it contains '.')
 *   name          symbols called `name` (first character not a digit)
 *   123           symbols whose source line is 123
 *   file.c:name   both;  file.c:123  both;  :name  a name with a dot;
 *   file:         a file name without a dot.
 * The last ':' splits file from the rest. `SPEC/SPEC` names call arcs
 * (parent/child); such a spec goes to the ARCS tables.
 *
 * Resolving a spec walks the symbol table in address order; matching
 * symbols that follow each other merge into one address range, and a
 * table is the sorted list of those ranges. An address is "in" a table
 * when some range holds it (binary search). A spec that matches nothing
 * leaves no range: an empty INCL table then means "everything", as in
 * gprof.
 */
#ifndef TALLY_SYMSPEC_H
#define TALLY_SYMSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gprof's symbol tables, one per option family. */
enum symspec_table_id {
    SYMSPEC_INCL_GRAPH, /* -q spec, -f */
    SYMSPEC_EXCL_GRAPH, /* -Q spec, -e */
    SYMSPEC_INCL_ARCS,  /* -q a/b */
    SYMSPEC_EXCL_ARCS,  /* -Q a/b, -k a/b */
    SYMSPEC_INCL_FLAT,  /* -p spec */
    SYMSPEC_EXCL_FLAT,  /* -P spec */
    SYMSPEC_INCL_TIME,  /* -n spec, -F */
    SYMSPEC_EXCL_TIME,  /* -N spec, -E */
    SYMSPEC_INCL_ANNO,  /* -A spec */
    SYMSPEC_EXCL_ANNO,  /* -J spec */
    SYMSPEC_INCL_EXEC,  /* -C spec */
    SYMSPEC_EXCL_EXEC,  /* -Z spec */
    SYMSPEC_NTABLES
};

/* One side of a spec: which of file / name / line must match. */
struct symspec_part {
    char *file; /* basename to match, or NULL */
    char *name; /* raw symbol name, or NULL */
    unsigned line;
    bool any; /* no pattern at all: matches every symbol, as in gprof */
};

struct symspec_range {
    uint64_t lo, hi; /* inclusive */
};

/* A sorted list of address ranges. */
struct symspec_ranges {
    struct symspec_range *r;
    size_t n, cap;
};

struct symspec {
    enum symspec_table_id table;
    struct symspec_part left, right;
    bool has_right;
    struct symspec_ranges lranges, rranges; /* after symspec_set_resolve */
};

/* What a spec is matched against (one per symbol, in address order). */
struct symspec_sym {
    const char *name;
    const char *file; /* full path, or NULL */
    unsigned line;
    uint64_t addr, end_addr;
};

struct symspec_set {
    struct symspec *specs;
    size_t n, cap;
    struct symspec_ranges tables[SYMSPEC_NTABLES];
};

void symspec_set_init(struct symspec_set *s);
void symspec_set_release(struct symspec_set *s);

/* Parse `spec` and add it to table `t` (a spec with '/' should be given an
 * ARCS table by the caller). */
void symspec_set_add(struct symspec_set *s, const char *spec, enum symspec_table_id t);

/* Parse one side of a spec (exposed for tests). `out` owns its strings. */
void symspec_parse_part(const char *spec, struct symspec_part *out);

/* Resolve every spec against `syms` (n symbols sorted by address) and build
 * the tables. Can be called again after the symbol table changed. */
void symspec_set_resolve(struct symspec_set *s, const struct symspec_sym *syms, size_t n);

/* Whether `addr` lies in table t / in the ranges. */
bool symspec_ranges_find(const struct symspec_ranges *r, uint64_t addr);
static inline bool symspec_in(const struct symspec_set *s, enum symspec_table_id t, uint64_t addr)
{
    return symspec_ranges_find(&s->tables[t], addr);
}
static inline bool symspec_empty(const struct symspec_set *s, enum symspec_table_id t)
{
    return s->tables[t].n == 0;
}

/* Include test of the FLAT, EXEC and ANNO tables: in INCL, or INCL empty
 * and not in EXCL. `incl` is the INCL table id, EXCL is incl + 1. */
static inline bool symspec_selected(const struct symspec_set *s, enum symspec_table_id incl,
                                    uint64_t addr)
{
    return symspec_in(s, incl, addr) ||
           (symspec_empty(s, incl) && !symspec_in(s, (enum symspec_table_id)(incl + 1), addr));
}

/* Whether the arc (from, to) is named by an arc spec of table t (INCL_ARCS
 * or EXCL_ARCS). */
bool symspec_arc_in(const struct symspec_set *s, enum symspec_table_id t, uint64_t from,
                    uint64_t to);
/* Whether table t holds any arc spec that matched something. */
bool symspec_arcs_empty(const struct symspec_set *s, enum symspec_table_id t);

#endif
