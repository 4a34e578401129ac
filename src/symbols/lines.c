/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lines.c - DWARF line rows and function names (libdw), answering the
 * questions gprof asks bfd_find_nearest_line; see lines.h and
 * docs/internals/symbols.md.
 */
#include "lines.h"
#include "../model/search.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- string interning (open addressing over owned copies) ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static const char *intern(struct line_table *lt, const char *s)
{
    if (!s) return NULL;
    if ((lt->pooln + 1) * 2 > lt->poolcap) {
        size_t ncap = lt->poolcap ? lt->poolcap * 2 : 64;
        char **np = xcalloc(ncap, sizeof(*np));
        for (size_t i = 0; i < lt->poolcap; i++) {
            if (!lt->pool[i]) continue;
            size_t j = hash_str(lt->pool[i]) & (ncap - 1);
            while (np[j])
                j = (j + 1) & (ncap - 1);
            np[j] = lt->pool[i];
        }
        free(lt->pool);
        lt->pool = np;
        lt->poolcap = ncap;
    }
    size_t j = hash_str(s) & (lt->poolcap - 1);
    while (lt->pool[j]) {
        if (strcmp(lt->pool[j], s) == 0) return lt->pool[j];
        j = (j + 1) & (lt->poolcap - 1);
    }
    lt->pool[j] = xstrdup(s);
    lt->pooln++;
    return lt->pool[j];
}

static const char *intern_file(struct line_table *lt, const char *s)
{
    size_t before = lt->pooln;
    const char *p = intern(lt, s);
    if (lt->pooln != before) {
        lt->files = xrealloc(lt->files, (lt->nfiles + 1) * sizeof(*lt->files));
        lt->files[lt->nfiles++] = p;
    } else {
        bool known = false;
        for (size_t i = 0; i < lt->nfiles && !known; i++)
            known = lt->files[i] == p;
        if (!known) {
            lt->files = xrealloc(lt->files, (lt->nfiles + 1) * sizeof(*lt->files));
            lt->files[lt->nfiles++] = p;
        }
    }
    return p;
}

/* ---- collecting ---- */

struct rawrow {
    uint64_t addr;
    const char *file;
    unsigned line;
    bool end;
    size_t order;
};

struct collect {
    struct line_table *lt;
    struct rawrow *rows;
    size_t nrows, caprows;
    size_t capfuncs;
    size_t depth_limit;
    const unsigned char *line_sec; /* .debug_line, or NULL */
    size_t line_size;
    const unsigned char *str_sec, *line_str_sec; /* .debug_str, .debug_line_str */
    size_t str_size, line_str_size;
    bool big_endian;
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

/* ---- the line program, decoded the way BFD 2.40 does ----
 *
 * libdw's rows are right by the DWARF standard, but gprof's BFD differs in
 * one point: in a DWARF 5 line program, a sequence that has not yet set
 * the file register names file entry 0 (the unit's primary file), where
 * the standard (and libdw) says entry 1. GCC's DWARF 5 tables often put a
 * header first in entry 1 (e.g. <new>), so gprof reports the unit's file
 * with the header's line number. To give the same answer by the same rule
 * we decode the opcodes ourselves and only take the file names (by index)
 * from libdw. Before DWARF 5 the initial file is entry 1 in both. */

struct lp_reader {
    const unsigned char *p, *end;
    bool big_endian;
    bool bad;
};

static uint64_t lp_fixed(struct lp_reader *r, unsigned n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned b = r->big_endian ? i : n - 1 - i;
        v = (v << 8) | r->p[b];
    }
    r->p += n;
    return v;
}

static uint64_t lp_uleb(struct lp_reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (r->p < r->end) {
        unsigned char b = *r->p++;
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) return v;
    }
    r->bad = true;
    return v;
}

static int64_t lp_sleb(struct lp_reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;
    unsigned char b = 0;
    while (r->p < r->end) {
        b = *r->p++;
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
            return (int64_t)v;
        }
    }
    r->bad = true;
    return (int64_t)v;
}

/* File names of one unit, by DWARF index, resolved once each. They come
 * from our own reading of the line program's header (lp_header_files)
 * when it succeeds, else from libdw (`files`). */
struct lp_files {
    Dwarf_Files *files;
    size_t nfiles;
    const char *comp_dir;
    const char **names; /* interned; NULL = not yet resolved */
    bool *done;
    /* own reading: entry i is dir[i] + "/" + base[i] (dir[i] NULL: base
     * alone); strings point into the ELF sections */
    const char **dir, **base;
};

static const char *lp_file_src(struct lp_files *f, uint64_t idx, char **to_free)
{
    *to_free = NULL;
    if (!f->base) return dwarf_filesrc(f->files, idx, NULL, NULL);
    const char *b = f->base[idx];
    if (b[0] == '/' || !f->dir[idx]) return b;
    return *to_free = xasprintf("%s/%s", f->dir[idx], b);
}

static const char *lp_file(struct line_table *lt, struct lp_files *f, uint64_t idx)
{
    if (idx >= f->nfiles) return NULL;
    if (!f->done[idx]) {
        f->done[idx] = true;
        char *own;
        const char *src = lp_file_src(f, idx, &own);
        if (src && src[0] != '/' && f->comp_dir) {
            char *full = xasprintf("%s/%s", f->comp_dir, src);
            f->names[idx] = intern_file(lt, full);
            free(full);
        } else if (src) {
            f->names[idx] = intern_file(lt, src);
        }
        free(own);
    }
    return f->names[idx];
}

static void lp_row(struct collect *c, uint64_t addr, const char *file, int64_t line, bool end)
{
    c->rows = xgrow(c->rows, &c->caprows, c->nrows + 1, sizeof(*c->rows));
    struct rawrow *r = &c->rows[c->nrows];
    r->addr = addr;
    r->file = end ? NULL : file;
    r->line = line > 0 && line <= UINT32_MAX ? (unsigned)line : 0;
    r->end = end || !file;
    r->order = c->nrows;
    c->nrows++;
}

/* Open the line-program unit at `off` of a .debug_line section: check its
 * unit length (32- or 64-bit DWARF) and version (2 to 5), and leave *r at
 * the fields after header_length, limited to the unit. Sets *version,
 * *offsz (4 or 8: the size of section offsets) and *hlen (the header's
 * length from *r's position). False when the unit cannot be read. */
static bool lp_open_unit(const unsigned char *sec, size_t size, uint64_t off, bool big_endian,
                         struct lp_reader *r, unsigned *version, unsigned *offsz, uint64_t *hlen)
{
    if (off >= size) return false;
    *r = (struct lp_reader){sec + off, sec + size, big_endian, false};
    *offsz = 4;
    uint64_t len = lp_fixed(r, 4);
    if (len == 0xffffffffu) {
        *offsz = 8;
        len = lp_fixed(r, 8);
    }
    if (r->bad || len > (uint64_t)(r->end - r->p)) return false;
    r->end = r->p + len;
    *version = (unsigned)lp_fixed(r, 2);
    if (*version < 2 || *version > 5) return false;
    if (*version >= 5) lp_fixed(r, 2); /* address and segment selector sizes */
    *hlen = lp_fixed(r, *offsz);
    return !r->bad && *hlen <= (uint64_t)(r->end - r->p);
}

/* Decode the line program at `off` of .debug_line (`sec`). Returns false
 * when the header cannot be read (the caller then adds no rows). */
static bool lp_decode(struct collect *c, const unsigned char *sec, size_t size, uint64_t off,
                      bool big_endian, struct lp_files *files)
{
    struct lp_reader r;
    unsigned version, offsz;
    uint64_t hlen;
    if (!lp_open_unit(sec, size, off, big_endian, &r, &version, &offsz, &hlen)) return false;
    const unsigned char *prog = r.p + hlen;
    unsigned min_insn = (unsigned)lp_fixed(&r, 1);
    unsigned max_ops = version >= 4 ? (unsigned)lp_fixed(&r, 1) : 1;
    bool default_stmt = lp_fixed(&r, 1) != 0;
    (void)default_stmt;
    int line_base = (int)(signed char)lp_fixed(&r, 1);
    unsigned line_range = (unsigned)lp_fixed(&r, 1);
    unsigned opcode_base = (unsigned)lp_fixed(&r, 1);
    if (r.bad || opcode_base == 0 || r.p + (opcode_base - 1) > prog) return false;
    const unsigned char *std_len = r.p;
    if (max_ops == 0) max_ops = 1;
    r.p = prog;

    uint64_t initial_file = version >= 5 ? 0 : 1;
    while (r.p < r.end && !r.bad) {
        uint64_t addr = 0, op_index = 0, file = initial_file;
        int64_t line = 1;
        bool end = false;
        const char *fname = lp_file(c->lt, files, file);
        while (!end && r.p < r.end && !r.bad) {
            unsigned op = *r.p++;
            uint64_t adv = 0;
            bool advance = false;
            if (op >= opcode_base) {
                if (line_range == 0) return true;
                unsigned adj = op - opcode_base;
                adv = adj / line_range;
                line += line_base + (int)(adj % line_range);
                if (max_ops == 1) {
                    addr += adv * min_insn;
                } else {
                    addr += (op_index + adv) / max_ops * min_insn;
                    op_index = (op_index + adv) % max_ops;
                }
                lp_row(c, addr, fname, line, false);
                continue;
            }
            switch (op) {
            case 0: { /* extended */
                uint64_t elen = lp_uleb(&r);
                if (r.bad || elen == 0 || elen > (uint64_t)(r.end - r.p)) {
                    r.p = r.end;
                    break;
                }
                const unsigned char *next = r.p + elen;
                unsigned sub = *r.p++;
                if (sub == DW_LNE_end_sequence) {
                    lp_row(c, addr, NULL, line, true);
                    end = true;
                } else if (sub == DW_LNE_set_address) {
                    unsigned n = (unsigned)(elen - 1);
                    addr = n <= 8 ? lp_fixed(&r, n) : 0;
                    op_index = 0;
                }
                r.p = next;
                break;
            }
            case DW_LNS_copy:
                lp_row(c, addr, fname, line, false);
                break;
            case DW_LNS_advance_pc:
                adv = lp_uleb(&r);
                advance = true;
                break;
            case DW_LNS_advance_line:
                line += lp_sleb(&r);
                break;
            case DW_LNS_set_file:
                file = lp_uleb(&r);
                fname = lp_file(c->lt, files, file);
                break;
            case DW_LNS_const_add_pc:
                if (line_range == 0) return true;
                adv = (255 - opcode_base) / line_range;
                advance = true;
                break;
            case DW_LNS_fixed_advance_pc:
                addr += lp_fixed(&r, 2);
                op_index = 0;
                break;
            default: /* other standard opcodes: skip their operands */
                for (unsigned i = 0; i < std_len[op - 1]; i++)
                    lp_uleb(&r);
                break;
            }
            if (advance) {
                if (max_ops == 1) {
                    addr += adv * min_insn;
                } else {
                    addr += (op_index + adv) / max_ops * min_insn;
                    op_index = (op_index + adv) % max_ops;
                }
            }
        }
    }
    return true;
}

/* ---- the file table of a line program header ----
 *
 * libdw's dwarf_getsrcfiles (elfutils 0.188) decodes the whole line
 * program of the unit to answer, which is most of the DWARF reading time
 * on a big unit (and we decode the program ourselves anyway). So the
 * header's directory and file tables are read here, and each entry is
 * named the way libdw names it: an absolute file name as it is, else its
 * directory + "/" + the name; before DWARF 5, directory 0 is the unit's
 * DW_AT_comp_dir (no comp_dir: the name alone) and file entry 0 is libdw's
 * placeholder "???". Anything unexpected (an unknown form, an index out
 * of range, a truncated table) makes this fail, and the caller asks libdw
 * as before, so odd files get exactly the old answers. */

/* A NUL-terminated string at r->p (it must end inside the table). */
static const char *lp_cstr(struct lp_reader *r)
{
    const unsigned char *z = r->p < r->end ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
    if (!z) {
        r->bad = true;
        return NULL;
    }
    const char *s = (const char *)r->p;
    r->p = z + 1;
    return s;
}

/* A string at `off` of a string section, or NULL. */
static const char *sec_str(const unsigned char *sec, size_t size, uint64_t off)
{
    if (!sec || off >= size || !memchr(sec + off, 0, size - off)) return NULL;
    return (const char *)sec + off;
}

/* One attribute value of a DWARF 5 entry: a string (path) or a number
 * (directory index); other content is skipped. False on an unknown form. */
static bool lp_form(struct collect *c, struct lp_reader *r, uint64_t form, unsigned offsz,
                    const char **str, uint64_t *num)
{
    *str = NULL;
    *num = 0;
    switch (form) {
    case DW_FORM_string:
        *str = lp_cstr(r);
        return *str != NULL;
    case DW_FORM_line_strp:
        *str = sec_str(c->line_str_sec, c->line_str_size, lp_fixed(r, offsz));
        return *str != NULL;
    case DW_FORM_strp:
        *str = sec_str(c->str_sec, c->str_size, lp_fixed(r, offsz));
        return *str != NULL;
    case DW_FORM_data1:
        *num = lp_fixed(r, 1);
        return true;
    case DW_FORM_data2:
        *num = lp_fixed(r, 2);
        return true;
    case DW_FORM_data4:
        *num = lp_fixed(r, 4);
        return true;
    case DW_FORM_data8:
        *num = lp_fixed(r, 8);
        return true;
    case DW_FORM_udata:
        *num = lp_uleb(r);
        return true;
    case DW_FORM_data16:
        if (r->end - r->p < 16) return false;
        r->p += 16;
        return true;
    case DW_FORM_block: {
        uint64_t n = lp_uleb(r);
        if (n > (uint64_t)(r->end - r->p)) return false;
        r->p += n;
        return true;
    }
    default:
        return false;
    }
}

/* Read one DWARF 5 table (directories or files): each entry's path and
 * directory index. */
static bool lp_table5(struct collect *c, struct lp_reader *r, unsigned offsz, const char ***paths,
                      uint64_t **dirs, size_t *n)
{
    unsigned nfmt = (unsigned)lp_fixed(r, 1);
    uint64_t fmt[2 * 32];
    if (r->bad || nfmt > 32) return false;
    for (unsigned i = 0; i < nfmt; i++) {
        fmt[2 * i] = lp_uleb(r);
        fmt[2 * i + 1] = lp_uleb(r);
    }
    uint64_t cnt = lp_uleb(r);
    if (r->bad || cnt > (uint64_t)(r->end - r->p)) return false; /* >= 1 byte each */
    *paths = xcalloc(cnt + 1, sizeof(**paths));
    *dirs = xcalloc(cnt + 1, sizeof(**dirs));
    *n = cnt;
    for (uint64_t e = 0; e < cnt; e++) {
        for (unsigned i = 0; i < nfmt; i++) {
            const char *str;
            uint64_t num;
            if (!lp_form(c, r, fmt[2 * i + 1], offsz, &str, &num) || r->bad) return false;
            if (fmt[2 * i] == DW_LNCT_path) {
                if (!str) return false;
                (*paths)[e] = str;
            } else if (fmt[2 * i] == DW_LNCT_directory_index) {
                if (str) return false;
                (*dirs)[e] = num;
            }
        }
        if (!(*paths)[e]) return false;
    }
    return true;
}

/* Fill f->dir/f->base/f->nfiles from the header at `off`; false (and
 * nothing kept) when it cannot be read exactly. */
static bool lp_header_files(struct collect *c, uint64_t off, struct lp_files *f)
{
    struct lp_reader r;
    unsigned version, offsz;
    uint64_t hlen;
    if (!lp_open_unit(c->line_sec, c->line_size, off, c->big_endian, &r, &version, &offsz, &hlen))
        return false;
    r.end = r.p + hlen;                 /* the tables end with the header */
    lp_fixed(&r, version >= 4 ? 5 : 4); /* min_insn, [max_ops,] default_stmt, line_base, range */
    unsigned opcode_base = (unsigned)lp_fixed(&r, 1);
    if (r.bad || opcode_base == 0 || (uint64_t)(opcode_base - 1) > (uint64_t)(r.end - r.p))
        return false;
    r.p += opcode_base - 1;

    const char **dpath = NULL, **fpath = NULL;
    uint64_t *ddir = NULL, *fdir = NULL;
    size_t nd = 0, nf = 0;
    bool ok = false;
    if (version >= 5) {
        if (!lp_table5(c, &r, offsz, &dpath, &ddir, &nd)) goto done;
        if (!lp_table5(c, &r, offsz, &fpath, &fdir, &nf)) goto done;
    } else {
        /* directory 0 is the comp_dir, then the listed ones */
        size_t cap = 0;
        dpath = xgrow(dpath, &cap, 1, sizeof(*dpath));
        dpath[nd++] = f->comp_dir;
        for (;;) {
            const char *d = lp_cstr(&r);
            if (!d) goto done;
            if (!*d) break;
            dpath = xgrow(dpath, &cap, nd + 1, sizeof(*dpath));
            dpath[nd++] = d;
        }
        /* file 0 is libdw's placeholder */
        size_t fcap = 0, fdcap = 0;
        fpath = xgrow(fpath, &fcap, 1, sizeof(*fpath));
        fdir = xgrow(fdir, &fdcap, 1, sizeof(*fdir));
        fpath[0] = "???";
        fdir[0] = UINT64_MAX; /* no directory */
        nf = 1;
        for (;;) {
            const char *name = lp_cstr(&r);
            if (!name) goto done;
            if (!*name) break;
            uint64_t di = lp_uleb(&r);
            lp_uleb(&r); /* mtime */
            lp_uleb(&r); /* length */
            if (r.bad) goto done;
            fpath = xgrow(fpath, &fcap, nf + 1, sizeof(*fpath));
            fdir = xgrow(fdir, &fdcap, nf + 1, sizeof(*fdir));
            fpath[nf] = name;
            fdir[nf] = di;
            nf++;
        }
    }
    f->dir = xcalloc(nf + 1, sizeof(*f->dir));
    f->base = xcalloc(nf + 1, sizeof(*f->base));
    for (size_t i = 0; i < nf; i++) {
        f->base[i] = fpath[i];
        if (fdir[i] == UINT64_MAX) continue;
        if (fdir[i] >= nd) goto done; /* libdw refuses the table */
        f->dir[i] = dpath[fdir[i]];
    }
    f->nfiles = nf;
    ok = true;
done:
    if (!ok) {
        free(f->dir);
        free(f->base);
        f->dir = f->base = NULL;
    }
    free(dpath);
    free(fpath);
    free(ddir);
    free(fdir);
    return ok;
}

static void collect_cu(struct collect *c, Dwarf_Die *cu)
{
    struct line_table *lt = c->lt;
    const char *comp_dir = attr_string(cu, DW_AT_comp_dir);
    int lang = dwarf_srclang(cu);
    Dwarf_Lines *lines;
    size_t n;
    Dwarf_Attribute stmt;
    Dwarf_Word stmt_off;
    struct lp_files files = {.comp_dir = comp_dir};
    bool decoded = false;
    if (c->line_sec && dwarf_attr(cu, DW_AT_stmt_list, &stmt) &&
        dwarf_formudata(&stmt, &stmt_off) == 0 &&
        (lp_header_files(c, stmt_off, &files) ||
         dwarf_getsrcfiles(cu, &files.files, &files.nfiles) == 0)) {
        files.names = xcalloc(files.nfiles + 1, sizeof(*files.names));
        files.done = xcalloc(files.nfiles + 1, sizeof(*files.done));
        size_t before = c->nrows;
        decoded = lp_decode(c, c->line_sec, c->line_size, stmt_off, c->big_endian, &files);
        if (!decoded) c->nrows = before;
        free(files.names);
        free(files.done);
        free(files.dir);
        free(files.base);
    }
    if (!decoded && dwarf_getsrclines(cu, &lines, &n) == 0) {
        const char *last_src = NULL, *last_file = NULL;
        for (size_t i = 0; i < n; i++) {
            Dwarf_Line *l = dwarf_onesrcline(lines, i);
            Dwarf_Addr addr;
            int lineno = 0;
            bool end = false;
            if (!l || dwarf_lineaddr(l, &addr) != 0) continue;
            dwarf_lineno(l, &lineno);
            dwarf_lineendsequence(l, &end);
            const char *src = dwarf_linesrc(l, NULL, NULL);
            const char *file = NULL;
            if (!end && src) {
                if (src == last_src) {
                    file = last_file;
                } else if (src[0] != '/' && comp_dir) {
                    char *full = xasprintf("%s/%s", comp_dir, src);
                    file = intern_file(lt, full);
                    free(full);
                } else {
                    file = intern_file(lt, src);
                }
                last_src = src;
                last_file = file;
            }
            c->rows = xgrow(c->rows, &c->caprows, c->nrows + 1, sizeof(*c->rows));
            struct rawrow *r = &c->rows[c->nrows];
            r->addr = addr;
            r->file = end ? NULL : file;
            r->line = lineno > 0 ? (unsigned)lineno : 0;
            r->end = end || !file;
            r->order = c->nrows;
            c->nrows++;
        }
    }
    walk_dies(c, cu, c_family(lang), 0);
}

static int cmp_rawrow(const void *a, const void *b)
{
    const struct rawrow *l = a, *r = b;
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
    for (size_t i = 0; i < lt->poolcap; i++)
        free(lt->pool[i]);
    free(lt->pool);
    free(lt->rows);
    free(lt->files);
    free(lt->funcs);
    free(lt->fsegs);
    free(lt->esyms);
    memset(lt, 0, sizeof(*lt));
}

/* The (uncompressed) .debug_line section, and the string sections its
 * DWARF 5 tables point into; libdw has already decompressed a compressed
 * one in place when it opened the file. */
static void find_debug_line(Elf *elf, struct collect *c)
{
    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0) return;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
        const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
        const unsigned char **sec;
        size_t *size;
        if (!nm) continue;
        if (strcmp(nm, ".debug_line") == 0) {
            sec = &c->line_sec;
            size = &c->line_size;
        } else if (strcmp(nm, ".debug_str") == 0) {
            sec = &c->str_sec;
            size = &c->str_size;
        } else if (strcmp(nm, ".debug_line_str") == 0) {
            sec = &c->line_str_sec;
            size = &c->line_str_size;
        } else {
            continue;
        }
        if (*sec) continue;
        if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (d && d->d_buf && d->d_size) {
            *sec = d->d_buf;
            *size = d->d_size;
        }
    }
}

int line_table_open(struct line_table *lt, const struct elf_image *img, struct tally_error *err)
{
    memset(lt, 0, sizeof(*lt));
    Elf *elf = img->elf;
    if (!elf) return 0;
    collect_elf_syms(lt, elf);
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!dw) return 0; /* no (usable) DWARF: no line information */
    struct collect c = {.lt = lt, .big_endian = img->big_endian};
    find_debug_line(elf, &c);
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
    for (size_t i = 1; i < c.nrows && sorted; i++)
        sorted = cmp_rawrow(&c.rows[i - 1], &c.rows[i]) < 0;
    if (!sorted) qsort(c.rows, c.nrows, sizeof(*c.rows), cmp_rawrow);
    lt->rows = xmalloc((c.nrows ? c.nrows : 1) * sizeof(*lt->rows));
    for (size_t i = 0; i < c.nrows; i++) {
        struct rawrow *r = &c.rows[i];
        /* of several rows at one address (and of one kind) the last counts */
        if (i + 1 < c.nrows && c.rows[i + 1].addr == r->addr && c.rows[i + 1].end == r->end)
            continue;
        struct line_row *o = &lt->rows[lt->nrows++];
        o->addr = r->addr;
        o->file = r->end ? NULL : r->file;
        o->line = r->line;
    }
    free(c.rows);
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
