/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_arch_amd64.h - tl_arch.h for amd64 (x86-64) guests. Included by
 * tl_arch.h only.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_ARCH_AMD64_H
#define TALLY_TL_ARCH_AMD64_H

/* The stubs of `.plt.sec` and `.plt.got`: [endbr64] [bnd] jmp *disp32(%rip)
 * (f3 0f 1e fa, f2, ff 25 disp32). */
static inline Bool arch_plt_stub(Addr a)
{
    if (!VG_(am_is_valid_for_client)(a, 8, VKI_PROT_READ | VKI_PROT_EXEC)) return False;
    const UChar *p = (const UChar *)a;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4;
    if (p[0] == 0xf2) p++;
    return p[0] == 0xff && p[1] == 0x25;
}

/* syscall, sysenter, and the software interrupts VEX decodes on amd64 */
static inline Bool arch_is_syscall(IRJumpKind jk)
{
    return jk == Ijk_Sys_syscall || jk == Ijk_Sys_int32 || jk == Ijk_Sys_int128 ||
           jk == Ijk_Sys_int129 || jk == Ijk_Sys_int130 || jk == Ijk_Sys_int145 ||
           jk == Ijk_Sys_int210 || jk == Ijk_Sys_sysenter;
}

/* A call pushes its return address: the callee starts 8 bytes below its
 * caller's stack pointer, and any way back (ret, longjmp, unwinding)
 * leaves the stack pointer above where the frame began. */
static inline Bool arch_frame_returned(Addr frame_sp, Addr sp, Bool by_return)
{
    (void)by_return;
    return frame_sp < sp;
}

#endif
