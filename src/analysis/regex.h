/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regex.h - every regular expression of tally is PCRE2's, compiled here
 * with its error as text; each caller words its own message (the option,
 * the pattern) around that text.
 */
#ifndef TALLY_ANALYSIS_REGEX_H
#define TALLY_ANALYSIS_REGEX_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

/*
 * re compiled with the PCRE2 options `options`, or NULL with PCRE2's
 * message in msg[size] and the offset of the error in *offset.
 */
pcre2_code *regex_compile(const char *re, uint32_t options, char *msg, size_t size, size_t *offset);

/* PCRE2's text for error code `code` (compiling or matching) into buf. */
void regex_message(int code, char *buf, size_t size);

#endif
