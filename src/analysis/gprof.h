/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.h - the analysis behind `tally gprof`: histogram samples credited
 * to symbols, call arcs, cycles and the propagation of time from callees
 * to callers, done the way GNU gprof 2.40 does it so that every printed
 * number is the same (research/gprof.md sections 2.2 and 3).
 *
 * Life of a `struct gprof`:
 *   gprof_init()         copy the symbol table (sorted by address, unique
 *                        addresses, end_addr set: what elfsyms.h builds)
 *   gprof_assign_hist()  credit the histogram bins to symbols, with
 *                        fractional overlap, honouring the FLAT tables
 *   gprof_tally()        add one call arc (from_pc, self_pc, count), as
 *                        gprof's cg_tally: the child is moved back to its
 *                        function, ARCS tables filter
 *   gprof_assemble()     self-calls, depth-first numbering, cycles, flags
 *                        and time propagation, the total order and index
 *                        numbers; -c arcs are added here from the text
 * Arithmetic is done in doubles in gprof's order, and every sort that
 * gprof does with glibc's (stable, merge) qsort is a stable merge sort.
 *
 * All memory is owned by the struct; names and files point into the
 * caller's symbol table (the elf_image), which must outlive it.
 */
#ifndef TALLY_ANALYSIS_GPROF_H
#define TALLY_ANALYSIS_GPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../formats/gmon.h"
#include "../symbols/elfsyms.h"
#include "symspec.h"

struct gprof_sym;

struct gprof_arc {
    struct gprof_sym *parent, *child;
    uint64_t count;
    double time;       /* the child's self time given to this parent (scaled by fract) */
    double child_time; /* the child's descendants' time given to this parent */
    struct gprof_arc *next_parent; /* next arc in child->parents */
    struct gprof_arc *next_child;  /* next arc in parent->children */
    int ordered;                   /* for --function-ordering */
};

#define GPROF_NBB 10

struct gprof_sym {
    /* (fields grouped by type so that the struct has no padding holes: with
     * -l there are several hundred thousand of these, and every pass over
     * them is bound by memory) */
    const char *name; /* raw name; NULL for a cycle header */
    const char *file; /* DWARF source file (full path) or NULL */
    uint64_t addr, end_addr;
    uint64_t scaled_addr; /* addr / 2 (gprof's UNIT) */
    double hist_time;     /* samples credited (in ticks) */
    uint64_t ncalls;      /* calls from other functions (self-calls removed) */
    uint64_t self_calls;  /* recursive calls (cycle header: calls inside the cycle) */

    struct gprof_sym *cyc_head, *cyc_next;
    struct gprof_sym *cyc_tail; /* last of the list (kept on list heads) */
    size_t dfn_pos;             /* place on the depth-first stack while busy */
    double fract, prop_self, prop_child;
    double child_time; /* unscaled time of descendants */

    struct gprof_arc *parents, *children;

    /* Basic-block counts for -l, -C, -A (summed per address; up to
     * GPROF_NBB of them, allocated with the first; NULL while nbb == 0). */
    uint64_t *bb_addr, *bb_calls;

    /* --function-ordering / --file-ordering scratch. */
    struct gprof_sym *ord_next, *ord_prev; /* chain while placing */
    size_t pos;                            /* index in syms */
    char *demangled;                       /* cache for reports */

    unsigned line;
    int top_order; /* 0 = not visited, -1 = busy, else DFN number */
    int cyc_num;   /* 0 when not in a cycle */
    int index;
    unsigned nbb;
    int nuses;
    bool is_func, is_static;
    bool print_flag;
    bool has_been_placed;
    bool mapped; /* --file-ordering: this symbol stands for an object file */
};

struct gprof {
    struct gprof_sym *syms; /* address order */
    size_t nsyms;
    struct gprof_sym *cycles; /* cycles[i] is cycle number i + 1 */
    size_t ncycles;

    /* Arcs with parent != child, in creation order (gprof's arcs[]). */
    struct gprof_arc **arcs;
    size_t narcs, arcs_cap;
    size_t nall_arcs; /* including self arcs */

    /* histogram parameters */
    double hist_scale;
    unsigned hz;
    uint64_t clip_lo, clip_hi; /* the first histogram's range (for -c) */
    double total_time;         /* ticks, minus FLAT-excluded credit */
    double print_time;         /* sum of prop_self (after assemble) */
    bool have_hist, have_arcs, assembled;
    bool line_mode;

    /* all symbols plus cycle headers by total time (index order) */
    struct gprof_sym **timed;
    size_t ntimed;

    /* private: lookup directory, lk_first[b] = how many symbols start
     * below lk_lo + (b << lk_shift), for b in 0..lk_n (NULL: none) */
    uint32_t *lk_first;
    uint64_t lk_lo;
    unsigned lk_shift;
    size_t lk_n;

    /* private: arc hash */
    struct gprof_arc **hash;
    size_t hash_cap, hash_n;
    struct gprof_arc *pool; /* chunked allocation */
    size_t pool_n, pool_cap;
    void **chunks;
    size_t nchunks, chunks_cap;
};

/* Copy n symbols (sorted by addr, unique). line_mode: these are gprof -l
 * line symbols mixed with functions. */
void gprof_init(struct gprof *g, const struct elf_sym *syms, size_t n, bool line_mode);
void gprof_release(struct gprof *g);

/* gprof's sym_lookup: the symbol holding addr, or NULL. */
struct gprof_sym *gprof_lookup(const struct gprof *g, uint64_t addr);

/* Credit every histogram of gm. Sets hz, hist_scale, total_time. */
void gprof_assign_hist(struct gprof *g, const struct gmon *gm, const struct symspec_set *s);

/* Add one call arc record. Records whose addresses hold no symbol are
 * dropped, as are those the ARCS tables filter out. */
void gprof_tally(struct gprof *g, uint64_t from_pc, uint64_t self_pc, uint64_t count,
                 const struct symspec_set *s);

/* Find or add the arc parent -> child, adding count (no ncalls change). */
struct gprof_arc *gprof_arc_add(struct gprof *g, struct gprof_sym *parent, struct gprof_sym *child,
                                uint64_t count);
struct gprof_arc *gprof_arc_find(const struct gprof *g, const struct gprof_sym *parent,
                                 const struct gprof_sym *child);

/* Add the bb counts of gm to the symbols (for -l / -C / -A). */
void gprof_add_bbs(struct gprof *g, const struct gmon *gm);

/*
 * Build the call graph. img != NULL: also scan its text for direct calls
 * (-c, x86 only: `e8 rel32`), adding count-0 arcs. Safe to call when no
 * arc was read (then it only numbers the symbols).
 */
void gprof_assemble(struct gprof *g, const struct symspec_set *s, const struct elf_image *img);

/* Stable merge sort of n pointers, as glibc's qsort (msort) does it. */
void gprof_msort(void **base, size_t n, int (*cmp)(const void *, const void *));

#endif
