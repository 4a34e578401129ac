/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lines.h - source files and line numbers from DWARF (libdw), the way
 * GNU gprof 2.40 gets them from bfd_find_nearest_line.
 *
 * A line_table holds every row of every compilation unit's DWARF line
 * program (sorted by address), the interned source file names (full
 * paths: DWARF directory + file name, as gprof prints them with -L),
 * and the function ranges (DW_TAG_subprogram) used to name an address.
 *
 * An executable without DWARF gives an empty table (not an error): every
 * lookup then fails, as gprof's do.
 */
#ifndef TALLY_LINES_H
#define TALLY_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"
#include "elfsyms.h"

/* One row of the line programs: addresses [addr, next row's addr) belong
 * to (file, line). end_sequence rows are kept with file == NULL. */
struct line_row {
    uint64_t addr;
    const char *file; /* interned full path, or NULL for an end of sequence */
    unsigned line;
};

/* A function's address range from DWARF, with the name gprof reports. */
struct line_func {
    uint64_t lo, hi; /* [lo, hi) */
    const char *name;
};

struct line_table {
    struct line_row *rows; /* sorted by addr */
    size_t nrows;
    const char **files; /* interned names, each once */
    size_t nfiles;
    struct line_func *funcs; /* sorted by lo */
    size_t nfuncs;

    /* private */
    char *path;
    void *strings; /* interning pool */
    size_t nstrings, capstrings;
};

/*
 * Read the DWARF of the image (its path is reopened). Fails only on a
 * broken DWARF section that libdw rejects as a whole; no DWARF at all
 * gives an empty table and returns 0.
 */
int line_table_open(struct line_table *lt, const struct elf_image *img, struct tally_error *err);
void line_table_close(struct line_table *lt);

/* What gprof's get_src_info (bfd_find_nearest_line) reports for an address. */
struct src_loc {
    const char *file; /* interned full path */
    unsigned line;
    const char *func; /* name of the function containing addr (may be NULL) */
};

/*
 * Look `addr` up: true and *loc filled when a line row covers it (the row
 * with the greatest addr <= `addr` within its sequence), false otherwise.
 * Like gprof, only addresses inside .text of `img` are looked up.
 */
bool line_table_find(const struct line_table *lt, const struct elf_image *img, uint64_t addr,
                     struct src_loc *loc);

/*
 * Fill file/line of every symbol of img from its address (gprof does this
 * for each function symbol when it builds the table). Symbols outside
 * .text, or without DWARF, keep NULL/0.
 */
void line_table_annotate(const struct line_table *lt, struct elf_image *img);

/*
 * gprof -l: replace img->syms by gprof's line-level symbol table: one
 * "line symbol" (is_func = false, is_static from the enclosing function,
 * name = the function name DWARF gives, file/line set) for every address
 * of .text where (function, file, line) changes, plus the function symbols
 * (annotated), finalised with the same sort/duplicate/end_addr rules.
 */
void line_table_make_line_syms(const struct line_table *lt, struct elf_image *img);

/* The last path component of `path` (after the last '/'), as gprof prints
 * file names without -L. */
const char *line_basename(const char *path);

/*
 * Find a source file the way gprof does for annotated source: `name` as
 * given; if it is relative, each of `dirs` + "/" + name; then each of
 * `dirs` + "/" + basename(name). Returns a malloc'd path of the first one
 * that can be opened for reading, or NULL. dirs: -I directories followed
 * by the GPROF_PATH entries (the caller splits GPROF_PATH at ':', see
 * line_search_path_add).
 */
char *line_source_find(const char *name, const struct strlist *dirs);

/* Append the ':'-separated entries of `list` (e.g. -I's argument or
 * GPROF_PATH; NULL is allowed) to dirs. */
void line_search_path_add(struct strlist *dirs, const char *list);

#endif
