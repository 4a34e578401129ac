/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_symbols.c - the gprof symbol rules on ELF files written here with
 * libelf (32/64-bit, both byte orders, EXEC and PIE), the DWARF line table
 * on files without DWARF, demangling, and errors on bad files.
 *
 * With arguments it is a dump tool for tests/cli/symbols.sh:
 *   test_symbols --dump BIN [-a] [-D]   the symbol table, one
 *       "[symtab_finalize] 0xLO-0xHI\tNAME" line each (gprof -d128's form)
 *   test_symbols --lsyms BIN           the same for gprof -l's table
 *   test_symbols --walk BIN            "0xADDR FILE:LINE (FUNC)" for every
 *       .text byte with line information
 *   test_symbols --demangle NAME...    demangled names, one a line
 * Expected values below are worked out by hand from research/gprof.md 2.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "symbols/elfsyms.h"
#include "symbols/lines.h"

/* ---- writing test ELF files ---- */

struct tsym {
    const char *name;
    uint64_t value, size;
    unsigned type, bind;
    int sec; /* 0 undef, 1 .text, 2 .data, -1 abs */
};

/* Names in this order in .strtab: the order matters for the static-name
 * rule that reads on into the next name. */
static const struct tsym fixture_syms[] = {
    {"x.c", 0, 0, STT_FILE, STB_LOCAL, -1},
    {"", 0, 0, STT_SECTION, STB_LOCAL, 1},
    {"helper", 0x1040, 0x20, STT_FUNC, STB_LOCAL, 1},
    {"helper.part.0", 0x1060, 0x10, STT_FUNC, STB_LOCAL, 1},
    {"foo.constprop.0", 0x10a0, 0x10, STT_FUNC, STB_LOCAL, 1}, /* next name "bar.cold" */
    {"bar.cold", 0x10b0, 0x10, STT_FUNC, STB_LOCAL, 1},
    {"baz.constprop.1", 0x10c0, 0x10, STT_FUNC, STB_LOCAL, 1}, /* next name "qux" */
    {"qux", 0x10d0, 0x10, STT_FUNC, STB_LOCAL, 1},
    {"lf", 0x1080, 0x10, STT_FUNC, STB_LOCAL, 1},
    {"lab", 0x10f0, 0, STT_NOTYPE, STB_LOCAL, 1},
    {"gvar", 0x2010, 8, STT_OBJECT, STB_GLOBAL, 2},
    {"_alias", 0x1000, 0x40, STT_FUNC, STB_GLOBAL, 1},
    {"main", 0x1000, 0x40, STT_FUNC, STB_GLOBAL, 1},
    {"data_start", 0x2000, 0, STT_NOTYPE, STB_WEAK, 2},
    {"printf", 0, 0, STT_FUNC, STB_GLOBAL, 0},
    {"wobj", 0x2020, 8, STT_OBJECT, STB_WEAK, 2},
    {"gl", 0x1080, 0, STT_NOTYPE, STB_GLOBAL, 1},
    {"ifn", 0x10e0, 0x10, STT_GNU_IFUNC, STB_GLOBAL, 1},
    {"absval", 0x1234, 0, STT_NOTYPE, STB_GLOBAL, -1},
};

struct fixture_opts {
    int cls;              /* ELFCLASS32 / ELFCLASS64 */
    int data;             /* ELFDATA2LSB / ELFDATA2MSB */
    unsigned type;        /* ET_EXEC / ET_DYN */
    bool interp;          /* add a PT_INTERP program header */
    bool no_symtab;       /* leave .symtab out (a stripped file) */
    const char *textname; /* ".text" unless set */
};

static size_t add_str(char *buf, size_t *len, const char *s)
{
    size_t at = *len;
    memcpy(buf + at, s, strlen(s) + 1);
    *len += strlen(s) + 1;
    return at;
}

static void write_elf(const char *path, const struct fixture_opts *o)
{
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    assert_non_null(gelf_newehdr(e, o->cls));
    GElf_Ehdr eh;
    gelf_getehdr(e, &eh);
    eh.e_ident[EI_DATA] = (unsigned char)o->data;
    eh.e_type = (GElf_Half)o->type;
    eh.e_machine = o->cls == ELFCLASS64 ? EM_X86_64 : EM_386;
    eh.e_version = EV_CURRENT;
    gelf_update_ehdr(e, &eh);
    if (o->interp) {
        assert_non_null(gelf_newphdr(e, 1));
        GElf_Phdr ph = {.p_type = PT_INTERP, .p_flags = PF_R, .p_align = 1};
        gelf_update_phdr(e, 0, &ph);
    }

    static char shstr[256], str[1024];
    size_t shlen = 1, slen = 1;
    shstr[0] = str[0] = 0;
    static unsigned char text[0x100], datab[0x40];
    memset(text, 0x90, sizeof(text));

    /* .text (1), .data (2), .symtab (3), .strtab (4), .shstrtab (5) */
    struct {
        const char *name;
        unsigned type;
        uint64_t flags, addr;
        void *buf;
        size_t size;
        Elf_Type dtype;
    } secs[5] = {
        {o->textname ? o->textname : ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, text,
         sizeof(text), ELF_T_BYTE},
        {".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x2000, datab, sizeof(datab), ELF_T_BYTE},
        {".symtab", SHT_SYMTAB, 0, 0, NULL, 0, ELF_T_SYM},
        {".strtab", SHT_STRTAB, 0, 0, str, 0, ELF_T_BYTE},
        {".shstrtab", SHT_STRTAB, 0, 0, shstr, 0, ELF_T_BYTE},
    };
    size_t nsec = 5;
    Elf_Scn *scn[5];
    size_t nsyms = sizeof(fixture_syms) / sizeof(fixture_syms[0]) + 1;
    size_t symsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    void *symbuf = calloc(nsyms, symsz);
    for (size_t i = 0; i < nsec; i++) {
        if (o->no_symtab && i == 2) continue;
        scn[i] = elf_newscn(e);
        assert_non_null(scn[i]);
    }
    size_t shstrndx = o->no_symtab ? 4 : 5, strndx = o->no_symtab ? 0 : 4;
    Elf_Data *symdata = NULL;
    for (size_t i = 0; i < nsec; i++) {
        if (o->no_symtab && (i == 2)) continue;
        Elf_Data *d = elf_newdata(scn[i]);
        d->d_type = secs[i].dtype;
        d->d_version = EV_CURRENT;
        d->d_align = 1;
        if (i == 2) {
            symdata = d;
            d->d_buf = symbuf;
            d->d_size = nsyms * symsz;
            d->d_align = o->cls == ELFCLASS64 ? 8 : 4;
        } else {
            d->d_buf = secs[i].buf;
            d->d_size = secs[i].size;
        }
        GElf_Shdr sh;
        gelf_getshdr(scn[i], &sh);
        sh.sh_name = (GElf_Word)add_str(shstr, &shlen, secs[i].name);
        sh.sh_type = secs[i].type;
        sh.sh_flags = secs[i].flags;
        sh.sh_addr = secs[i].addr;
        sh.sh_addralign = d->d_align;
        if (i == 2) {
            sh.sh_link = (GElf_Word)strndx;
            sh.sh_entsize = symsz;
            sh.sh_info = 1;
        }
        gelf_update_shdr(scn[i], &sh);
    }
    if (symdata) {
        for (size_t i = 0; i + 1 < nsyms; i++) {
            const struct tsym *t = &fixture_syms[i];
            GElf_Sym s = {0};
            s.st_name = t->name[0] ? (GElf_Word)add_str(str, &slen, t->name) : 0;
            s.st_value = t->value;
            s.st_size = t->size;
            s.st_info = GELF_ST_INFO(t->bind, t->type);
            s.st_shndx = t->sec < 0 ? SHN_ABS : (GElf_Section)t->sec;
            assert_true(gelf_update_sym(symdata, (int)i + 1, &s));
        }
        Elf_Data *sd = elf_getdata(scn[3], NULL);
        sd->d_size = slen;
    }
    Elf_Data *shd = elf_getdata(scn[o->no_symtab ? 4 : 4], NULL);
    shd->d_size = shlen;
    /* shstrtab is the last section */
    gelf_getehdr(e, &eh);
    eh.e_shstrndx = (GElf_Half)shstrndx;
    gelf_update_ehdr(e, &eh);
    assert_true(elf_update(e, ELF_C_WRITE) > 0);
    elf_end(e);
    close(fd);
    free(symbuf);
}

static char *tmp_path(const char *tag)
{
    const char *dir = getenv("TMPDIR");
    return xasprintf("%s/tally-symtest-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
}

struct want {
    const char *name;
    uint64_t lo, hi;
    bool is_static, is_func;
};

static void check_syms(const struct elf_image *img, const struct want *w, size_t n)
{
    for (size_t i = 0; i < img->nsyms && i < n; i++) {
        if (strcmp(img->syms[i].name, w[i].name) != 0 || img->syms[i].addr != w[i].lo ||
            img->syms[i].end_addr != w[i].hi || img->syms[i].is_static != w[i].is_static ||
            img->syms[i].is_func != w[i].is_func)
            fail_msg("symbol %zu: got %s 0x%" PRIx64 "-0x%" PRIx64 " s%d f%d, want %s 0x%" PRIx64
                     "-0x%" PRIx64 " s%d f%d",
                     i, img->syms[i].name, img->syms[i].addr, img->syms[i].end_addr,
                     img->syms[i].is_static, img->syms[i].is_func, w[i].name, w[i].lo, w[i].hi,
                     w[i].is_static, w[i].is_func);
    }
    assert_int_equal(img->nsyms, n);
}

/* Default rules: see the fixture comments. */
static const struct want want_default[] = {
    {"main", 0x1000, 0x103f, false, true},  /* beats _alias: no leading '_' */
    {"helper", 0x1040, 0x107f, true, true}, /* helper.part.0 rejected */
    {"gl", 0x1080, 0x10bf, false, false},   /* global beats static lf; foo.constprop.0
                                               (next name bar.cold) and bar.cold rejected */
    {"baz.constprop.1", 0x10c0, 0x10cf, true, true},
    {"qux", 0x10d0, 0x10ef, true, true}, /* ifn (IFUNC) rejected */
    {"lab", 0x10f0, 0x1fff, true, false},
    {"data_start", 0x2000, 0x10ff, false, false}, /* weak data kept; ends at .text end - 1 */
};

static void check_file(const struct fixture_opts *o, const char *tag)
{
    char *path = tmp_path(tag);
    write_elf(path, o);
    struct elf_image img;
    struct tally_error err;
    if (getenv("TALLY_SYMTEST_KEEP")) {
        char *cmd = xasprintf("cp %s %s.keep", path, path);
        if (system(cmd) != 0) fail_msg("cp");
        free(cmd);
    }
    if (elf_image_open(&img, path, NULL, &err)) fail_msg("%s: %s", path, err.msg);
    assert_int_equal(img.elf_class, o->cls == ELFCLASS64 ? 64 : 32);
    assert_int_equal(img.big_endian, o->data == ELFDATA2MSB);
    assert_int_equal(img.e_type, o->type);
    assert_int_equal(img.is_pie, o->type == ET_DYN && o->interp);
    assert_int_equal(img.text_lo, 0x1000);
    assert_int_equal(img.text_hi, 0x1100);
    check_syms(&img, want_default, sizeof(want_default) / sizeof(want_default[0]));

    /* lookups: gprof's sym_lookup */
    assert_null(elf_image_lookup(&img, 0xfff));
    assert_string_equal(elf_image_lookup(&img, 0x1000)->name, "main");
    assert_string_equal(elf_image_lookup(&img, 0x103f)->name, "main");
    assert_string_equal(elf_image_lookup(&img, 0x10a5)->name, "gl");
    assert_string_equal(elf_image_lookup(&img, 0x1800)->name, "lab");
    assert_null(elf_image_lookup(&img, 0x2000)); /* data_start's range is empty */
    size_t avail = 0;
    const unsigned char *t = elf_image_text_at(&img, 0x10fe, &avail);
    assert_non_null(t);
    assert_int_equal(avail, 2);
    assert_int_equal(t[0], 0x90);
    assert_null(elf_image_text_at(&img, 0x1100, &avail));
    assert_int_equal(avail, 0);

    /* no DWARF: every line lookup fails, -l keeps the functions only and
     * the second finalisation drops data_start (its known range is empty) */
    struct line_table lt;
    assert_int_equal(line_table_open(&lt, &img, &err), 0);
    struct src_loc loc;
    assert_false(line_table_find(&lt, 0x1000, &loc));
    line_table_make_line_syms(&lt, &img);
    check_syms(&img, want_default, sizeof(want_default) / sizeof(want_default[0]) - 1);
    line_table_close(&lt);
    elf_image_close(&img);

    /* -a: no static symbols at all */
    struct elf_image_options a = {.no_static = true};
    static const struct want want_a[] = {
        {"main", 0x1000, 0x107f, false, true},
        {"gl", 0x1080, 0x1fff, false, false},
        {"data_start", 0x2000, 0x10ff, false, false},
    };
    assert_int_equal(elf_image_open(&img, path, &a, &err), 0);
    check_syms(&img, want_a, 3);
    elf_image_close(&img);

    /* -D: static symbols must be functions (lab goes, qux reaches on) */
    struct elf_image_options d = {.static_funcs_only = true};
    static const struct want want_d[] = {
        {"main", 0x1000, 0x103f, false, true}, {"helper", 0x1040, 0x107f, true, true},
        {"gl", 0x1080, 0x10bf, false, false},  {"baz.constprop.1", 0x10c0, 0x10cf, true, true},
        {"qux", 0x10d0, 0x1fff, true, true},   {"data_start", 0x2000, 0x10ff, false, false},
    };
    assert_int_equal(elf_image_open(&img, path, &d, &err), 0);
    check_syms(&img, want_d, 6);
    elf_image_close(&img);
    unlink(path);
    free(path);
}

static void test_elf64_le_pie(void **state)
{
    struct fixture_opts o = {ELFCLASS64, ELFDATA2LSB, ET_DYN, true, false, NULL};
    check_file(&o, "64le");
}
static void test_elf64_be_exec(void **state)
{
    struct fixture_opts o = {ELFCLASS64, ELFDATA2MSB, ET_EXEC, false, false, NULL};
    check_file(&o, "64be");
}
static void test_elf32_le_exec(void **state)
{
    struct fixture_opts o = {ELFCLASS32, ELFDATA2LSB, ET_EXEC, false, false, NULL};
    check_file(&o, "32le");
}
static void test_elf32_be_dyn(void **state)
{
    /* ET_DYN without an interpreter: a shared object, not a PIE */
    struct fixture_opts o = {ELFCLASS32, ELFDATA2MSB, ET_DYN, false, false, NULL};
    check_file(&o, "32be");
}

static void expect_open_error(const char *path, const char *want)
{
    struct elf_image img;
    struct tally_error err;
    tally_error_clear(&err);
    assert_int_equal(elf_image_open(&img, path, NULL, &err), -1);
    if (!strstr(err.msg, want)) fail_msg("error \"%s\" lacks \"%s\"", err.msg, want);
    assert_string_equal(err.file, path);
    elf_image_close(&img); /* harmless after a failed open */
}

static void test_errors(void **state)
{
    char *path = tmp_path("bad");
    expect_open_error("/nonexistent/tally/a.out", "No such file");
    FILE *f = fopen(path, "w");
    fputs("this is not an executable\n", f);
    fclose(f);
    expect_open_error(path, "not an ELF file");

    struct fixture_opts o = {ELFCLASS64, ELFDATA2LSB, ET_EXEC, false, true, NULL};
    write_elf(path, &o);
    char *msg = xasprintf("file `%s' has no symbols", path);
    expect_open_error(path, msg);
    free(msg);

    struct fixture_opts nt = {ELFCLASS64, ELFDATA2LSB, ET_EXEC, false, false, ".code"};
    write_elf(path, &nt);
    expect_open_error(path, "can't find .text section");

    /* every truncation of a good file fails cleanly or opens; never crashes */
    struct fixture_opts good = {ELFCLASS64, ELFDATA2LSB, ET_DYN, true, false, NULL};
    write_elf(path, &good);
    f = fopen(path, "rb");
    static unsigned char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    char *cut = tmp_path("cut");
    for (size_t len = 0; len < n; len += 7) {
        f = fopen(cut, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        struct elf_image img;
        struct tally_error err;
        if (elf_image_open(&img, cut, NULL, &err) == 0) {
            struct line_table lt;
            line_table_open(&lt, &img, &err);
            line_table_make_line_syms(&lt, &img);
            line_table_close(&lt);
        }
        elf_image_close(&img);
    }
    unlink(cut);
    free(cut);
    unlink(path);
    free(path);
}

static void test_static_names(void **state)
{
    assert_true(elf_static_name_ok("work"));
    assert_true(elf_static_name_ok("inner.0"));
    assert_true(elf_static_name_ok("inner.12.3"));
    assert_true(elf_static_name_ok("f.clone.0"));
    assert_true(elf_static_name_ok("f.constprop.0"));
    assert_true(elf_static_name_ok("f.constprop.0.clone.1"));
    assert_false(elf_static_name_ok("f.part.0"));
    assert_false(elf_static_name_ok("f.cold"));
    assert_false(elf_static_name_ok("f.isra.0"));
    assert_false(elf_static_name_ok("x.c"));
    assert_false(elf_static_name_ok("a$b"));
    assert_false(elf_static_name_ok(""));
    assert_false(elf_static_name_ok("__gnu_compiled_c"));
    assert_false(elf_static_name_ok("___gnu_compiled_c"));
}

static void test_demangle(void **state)
{
    struct {
        const char *in, *out;
    } cases[] = {
        {"_Z3fooi", "foo(int)"},
        {"_ZNK2ns1K3getEi", "ns::K::get(int) const"},
        {"_Z5twiceIdET_S0_", "double twice<double>(double)"},
        {"_Z3fooi@plt", "foo(int)@plt"},
        {"._Z3fooi", ".foo(int)"},
        {"_ZN3FooC2Ev", "Foo::Foo()"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *d = demangle_name(cases[i].in, DEMANGLE_AUTO, DEMANGLE_DEFAULT);
        assert_non_null(d);
        assert_string_equal(d, cases[i].out);
        free(d);
    }
    /* without DMGL_PARAMS the parameters are left out */
    char *d = demangle_name("_Z3fooi", DEMANGLE_GNU_V3, 0);
    assert_string_equal(d, "foo");
    free(d);
    assert_null(demangle_name("main", DEMANGLE_AUTO, DEMANGLE_DEFAULT));
    assert_null(demangle_name("_Z3fooi", DEMANGLE_NONE, DEMANGLE_DEFAULT));
    d = demangle_or_copy("main", DEMANGLE_AUTO, DEMANGLE_DEFAULT);
    assert_string_equal(d, "main");
    free(d);
    /* D names only in the dlang style */
    assert_null(demangle_name("_D3foo3barFiZv", DEMANGLE_AUTO, DEMANGLE_DEFAULT));
    d = demangle_name("_D3foo3barFiZv", DEMANGLE_DLANG, DEMANGLE_DEFAULT);
    assert_non_null(d);
    assert_string_equal(d, "foo.bar(int)");
    free(d);

    enum demangle_style st;
    struct tally_error err;
    assert_int_equal(demangle_style_parse("gnu-v3", &st, &err), 0);
    assert_int_equal(st, DEMANGLE_GNU_V3);
    assert_int_equal(demangle_style_parse("none", &st, &err), 0);
    assert_int_equal(st, DEMANGLE_NONE);
    assert_int_equal(demangle_style_parse("klingon", &st, &err), -1);
    assert_string_equal(err.msg, "unknown demangling style `klingon'");
}

static void test_basename(void **state)
{
    (void)state;
    assert_string_equal(line_basename("/x/y/z.c"), "z.c");
    assert_string_equal(line_basename("z.c"), "z.c");
}

/* ---- dump mode ---- */

static int dump(int argc, char **argv)
{
    const char *mode = argv[1];
    if (strcmp(mode, "--demangle") == 0) {
        for (int i = 2; i < argc; i++) {
            char *d = demangle_or_copy(argv[i], DEMANGLE_AUTO, DEMANGLE_DEFAULT);
            puts(d);
            free(d);
        }
        return 0;
    }
    if (argc < 3) return 2;
    struct elf_image_options o = {0};
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "-a") == 0) o.no_static = true;
        if (strcmp(argv[i], "-D") == 0) o.static_funcs_only = true;
    }
    struct elf_image img;
    struct tally_error err;
    if (elf_image_open(&img, argv[2], &o, &err)) {
        char buf[2048];
        fprintf(stderr, "%s\n", tally_error_format(&err, buf, sizeof(buf)));
        return 1;
    }
    struct line_table lt;
    line_table_open(&lt, &img, &err);
    if (strcmp(mode, "--walk") == 0) {
        for (uint64_t a = img.text_lo; a < img.text_hi; a++) {
            struct src_loc l;
            if (line_table_find(&lt, a, &l))
                printf("0x%" PRIx64 " %s:%u (%s)\n", a, l.file, l.line, l.func);
        }
    } else {
        if (strcmp(mode, "--lsyms") == 0)
            line_table_make_line_syms(&lt, &img);
        else
            line_table_annotate(&lt, &img);
        for (size_t i = 0; i < img.nsyms; i++)
            printf("[symtab_finalize] 0x%" PRIx64 "-0x%" PRIx64 "\t%s\n", img.syms[i].addr,
                   img.syms[i].end_addr, img.syms[i].name);
        if (strcmp(mode, "--files") == 0) {
            for (size_t i = 0; i < img.nsyms; i++)
                printf("%s %s:%u\n", img.syms[i].name,
                       img.syms[i].file ? img.syms[i].file : "<unknown>", img.syms[i].line);
        }
    }
    line_table_close(&lt);
    elf_image_close(&img);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) return dump(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf64_le_pie),  cmocka_unit_test(test_elf64_be_exec),
        cmocka_unit_test(test_elf32_le_exec), cmocka_unit_test(test_elf32_be_dyn),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_static_names),
        cmocka_unit_test(test_demangle),      cmocka_unit_test(test_basename),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
