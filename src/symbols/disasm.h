/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.h - the machine code of an object file on disk: its executable
 * sections (libelf), its function symbols, the instructions at an
 * address (Capstone) and the source line of an address (DWARF, through
 * lines.h). What `tally annotate --asm` shows next to the costs.
 *
 * A `struct disasm_object` is one ELF file (executable, PIE or shared
 * library) opened read-only and mapped. Addresses are the file's own
 * (link-time) addresses, which is what Callgrind and tally record write
 * for code that has debug information (docs/tally-record.md,
 * "Instruction addresses"); the caller subtracts a load bias where the
 * profile gave run-time addresses.
 *
 * The object owns everything it returns (names, file names): valid until
 * disasm_object_close(). Instructions are decoded one at a time into a
 * `struct disasm_insn` the caller owns. Nothing here prints.
 *
 * Machines: x86-64, i386 and AArch64 (what Valgrind runs on and Capstone
 * 4 decodes); another machine opens, and every decode fails.
 */
#ifndef TALLY_DISASM_H
#define TALLY_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../model/error.h"

enum disasm_syntax { DISASM_INTEL, DISASM_ATT };

/* What an instruction does to the flow of control. */
enum disasm_kind {
    DISASM_OTHER,
    DISASM_JUMP,  /* unconditional jump (direct or indirect) */
    DISASM_CJUMP, /* conditional jump (jcc, loop, jrcxz, cbz, ...) */
    DISASM_CALL,
    DISASM_RET,
};

struct disasm_insn {
    uint64_t addr;
    unsigned size; /* bytes */
    enum disasm_kind kind;
    int has_target; /* a direct jump or call: its target is known */
    uint64_t target;
    char mnemonic[32];  /* as Capstone spells it ("je", "mov", "rep stosq") */
    char operands[160]; /* "rax, qword ptr [rbp - 8]", possibly cut */
};

struct disasm_object;

/*
 * Open the ELF file at `path` for disassembly, with the given syntax
 * (AArch64 has one syntax only). Fails with err (file = path) when the
 * file cannot be opened or read, or is not an ELF file; a file without
 * symbols or DWARF (stripped) opens.
 */
int disasm_object_open(struct disasm_object **out, const char *path, enum disasm_syntax syntax,
                       struct tally_error *err);
void disasm_object_close(struct disasm_object *o);

/* The file's modification time and size when it was opened. */
time_t disasm_object_mtime(const struct disasm_object *o);
uint64_t disasm_object_size(const struct disasm_object *o);
/* ET_DYN (a PIE or a shared library): loaded at a bias chosen at run time. */
int disasm_object_is_dyn(const struct disasm_object *o);
/* A decoder exists for the file's machine. */
int disasm_object_decodes(const struct disasm_object *o);

/*
 * Is `addr` inside an executable section with bytes in the file? Then 1,
 * and [*lo, *hi) is that section's range (either may be NULL).
 */
int disasm_in_code(const struct disasm_object *o, uint64_t addr, uint64_t *lo, uint64_t *hi);

/*
 * The function symbol (.symtab, else .dynsym; STT_FUNC or IFUNC with a
 * size) whose range [*lo, *hi) holds `addr`: 1 and its name (raw,
 * as the symbol table has it), or 0 when no sized symbol covers it (a
 * stripped program).
 */
int disasm_function_at(const struct disasm_object *o, uint64_t addr, uint64_t *lo, uint64_t *hi,
                       const char **name);

/*
 * Decode the instruction at `addr` (at most `max` bytes, and never past
 * the end of its section). Returns 0, or -1 when addr is not in code or
 * the bytes there are no instruction of the machine.
 */
int disasm_decode(struct disasm_object *o, uint64_t addr, uint64_t max, struct disasm_insn *out);

/*
 * The source file (full path, as DWARF names it) and line of `addr`, from
 * the object's DWARF line programs (read on the first call). Returns 1, or
 * 0 when the object has no line for it (no DWARF, line 0).
 */
int disasm_source_line(struct disasm_object *o, uint64_t addr, const char **file, unsigned *line);

#endif
