/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.h - the text reports of `tally gprof`: flat profile, call graph,
 * index by function name, execution counts, annotated source and the
 * function / file orderings. With `brief` (-b) every table is printed
 * byte for byte as GNU gprof 2.40 prints it; without it each table is
 * followed by tally's own explanation of its columns.
 *
 * The reports only read the analysis (analysis/gprof.h), except that the
 * call-graph report sorts each symbol's parent and child lists in place
 * (as gprof does), and names are demangled into a per-symbol cache.
 */
#ifndef TALLY_REPORT_GPROF_H
#define TALLY_REPORT_GPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "../analysis/gprof.h"
#include "../analysis/symspec.h"
#include "../symbols/demangle.h"
#include "../symbols/lines.h"

struct gprof_report {
    FILE *out;
    bool brief;             /* -b: no explanations */
    bool bsd;               /* -T: traditional BSD layout */
    bool ignore_zeros;      /* not -z */
    bool line_mode;         /* -l: line symbols */
    bool print_path;        /* -L: full source paths */
    bool inline_file_names; /* --inline-file-names */
    enum demangle_style demangle;
    int width;         /* -w, index width (80) */
    const char *dimen; /* histogram dimension ("seconds") */
    char dimen_abbrev; /* 's' */
    bool first_output; /* true until something was printed */
    const struct symspec_set *specs;
};

void gprof_print_flat(struct gprof_report *r, struct gprof *g);
void gprof_print_graph(struct gprof_report *r, struct gprof *g);
void gprof_print_index(struct gprof_report *r, struct gprof *g);
void gprof_print_exec_counts(struct gprof_report *r, struct gprof *g);
void gprof_print_function_ordering(struct gprof_report *r, struct gprof *g);
/* --file-ordering: the symbols flagged `mapped` stand for object files;
 * `map_files` lists the object file of every map line, sorted by the
 * function name of the line. */
void gprof_print_file_ordering(struct gprof_report *r, struct gprof *g,
                               const char *const *map_files, size_t nmap);

/* -A: annotated source. */
struct gprof_anno_opts {
    const struct strlist *dirs; /* -I and GPROF_PATH */
    bool all_lines;             /* -x */
    bool separate_files;        /* -y: write BASENAME-ann files */
    unsigned long min_count;    /* -m (1) */
    int top_lines;              /* -t (10) */
};
/* Returns 0, or -1 with err when a -y output file cannot be written. */
int gprof_print_annotated(struct gprof_report *r, struct gprof *g, const struct gprof_anno_opts *o,
                          struct tally_error *err);

/* snprintf(out, size, "%*.*f", width, prec, v), the same characters,
 * faster (integer digits; snprintf itself near rounding ties and for
 * values it does not handle). Returns the length. */
int gprof_fmt_fixed(char *out, size_t size, double v, int width, int prec);

/* The name as printed: demangled (GNU layout) or raw; cached. */
const char *gprof_display_name(struct gprof_report *r, struct gprof_sym *s);

#endif
