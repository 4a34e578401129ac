/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarf_line.c - the DWARF line-program decoder of the line table (see
 * dwarf_line.h and docs/internals/symbols.md): the header's file tables
 * and the opcodes, read the way GNU BFD 2.40 reads them, with libdw as
 * the fallback for what we do not read ourselves.
 */
#include "dwarf_line.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

/* The unit being decoded: where rows go, and the sections. */
struct unit {
    struct dwarf_line_rows *out;
    const struct dwarf_line_sections *sec;
};

/* A file name, interned; each distinct one is also listed once in
 * lt->files, in the order first seen. */
static const char *file_name(struct dwarf_line_rows *lt, const char *s)
{
    size_t before = lt->names->n;
    const char *p = strtab_str(lt->names, strtab_intern(lt->names, s, strlen(s)));
    bool known = false;
    if (lt->names->n == before)
        for (size_t i = 0; i < lt->nfiles && !known; i++)
            known = lt->files[i] == p;
    if (!known) {
        lt->files = xrealloc(lt->files, (lt->nfiles + 1) * sizeof(*lt->files));
        lt->files[lt->nfiles++] = p;
    }
    return p;
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

static const char *lp_file(struct dwarf_line_rows *lt, struct lp_files *f, uint64_t idx)
{
    if (idx >= f->nfiles) return NULL;
    if (!f->done[idx]) {
        f->done[idx] = true;
        char *own;
        const char *src = lp_file_src(f, idx, &own);
        if (src && src[0] != '/' && f->comp_dir) {
            char *full = xasprintf("%s/%s", f->comp_dir, src);
            f->names[idx] = file_name(lt, full);
            free(full);
        } else if (src) {
            f->names[idx] = file_name(lt, src);
        }
        free(own);
    }
    return f->names[idx];
}

static void lp_row(struct unit *c, uint64_t addr, const char *file, int64_t line, bool end)
{
    c->out->rows = xgrow(c->out->rows, &c->out->cap, c->out->nrows + 1, sizeof(*c->out->rows));
    struct dwarf_line_row *r = &c->out->rows[c->out->nrows];
    r->addr = addr;
    r->file = end ? NULL : file;
    r->line = line > 0 && line <= UINT32_MAX ? (unsigned)line : 0;
    r->end = end || !file;
    r->order = c->out->nrows;
    c->out->nrows++;
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
static bool lp_decode(struct unit *c, const unsigned char *sec, size_t size, uint64_t off,
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
        const char *fname = lp_file(c->out, files, file);
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
                fname = lp_file(c->out, files, file);
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
static bool lp_form(struct unit *c, struct lp_reader *r, uint64_t form, unsigned offsz,
                    const char **str, uint64_t *num)
{
    *str = NULL;
    *num = 0;
    switch (form) {
    case DW_FORM_string:
        *str = lp_cstr(r);
        return *str != NULL;
    case DW_FORM_line_strp:
        *str = sec_str(c->sec->line_str, c->sec->line_str_size, lp_fixed(r, offsz));
        return *str != NULL;
    case DW_FORM_strp:
        *str = sec_str(c->sec->str, c->sec->str_size, lp_fixed(r, offsz));
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
static bool lp_table5(struct unit *c, struct lp_reader *r, unsigned offsz, const char ***paths,
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
static bool lp_header_files(struct unit *c, uint64_t off, struct lp_files *f)
{
    struct lp_reader r;
    unsigned version, offsz;
    uint64_t hlen;
    if (!lp_open_unit(c->sec->line, c->sec->line_size, off, c->sec->big_endian, &r, &version,
                      &offsz, &hlen))
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

void dwarf_line_unit(struct dwarf_line_rows *out, const struct dwarf_line_sections *sec,
                     Dwarf_Die *cu, const char *comp_dir)
{
    struct unit unit = {out, sec}, *c = &unit;
    struct dwarf_line_rows *lt = out;
    Dwarf_Lines *lines;
    size_t n;
    Dwarf_Attribute stmt;
    Dwarf_Word stmt_off;
    struct lp_files files = {.comp_dir = comp_dir};
    bool decoded = false;
    if (c->sec->line && dwarf_attr(cu, DW_AT_stmt_list, &stmt) &&
        dwarf_formudata(&stmt, &stmt_off) == 0 &&
        (lp_header_files(c, stmt_off, &files) ||
         dwarf_getsrcfiles(cu, &files.files, &files.nfiles) == 0)) {
        files.names = xcalloc(files.nfiles + 1, sizeof(*files.names));
        files.done = xcalloc(files.nfiles + 1, sizeof(*files.done));
        size_t before = c->out->nrows;
        decoded =
            lp_decode(c, c->sec->line, c->sec->line_size, stmt_off, c->sec->big_endian, &files);
        if (!decoded) c->out->nrows = before;
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
                    file = file_name(lt, full);
                    free(full);
                } else {
                    file = file_name(lt, src);
                }
                last_src = src;
                last_file = file;
            }
            c->out->rows =
                xgrow(c->out->rows, &c->out->cap, c->out->nrows + 1, sizeof(*c->out->rows));
            struct dwarf_line_row *r = &c->out->rows[c->out->nrows];
            r->addr = addr;
            r->file = end ? NULL : file;
            r->line = lineno > 0 ? (unsigned)lineno : 0;
            r->end = end || !file;
            r->order = c->out->nrows;
            c->out->nrows++;
        }
    }
}

/* The (uncompressed) .debug_line section, and the string sections its
 * DWARF 5 tables point into; libdw has already decompressed a compressed
 * one in place when it opened the file. */
void dwarf_line_sections_find(struct dwarf_line_sections *c, Elf *elf)
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
            sec = &c->line;
            size = &c->line_size;
        } else if (strcmp(nm, ".debug_str") == 0) {
            sec = &c->str;
            size = &c->str_size;
        } else if (strcmp(nm, ".debug_line_str") == 0) {
            sec = &c->line_str;
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
