/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcfile.h - finding and reading the source files that reports show
 * (tally annotate, the HTML report, gprof -A).
 *
 * A profile names a source file as the compiler saw it; the file may be
 * elsewhere now. Each report looks for it the way the tool it follows
 * does, so the search has three rules (which paths are tried, in order):
 *
 *   SRCFILE_PREFIX  callgrind_annotate and cg_annotate: NAME, then
 *                   DIR NAME for each directory (each DIR is a prefix that
 *                   ends with '/', as tally annotate's -I gives them).
 *   SRCFILE_BASE    the HTML report: NAME, then for each directory
 *                   DIR/NAME and DIR/BASENAME (BASENAME only when NAME
 *                   has a '/').
 *   SRCFILE_GPROF   gprof's annotated source: NAME; when NAME is relative,
 *                   DIR/NAME for each directory; then, when NAME has a
 *                   '/', DIR/BASENAME for each directory.
 *
 * srcfile_find() walks the paths of a rule and asks a test (`accept`)
 * about each: the first one accepted is the answer. The tests and the
 * reader below are the ones the reports use. srcfile_text reads a file
 * whole and indexes its lines.
 *
 * Nothing here prints; the only failure is "not found / not readable".
 */
#ifndef TALLY_SRCFILE_H
#define TALLY_SRCFILE_H

#include <stddef.h>

#include "../model/profile.h"

enum srcfile_rule { SRCFILE_PREFIX, SRCFILE_BASE, SRCFILE_GPROF };

/* Where a file was found: `path` (malloc'd, the caller frees) and the
 * directory that gave it (0 = NAME as given, i = dirs->items[i - 1]). */
struct srcfile_found {
    char *path;
    size_t dir;
};

/* Says whether `path` is the file; 1 = yes, 0 = try the next path. */
typedef int (*srcfile_accept_fn)(const char *path, void *ctx);

/*
 * Try the paths of `rule` for `name` under `dirs` (NULL: no directory) in
 * order; the first one `accept` takes fills *found and gives 1; 0 when
 * none does (*found is then {NULL, 0}).
 */
int srcfile_find(const char *name, const struct strlist *dirs, enum srcfile_rule rule,
                 srcfile_accept_fn accept, void *ctx, struct srcfile_found *found);

/* Tests for srcfile_find (ctx unused): the file opens for reading
 * (fopen), or access(R_OK) allows reading it. */
int srcfile_opens(const char *path, void *ctx);
int srcfile_access(const char *path, void *ctx);

/* Append the ':'-separated entries of `list` (gprof's -I argument or
 * GPROF_PATH; NULL is allowed; empty entries are skipped) to dirs. */
void srcfile_dirs_add(struct strlist *dirs, const char *list);

/* A source file in memory, with the start of each line. */
struct srcfile_text {
    char *text;       /* the bytes, plus a NUL after the last one */
    size_t len;       /* bytes, without that NUL */
    size_t nlines;    /* lines; a last line without '\n' counts */
    size_t *line_off; /* [nlines + 1]: line i (1-based) is [line_off[i-1], line_off[i]) */
};

/*
 * Read the file at `path` whole. max_bytes == SIZE_MAX: any file that
 * reads to its end without an error (a pipe too); otherwise only a
 * regular file of at most max_bytes bytes. Returns 0, or -1 (nothing
 * kept) when the file cannot be read. The lines are indexed at once.
 */
int srcfile_text_read(struct srcfile_text *t, const char *path, size_t max_bytes);
void srcfile_text_release(struct srcfile_text *t);

#endif
