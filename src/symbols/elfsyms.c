/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsyms.c - gprof's function symbol table from an ELF file's .symtab.
 *
 * The selection mirrors how gprof classifies symbols (the letter nm would
 * print for it, then extra checks on static names); see elfsyms.h and
 * docs/internals/symbols.md.
 */
#include "elfsyms.h"
#include "../model/search.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Section flags as gprof's symbol classifier sees them. */
struct sec_info {
    const char *name;
    uint64_t vma;
    uint64_t size;
    bool code, data, readonly, contents, alloc;
};

/*
 * The letter for a section by name, from the traditional COFF table: the
 * name must start with the entry and continue with '.', '$', a digit or
 * end there. '?' when no entry applies.
 */
static char section_letter_by_name(const char *s)
{
    static const struct {
        const char *prefix;
        char letter;
    } table[] = {
        {".bss", 'b'},     {".code", 't'},  {".data", 'd'},   {"*DEBUG*", 'N'},  {".debug", 'N'},
        {".drectve", 'i'}, {".edata", 'e'}, {".fini", 't'},   {".idata", 'i'},   {".init", 't'},
        {".pdata", 'p'},   {".rdata", 'r'}, {".rodata", 'r'}, {".sbss", 's'},    {".scommon", 'c'},
        {".sdata", 'g'},   {".text", 't'},  {"vars", 'd'},    {"zerovars", 'b'},
    };
    if (!s) return '?';
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        size_t n = strlen(table[i].prefix);
        if (strncmp(s, table[i].prefix, n) == 0) {
            char c = s[n];
            if (c == '\0' || c == '.' || c == '$' || (c >= '0' && c <= '9')) return table[i].letter;
        }
    }
    return '?';
}

static char section_letter(const struct sec_info *sec)
{
    char c = section_letter_by_name(sec->name);
    if (c != '?') return c;
    if (sec->code) return 't';
    if (sec->data) return sec->readonly ? 'r' : 'd';
    if (!sec->contents) return 'b';
    if (sec->name && strncmp(sec->name, ".debug", 6) == 0) return 'N';
    if (sec->readonly) return 'n';
    return '?';
}

/*
 * The static-name test. `p` walks the name inside the string table
 * [p, end): like gprof, after a '.'-suffix that runs to the end of the
 * name the scan continues into the following bytes of the table (the next
 * name), so that name's characters can still reject this symbol.
 */
static bool static_name_ok_in(const char *p, const char *end)
{
#define AT(q) ((q) < end ? *(q) : '\0')
    static const char clone[] = ".clone.", constprop[] = ".constprop.";
    for (; AT(p); ++p) {
        if (*p == '$') return false;
        while (AT(p) == '.') {
            bool digit_seen = false;
            size_t rest = strnlen(p, (size_t)(end - p));
            if (rest > sizeof(clone) - 1 && strncmp(p, clone, sizeof(clone) - 1) == 0)
                p += sizeof(clone) - 2;
            else if (rest > sizeof(constprop) - 1 &&
                     strncmp(p, constprop, sizeof(constprop) - 1) == 0)
                p += sizeof(constprop) - 2;
            for (p++; AT(p); p++) {
                if (digit_seen && *p == '.') break;
                if (*p >= '0' && *p <= '9')
                    digit_seen = true;
                else
                    return false;
            }
        }
        if (p >= end) break;
    }
    return true;
#undef AT
}

bool elf_static_name_ok(const char *name)
{
    if (!name || !name[0]) return false;
    if (!static_name_ok_in(name, name + strlen(name) + 1)) return false;
    return strncmp(name, "__gnu_compiled", 14) != 0 && strncmp(name, "___gnu_compiled", 15) != 0;
}

/* Stable order: address, functions first, globals first, then table order. */
static int cmp_sym(const void *a, const void *b)
{
    const struct elf_sym *l = a, *r = b;
    if (l->addr != r->addr) return l->addr < r->addr ? -1 : 1;
    if (l->is_func != r->is_func) return l->is_func ? -1 : 1;
    if (l->is_static != r->is_static) return l->is_static ? 1 : -1;
    if (l->order_ != r->order_) return l->order_ < r->order_ ? -1 : 1;
    return 0;
}

static bool replaces(const struct elf_sym *src, const struct elf_sym *dst)
{
    if (!src->is_static && dst->is_static) return true;
    if (src->is_static != dst->is_static) return false;
    if (src->is_func && !dst->is_func) return true;
    if (src->is_func != dst->is_func) return false;
    if (src->name[0] != '_' && dst->name[0] == '_') return true;
    return src->name[0] && src->name[1] != '_' && dst->name[0] && dst->name[1] == '_';
}

size_t elf_syms_finalize(struct elf_sym *syms, size_t n, uint64_t text_end)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        syms[i].order_ = i;
    /* cmp_sym is a total order, so any sort gives the same result. The
     * table is often one or two sorted runs already (-l: the line symbols,
     * then the function symbols): merge those instead of sorting. */
    size_t descents = 0, split = 0;
    for (size_t i = 1; i < n && descents < 2; i++)
        if (cmp_sym(&syms[i - 1], &syms[i]) > 0) {
            descents++;
            split = i;
        }
    if (descents == 1) {
        struct elf_sym *tmp = xmalloc(n * sizeof(*tmp));
        size_t a = 0, b = split, k = 0;
        while (a < split && b < n)
            tmp[k++] = cmp_sym(&syms[b], &syms[a]) < 0 ? syms[b++] : syms[a++];
        while (a < split)
            tmp[k++] = syms[a++];
        while (b < n)
            tmp[k++] = syms[b++];
        memcpy(syms, tmp, n * sizeof(*tmp));
        free(tmp);
    } else if (descents > 1) {
        qsort(syms, n, sizeof(*syms), cmp_sym);
    }
    size_t dst = 0;
    uint64_t prev_addr = syms[0].addr - 1;
    for (size_t src = 0; src < n; src++) {
        if (dst > 0 && syms[src].addr == prev_addr) {
            if (replaces(&syms[src], &syms[dst - 1])) syms[dst - 1] = syms[src];
            continue;
        }
        if (dst > 0 && syms[dst - 1].end_addr == 0) syms[dst - 1].end_addr = syms[src].addr - 1;
        /* keep only symbols whose (already known) range is not empty */
        if (syms[src].end_addr == 0 || syms[src].addr <= syms[src].end_addr) {
            syms[dst++] = syms[src];
            prev_addr = syms[src].addr;
        }
    }
    if (dst > 0 && syms[dst - 1].end_addr == 0) syms[dst - 1].end_addr = text_end - 1;
    return dst;
}

void elf_image_close(struct elf_image *img)
{
    if (!img) return;
    if (img->elf) elf_end(img->elf);
    if (img->fd >= 0) close(img->fd);
    free(img->path);
    free(img->syms);
    free(img->text_copy);
    free(img->strings);
    memset(img, 0, sizeof(*img));
    img->fd = -1;
}

static int fail(struct elf_image *img, struct tally_error *err, const char *path, const char *fmt,
                const char *detail)
{
    tally_error_set(err, path, 0, fmt, detail);
    elf_image_close(img);
    return -1;
}

int elf_image_open(struct elf_image *img, const char *path, const struct elf_image_options *opts,
                   struct tally_error *err)
{
    static const struct elf_image_options defaults = {0};
    if (!opts) opts = &defaults;
    memset(img, 0, sizeof(*img));
    img->fd = -1;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return fail(img, err, path, "libelf: %s", elf_errmsg(-1));
    img->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (img->fd < 0) return fail(img, err, path, "%s", strerror(errno));
    img->path = xstrdup(path);
    Elf *elf = elf_begin(img->fd, ELF_C_READ, NULL);
    img->elf = elf;
    if (!elf || elf_kind(elf) != ELF_K_ELF) return fail(img, err, path, "%s", "not an ELF file");

    GElf_Ehdr eh;
    if (!gelf_getehdr(elf, &eh))
        return fail(img, err, path, "corrupt ELF header: %s", elf_errmsg(-1));
    int cls = gelf_getclass(elf);
    if (cls != ELFCLASS32 && cls != ELFCLASS64)
        return fail(img, err, path, "%s", "unknown ELF class");
    img->elf_class = cls == ELFCLASS64 ? 64 : 32;
    img->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    img->e_type = eh.e_type;
    img->e_machine = eh.e_machine;

    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return fail(img, err, path, "corrupt ELF section table: %s", elf_errmsg(-1));

    /* PIE: ET_DYN with an interpreter, or DF_1_PIE in the dynamic section. */
    if (eh.e_type == ET_DYN) {
        size_t phnum = 0;
        if (elf_getphdrnum(elf, &phnum) == 0) {
            for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP) img->is_pie = true;
            }
        }
    }

    struct sec_info *secs = xcalloc(shnum ? shnum : 1, sizeof(*secs));
    Elf_Scn *symscn = NULL;
    GElf_Shdr symsh = {0};
    bool have_text = false;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) continue;
        struct sec_info *s = &secs[i];
        s->name = elf_strptr(elf, shstrndx, sh.sh_name);
        s->vma = sh.sh_addr;
        s->size = sh.sh_size;
        s->contents = sh.sh_type != SHT_NOBITS;
        s->alloc = (sh.sh_flags & SHF_ALLOC) != 0;
        s->readonly = s->alloc && !(sh.sh_flags & SHF_WRITE);
        s->code = s->alloc && (sh.sh_flags & SHF_EXECINSTR);
        s->data = s->alloc && s->contents && !s->code;
        if (sh.sh_type == SHT_DYNAMIC && eh.e_type == ET_DYN) {
            Elf_Data *d = elf_getdata(scn, NULL);
            size_t entsz = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
            for (size_t k = 0; d && entsz && k < d->d_size / entsz; k++) {
                GElf_Dyn dyn;
                if (gelf_getdyn(d, (int)k, &dyn) && dyn.d_tag == DT_FLAGS_1 &&
                    (dyn.d_un.d_val & DF_1_PIE))
                    img->is_pie = true;
            }
        }
        if (sh.sh_type == SHT_SYMTAB && !symscn) {
            symscn = scn;
            symsh = sh;
        }
        if (!have_text && s->name && strcmp(s->name, ".text") == 0) {
            have_text = true;
            img->text_lo = sh.sh_addr;
            img->text_hi = sh.sh_addr + sh.sh_size;
            if (img->text_hi < img->text_lo) img->text_hi = img->text_lo;
            if (sh.sh_type != SHT_NOBITS) {
                Elf_Data *d = elf_getdata(scn, NULL);
                if (d && d->d_buf && d->d_size == sh.sh_size) {
                    img->text_copy = xmalloc(d->d_size ? d->d_size : 1);
                    memcpy(img->text_copy, d->d_buf, d->d_size);
                    img->text = img->text_copy;
                } else {
                    img->text_hi = img->text_lo;
                }
            }
        }
    }
    if (!symscn) {
        free(secs);
        return fail(img, err, path, "file `%s' has no symbols", path);
    }
    if (!have_text) {
        free(secs);
        return fail(img, err, path, "can't find .text section in %s", path);
    }

    Elf_Data *symdata = elf_getdata(symscn, NULL);
    Elf_Scn *strscn = symsh.sh_link < shnum ? elf_getscn(elf, symsh.sh_link) : NULL;
    Elf_Data *strdata = strscn ? elf_getdata(strscn, NULL) : NULL;
    size_t entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (!symdata || !strdata || !entsz) {
        free(secs);
        return fail(img, err, path, "corrupt symbol table: %s", elf_errmsg(-1));
    }
    const char *strtab = strdata->d_buf;
    size_t strsize = strdata->d_size;
    size_t nsym = symdata->d_size / entsz;

    size_t cap = 0;
    for (size_t i = 1; i < nsym; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(symdata, (int)i, &sym)) continue;
        if (sym.st_name >= strsize || !strtab) continue; /* no usable name */
        const char *name = strtab + sym.st_name;
        if (!memchr(name, '\0', strsize - sym.st_name)) continue;
        unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
        unsigned shndx = sym.st_shndx;
        if (type == STT_SECTION || type == STT_FILE) continue; /* debugging symbols */
        bool local = bind == STB_LOCAL;
        if (opts->no_static && local) continue;
        /* the letter nm would print */
        char letter;
        if (shndx == SHN_UNDEF || shndx == SHN_COMMON)
            letter = 'U';
        else if (type == STT_GNU_IFUNC)
            letter = 'i';
        else if (bind == STB_WEAK)
            letter = type == STT_OBJECT ? 'V' : 'W';
        else if (bind == STB_GNU_UNIQUE)
            letter = 'u';
        else if (bind != STB_LOCAL && bind != STB_GLOBAL)
            letter = '?';
        else if (shndx == SHN_ABS)
            letter = 'a';
        else if (shndx >= shnum || shndx >= SHN_LORESERVE)
            letter = '?';
        else {
            letter = section_letter(&secs[shndx]);
            if (bind == STB_GLOBAL && letter >= 'a' && letter <= 'z') letter -= 'a' - 'A';
        }
        bool is_static = false;
        if (letter == 'T' || letter == 'W') {
            /* global text, or weak: kept */
        } else if (letter == 't' && local) {
            if (!name[0] || !static_name_ok_in(name, strtab + strsize)) continue;
            if (strncmp(name, "__gnu_compiled", 14) == 0 ||
                strncmp(name, "___gnu_compiled", 15) == 0)
                continue;
            if (opts->static_funcs_only && type != STT_FUNC) continue;
            is_static = true;
        } else {
            continue;
        }
        img->syms = xgrow(img->syms, &cap, img->nsyms + 1, sizeof(*img->syms));
        struct elf_sym *s = &img->syms[img->nsyms++];
        memset(s, 0, sizeof(*s));
        s->name = name;
        s->addr = sym.st_value;
        s->st_size = sym.st_size;
        s->section = shndx;
        s->nm_class = is_static ? 't' : (letter == 'W' ? 'W' : 'T');
        s->is_static = is_static;
        s->is_func = type == STT_FUNC;
    }
    free(secs);
    img->nsyms = elf_syms_finalize(img->syms, img->nsyms, img->text_hi);
    return 0;
}

size_t elf_image_lookup_index(const struct elf_image *img, uint64_t addr)
{
    size_t lo = SEARCH_UPPER(img->syms, img->nsyms, addr, addr);
    if (lo == 0) return (size_t)-1;
    if (addr > img->syms[lo - 1].end_addr) return (size_t)-1;
    return lo - 1;
}

const struct elf_sym *elf_image_lookup(const struct elf_image *img, uint64_t addr)
{
    size_t i = elf_image_lookup_index(img, addr);
    return i == (size_t)-1 ? NULL : &img->syms[i];
}

const unsigned char *elf_image_text_at(const struct elf_image *img, uint64_t addr, size_t *avail)
{
    if (!img->text || addr < img->text_lo || addr >= img->text_hi) {
        if (avail) *avail = 0;
        return NULL;
    }
    if (avail) *avail = (size_t)(img->text_hi - addr);
    return img->text + (addr - img->text_lo);
}
