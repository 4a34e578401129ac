/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonstr.h - the one JSON string writer of tally: every JSON text it
 * writes (tally convert --to=json and --to=speedscope, the data of the
 * HTML report, tally complexity --format=json) quotes its strings here.
 *
 * The output is always a valid JSON string, whatever bytes the input
 * holds: '"' and '\' get a backslash, control characters are escaped,
 * and bytes that are not well-formed UTF-8 (utf8.h) become U+FFFD, one
 * for each such byte. Well-formed UTF-8 passes through as it is.
 *
 * Two forms, chosen by `flags`:
 *   0               the plain form: "\n" and "\t" for newline and tab,
 *                   "\u00XX" (lower-case hex) for the other bytes below
 *                   0x20 and for 0x7f.
 *   JSONSTR_SCRIPT  for JSON inside an HTML <script> element: '<', '>' and
 *                   '&' are written "\u003c", "\u003e", "\u0026", so the
 *                   text can never close the element; every control byte
 *                   but tab (written "\t") and 0x7f become "\u00XX",
 *                   newline included.
 *
 * Nothing is allocated; the caller checks the stream for write errors
 * (ferror) once it has written everything.
 */
#ifndef TALLY_JSONSTR_H
#define TALLY_JSONSTR_H

#include <stddef.h>
#include <stdio.h>

#define JSONSTR_SCRIPT 1u

/* Write the n bytes at s (NUL bytes included, as "\u0000") as one quoted
 * JSON string. A sequence cut by the end of the n bytes is not read past
 * the end: its bytes become U+FFFD. */
void jsonstr_write(FILE *fp, const char *s, size_t n, unsigned flags);

/* The NUL-terminated string s (NULL writes ""). */
void jsonstr_puts(FILE *fp, const char *s, unsigned flags);

#endif
