/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_disasm.c - symbols/disasm.h on ELF files written here with libelf:
 * sections and sized symbols, the instructions of a few x86-64 encodings
 * (their meaning is the ISA's: 74 rel8 is je, e8 rel32 call, eb rel8 jmp,
 * ff e0 jmp rax), both syntaxes, a machine without a decoder, bad files
 * and every truncation of a good one.
 */
#include "testutil.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "symbols/disasm.h"

/* 0x1000 f (16 bytes), 0x1010 g (1 byte), then code without a symbol */
static const unsigned char code[0x20] = {
    0x55,                         /* 1000 push rbp */
    0x48, 0x89, 0xe5,             /* 1001 mov rbp, rsp */
    0x74, 0x03,                   /* 1004 je 0x1009 */
    0xe8, 0x05, 0x00, 0x00, 0x00, /* 1006 call 0x1010 */
    0xeb, 0xf3,                   /* 100b jmp 0x1000 */
    0xff, 0xe0,                   /* 100d jmp rax */
    0xc3,                         /* 100f ret */
    0xc3,                         /* 1010 ret (g) */
    0x90,                         /* 1011 nop */
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
};

static size_t add_str(char *buf, size_t *len, const char *s)
{
    size_t at = *len;
    memcpy(buf + at, s, strlen(s) + 1);
    *len += strlen(s) + 1;
    return at;
}

static char *tmp_path(const char *tag)
{
    const char *dir = getenv("TMPDIR");
    return xasprintf("%s/tally-disasmtest-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
}

/* An ELF64 LE shared object of machine m: .text at 0x1000, .symtab with f and g. */
static void write_elf(const char *path, unsigned machine)
{
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    assert_non_null(gelf_newehdr(e, ELFCLASS64));
    GElf_Ehdr eh;
    gelf_getehdr(e, &eh);
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_type = ET_DYN;
    eh.e_machine = (GElf_Half)machine;
    eh.e_version = EV_CURRENT;
    gelf_update_ehdr(e, &eh);
    static char shstr[128], str[64];
    static unsigned char text[sizeof(code)];
    memcpy(text, code, sizeof(code));
    size_t shlen = 1, slen = 1;
    shstr[0] = str[0] = 0;
    size_t symsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    unsigned char *syms = calloc(3, symsz);
    Elf_Scn *scn[4];
    for (int i = 0; i < 4; i++)
        scn[i] = elf_newscn(e);
    /* .text (1), .symtab (2), .strtab (3), .shstrtab (4) */
    const char *names[4] = {".text", ".symtab", ".strtab", ".shstrtab"};
    for (int i = 0; i < 4; i++) {
        Elf_Data *d = elf_newdata(scn[i]);
        d->d_version = EV_CURRENT;
        d->d_align = 1;
        d->d_type = i == 1 ? ELF_T_SYM : ELF_T_BYTE;
        d->d_buf = i == 0 ? (void *)text : i == 1 ? (void *)syms : i == 2 ? (void *)str : shstr;
        d->d_size = i == 0 ? sizeof(text) : i == 1 ? 3 * symsz : 0;
        GElf_Shdr sh;
        gelf_getshdr(scn[i], &sh);
        sh.sh_name = (GElf_Word)add_str(shstr, &shlen, names[i]);
        sh.sh_type = i == 0 ? SHT_PROGBITS : i == 1 ? SHT_SYMTAB : SHT_STRTAB;
        sh.sh_flags = i == 0 ? SHF_ALLOC | SHF_EXECINSTR : 0;
        sh.sh_addr = i == 0 ? 0x1000 : 0;
        if (i == 1) {
            d->d_align = 8;
            sh.sh_link = 3;
            sh.sh_entsize = symsz;
            sh.sh_info = 1;
        }
        sh.sh_addralign = d->d_align;
        gelf_update_shdr(scn[i], &sh);
    }
    Elf_Data *sd = elf_getdata(scn[1], NULL);
    GElf_Sym f = {.st_name = (GElf_Word)add_str(str, &slen, "f"),
                  .st_value = 0x1000,
                  .st_size = 0x10,
                  .st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC),
                  .st_shndx = 1};
    GElf_Sym g = {.st_name = (GElf_Word)add_str(str, &slen, "g"),
                  .st_value = 0x1010,
                  .st_size = 1,
                  .st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC),
                  .st_shndx = 1};
    assert_true(gelf_update_sym(sd, 1, &f));
    assert_true(gelf_update_sym(sd, 2, &g));
    elf_getdata(scn[2], NULL)->d_size = slen;
    elf_getdata(scn[3], NULL)->d_size = shlen;
    gelf_getehdr(e, &eh);
    eh.e_shstrndx = 4;
    gelf_update_ehdr(e, &eh);
    assert_true(elf_update(e, ELF_C_WRITE) > 0);
    elf_end(e);
    close(fd);
    free(syms);
}

static struct disasm_object *open_ok(const char *path, enum disasm_syntax syn)
{
    struct disasm_object *o;
    struct tally_error err;
    if (disasm_object_open(&o, path, syn, &err)) fail_msg("%s", err.msg);
    return o;
}

static void expect_insn(struct disasm_object *o, uint64_t addr, unsigned size, const char *mn,
                        const char *ops, enum disasm_kind kind, int has_target, uint64_t target)
{
    struct disasm_insn in;
    assert_int_equal(disasm_decode(o, addr, 64, &in), 0);
    assert_int_equal(in.addr, addr);
    assert_int_equal(in.size, size);
    assert_string_equal(in.mnemonic, mn);
    if (ops) assert_string_equal(in.operands, ops);
    assert_int_equal(in.kind, kind);
    assert_int_equal(in.has_target, has_target);
    if (has_target) assert_int_equal(in.target, target);
}

static void test_x86_64(void **state)
{
    (void)state;
    char *path = tmp_path("x86");
    write_elf(path, EM_X86_64);
    struct disasm_object *o = open_ok(path, DISASM_INTEL);
    assert_true(disasm_object_decodes(o));
    assert_true(disasm_object_is_dyn(o));
    uint64_t lo = 0, hi = 0;
    const char *name = NULL;
    assert_true(disasm_in_code(o, 0x1004, &lo, &hi));
    assert_int_equal(lo, 0x1000);
    assert_int_equal(hi, 0x1000 + sizeof(code));
    assert_false(disasm_in_code(o, 0xfff, NULL, NULL));
    assert_false(disasm_in_code(o, 0x1000 + sizeof(code), NULL, NULL));
    assert_true(disasm_function_at(o, 0x100f, &lo, &hi, &name));
    assert_int_equal(lo, 0x1000);
    assert_int_equal(hi, 0x1010);
    assert_string_equal(name, "f");
    assert_true(disasm_function_at(o, 0x1010, &lo, &hi, &name));
    assert_string_equal(name, "g");
    assert_false(disasm_function_at(o, 0x1011, &lo, &hi, &name)); /* past g's one byte */

    expect_insn(o, 0x1000, 1, "push", "rbp", DISASM_OTHER, 0, 0);
    expect_insn(o, 0x1001, 3, "mov", "rbp, rsp", DISASM_OTHER, 0, 0);
    expect_insn(o, 0x1004, 2, "je", NULL, DISASM_CJUMP, 1, 0x1009);
    expect_insn(o, 0x1006, 5, "call", NULL, DISASM_CALL, 1, 0x1010);
    expect_insn(o, 0x100b, 2, "jmp", NULL, DISASM_JUMP, 1, 0x1000);
    expect_insn(o, 0x100d, 2, "jmp", "rax", DISASM_JUMP, 0, 0);
    expect_insn(o, 0x100f, 1, "ret", "", DISASM_RET, 0, 0);
    struct disasm_insn in;
    assert_int_equal(disasm_decode(o, 0x1006, 4, &in), -1); /* a call needs 5 bytes */
    assert_int_equal(disasm_decode(o, 0x2000, 16, &in), -1);
    /* the last byte of the section: never past it */
    assert_int_equal(disasm_decode(o, 0x1000 + sizeof(code) - 1, 16, &in), 0);
    assert_int_equal(in.size, 1);
    const char *file = NULL;
    unsigned line = 0;
    assert_false(disasm_source_line(o, 0x1000, &file, &line)); /* no DWARF */
    disasm_object_close(o);

    o = open_ok(path, DISASM_ATT);
    expect_insn(o, 0x1001, 3, "movq", "%rsp, %rbp", DISASM_OTHER, 0, 0);
    disasm_object_close(o);
    unlink(path);
    free(path);
}

static void test_no_decoder(void **state)
{
    (void)state;
    char *path = tmp_path("riscv");
    write_elf(path, 243 /* EM_RISCV */);
    struct disasm_object *o = open_ok(path, DISASM_INTEL);
    assert_false(disasm_object_decodes(o));
    assert_true(disasm_in_code(o, 0x1000, NULL, NULL));
    struct disasm_insn in;
    assert_int_equal(disasm_decode(o, 0x1000, 16, &in), -1);
    disasm_object_close(o);
    unlink(path);
    free(path);
}

static void expect_error(const char *path, const char *want)
{
    struct disasm_object *o = (struct disasm_object *)1;
    struct tally_error err;
    assert_int_equal(disasm_object_open(&o, path, DISASM_INTEL, &err), -1);
    assert_null(o);
    if (!strstr(err.msg, want)) fail_msg("'%s' lacks '%s'", err.msg, want);
}

static void test_errors(void **state)
{
    (void)state;
    char *path = tmp_path("missing");
    expect_error(path, "No such file or directory");
    FILE *fp = fopen(path, "w");
    fputs("#!/bin/sh\necho not ELF\n", fp);
    fclose(fp);
    expect_error(path, "not an ELF file");
    unlink(path);
    expect_error("/", "not a regular file");
    free(path);
}

/* Every cut of a good file opens cleanly or fails cleanly, and decodes what it has. */
static void test_truncated(void **state)
{
    (void)state;
    char *path = tmp_path("whole"), *cut = tmp_path("cut");
    write_elf(path, EM_X86_64);
    FILE *fp = fopen(path, "rb");
    unsigned char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf), fp);
    fclose(fp);
    assert_true(n > 0 && n < sizeof(buf));
    for (size_t len = 0; len < n; len += 7) {
        fp = fopen(cut, "wb");
        fwrite(buf, 1, len, fp);
        fclose(fp);
        struct disasm_object *o;
        struct tally_error err;
        if (disasm_object_open(&o, cut, DISASM_INTEL, &err)) continue;
        struct disasm_insn in;
        uint64_t lo, hi;
        for (uint64_t a = 0xff0; a < 0x1030; a++) {
            disasm_decode(o, a, 16, &in);
            disasm_function_at(o, a, &lo, &hi, NULL);
        }
        disasm_object_close(o);
    }
    unlink(cut);
    unlink(path);
    free(cut);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x86_64),
        cmocka_unit_test(test_no_decoder),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
