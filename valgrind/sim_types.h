/* sim_types.h: the small set of types and helpers shared by tally's cache
 * and branch simulators (sim_cache.h, sim_branch.h).
 *
 * The simulators are written once and compiled two ways:
 *  - inside the Valgrind tool (tl_sim.c), where everything comes from
 *    Valgrind's pub_tool_*.h headers and no libc is linked;
 *  - as plain host C for unit tests, when TALLY_SIM_HOST is defined before
 *    this header is included; then the same names map onto libc.
 *
 * Names available in both builds:
 *   types   UChar Char HChar UShort Short UInt Int ULong Long UWord Word
 *           Addr SizeT Bool True False
 *   asserts tl_assert(expr)
 *   memory  sim_malloc(tag, bytes)  never returns NULL (aborts instead)
 *           sim_free(p)
 *           sim_memset(p, byte, n)
 *   strings sim_strlen(s), sim_strtoll10(s, &end) (decimal, like strtoll),
 *           sim_strcmp, sim_strncmp
 *   output  sim_dmsg(fmt, ...)  a diagnostic line (Valgrind's dmsg, or stderr)
 *   tool    TALLY_SIM_TOOL is defined only in the tool build, for code that
 *           needs the core (e.g. VG_(machine_get_cache_info)).
 *
 * Copyright (C) 2026 the tally authors.  GPL-2.0-or-later. */
#ifndef TALLY_SIM_TYPES_H
#define TALLY_SIM_TYPES_H

#ifdef TALLY_SIM_HOST

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char UChar;
typedef signed char Char;
typedef char HChar;
typedef unsigned short UShort;
typedef signed short Short;
typedef unsigned int UInt;
typedef signed int Int;
typedef unsigned long long ULong;
typedef signed long long Long;
typedef unsigned long UWord;
typedef signed long Word;
typedef UWord Addr;
typedef UWord SizeT;
typedef unsigned char Bool;
#define True ((Bool)1)
#define False ((Bool)0)

#define tl_assert(expr) assert(expr)

static inline void *sim_malloc(const char *tag, size_t n)
{
    void *p = malloc(n ? n : 1);
    (void)tag;
    if (!p) abort();
    return p;
}
#define sim_free(p) free(p)
#define sim_memset(p, c, n) memset((p), (c), (n))
#define sim_strlen(s) strlen(s)
#define sim_strcmp(a, b) strcmp((a), (b))
#define sim_strncmp(a, b, n) strncmp((a), (b), (n))
#define sim_strtoll10(s, endp) strtoll((s), (endp), 10)
#define sim_dmsg(...) fprintf(stderr, __VA_ARGS__)

#else /* the Valgrind tool build */

#define TALLY_SIM_TOOL 1
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"

#define sim_malloc(tag, n) VG_(malloc)((tag), (n))
#define sim_free(p) VG_(free)(p)
#define sim_memset(p, c, n) VG_(memset)((p), (c), (n))
#define sim_strlen(s) VG_(strlen)(s)
#define sim_strcmp(a, b) VG_(strcmp)((a), (b))
#define sim_strncmp(a, b, n) VG_(strncmp)((a), (b), (n))
#define sim_strtoll10(s, endp) VG_(strtoll10)((s), (endp))
#define sim_dmsg(...) VG_(dmsg)(__VA_ARGS__)

#endif

/* A cache's geometry: bytes, ways, bytes per line (-1: not given). */
typedef struct {
    Int size, assoc, line_size;
} cache_cfg;

#endif /* TALLY_SIM_TYPES_H */
