/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_int.h - what the callgrind reader (callgrind_read.c) and writer
 * (callgrind_write.c) share: the kinds of compressed names and of
 * subpositions.
 */
#ifndef TALLY_FORMATS_CALLGRIND_INT_H
#define TALLY_FORMATS_CALLGRIND_INT_H

/* The three kinds of names a callgrind file compresses to "(id) name". */
enum { NAME_OB, NAME_FL, NAME_FN, NAME_KINDS };

/* Subposition kinds, the index into position vectors. */
enum { SP_ADDR, SP_BB, SP_LINE, SP_KINDS };

#endif
