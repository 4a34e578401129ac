/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsyms.h - an executable's function symbols, chosen the way GNU gprof
 * 2.40 chooses them (research/gprof.md section 2.1), read with libelf.
 *
 * elf_image_open() reads an ELF file (32 or 64 bit, either byte order,
 * ET_EXEC or ET_DYN/PIE) and builds the symbol table gprof would build:
 *
 *  - only the static symbol table (.symtab) is used; a file without one
 *    (stripped) fails with "file `PATH' has no symbols";
 *  - kept: global and weak symbols defined in a section (nm classes T, W;
 *    W even for data), static symbols of nm class 't' whose name passes
 *    gprof's checks (no '$', dot suffixes only digits after optional
 *    ".clone."/".constprop." parts, not __gnu_compiled...);
 *    with opts->no_static (-a) no static symbol; with
 *    opts->static_funcs_only (-D) only STT_FUNC statics;
 *  - sorted by address (function before non-function, global before
 *    static at equal addresses), one symbol per address with gprof's
 *    preference rules;
 *  - end_addr = next symbol's addr - 1; the last one ends at the end of
 *    .text - 1. ELF st_size is never used for ranges.
 *
 * Addresses are link-time addresses (for PIE: relative to 0), exactly
 * what glibc writes into gmon.out. All strings are owned by the image and
 * live until elf_image_close().
 */
#ifndef TALLY_ELFSYMS_H
#define TALLY_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"

struct elf_sym {
    const char *name;  /* raw (mangled) symbol name */
    uint64_t addr;     /* link-time address (st_value) */
    uint64_t end_addr; /* inclusive end: next symbol's addr - 1 (gprof rule) */
    uint64_t st_size;  /* ELF size, informational only: gprof never uses it */
    unsigned section;  /* ELF section index (st_shndx) */
    char nm_class;     /* 'T', 't' or 'W' (as nm prints it) */
    bool is_static;    /* nm class 't' (STB_LOCAL) */
    bool is_func;      /* STT_FUNC (or STT_GNU_IFUNC) */
    /* Source position from DWARF, as gprof's get_src_info gives it; NULL/0
     * until line_table_annotate() (lines.h) fills them. `file` is interned
     * in the line table: equal pointers mean the same file. */
    const char *file;
    unsigned line;
    size_t order_; /* private: position before sorting */
};

struct elf_image_options {
    bool no_static;         /* gprof -a: drop every static (local) symbol */
    bool static_funcs_only; /* gprof -D: static symbols must be STT_FUNC */
};

struct elf_image {
    char *path;
    int elf_class;      /* 32 or 64 */
    bool big_endian;    /* byte order of the file (and of its gmon.out) */
    unsigned e_type;    /* ET_EXEC, ET_DYN, ... */
    unsigned e_machine; /* EM_X86_64, EM_386, EM_AARCH64, ... */
    bool is_pie;        /* ET_DYN with a PT_INTERP or DF_1_PIE */

    /* The .text section: [text_lo, text_hi), and its bytes (NULL when
     * .text is SHT_NOBITS or absent; text_hi == text_lo then too). */
    uint64_t text_lo, text_hi;
    const unsigned char *text;

    /* The kept symbols, sorted by addr, unique addresses. */
    struct elf_sym *syms;
    size_t nsyms;

    /* private */
    int fd;
    void *elf; /* Elf * */
    unsigned char *text_copy;
    char *strings; /* owned copies of names */
};

/*
 * Open `path` and build its gprof symbol table. opts may be NULL (gprof's
 * defaults). Errors (exit 1 material): missing file, not ELF, corrupt ELF,
 * no .symtab ("file `PATH' has no symbols"). On error img is left closed
 * (elf_image_close on it is harmless).
 */
int elf_image_open(struct elf_image *img, const char *path, const struct elf_image_options *opts,
                   struct tally_error *err);
void elf_image_close(struct elf_image *img);

/*
 * gprof's sym_lookup: the symbol with the greatest addr <= `addr`, or NULL
 * when there is none or `addr` > its end_addr. Binary search.
 */
const struct elf_sym *elf_image_lookup(const struct elf_image *img, uint64_t addr);
/* The same, as an index into img->syms, or (size_t)-1. */
size_t elf_image_lookup_index(const struct elf_image *img, uint64_t addr);

/*
 * Bytes of .text from `addr` on (for -c call scanning): returns a pointer
 * and stores how many bytes are available up to the end of .text in
 * *avail, or returns NULL (and *avail = 0) when addr is outside .text.
 */
const unsigned char *elf_image_text_at(const struct elf_image *img, uint64_t addr, size_t *avail);

/*
 * gprof's symtab_finalize on syms[0..n): stable sort by address (function
 * before non-function, global before static), one symbol per address
 * (gprof's preference rules), end_addr = next addr - 1 where it is still 0,
 * symbols whose known range is empty dropped; the last one ends at
 * text_end - 1. Returns the new count. Used again for the -l table.
 */
size_t elf_syms_finalize(struct elf_sym *syms, size_t n, uint64_t text_end);

/*
 * The static-symbol name test of gprof's core_sym_class (section 2.1):
 * true if a local text symbol called `name` would be kept. Exposed for
 * unit tests.
 */
bool elf_static_name_ok(const char *name);

#endif
