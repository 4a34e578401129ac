/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.c - an object's code, symbols and lines for annotate --asm (see
 * disasm.h and docs/internals/symbols.md): libelf for the sections and
 * symbols, Capstone for the instructions, lines.h for DWARF lines.
 */
#include "disasm.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines.h"

/* An executable section with bytes: [lo, hi). */
struct dsec {
    uint64_t lo, hi;
    const unsigned char *bytes;
};

/* A sized function symbol: [lo, hi). */
struct dsym {
    uint64_t lo, hi;
    const char *name;
};

struct disasm_object {
    char *path;
    int fd;
    Elf *elf;
    time_t mtime;
    uint64_t size;
    int is_dyn, big_endian;
    unsigned machine;
    struct dsec *secs;
    size_t nsecs;
    struct dsym *syms;
    size_t nsyms;
    csh cs;
    int have_cs;
    cs_insn *ci;
    struct line_table lines;
    int lines_state; /* 0 not read yet, 1 read, -1 failed */
};

static int cmp_secs(const void *pa, const void *pb)
{
    const struct dsec *a = pa, *b = pb;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int cmp_syms(const void *pa, const void *pb)
{
    const struct dsym *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* The executable sections that have bytes in the file. */
static void read_sections(struct disasm_object *o)
{
    size_t shnum = 0, cap = 0;
    if (elf_getshdrnum(o->elf, &shnum) != 0) return;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(o->elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
            !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < sh.sh_size) continue;
        o->secs = xgrow(o->secs, &cap, o->nsecs + 1, sizeof(*o->secs));
        o->secs[o->nsecs++] = (struct dsec){sh.sh_addr, sh.sh_addr + sh.sh_size, d->d_buf};
    }
    if (o->nsecs > 1) qsort(o->secs, o->nsecs, sizeof(*o->secs), cmp_secs);
}

/* The sized function symbols of the first table of type `type`; 0 when none. */
static size_t read_symbols(struct disasm_object *o, unsigned type)
{
    size_t shnum = 0, cap = 0;
    if (elf_getshdrnum(o->elf, &shnum) != 0) return 0;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(o->elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != type) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t entsz = gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);
        if (!d || !entsz) return 0;
        size_t n = d->d_size / entsz;
        for (size_t k = 1; k < n; k++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)k, &s)) continue;
            unsigned t = GELF_ST_TYPE(s.st_info);
            if ((t != STT_FUNC && t != STT_GNU_IFUNC) || !s.st_size || s.st_shndx == SHN_UNDEF ||
                s.st_shndx >= SHN_LORESERVE)
                continue;
            const char *name = elf_strptr(o->elf, sh.sh_link, s.st_name);
            o->syms = xgrow(o->syms, &cap, o->nsyms + 1, sizeof(*o->syms));
            o->syms[o->nsyms++] =
                (struct dsym){s.st_value, s.st_value + s.st_size, name ? name : ""};
        }
        break;
    }
    if (o->nsyms > 1) qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_syms);
    return o->nsyms;
}

/* Capstone's decoder for the machine, if there is one. */
static void open_decoder(struct disasm_object *o, int elf_class, enum disasm_syntax syntax)
{
    cs_arch arch;
    cs_mode mode;
    if (o->machine == EM_X86_64 && elf_class == ELFCLASS64) {
        arch = CS_ARCH_X86;
        mode = CS_MODE_64;
    } else if (o->machine == EM_386) {
        arch = CS_ARCH_X86;
        mode = CS_MODE_32;
    } else if (o->machine == EM_AARCH64) {
        arch = CS_ARCH_ARM64;
        mode = o->big_endian ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;
    } else {
        return;
    }
    if (cs_open(arch, mode, &o->cs) != CS_ERR_OK) return;
    cs_option(o->cs, CS_OPT_DETAIL, CS_OPT_ON);
    if (arch == CS_ARCH_X86 && syntax == DISASM_ATT)
        cs_option(o->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    o->ci = cs_malloc(o->cs);
    if (!o->ci) {
        cs_close(&o->cs);
        return;
    }
    o->have_cs = 1;
}

int disasm_object_open(struct disasm_object **out, const char *path, enum disasm_syntax syntax,
                       struct tally_error *err)
{
    *out = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return tally_error_set(err, path, 0, "libelf: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return tally_error_set(err, path, 0, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return tally_error_set(err, path, 0, "not a regular file");
    }
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr eh;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        if (elf) elf_end(elf);
        close(fd);
        return tally_error_set(err, path, 0, "not an ELF file");
    }
    struct disasm_object *o = xcalloc(1, sizeof(*o));
    o->path = xstrdup(path);
    o->fd = fd;
    o->elf = elf;
    o->mtime = st.st_mtime;
    o->size = (uint64_t)st.st_size;
    o->is_dyn = eh.e_type == ET_DYN;
    o->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    o->machine = eh.e_machine;
    read_sections(o);
    if (!read_symbols(o, SHT_SYMTAB)) read_symbols(o, SHT_DYNSYM);
    open_decoder(o, eh.e_ident[EI_CLASS], syntax);
    *out = o;
    return 0;
}

void disasm_object_close(struct disasm_object *o)
{
    if (!o) return;
    if (o->lines_state == 1) line_table_close(&o->lines);
    if (o->have_cs) {
        cs_free(o->ci, 1);
        cs_close(&o->cs);
    }
    elf_end(o->elf);
    close(o->fd);
    free(o->secs);
    free(o->syms);
    free(o->path);
    free(o);
}

time_t disasm_object_mtime(const struct disasm_object *o)
{
    return o->mtime;
}

uint64_t disasm_object_size(const struct disasm_object *o)
{
    return o->size;
}

int disasm_object_is_dyn(const struct disasm_object *o)
{
    return o->is_dyn;
}

int disasm_object_decodes(const struct disasm_object *o)
{
    return o->have_cs;
}

/* The section holding addr, or NULL. */
static const struct dsec *section_of(const struct disasm_object *o, uint64_t addr)
{
    size_t a = 0, b = o->nsecs;
    while (a < b) { /* the first section starting after addr */
        size_t m = a + (b - a) / 2;
        if (o->secs[m].lo <= addr)
            a = m + 1;
        else
            b = m;
    }
    if (a == 0 || addr >= o->secs[a - 1].hi) return NULL;
    return &o->secs[a - 1];
}

int disasm_in_code(const struct disasm_object *o, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    const struct dsec *s = section_of(o, addr);
    if (!s) return 0;
    if (lo) *lo = s->lo;
    if (hi) *hi = s->hi;
    return 1;
}

int disasm_function_at(const struct disasm_object *o, uint64_t addr, uint64_t *lo, uint64_t *hi,
                       const char **name)
{
    size_t a = 0, b = o->nsyms;
    while (a < b) { /* the first symbol starting after addr */
        size_t m = a + (b - a) / 2;
        if (o->syms[m].lo <= addr)
            a = m + 1;
        else
            b = m;
    }
    /* the nearest start before addr whose range covers it (nested symbols are rare) */
    for (size_t k = a, seen = 0; k > 0 && seen < 64; k--, seen++) {
        const struct dsym *s = &o->syms[k - 1];
        if (addr < s->hi) {
            *lo = s->lo;
            *hi = s->hi;
            if (name) *name = s->name;
            return 1;
        }
    }
    return 0;
}

/* The kind and direct target of the decoded instruction o->ci. */
static void classify(struct disasm_object *o, struct disasm_insn *out)
{
    const cs_insn *ci = o->ci;
    out->kind = DISASM_OTHER;
    out->has_target = 0;
    if (!ci->detail) return;
    if (o->machine == EM_AARCH64) {
        const cs_arm64 *d = &ci->detail->arm64;
        switch (ci->id) {
        case ARM64_INS_BL:
        case ARM64_INS_BLR:
            out->kind = DISASM_CALL;
            break;
        case ARM64_INS_RET:
            out->kind = DISASM_RET;
            break;
        case ARM64_INS_BR:
            out->kind = DISASM_JUMP;
            break;
        case ARM64_INS_B:
            out->kind =
                d->cc == ARM64_CC_INVALID || d->cc == ARM64_CC_AL ? DISASM_JUMP : DISASM_CJUMP;
            break;
        case ARM64_INS_CBZ:
        case ARM64_INS_CBNZ:
        case ARM64_INS_TBZ:
        case ARM64_INS_TBNZ:
            out->kind = DISASM_CJUMP;
            break;
        default:
            return;
        }
        if (d->op_count && d->operands[d->op_count - 1].type == ARM64_OP_IMM) {
            out->has_target = out->kind != DISASM_RET;
            out->target = (uint64_t)d->operands[d->op_count - 1].imm;
        }
        return;
    }
    if (cs_insn_group(o->cs, ci, CS_GRP_CALL))
        out->kind = DISASM_CALL;
    else if (cs_insn_group(o->cs, ci, CS_GRP_RET))
        out->kind = DISASM_RET;
    else if (cs_insn_group(o->cs, ci, CS_GRP_JUMP))
        out->kind = ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP ? DISASM_JUMP : DISASM_CJUMP;
    else
        return;
    const cs_x86 *x = &ci->detail->x86;
    if (out->kind != DISASM_RET && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
        out->has_target = 1;
        out->target = (uint64_t)x->operands[0].imm;
    }
}

int disasm_decode(struct disasm_object *o, uint64_t addr, uint64_t max, struct disasm_insn *out)
{
    const struct dsec *s = section_of(o, addr);
    if (!s || !o->have_cs) return -1;
    uint64_t n = s->hi - addr;
    if (n > max) n = max;
    if (n > 16) n = 16; /* the longest instruction of any machine here is 15 bytes */
    const uint8_t *code = s->bytes + (addr - s->lo);
    size_t size = (size_t)n;
    uint64_t at = addr;
    if (!n || !cs_disasm_iter(o->cs, &code, &size, &at, o->ci)) return -1;
    out->addr = addr;
    out->size = o->ci->size;
    snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", o->ci->mnemonic);
    snprintf(out->operands, sizeof(out->operands), "%s", o->ci->op_str);
    classify(o, out);
    return 0;
}

int disasm_source_line(struct disasm_object *o, uint64_t addr, const char **file, unsigned *line)
{
    if (o->lines_state == 0) {
        struct tally_error e;
        o->lines_state = 1;
        if (line_table_open_elf(&o->lines, o->elf, o->big_endian, &e)) {
            line_table_close(&o->lines);
            o->lines_state = -1;
        }
    }
    struct src_loc loc;
    if (o->lines_state != 1 || !line_table_find(&o->lines, addr, &loc) || !loc.line) return 0;
    *file = loc.file;
    *line = loc.line;
    return 1;
}
