/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarf_line.h - the rows of DWARF line programs, for the line table
 * (lines.h; private to src/symbols/).
 *
 * libdw's rows are right by the DWARF standard, but gprof's BFD differs
 * in one point: in a DWARF 5 line program, a sequence that has not yet
 * set the file register names file entry 0 (the unit's primary file),
 * where the standard (and libdw) says entry 1. So the opcodes are decoded
 * here, by BFD's rule, and the header's directory and file tables are
 * read here too (libdw's dwarf_getsrcfiles decodes the whole program to
 * answer, which is slow on big units). When our reading of a unit fails,
 * libdw's answer is taken instead, so odd files get what libdw says.
 *
 * File names are full paths (DW_AT_comp_dir + the name when it is
 * relative), interned in a string table (model/strtab.h) that the caller
 * owns: equal names are equal pointers, valid while that table lives.
 */
#ifndef TALLY_DWARF_LINE_H
#define TALLY_DWARF_LINE_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/strtab.h"

/* One row as decoded, in decoding order (`order` breaks ties later). */
struct dwarf_line_row {
    uint64_t addr;
    const char *file; /* interned; NULL on an end of sequence */
    unsigned line;    /* 0 when out of range */
    bool end;         /* end of a sequence, or no file */
    size_t order;
};

/* The sections a line program refers to (pointers into the ELF's data,
 * owned by libelf; NULL when absent). */
struct dwarf_line_sections {
    const unsigned char *line, *str, *line_str; /* .debug_line, .debug_str, .debug_line_str */
    size_t line_size, str_size, line_str_size;
    bool big_endian;
};

/* What the units add up to. The caller sets `names` (and zeroes the rest),
 * frees `rows` and `files`. */
struct dwarf_line_rows {
    struct dwarf_line_row *rows;
    size_t nrows, cap;
    struct strtab *names; /* borrowed: file names are interned here */
    const char **files;   /* each distinct file name once, in the order first seen */
    size_t nfiles;
};

/* Find the (uncompressed) sections in elf; libdw has already decompressed
 * compressed ones in place when it opened the file. Missing ones stay NULL. */
void dwarf_line_sections_find(struct dwarf_line_sections *sec, Elf *elf);

/* Append the rows of the compilation unit `cu` (comp_dir: its
 * DW_AT_comp_dir, or NULL). A unit without a line program adds nothing. */
void dwarf_line_unit(struct dwarf_line_rows *out, const struct dwarf_line_sections *sec,
                     Dwarf_Die *cu, const char *comp_dir);

#endif
