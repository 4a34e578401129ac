/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof_lines.h - the source-line index behind pprof's line-level
 * locations (export/pprof.c): per function, its self cost on each source
 * line; per call arc (caller, callee), its call sites (the caller's source
 * lines) with their call counts and inclusive costs. Both are summed over
 * every part of the profile, with the events matched by name to the stack
 * tree's events (a part without an event contributes 0 to it).
 *
 * A whole count is split among several lines with apportion()
 * (analysis/apportion.h: largest remainder, exact sums; all-zero weights
 * split evenly).
 *
 * Memory: everything belongs to the index (pprof_lines_release()).
 */
#ifndef TALLY_EXPORT_PPROF_LINES_H
#define TALLY_EXPORT_PPROF_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "../model/profile.h"
#include "../model/rectab.h"

/* A source line: file name id (of the profile) and line (0 = unknown). */
struct pl_line {
    uint32_t file;
    uint64_t line;
};

struct pprof_lines {
    size_t nev;
    size_t nfn;
    int has_lines; /* some self cost or call site has a line > 0 */
    /* self cost lines of function f: lines[line_first[f] .. line_first[f + 1]) */
    size_t *line_first; /* [nfn + 1] */
    struct pl_line *lines;
    uint64_t *line_cost; /* [nlines * nev] */
    /* call sites of arc (caller, callee): sites[first .. first + n), see pprof_lines_sites() */
    struct rectab arcs; /* key caller << 32 | callee -> first, n */
    struct pl_line *sites;
    uint64_t *site_cost;  /* [nsites * nev] inclusive cost of the calls from that line */
    uint64_t *site_count; /* [nsites] calls from that line */
};

/*
 * Build the index for the events ev_names[0..nev). Returns 0, or -1 with
 * err (a sum overflows). On failure nothing needs releasing.
 */
int pprof_lines_build(struct pprof_lines *pl, const struct profile *p, const char *const *ev_names,
                      size_t nev, struct tally_error *err);
void pprof_lines_release(struct pprof_lines *pl);

/* Number of self cost lines of function fn (0 for an unknown fn); the first is *first. */
size_t pprof_lines_of(const struct pprof_lines *pl, uint32_t fn, size_t *first);

/* Number of call sites of caller -> callee (0 = no such arc); the first is *first. */
size_t pprof_lines_sites(const struct pprof_lines *pl, uint32_t caller, uint32_t callee,
                         size_t *first);

#endif
