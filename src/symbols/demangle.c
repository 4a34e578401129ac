/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.c - names for printing, demangled with libiberty the way gprof
 * (through bfd_demangle) does it.
 */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

int demangle_style_parse(const char *s, enum demangle_style *out, struct tally_error *err)
{
    static const struct {
        const char *name;
        enum demangle_style style;
    } styles[] = {
        {"none", DEMANGLE_NONE}, {"auto", DEMANGLE_AUTO}, {"gnu-v3", DEMANGLE_GNU_V3},
        {"java", DEMANGLE_JAVA}, {"gnat", DEMANGLE_GNAT}, {"dlang", DEMANGLE_DLANG},
        {"rust", DEMANGLE_RUST},
    };
    for (size_t i = 0; s && i < sizeof(styles) / sizeof(styles[0]); i++) {
        if (strcmp(s, styles[i].name) == 0) {
            *out = styles[i].style;
            return 0;
        }
    }
    return tally_error_set(err, "", 0, "unknown demangling style `%s'", s ? s : "");
}

static int style_bits(enum demangle_style style)
{
    switch (style) {
    case DEMANGLE_GNU_V3:
        return DMGL_GNU_V3;
    case DEMANGLE_JAVA:
        return DMGL_JAVA;
    case DEMANGLE_GNAT:
        return DMGL_GNAT;
    case DEMANGLE_DLANG:
        return DMGL_DLANG;
    case DEMANGLE_RUST:
        return DMGL_RUST;
    case DEMANGLE_AUTO:
    case DEMANGLE_NONE:
    default:
        return DMGL_AUTO;
    }
}

char *demangle_name(const char *name, enum demangle_style style, unsigned flags)
{
    if (!name || style == DEMANGLE_NONE) return NULL;
    /* leading dots and dollars stay in front, an @suffix stays behind */
    const char *pre = name;
    while (*name == '.' || *name == '$')
        name++;
    size_t pre_len = (size_t)(name - pre);
    const char *suf = strchr(name, '@');
    char *core = suf ? xstrndup(name, (size_t)(suf - name)) : NULL;
    int opts = style_bits(style);
    if (flags & DEMANGLE_PARAMS) opts |= DMGL_PARAMS;
    if (flags & DEMANGLE_ANSI) opts |= DMGL_ANSI;
    char *res = cplus_demangle(core ? core : name, opts);
    free(core);
    if (!res) return NULL;
    if (pre_len == 0 && !suf) return res;
    char *out = xasprintf("%.*s%s%s", (int)pre_len, pre, res, suf ? suf : "");
    free(res);
    return out;
}

char *demangle_or_copy(const char *name, enum demangle_style style, unsigned flags)
{
    char *d = demangle_name(name, style, flags);
    return d ? d : xstrdup(name ? name : "");
}
