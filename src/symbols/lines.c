/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lines.c - DWARF line rows and function names (libdw), answering the
 * questions gprof asks bfd_find_nearest_line; see lines.h and
 * docs/internals/symbols.md.
 */
#include "lines.h"
#include "dwarf_line.h"
#include "../model/search.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- names ---- */

/* s interned in the table's strings (NULL stays NULL). */
static const char *intern(struct line_table *lt, const char *s)
{
    if (!s) return NULL;
    return strtab_str(&lt->names, strtab_intern(&lt->names, s, strlen(s)));
}

/* ---- collecting ---- */

struct collect {
    struct line_table *lt;
    struct dwarf_line_rows dl; /* the line programs' rows (dwarf_line.h) */
    struct dwarf_line_sections sec;
    size_t capfuncs;
    size_t depth_limit;
};

static bool c_family(int lang)
{
    switch (lang) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_C99:
    case DW_LANG_C11:
    case DW_LANG_Cobol74:
    case DW_LANG_Cobol85:
    case DW_LANG_Fortran77:
    case DW_LANG_Pascal83:
    case DW_LANG_PLI:
    case DW_LANG_UPC:
    case DW_LANG_Mips_Assembler:
        return true;
    default:
        return false;
    }
}

static const char *attr_string(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute a;
    if (!dwarf_attr_integrate(die, name, &a)) return NULL;
    return dwarf_formstring(&a);
}

static void add_func(struct collect *c, Dwarf_Die *die, bool cfam)
{
    struct line_table *lt = c->lt;
    const char *name = attr_string(die, DW_AT_linkage_name);
    if (!name) name = attr_string(die, DW_AT_MIPS_linkage_name);
    bool linkage = name != NULL;
    if (!name) {
        name = attr_string(die, DW_AT_name);
        linkage = name && cfam;
    }
    const char *iname = intern(lt, name);
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    int guard = 0;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0 && guard++ < 100000) {
        if (hi <= lo) continue;
        lt->funcs = xgrow(lt->funcs, &c->capfuncs, lt->nfuncs + 1, sizeof(*lt->funcs));
        struct line_func *f = &lt->funcs[lt->nfuncs];
        f->lo = lo;
        f->hi = hi;
        f->name = iname;
        f->is_linkage = linkage;
        f->order = lt->nfuncs;
        lt->nfuncs++;
    }
}

static void walk_dies(struct collect *c, Dwarf_Die *parent, bool cfam, size_t depth)
{
    Dwarf_Die child;
    if (depth > 200 || dwarf_child(parent, &child) != 0) return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
            tag == DW_TAG_entry_point)
            add_func(c, &child, cfam);
        if (dwarf_haschildren(&child)) walk_dies(c, &child, cfam, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
}

static void collect_cu(struct collect *c, Dwarf_Die *cu)
{
    dwarf_line_unit(&c->dl, &c->sec, cu, attr_string(cu, DW_AT_comp_dir));
    walk_dies(c, cu, c_family(dwarf_srclang(cu)), 0);
}

static int cmp_rawrow(const void *a, const void *b)
{
    const struct dwarf_line_row *l = a, *r = b;
    if (l->addr != r->addr) return l->addr < r->addr ? -1 : 1;
    if (l->end != r->end) return l->end ? -1 : 1;
    return l->order < r->order ? -1 : l->order > r->order;
}

static int cmp_func(const void *a, const void *b)
{
    const struct line_func *l = a, *r = b;
    if (l->lo != r->lo) return l->lo < r->lo ? -1 : 1;
    return l->order < r->order ? -1 : l->order > r->order;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t l = *(const uint64_t *)a, r = *(const uint64_t *)b;
    return l < r ? -1 : l > r;
}

static int cmp_esym(const void *a, const void *b)
{
    const struct line_elfsym *l = a, *r = b;
    if (l->addr != r->addr) return l->addr < r->addr ? -1 : 1;
    return l->order < r->order ? -1 : l->order > r->order;
}

/* Is f a better (innermost) choice than g? Smaller range, then later DIE. */
static bool func_better(const struct line_func *f, const struct line_func *g)
{
    uint64_t lf = f->hi - f->lo, lg = g->hi - g->lo;
    if (lf != lg) return lf < lg;
    return f->order > g->order;
}

/* Elementary segments with the innermost function of each. */
static void build_fsegs(struct line_table *lt)
{
    size_t nb = lt->nfuncs * 2;
    if (nb == 0) return;
    uint64_t *b = xmalloc(nb * sizeof(*b));
    for (size_t i = 0; i < lt->nfuncs; i++) {
        b[2 * i] = lt->funcs[i].lo;
        b[2 * i + 1] = lt->funcs[i].hi;
    }
    qsort(b, nb, sizeof(*b), cmp_u64);
    size_t nu = 0;
    for (size_t i = 0; i < nb; i++)
        if (nu == 0 || b[nu - 1] != b[i]) b[nu++] = b[i];
    lt->fsegs = xmalloc(nu * sizeof(*lt->fsegs));
    size_t *active = NULL, nact = 0, capact = 0, next = 0;
    for (size_t s = 0; s < nu; s++) {
        uint64_t at = b[s];
        size_t k = 0;
        for (size_t i = 0; i < nact; i++)
            if (lt->funcs[active[i]].hi > at) active[k++] = active[i];
        nact = k;
        while (next < lt->nfuncs && lt->funcs[next].lo <= at) {
            if (lt->funcs[next].hi > at) {
                active = xgrow(active, &capact, nact + 1, sizeof(*active));
                active[nact++] = next;
            }
            next++;
        }
        size_t best = (size_t)-1;
        for (size_t i = 0; i < nact; i++)
            if (best == (size_t)-1 || func_better(&lt->funcs[active[i]], &lt->funcs[best]))
                best = active[i];
        lt->fsegs[lt->nfsegs].start = at;
        lt->fsegs[lt->nfsegs].func = best;
        lt->nfsegs++;
    }
    free(active);
    free(b);
}

/* The .text symbols that can name code when DWARF cannot. */
static void collect_elf_syms(struct line_table *lt, Elf *elf)
{
    size_t shnum = 0, shstrndx = 0, textndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0) return;
    Elf_Scn *symscn = NULL;
    GElf_Shdr symsh = {0};
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) continue;
        const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!textndx && nm && strcmp(nm, ".text") == 0) textndx = i;
        if (!symscn && sh.sh_type == SHT_SYMTAB) {
            symscn = scn;
            symsh = sh;
        }
    }
    if (!symscn || !textndx) return;
    Elf_Data *d = elf_getdata(symscn, NULL);
    size_t entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (!d || !entsz) return;
    size_t n = d->d_size / entsz, cap = 0;
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s) || s.st_shndx != textndx) continue;
        unsigned type = GELF_ST_TYPE(s.st_info);
        if (type != STT_NOTYPE && type != STT_FUNC && type != STT_GNU_IFUNC) continue;
        const char *name = elf_strptr(elf, symsh.sh_link, s.st_name);
        if (!name) continue;
        lt->esyms = xgrow(lt->esyms, &cap, lt->nesyms + 1, sizeof(*lt->esyms));
        struct line_elfsym *e = &lt->esyms[lt->nesyms];
        e->addr = s.st_value;
        e->size = s.st_size ? s.st_size : 1;
        e->name = intern(lt, name);
        e->is_func = type == STT_FUNC;
        e->is_global = GELF_ST_BIND(s.st_info) == STB_GLOBAL;
        e->order = lt->nesyms;
        lt->nesyms++;
    }
    qsort(lt->esyms, lt->nesyms, sizeof(*lt->esyms), cmp_esym);
}

void line_table_close(struct line_table *lt)
{
    if (!lt) return;
    strtab_release(&lt->names);
    free(lt->rows);
    free(lt->files);
    free(lt->funcs);
    free(lt->fsegs);
    free(lt->esyms);
    memset(lt, 0, sizeof(*lt));
}

int line_table_open(struct line_table *lt, const struct elf_image *img, struct tally_error *err)
{
    return line_table_open_elf(lt, img->elf, img->big_endian, err);
}

int line_table_open_elf(struct line_table *lt, Elf *elf, bool big_endian, struct tally_error *err)
{
    memset(lt, 0, sizeof(*lt));
    strtab_init(&lt->names);
    if (!elf) return 0;
    collect_elf_syms(lt, elf);
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!dw) return 0; /* no (usable) DWARF: no line information */
    struct collect c = {.lt = lt, .dl = {.names = &lt->names}, .sec = {.big_endian = big_endian}};
    dwarf_line_sections_find(&c.sec, elf);
    Dwarf_CU *cu = NULL;
    Dwarf_Half version;
    uint8_t unit_type;
    Dwarf_Die cudie;
    unsigned guard = 0;
    while (dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, NULL) == 0 &&
           guard++ < 10000000) {
        if (unit_type == DW_UT_compile || unit_type == DW_UT_partial || unit_type == DW_UT_skeleton)
            collect_cu(&c, &cudie);
    }
    dwarf_end(dw);

    /* one unit's program is usually in address order already (a single
     * sequence, or sequences emitted in order): skip the sort then, which
     * gives the same array, since cmp_rawrow is a total order (`order`
     * breaks every tie) */
    bool sorted = true;
    for (size_t i = 1; i < c.dl.nrows && sorted; i++)
        sorted = cmp_rawrow(&c.dl.rows[i - 1], &c.dl.rows[i]) < 0;
    if (!sorted) qsort(c.dl.rows, c.dl.nrows, sizeof(*c.dl.rows), cmp_rawrow);
    lt->rows = xmalloc((c.dl.nrows ? c.dl.nrows : 1) * sizeof(*lt->rows));
    for (size_t i = 0; i < c.dl.nrows; i++) {
        struct dwarf_line_row *r = &c.dl.rows[i];
        /* of several rows at one address (and of one kind) the last counts */
        if (i + 1 < c.dl.nrows && c.dl.rows[i + 1].addr == r->addr &&
            c.dl.rows[i + 1].end == r->end)
            continue;
        struct line_row *o = &lt->rows[lt->nrows++];
        o->addr = r->addr;
        o->file = r->end ? NULL : r->file;
        o->line = r->line;
    }
    free(c.dl.rows);
    lt->files = c.dl.files;
    lt->nfiles = c.dl.nfiles;
    qsort(lt->funcs, lt->nfuncs, sizeof(*lt->funcs), cmp_func);
    build_fsegs(lt);
    (void)err;
    return 0;
}

/* ---- lookups ---- */

/* How many rows / function segments / ELF symbols start at or before addr
 * (each table is sorted by address): the position after the one that
 * covers addr. */
static size_t rows_upto(const struct line_table *lt, uint64_t addr)
{
    return SEARCH_UPPER(lt->rows, lt->nrows, addr, addr);
}

static size_t fsegs_upto(const struct line_table *lt, uint64_t addr)
{
    return SEARCH_UPPER(lt->fsegs, lt->nfsegs, start, addr);
}

static size_t esyms_upto(const struct line_table *lt, uint64_t addr)
{
    return SEARCH_UPPER(lt->esyms, lt->nesyms, addr, addr);
}

/* The nearest .text symbol at or before addr (lo = esyms_upto(addr)), with
 * the tie rules. */
static const struct line_elfsym *elfsym_at(const struct line_table *lt, uint64_t addr, size_t lo)
{
    if (lo == 0) return NULL;
    size_t first = lo - 1;
    while (first > 0 && lt->esyms[first - 1].addr == lt->esyms[lo - 1].addr)
        first--;
    const struct line_elfsym *best = &lt->esyms[first];
    for (size_t i = first + 1; i < lo; i++) {
        const struct line_elfsym *s = &lt->esyms[i];
        if (best->addr + best->size <= addr) {
            if (s->size > best->size) best = s;
            continue;
        }
        if (s->addr + s->size <= addr) continue;
        if (s->is_func != best->is_func) {
            if (s->is_func) best = s;
            continue;
        }
        if (s->is_global != best->is_global) {
            if (s->is_global) best = s;
            continue;
        }
        if (s->size < best->size) best = s;
    }
    return best;
}

/* line_table_find with the three positions already known. */
static bool find_at(const struct line_table *lt, uint64_t addr, size_t rpos, size_t fpos,
                    size_t epos, struct src_loc *loc)
{
    if (rpos == 0) return false;
    const struct line_row *r = &lt->rows[rpos - 1];
    if (!r->file || r->line == 0) return false;
    const struct line_func *f = NULL;
    if (fpos > 0 && lt->fsegs[fpos - 1].func != (size_t)-1)
        f = &lt->funcs[lt->fsegs[fpos - 1].func];
    const char *name = NULL;
    if (f && f->is_linkage) {
        name = f->name;
    } else {
        const struct line_elfsym *e = elfsym_at(lt, addr, epos);
        if (e && (!f || e->addr == f->lo || !f->name))
            name = e->name;
        else if (f)
            name = f->name;
    }
    if (!name) return false;
    if (loc) {
        loc->file = r->file;
        loc->line = r->line;
        loc->func = name;
    }
    return true;
}

bool line_table_find(const struct line_table *lt, uint64_t addr, struct src_loc *loc)
{
    return find_at(lt, addr, rows_upto(lt, addr), fsegs_upto(lt, addr), esyms_upto(lt, addr), loc);
}

void line_table_annotate(const struct line_table *lt, struct elf_image *img)
{
    for (size_t i = 0; i < img->nsyms; i++) {
        struct src_loc loc;
        if (line_table_find(lt, img->syms[i].addr, &loc)) {
            img->syms[i].file = loc.file;
            img->syms[i].line = loc.line;
        } else {
            img->syms[i].file = NULL;
            img->syms[i].line = 0;
        }
    }
}

/* Every address in [lo, hi) where line_table_find's answer can change,
 * ascending, each once. The row addresses (most of them) are already in
 * order: only the others are sorted, then the two lists are merged. */
static uint64_t *breakpoints(const struct line_table *lt, uint64_t lo, uint64_t hi, size_t *np)
{
    size_t cap = 0, n = 0;
    uint64_t *b = NULL;
#define ADD(x)                                                                                     \
    do {                                                                                           \
        uint64_t x_ = (x);                                                                         \
        if (x_ >= lo && x_ < hi) {                                                                 \
            b = xgrow(b, &cap, n + 1, sizeof(*b));                                                 \
            b[n++] = x_;                                                                           \
        }                                                                                          \
    } while (0)
    ADD(lo);
    for (size_t i = 0; i < lt->nfsegs; i++)
        ADD(lt->fsegs[i].start);
    for (size_t i = 0; i < lt->nesyms; i++) {
        ADD(lt->esyms[i].addr);
        ADD(lt->esyms[i].addr + lt->esyms[i].size);
    }
#undef ADD
    if (n) qsort(b, n, sizeof(*b), cmp_u64);
    /* lt->rows is sorted by address */
    uint64_t *m = xmalloc((n + lt->nrows + 1) * sizeof(*m));
    size_t u = 0, i = 0, k = 0;
    while (i < n || k < lt->nrows) {
        uint64_t x;
        if (k < lt->nrows && (lt->rows[k].addr < lo || lt->rows[k].addr >= hi)) {
            k++;
            continue;
        }
        if (k >= lt->nrows || (i < n && b[i] <= lt->rows[k].addr))
            x = b[i++];
        else
            x = lt->rows[k++].addr;
        if (u == 0 || m[u - 1] != x) m[u++] = x;
    }
    free(b);
    *np = u;
    return m;
}

void line_table_make_line_syms(const struct line_table *lt, struct elf_image *img)
{
    line_table_annotate(lt, img);
    size_t nb = 0;
    uint64_t *b = breakpoints(lt, img->text_lo, img->text_hi, &nb);
    struct elf_sym *out = NULL;
    size_t n = 0, cap = 0;
    struct elf_sym *prev = NULL;
    /* the breakpoints ascend: move the three positions forward instead of
     * searching for each */
    size_t rpos = 0, fpos = 0, epos = 0;
    for (size_t i = 0; i < nb; i++) {
        struct src_loc loc;
        uint64_t at = b[i];
        while (rpos < lt->nrows && lt->rows[rpos].addr <= at)
            rpos++;
        while (fpos < lt->nfsegs && lt->fsegs[fpos].start <= at)
            fpos++;
        while (epos < lt->nesyms && lt->esyms[epos].addr <= at)
            epos++;
        if (!find_at(lt, at, rpos, fpos, epos, &loc)) continue;
        if (prev && prev->line == loc.line && strcmp(prev->name, loc.func) == 0 &&
            prev->file == loc.file)
            continue;
        out = xgrow(out, &cap, n + 1, sizeof(*out));
        prev = &out[n];
        struct elf_sym *s = &out[n];
        memset(s, 0, sizeof(*s));
        s->name = loc.func;
        s->file = loc.file;
        s->line = loc.line;
        s->addr = b[i];
        s->nm_class = 't';
        s->is_func = false;
        if (n > 0 && out[n - 1].file == s->file && strcmp(out[n - 1].name, s->name) == 0) {
            s->is_static = out[n - 1].is_static;
        } else {
            const struct elf_sym *f = elf_image_lookup(img, s->addr);
            s->is_static = f ? f->is_static : false;
        }
        s->nm_class = s->is_static ? 't' : 'T';
        n++;
    }
    free(b);
    out = xgrow(out, &cap, n + img->nsyms + 1, sizeof(*out));
    memcpy(out + n, img->syms, img->nsyms * sizeof(*out));
    n += img->nsyms;
    free(img->syms);
    img->syms = out;
    img->nsyms = elf_syms_finalize(out, n, img->text_hi);
}

/* ---- file names ---- */

const char *line_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}
