/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321_int.h - private to annotate_cg321*.c: the state of a
 * cg_annotate 3.21+ report (struct cga) and the column printer that its
 * tables and its annotated source share. The API is annotate_cg321.h.
 */
#ifndef TALLY_ANNOTATE_CG321_INT_H
#define TALLY_ANNOTATE_CG321_INT_H

#include <stdint.h>
#include <stdio.h>

#include "../model/rectab.h"
#include "../model/strtab.h"
#include "annotate_cg321.h"

/* Room for one count or percentage text. */
#define CGA_CELL 64

struct cga {
    struct cga_options o;
    size_t nev;
    char **events;        /* [nev] the `events:` names of the first profile */
    size_t *show, nshow;  /* event indices shown, in order */
    size_t *sort, nsort;  /* event indices sorted by, in order */
    tally_wide *summary;  /* [nev] the `summary:` lines added (the first subtracted: diff) */
    struct strtab names;  /* file and function names, after the renames, and the originals */
    struct rectab pairs;  /* key file << 32 | function; value [nev] tally_wide */
    struct rectab lines;  /* key (file, line); value [nev] tally_wide (when annotating) */
    struct rectab ofls;   /* key file << 32 | original file name: the set of originals */
    struct strlist descs; /* per profile: its desc: lines, each ending in '\n' */
    struct strlist cmds;  /* per profile: its cmd: line */
    struct strlist paths; /* per profile: its file */
    int64_t *mtime;       /* per profile: modification time in ns, -1 unknown */
    size_t ninputs;
    unsigned char *listed; /* [names.n] files printed in File:function */
};

/* The widths of one event's column: count, " (n.n%" or " (n.n%,", " n.n%)". */
struct cga_width {
    size_t count, perc1, perc2;
};

struct cga_printer {
    struct cga_width *w; /* [nev] */
    const char *prefix;  /* before the event names */
};

tally_wide cga_abs(tally_wide v);
void cga_printer_init(const struct cga *a, struct cga_printer *pr, const char *prefix);
void cga_printer_release(struct cga_printer *pr);
/* Widen min/max (start them at zero) to cover the costs v. */
void cga_extremes(const struct cga *a, const tally_wide *v, tally_wide *min, tally_wide *max);
/* Set the widths from the extremes of the costs (and of cumulative costs, or NULL). */
void cga_widths(const struct cga *a, struct cga_printer *pr, const tally_wide *min1,
                const tally_wide *max1, const tally_wide *min2, const tally_wide *max2);
/* The texts of one cell: count, first and second percentage (v2: cumulative, or NULL). */
void cga_strs(const struct cga *a, const tally_wide *v1, const tally_wide *v2, size_t i,
              char *count, char *p1, char *p2);
void cga_print_events(FILE *out, const struct cga *a, const struct cga_printer *pr,
                      const char *suffix);
/* The shown columns of v (v2: the cumulative costs of an outer row, or NULL), then suffix. */
void cga_print_cc(FILE *out, const struct cga *a, const struct cga_printer *pr, const tally_wide *v,
                  const tally_wide *v2, const char *suffix);
/* "." in every shown column, then len bytes of suffix. */
void cga_print_missing(FILE *out, const struct cga *a, const struct cga_printer *pr,
                       const char *suffix, size_t len);
/* A section header: a rule, "-- text", a rule. */
void cga_fancy(FILE *out, const char *text);

/* The annotated source files and the annotation summary (annotate_cg321_src.c). */
int cga_sources(FILE *out, struct cga *a, struct tally_error *err);

#endif
