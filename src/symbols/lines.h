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
#include "../model/strtab.h"
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
    uint64_t lo, hi;  /* [lo, hi) */
    const char *name; /* interned; may be NULL */
    bool is_linkage;  /* name is final (linkage name, or a C-family DW_AT_name) */
    size_t order;     /* DIE order, for ties */
};

/* Elementary address segments and the innermost function covering each. */
struct line_fseg {
    uint64_t start;
    size_t func; /* index into funcs, or (size_t)-1 */
};

/* A .text symbol of any kind that can name code (the ELF fallback). */
struct line_elfsym {
    uint64_t addr, size;
    const char *name;
    bool is_func, is_global;
    size_t order;
};

struct line_table {
    struct line_row *rows; /* sorted by addr */
    size_t nrows;
    const char **files; /* interned names, each once */
    size_t nfiles;
    struct line_func *funcs;
    size_t nfuncs;
    struct line_fseg *fsegs; /* sorted by start */
    size_t nfsegs;
    struct line_elfsym *esyms; /* sorted by (addr, order) */
    size_t nesyms;

    /* private */
    struct strtab names; /* every name above, interned */
};

/*
 * Read the DWARF of the image (its path is reopened). Fails only on a
 * broken DWARF section that libdw rejects as a whole; no DWARF at all
 * gives an empty table and returns 0.
 */
int line_table_open(struct line_table *lt, const struct elf_image *img, struct tally_error *err);
struct Elf; /* libelf's Elf */
/*
 * The same for an ELF file opened by the caller with libelf (an `Elf *`,
 * which must stay open while the table is built; the table keeps no
 * pointer into it): what the disassembler (disasm.h) uses, whose objects
 * need no gprof symbol table.
 */
int line_table_open_elf(struct line_table *lt, struct Elf *elf, bool big_endian,
                        struct tally_error *err);
void line_table_close(struct line_table *lt);

/* What gprof's get_src_info (bfd_find_nearest_line) reports for an address. */
struct src_loc {
    const char *file; /* interned full path */
    unsigned line;
    const char *func; /* name of the function containing addr (may be NULL) */
};

/*
 * Look `addr` up like gprof's get_src_info: true and *loc filled when a
 * line row covers it (the row with the greatest addr <= `addr` within its
 * sequence), a function name is known (innermost DWARF function, else the
 * nearest .text ELF symbol) and the line is not 0; false otherwise.
 */
bool line_table_find(const struct line_table *lt, uint64_t addr, struct src_loc *loc);

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
 * The names and files of line symbols live in lt: keep lt open while
 * img->syms is used.
 */
void line_table_make_line_syms(const struct line_table *lt, struct elf_image *img);

/* The last path component of `path` (after the last '/'), as gprof prints
 * file names without -L. */
const char *line_basename(const char *path);

#endif
