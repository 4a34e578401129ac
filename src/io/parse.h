/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h - inline number and token scanning shared by the readers.
 *
 * All functions take a cursor `*p` and the end of the line, advance the
 * cursor past what they consumed, and never read past `end`.
 */
#ifndef TALLY_PARSE_H
#define TALLY_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum { PARSE_OK = 0, PARSE_NONE = -1, PARSE_OVERFLOW = -2 };

static inline int parse_is_space(char c)
{
    return c == ' ' || c == '\t';
}

static inline void parse_skip_space(const char **p, const char *end)
{
    while (*p < end && parse_is_space(**p))
        (*p)++;
}

/*
 * Unsigned decimal, or hexadecimal with a 0x/0X prefix. Returns PARSE_OK,
 * PARSE_NONE (no digit at *p; cursor unchanged) or PARSE_OVERFLOW (the
 * value needs more than 64 bits; cursor after the digits).
 */
static inline int parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int over = 0;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        const char *d = s + 2;
        while (d < end) {
            unsigned c = (unsigned char)*d, x;
            if (c - '0' < 10)
                x = c - '0';
            else if ((c | 0x20) - 'a' < 6)
                x = (c | 0x20) - 'a' + 10;
            else
                break;
            if (v >> 60) over = 1;
            v = v << 4 | x;
            d++;
        }
        if (d == s + 2) return PARSE_NONE;
        *p = d;
        *out = v;
        return over ? PARSE_OVERFLOW : PARSE_OK;
    }
    const char *d = s;
    while (d < end && (unsigned)(*d - '0') < 10) {
        unsigned x = (unsigned)(*d - '0');
        if (v > (UINT64_MAX - x) / 10) over = 1;
        v = v * 10 + x;
        d++;
    }
    if (d == s) return PARSE_NONE;
    *p = d;
    *out = v;
    return over ? PARSE_OVERFLOW : PARSE_OK;
}

/*
 * Signed decimal: an optional '-' then digits. The value is returned as
 * int64 in *out. Same return codes as parse_u64.
 */
static inline int parse_i64(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    int neg = 0;
    if (s < end && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++;
    }
    uint64_t v;
    const char *q = s;
    int rc = parse_u64(&q, end, &v);
    if (rc == PARSE_NONE) return PARSE_NONE;
    *p = q;
    if (rc == PARSE_OVERFLOW || v > (uint64_t)INT64_MAX + (uint64_t)neg) return PARSE_OVERFLOW;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return PARSE_OK;
}

/* Does the line start with the given literal prefix? */
static inline int parse_prefix(const char *s, size_t len, const char *prefix, size_t plen)
{
    return len >= plen && __builtin_memcmp(s, prefix, plen) == 0;
}

#endif
