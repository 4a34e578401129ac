/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_out.h - what the tool's file writers share: a failed output makes the
 * run exit non-zero (tl_dump.c decides at the end of tl_fini).
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_OUT_H
#define TALLY_TL_OUT_H

#include "pub_tool_basics.h"

/* A file could not be created or written: print why (once per file, by
 * the caller) and remember it so that the run exits with status 1. */
void tl_out_failed(void);

/* Before the program runs: 0 when a file named by `pattern` (option
 * `opt`, %p and %q{VAR} expanded now) can be created, else exit(1) after
 * a message. A file that did not exist is not left behind. */
void tl_out_check(const HChar *opt, const HChar *pattern);

/* A system call is about to run (every thread): an execve without
 * --trace-children=yes gets the hint that no profile will be written. */
void tl_pre_syscall_note(UInt sysno);

#endif
