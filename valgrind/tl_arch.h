/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_arch.h - what tally's Valgrind tool knows of the guest's instruction
 * set, in one place. Each architecture has one header of its own
 * (tl_arch_amd64.h is the one there is) defining, as static inline
 * functions:
 *
 *   Bool arch_plt_stub(Addr a)
 *       Is the code at a (readable and executable, without a symbol) a
 *       PLT-style stub, a jump through a pointer in the object's GOT?
 *       Valgrind marks only `.plt` as PLT code; other stubs are told by
 *       their bytes. Such code is transparent in the call graph (tl_cc.c).
 *   Bool arch_is_syscall(IRJumpKind jk)
 *       Does a block ending with jump kind jk enter the kernel (a system
 *       call), for --collect-systime (tl_events.c)?
 *   Bool arch_frame_returned(Addr frame_sp, Addr sp, Bool by_return)
 *       Has a call frame whose stack pointer at entry was frame_sp
 *       returned, now that a block starts with the stack pointer at sp
 *       (by_return: the block was reached by a return instruction)? The
 *       call tracking of tl_main.c pops frames while this holds.
 *
 * docs/internals/tool.md ("Another architecture") says what a port to
 * arm64 meets. valgrind/Makefile's ARCH names the guest for the defines
 * and file names of Valgrind's build.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_ARCH_H
#define TALLY_TL_ARCH_H

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

#if defined(VGA_amd64)
#include "tl_arch_amd64.h"
#else
#error "tally's Valgrind tool knows amd64 only: write tl_arch_ARCH.h (see tl_arch.h)"
#endif

#endif
