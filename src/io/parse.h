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
#include <string.h>

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
 * The decimal digits at s, read 8 bytes at a time (s[0..7] must be
 * readable; the caller checks end - s >= 8): returns how many digits
 * start at s, 0 to 7, with their value in *out when 1 to 7, or 8 when
 * there are 8 or more (nothing parsed: the caller loops). Without a loop
 * over the digits, whose exit the processor mispredicts on short numbers.
 */
static inline unsigned parse_digits8(const char *s, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t top = 0xF0F0F0F0F0F0F0F0ULL, ascii0 = 0x3030303030303030ULL;
    uint64_t w;
    memcpy(&w, s, 8);
    /* a byte of `bad` is nonzero iff that byte is no digit: a digit has high
       nibble 3 and stays below 0x3A, so adding 6 keeps its high nibble 3 */
    uint64_t bad = ((w & top) ^ ascii0) | (((w + 0x0606060606060606ULL) & top) ^ ascii0);
    if (!bad) return 8;
    unsigned n = (unsigned)__builtin_ctzll(bad) >> 3;
    if (n == 0) return 0;
    /* digit values in the top n bytes, first digit lowest of them */
    uint64_t v = (w - ascii0) << (64 - 8 * n);
    v = v * 10 + (v >> 8); /* pairs of digits in every other byte */
    /* pairs to groups of four, then the two groups (high 32 bits) */
    v = ((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
         ((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >>
        32;
    *out = v;
    return n;
#else
    uint64_t v = 0;
    unsigned n = 0;
    while (n < 8 && (unsigned)(unsigned char)s[n] - '0' <= 9)
        v = v * 10 + (unsigned)(s[n++] - '0');
    if (n < 8) *out = v;
    return n;
#endif
}

/* The value of a hexadecimal digit (either case), or 16 when c is none. */
static inline unsigned parse_hexdigit(char c)
{
    unsigned u = (unsigned char)c;
    if (u - '0' < 10) return u - '0';
    u = (u | 0x20) - 'a';
    return u < 6 ? u + 10 : 16;
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
            unsigned x = parse_hexdigit(*d);
            if (x > 15) break;
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
