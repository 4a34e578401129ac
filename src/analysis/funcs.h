/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * funcs.h - a profile aggregated the way the annotate tools see it.
 *
 * A row is callgrind_annotate's "FILE:FUNCTION": the source file of the
 * cost (the fl=, fi= or fe= file, so inlined code gets its own row) and
 * the function name; the object is only shown. Row costs, call arcs
 * between rows, per-line costs and per-line calls are summed over every
 * record of part 0 (merge the parts first).
 *
 * Costs are kept per *column*: any list of event expressions (the base
 * events, or derived ones like `Sum = Ir + Dr`), as tally_wide values
 * (two record words each) with checked sums. Next to each sum sits an `ndef` count: how many
 * leading base events were present on the cost lines summed. The callgrind format lets a writer
 * drop trailing zero counts, and callgrind_annotate prints
 * "." (not "0") for a count no cost line gave; a column is "defined" when
 * one of its base events is below ndef. A part whose every line gave every
 * count (struct part: counts_complete; cachegrind files usually) sets
 * `all_defined`: ndef is then always the number of events.
 *
 * File names are made canonical first: `strip` (e.g. the current directory
 * with a trailing '/') is removed from the front of each file name, so
 * "/home/me/t.c" and "t.c" become one row. Optional renames
 * (`--mod-filename`, `--mod-funcname`, see rename.h) are applied next, so
 * that renamed files or functions share one row. The table reads the
 * profile and never changes it: a canonical name that the profile's
 * string table lacks goes to the table's own (`names`), and the ids of
 * rows, files and functions here are the profile's ids below `pnames`
 * and the table's own above (func_str(), func_find_name()), one id per
 * string either way.
 *
 * Why this is not built on fgraph.h (the one function graph): an fgraph
 * node is a function and sums whole records per function. A row here is
 * (file of the cost line, canonical name): one function's cost lines fall
 * into several rows when code from other files is inlined into it (fi=,
 * fe=), and several functions fall into one row when they share a name
 * (every object's `_init`, renamed names). Per row and per arc it also keeps
 * `ndef`, the most leading events any one record gave, which a sum over a
 * function cannot give back, and the per-line costs and calls need each
 * record's line. So the table reads the
 * records itself; the checked 128-bit sums are the same as fgraph's.
 *
 * A view that shows no call (annotate without --inclusive, --tree or
 * annotated source; func_table_lines() makes the arcs later when source
 * is annotated after all) sets `no_arcs`: `arcs` and `line_calls` stay empty,
 * and call costs and counts are not summed (nor their sums checked). The
 * calls still do the rest: the caller's row (call-site file, caller name)
 * is listed and may get its object, the callee's row is flagged
 * FUNC_ROW_CALLEE, and both are created in the same order as with arcs,
 * so the rows are the same (but see below for their order).
 *
 * Call costs may be absent (a part that keeps call counts only, profile.h):
 * arcs and per-line calls then have zero costs and ndef 0.
 *
 * With `no_arcs`, of a part that keeps call counts only (the reader was
 * asked for no more: annotate --auto=no without calls shown), the calls are
 * read on a second thread while the costs are added up, and their rows made
 * after: the rows, their flags and objects are the same, but the rows made
 * by calls come after those made by costs.
 *
 * The profile is only read: a table may be built from it any number of
 * times, with any options, before or after any other view of it.
 *
 * With `share_costs`, when every column is one base event as it is (no
 * derived event, no factor), a row whose self cost is one cost record's
 * keeps no copy of it: it points at the record's values in the profile
 * (func_row_record()), which must then outlive the table. Only a row that
 * sums several records has a vector of its own (func_row_self(); a row of
 * no record reads zeros). Most rows of a profile read without lines are one
 * record each (a function and a file), so the table then takes four words
 * a row instead of four plus two per column; func_row_cost() reads either.
 *
 * Memory: records grow with the number of distinct rows, arcs and
 * (file, line) pairs; everything is owned by the table, which points into
 * the profile (names, shared costs). The rows' index is freed once the
 * table is built (rows are read by number; func_table_lines() builds it
 * again).
 */
#ifndef TALLY_FUNCS_H
#define TALLY_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"
#include "../model/rectab.h"
#include "rename.h"

struct func_options {
    size_t ncols;
    const struct event_expr *cols; /* [ncols] */
    const char *strip;             /* prefix removed from file names, or NULL */
    int want_lines;                /* also collect per-line costs and calls */
    int all_defined;               /* every base event counts as present (cachegrind) */
    const struct rename *mod_file; /* --mod-filename (after `strip`), or NULL */
    const struct rename *mod_fn;   /* --mod-funcname, or NULL */
    int no_arcs;                   /* build neither arcs nor per-line calls (see below) */
    int share_costs;               /* rows of one cost record point at it (see above) */
    int ndef_mask;                 /* ndef is a mask of events, not a count (see below) */
};

/*
 * Row record values (see func_row_*): [0] ndef | flags << 32, [1] object
 * id + 1 when the row's file is its function's own file (0 = no object
 * known), [2] unused (the costs after it start 16-byte aligned), then ncols
 * self costs. With shared costs (func_table.shared) there are three: [2] is
 * 0 (no cost), the address of the one cost record's values, or (index of
 * the row's vector in `sums`) << 1 | 1. Row keys: file << 32 | name.
 */
enum { FUNC_ROW_LISTED = 1, FUNC_ROW_CALLEE = 2 };

struct func_table {
    const struct profile *p;
    size_t pnames;       /* the profile's names when built: ids below are the profile's */
    struct strtab names; /* canonical names the profile lacks: id pnames + i is names' i */
    size_t ncols, nbase;
    uint32_t *col_min_event; /* [ncols] smallest base event a column uses */
    int ndef_mask;           /* ndefs are masks (func_options.ndef_mask) */
    uint32_t *col_mask;      /* [ncols] (ndef_mask) the base events a column uses, as a mask */
    int shared;              /* rows point at the cost records they are (share_costs) */
    int is_signed;           /* the profile's costs are signed */
    tally_wide *sums;        /* (shared) the vectors of rows of several records, ncols each */
    size_t nsums, sums_cap;
    tally_wide *zero;         /* [ncols] zeros: the costs of a row of no record */
    struct rectab rows;       /* (file << 32 | name) -> ndef|flags, obj+1, self[ncols] */
    struct rectab arcs;       /* (caller << 32 | callee) -> count, ndef, cost[ncols] */
    struct rectab lines;      /* (file, line) -> ndef, cost[ncols] */
    struct rectab line_calls; /* (file, line, caller << 32 | callee) -> count, ndef, cost[ncols] */
    uint32_t *canon;          /* file id -> canonical file id (UINT32_MAX = not yet) */
    size_t ncanon;
    const char *strip; /* prefix removed from file names */
    const struct rename *mod_file, *mod_fn;
    uint32_t *fnmap; /* function name id -> renamed id (UINT32_MAX = not yet) */
    size_t nfnmap;
    int rename_failed; /* a rename gave up (see err_msg) */
    char err_msg[512];
};

/* Build the table from part 0. Returns 0, or -1 with err on overflow. */
int func_table_build(struct func_table *ft, const struct profile *p, const struct func_options *opt,
                     struct tally_error *err);

/*
 * The per-line costs and calls (ft->lines, ft->line_calls) of the records
 * whose canonical file f has files[f] set (f < nfiles; files NULL: every
 * file), for a table built without want_lines: annotate makes them only
 * for the source files it found, as most files of a profile are not on the
 * machine (with `no_arcs`, the arcs of every call are made here too).
 * Called once.
 * Returns 0 or -1 with err.
 */
int func_table_lines(struct func_table *ft, const struct func_options *opt,
                     const unsigned char *files, size_t nfiles, struct tally_error *err);
void func_table_release(struct func_table *ft);

/* The canonical id of a file name id. */
uint32_t func_canon_file(struct func_table *ft, uint32_t file);

/* The canonical id of a function name id (after --mod-funcname). */
uint32_t func_canon_name(struct func_table *ft, uint32_t name);

/* The ndef of one cost record's values (all_defined: the part's counts_complete). */
uint32_t func_record_ndef(const struct func_table *ft, const uint64_t *cost, int all_defined);

/* The name of a row's file or name id (the profile's or the table's own). */
static inline const char *func_str(const struct func_table *ft, uint32_t id)
{
    return id < ft->pnames ? profile_str(ft->p, id) : strtab_str(&ft->names, id - ft->pnames);
}
static inline size_t func_strlen(const struct func_table *ft, uint32_t id)
{
    return id < ft->pnames ? strtab_len(&ft->p->names, id)
                           : strtab_len(&ft->names, id - ft->pnames);
}
/* The id of name s[0..len), or UINT32_MAX when neither the profile nor the table has it. */
uint32_t func_find_name(const struct func_table *ft, const char *s, size_t len);
/* Every id is below this. */
static inline size_t func_nnames(const struct func_table *ft)
{
    return ft->pnames + ft->names.n;
}

static inline size_t func_nrows(const struct func_table *ft)
{
    return ft->rows.count;
}
static inline uint32_t func_row_file(const struct func_table *ft, size_t r)
{
    return (uint32_t)(rectab_at(&ft->rows, r)[0] >> 32);
}
static inline uint32_t func_row_name(const struct func_table *ft, size_t r)
{
    return (uint32_t)rectab_at(&ft->rows, r)[0];
}
static inline uint32_t func_row_ndef(const struct func_table *ft, size_t r)
{
    return (uint32_t)rectab_val(&ft->rows, r)[0];
}
/* Object id + 1, or 0 when the row has no object of its own. */
static inline uint64_t func_row_obj(const struct func_table *ft, size_t r)
{
    return rectab_val(&ft->rows, r)[1];
}
static inline uint64_t func_row_flags(const struct func_table *ft, size_t r)
{
    return rectab_val(&ft->rows, r)[0] >> 32;
}
/*
 * The self costs of row r (ncols columns), or NULL for a row whose cost is
 * one record's, shared (func_row_record()).
 */
static inline const tally_wide *func_row_self(const struct func_table *ft, size_t r)
{
    const uint64_t *v = rectab_val(&ft->rows, r);
    if (!ft->shared) return (const tally_wide *)(v + 3);
    if (v[2] & 1) return ft->sums + (v[2] >> 1) * ft->ncols;
    return v[2] ? NULL : ft->zero;
}
/*
 * The profile's cost values of the one record that is row r's self cost
 * (column c is value c, as the table shares costs only when the columns
 * are the base events), or NULL when func_row_self() has the costs.
 */
static inline const uint64_t *func_row_record(const struct func_table *ft, size_t r)
{
    const uint64_t *v = rectab_val(&ft->rows, r);
    return ft->shared && !(v[2] & 1) ? (const uint64_t *)(uintptr_t)v[2] : NULL;
}
/* Column c of a cost record's values (signed when the profile is). */
static inline tally_wide func_record_col(const struct func_table *ft, const uint64_t *rec, size_t c)
{
    return ft->is_signed ? (tally_wide)(int64_t)rec[c] : (tally_wide)rec[c];
}
/* Column c of row r's self costs, however they are kept. */
static inline tally_wide func_row_cost(const struct func_table *ft, size_t r, size_t c)
{
    const uint64_t *rec = func_row_record(ft, r);
    return rec ? func_record_col(ft, rec, c) : func_row_self(ft, r)[c];
}

/* Arc accessors. */
static inline uint32_t func_arc_caller(const struct func_table *ft, size_t a)
{
    return (uint32_t)(rectab_at(&ft->arcs, a)[0] >> 32);
}
static inline uint32_t func_arc_callee(const struct func_table *ft, size_t a)
{
    return (uint32_t)rectab_at(&ft->arcs, a)[0];
}
static inline uint64_t func_arc_count(const struct func_table *ft, size_t a)
{
    return rectab_val(&ft->arcs, a)[0];
}
static inline uint32_t func_arc_ndef(const struct func_table *ft, size_t a)
{
    return (uint32_t)rectab_val(&ft->arcs, a)[1];
}
static inline const tally_wide *func_arc_cost(const struct func_table *ft, size_t a)
{
    return (const tally_wide *)(rectab_val(&ft->arcs, a) + 2);
}

/*
 * With `ndef_mask` (a cachegrind file that writes `.` or leaves counts out,
 * of at most 32 events), an ndef is the mask of the base events that a
 * record gave as non-zero, and a sum's is the union of its records': so a
 * column is defined when one of its events is, as cg_annotate keeps each
 * column apart (`5 . 3`: the second is `.`). Otherwise it is the count of
 * leading events given, and a sum's is the largest.
 */
/* Is column c defined for a cost whose ndef is `ndef`? */
static inline int func_col_defined(const struct func_table *ft, size_t c, uint32_t ndef)
{
    return ft->ndef_mask ? (ndef & ft->col_mask[c]) != 0 : ft->col_min_event[c] < ndef;
}
/* The ndef of the sum of two costs of ndefs a and b. */
static inline uint32_t func_ndef_join(const struct func_table *ft, uint32_t a, uint32_t b)
{
    return ft->ndef_mask ? a | b : a > b ? a : b;
}
/* The ndef of a cost whose every count is given. */
static inline uint32_t func_ndef_all(const struct func_table *ft)
{
    return ft->ndef_mask ? (uint32_t)(((uint64_t)1 << ft->nbase) - 1) : (uint32_t)ft->nbase;
}

/* "file:name" of row r (caller frees). */
char *func_row_display(const struct func_table *ft, size_t r);

#endif
