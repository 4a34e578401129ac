/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_rep.h - private to the annotate report: the state of one report
 * (struct annrep) and the column printers that annotate.c (header, totals,
 * function table, trees) and annotate_src.c (annotated source) share.
 * Nothing outside src/report/annotate*.c includes it; the report's API is
 * annotate.h.
 */
#ifndef TALLY_ANNOTATE_REP_H
#define TALLY_ANNOTATE_REP_H

#include <stdint.h>
#include <stdio.h>

#include "../analysis/funcs.h"
#include "../analysis/inclusive.h"
#include "annotate.h"

#define RULE "--------------------------------------------------------------------------------\n"
#define ATS "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
#define DASHES40 "----------------------------------------"

/*
 * A row of the function table: 32 bytes, as a large program has many (its
 * name is annrep.rowname[idx] or annrep.cycname[idx], see ent_name()).
 */
struct entry {
    const tally_wide *v; /* the costs, or NULL: the row's, shared (func_row_cost()) */
    uint32_t idx;        /* row index, or 0-based cycle index */
    uint32_t ndef : 31;
    uint32_t is_cycle : 1;
    tally_wide key; /* the first sort column as the sort compares it (cmp_entries()) */
};

/* A caller/callee line of a tree or a call from a source line. */
struct varc {
    uint32_t other; /* row at the other end */
    uint32_t caller;
    uint64_t count;
    uint32_t ndef;
    const tally_wide *cost;
    const tally_wide *order; /* cost used for sorting */
    uint32_t order_ndef;
};

struct annrep {
    FILE *out;
    const struct profile *p;
    const struct part *pt;
    const struct annotate_options *o;
    int cg; /* cachegrind layout and rules */
    size_t nbase, ncols;
    struct event_expr *cols;
    char **colnames;
    size_t nshow, nsort;
    size_t *show, *sort;
    double *thr;
    char **thr_text;
    int filter_on;
    struct func_table ft;
    int have_ft;
    const struct func_options *fo; /* what ft was built with (func_table_lines() needs it) */
    struct incl_result ir;
    int have_ir;
    tally_wide *summary;
    uint32_t summary_ndef;
    int summary_calculated;
    struct entry *ent;
    size_t nent;
    char **rowname; /* [nrows] display names (with a cycle tag when inclusive), or NULL */
    char **cycname; /* [ir.ncycles] "<cycle N>" */
    size_t *fnw;    /* function table widths */
    /* tree adjacency (arc indices by callee and by caller) */
    size_t *in_start, *in_arcs, *out_start, *out_arcs;
    /* printed rows' files */
    char *file_printed; /* [string table size] */
    size_t nfile_printed;
    /* sorted per-line data */
    size_t *lsorted, *csorted;
    tally_wide *printed;
    uint32_t printed_ndef;
    /* no display name is made for the rows, rowname stays NULL (a view
       without trees, inclusive costs or source prints only the listed
       functions): entries compare and print "file:name" from its pieces */
    int row_names_joined;
    size_t nlisted; /* entries the function table printed (the first ones of ent) */
};

/* The display name of an entry, or NULL for a row when row_names_joined. */
static inline const char *ent_name(const struct annrep *r, const struct entry *e)
{
    if (e->is_cycle) return r->cycname[e->idx];
    return r->rowname ? r->rowname[e->idx] : NULL;
}

/* Column c has a value in a cost vector whose first ndef columns are set. */
int annrep_defined(const struct annrep *r, size_t c, uint32_t ndef);
/* Column widths: the event names, then widened to fit the costs v. */
void annrep_widths_init(const struct annrep *r, size_t *w);
void annrep_widths_add(const struct annrep *r, size_t *w, const tally_wide *v, uint32_t ndef);
/* The shown columns of v (NULL: blank cells) in widths w; the event names. */
void annrep_print_cc(const struct annrep *r, const tally_wide *v, uint32_t ndef, const size_t *w);
void annrep_print_events(const struct annrep *r, const size_t *w);
/* qsort_r order of caller/callee lines (ctx: the struct annrep). */
int annrep_cmp_varcs(const void *pa, const void *pb, void *ctx);

/* PROGRAM TOTALS, with the rules around it. */
void annrep_print_totals(struct annrep *r);
/* --group's table of groups in the place of the function table
 * (annotate_group.c). Returns 0, or -1 with err when a sum overflows. */
int annrep_groups(struct annrep *r, struct tally_error *err);

/* The annotated source files (user's, then those of printed functions) and
 * the count of annotated events (annotate_src.c). Returns 0, or -1 with
 * err when an annotated cost overflows. */
int annrep_sources(struct annrep *r, struct tally_error *err);

/* With --asm: the machine code of the functions shown (annotate_asm.c). Returns 0, or -1 with
 * err when a cost overflows. */
int annrep_asm(struct annrep *r, struct tally_error *err);

#endif
