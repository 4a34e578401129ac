/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_compat.h - the differences between the versions of Valgrind's tool
 * API that tally's tool builds against (3.19 to 3.27), in one place. The
 * version is valgrind.h's (__VALGRIND_MAJOR__, __VALGRIND_MINOR__) of the
 * install built against; docs/tally-record.md ("Other Valgrind versions")
 * lists what differs and why.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_COMPAT_H
#define TALLY_TL_COMPAT_H

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clreq.h"
#include "pub_tool_mallocfree.h"

#define TL_VG_AT_LEAST(maj, min)                                                                   \
    (__VALGRIND_MAJOR__ > (maj) || (__VALGRIND_MAJOR__ == (maj) && __VALGRIND_MINOR__ >= (min)))

/*
 * n bytes of fresh anonymous pages (zero) for the tool's own data, or the
 * end of the run with Valgrind's out-of-memory message naming `who`. From
 * 3.21 VG_(am_shadow_alloc) returns a SysRes (the error kept), and
 * VG_(out_of_memory_NORETURN) takes that error; before, a pointer or NULL.
 */
static inline UChar *tl_fresh_pages(SizeT n, const HChar *who)
{
#if TL_VG_AT_LEAST(3, 21)
    SysRes r = VG_(am_shadow_alloc)(n);
    if (sr_isError(r)) VG_(out_of_memory_NORETURN)(who, n, sr_Err(r));
    return (UChar *)sr_Res(r);
#else
    UChar *p = VG_(am_shadow_alloc)(n);
    if (!p) VG_(out_of_memory_NORETURN)(who, n);
    return p;
#endif
}

/* The labels of the end-of-run summary's first lines: Cachegrind 3.21
 * wrote "I refs:" and "D refs:" where 3.19 and 3.20 wrote "I   refs:" and
 * "D   refs:" (the numbers stay in the same column). */
#if TL_VG_AT_LEAST(3, 21)
#define TL_SUMMARY_I_REFS "I refs:"
#define TL_SUMMARY_D_REFS "D refs:"
#else
#define TL_SUMMARY_I_REFS "I   refs:"
#define TL_SUMMARY_D_REFS "D   refs:"
#endif

#endif
