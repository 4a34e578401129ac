/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.h - symbol name demangling with libiberty, as gprof does it.
 *
 * gprof demangles names it prints (not the ones it sorts or matches) with
 * DMGL_ANSI | DMGL_PARAMS, in the style chosen by --demangle=STYLE
 * (default "auto"); --no-demangle prints raw names.
 */
#ifndef TALLY_DEMANGLE_H
#define TALLY_DEMANGLE_H

#include <stdbool.h>

#include "../model/error.h"

enum demangle_style {
    DEMANGLE_NONE = 0, /* --no-demangle: never demangle */
    DEMANGLE_AUTO,     /* default, and --demangle without a style */
    DEMANGLE_GNU_V3,
    DEMANGLE_JAVA,
    DEMANGLE_GNAT,
    DEMANGLE_DLANG,
    DEMANGLE_RUST,
};

/* Flags for demangle_name (gprof's default is both). */
#define DEMANGLE_PARAMS 1u /* show function parameters */
#define DEMANGLE_ANSI 2u   /* show const, volatile, ... */
#define DEMANGLE_DEFAULT (DEMANGLE_PARAMS | DEMANGLE_ANSI)

/*
 * Parse the STYLE of --demangle=STYLE ("auto", "gnu-v3", "java", "gnat",
 * "dlang", "rust", and "none" = DEMANGLE_NONE); on an unknown name returns -1 with
 * "unknown demangling style `STYLE'" in err.
 */
int demangle_style_parse(const char *s, enum demangle_style *out, struct tally_error *err);

/*
 * Demangle `name` like gprof's print (bfd_demangle): leading '.' or '$'
 * characters are kept as a prefix, an '@...' suffix (symbol version,
 * @plt) is kept after the demangled part. Returns a malloc'd string, or
 * NULL when the name is not mangled in `style` (or style is NONE): print
 * the raw name then.
 */
char *demangle_name(const char *name, enum demangle_style style, unsigned flags);

/* Convenience: demangled copy or, when not mangled, a copy of the name
 * (always malloc'd, never NULL). */
char *demangle_or_copy(const char *name, enum demangle_style style, unsigned flags);

#endif
