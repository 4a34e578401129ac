/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utf8.h - for every writer of text that other programs parse (JSON, SVG,
 * DOT, HTML): the length of a well-formed UTF-8 sequence, so that bytes
 * that are not one can be replaced instead of passed on. Well-formed is
 * RFC 3629's rule: no overlong forms, no surrogates, nothing above
 * U+10FFFF.
 */
#ifndef TALLY_UTF8_H
#define TALLY_UTF8_H

#include <stddef.h>

/*
 * Length (1 to 4) of the well-formed sequence at s, or 0 when s does not
 * start one. Reads no byte after the first one that is wrong, so a string
 * that ends (NUL) inside a sequence is safe.
 */
static inline size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    unsigned lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0; /* shorter forms would do */
        if (c == 0xed) hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90; /* shorter forms would do */
        if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

#endif
