/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_load.h - the gprof pipeline, from a program built with -pg and its
 * gmon.out files to an assembled `struct gprof` (analysis/gprof.h), and
 * that analysis as a profile of the model.
 *
 * `tally gprof` prints gprof's reports from the analysis; the commands that
 * read profiles (convert, flame, graph, report, merge, diff) take a program
 * followed by its gmon.out files as one more input and use its profile.
 * Both go through the same steps:
 *
 *   gprof_load_init()    an empty state
 *   gprof_load()         open the program (symbols, DWARF lines; with
 *                        line_mode one symbol per source line; with a
 *                        --file-ordering map, one per object file)
 *   gprof_load_gmon()    for each gmon.out (opened by the caller: analysis/
 *                        opens no profile file): add it into one `struct
 *                        gmon`, checking that its histogram covers the
 *                        program's text, and tally its call arcs
 *   (the caller looks at L->gm: what the files held, their warnings)
 *   gprof_load_finish()  credit the histogram, add basic-block counts and
 *                        assemble the call graph (cycles, propagation)
 *   gprof_to_profile()   the analysis as a profile (below)
 *   gprof_load_release()
 *
 * The library prints nothing: warnings of the gmon reader are in
 * L->gm.warnings, and what each file held (gprof -i) in L->info.
 */
#ifndef TALLY_ANALYSIS_GPROF_LOAD_H
#define TALLY_ANALYSIS_GPROF_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "../formats/gmon.h"
#include "../formats/gprof_map.h"
#include "../io/input.h"
#include "../model/error.h"
#include "../model/profile.h"
#include "../symbols/elfsyms.h"
#include "../symbols/lines.h"
#include "gprof.h"
#include "symspec.h"

struct gprof_load_options {
    const char *exe;              /* the program */
    struct elf_image_options elf; /* gprof -a, -D */
    enum gmon_flavour flavour;    /* gprof -O (GMON_FLAVOUR_AUTO = 0) */
    bool line_mode;               /* gprof -l: one symbol per source line */
    size_t max_records;           /* gmon_read_opts.max_records (0: the default) */
    struct gprof_map_entry *map;  /* gprof -R MAP (formats/gprof_map.h), or NULL: taken by
                                     gprof_load(), freed by gprof_load_release() */
    size_t nmap;
    struct symspec_set *specs; /* resolved here against the symbols */
};

struct gprof_load {
    struct elf_image img;
    struct line_table lt;
    struct gmon gm;
    struct gprof g;
    bool have_g;                 /* g was initialised */
    struct gmon_read_opts ropts; /* how the files were read (gprof -s writes alike) */
    struct gmon_file_info *info; /* ninfo entries: gm.last after each file read */
    size_t ninfo, info_cap;
    size_t arcs_done;            /* arcs of gm tallied so far */
    struct gprof_map_entry *map; /* the --file-ordering map, sorted by function */
    size_t nmap;
    struct elf_sym *own_syms; /* the symbols made from the map, or NULL */
};

void gprof_load_init(struct gprof_load *L);
void gprof_load_release(struct gprof_load *L);

/*
 * gprof's own profiling routines (mcount and friends), left out of every
 * table of `specs` as gprof leaves them out.
 */
void gprof_exclude_mcount(struct symspec_set *specs);

/* Open the program (and take o->map). Returns 0, or -1 with err. */
int gprof_load(struct gprof_load *L, const struct gprof_load_options *o, struct tally_error *err);
/*
 * Read one gmon.out file, opened by the caller (read from where it stands;
 * not closed here), into L->gm, and tally its arcs; call it for each file
 * in turn after gprof_load(). Returns 0, or -1 with err (the files read
 * before are in L->info).
 */
int gprof_load_gmon(struct gprof_load *L, const struct gprof_load_options *o, struct input *in,
                    struct tally_error *err);

/* Credit the histogram and assemble the call graph; with static_calls
 * (gprof -c) add the calls found in the program's code. */
void gprof_load_finish(struct gprof_load *L, const struct symspec_set *specs, bool static_calls);

/*
 * The assembled analysis as a profile of one part with one event, `Time`
 * (microseconds): a symbol's self cost is its histogram credit converted
 * to time, rounded to the nearest microsecond; call arcs carry the call
 * count and the time gprof propagated along them (self + children shares)
 * as their inclusive cost. With line_mode the self time is given per
 * source line of each function and calls are placed at their call-site
 * lines. The profile says it is in the callgrind format: it is exactly
 * what `tally gprof --callgrind-out` writes and reads back. `cmd` is the
 * part's command. Returns NULL with err (no file name) on overflow.
 */
struct profile *gprof_to_profile(const struct gprof *g, const struct elf_image *img,
                                 const char *cmd, struct tally_error *err);

#endif
