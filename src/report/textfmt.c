/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "textfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *textfmt_commify(tally_wide v, char *buf)
{
    char plain[TALLY_WIDE_DIGITS];
    const char *digits = tally_wide_str(v, plain) + (v < 0);
    size_t nd = strlen(digits);
    char *o = buf;
    if (v < 0) *o++ = '-';
    for (size_t i = 0; i < nd; i++) {
        size_t left = nd - i; /* digits still to write, this one included */
        *o++ = digits[i];
        if (left > 1 && (left - 1) % 3 == 0) *o++ = ',';
    }
    *o = '\0';
    return buf;
}

size_t textfmt_plain_len(tally_wide v)
{
    unsigned __int128 u =
        v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    size_t n = v < 0 ? 1 : 0;
    while (u > UINT64_MAX) { /* 128-bit division is a slow library call */
        n++;
        u /= 10;
    }
    uint64_t w = (uint64_t)u;
    do {
        n++;
        w /= 10;
    } while (w);
    return n;
}

size_t textfmt_count_width(tally_wide v, int show_percs)
{
    size_t len = textfmt_plain_len(v);
    return len + (len - 1) / 3 + (show_percs ? 9 : 0);
}

/* Whether Perl holds x as an integer (an IV or a UV) rather than a double. */
static int perl_integer(tally_wide x)
{
    return x >= INT64_MIN && x <= (tally_wide)UINT64_MAX;
}

/*
 * As Perl computes `$v * 100 / $total`: the product is an exact integer
 * when it fits in 64 bits, else a double; the quotient of two integers is
 * exact when the division is, and one of them is past 2^53 (where a double
 * would round it); otherwise the doubles are divided. So an exact 99% of
 * counts past 2^53 is 99, not 98.99999999999999.
 */
static __attribute__((noinline)) double percent_wide(tally_wide v, tally_wide total)
{
    tally_wide num = v * 100; /* |v| < 2^126: no overflow */
    if (!perl_integer(num)) return ((double)v * 100.0) / (double)total;
    if (perl_integer(total)) {
        unsigned __int128 l = num < 0 ? -(unsigned __int128)num : (unsigned __int128)num;
        unsigned __int128 d = total < 0 ? -(unsigned __int128)total : (unsigned __int128)total;
        const unsigned __int128 exact = (unsigned __int128)1 << 53;
        if (l >= d && (l > exact || d > exact) && l % d == 0) {
            double q = (double)(l / d);
            return (num < 0) != (total < 0) ? -q : q;
        }
    }
    return (double)num / (double)total;
}

double textfmt_percent(tally_wide v, tally_wide total)
{
    if (total == 0) return 0.0;
    /* the usual case: both within 2^53, where Perl divides the doubles */
    const tally_wide exact = (tally_wide)1 << 53;
    if (v >= -exact / 100 && v <= exact / 100 && total >= -exact && total <= exact)
        return (double)(int64_t)(v * 100) / (double)(int64_t)total;
    return percent_wide(v, total);
}

/*
 * " (%5.2f%%)" or " (%5.1f%%)" of pct without printf, which is slow and
 * called for every cell: pct times 100 (or 10) is exact in a long double
 * (64-bit mantissa), and rounding it to an integer in the default mode
 * (to nearest, ties to even) is the rounding printf does. Returns 0 when
 * the value is too large for that (printf then does it).
 */
static int percent_digits(double pct, int decimals, char *buf, size_t size)
{
    long double scaled = (long double)pct * (decimals == 2 ? 100 : 10);
    if (!(scaled > -1e15L && scaled < 1e15L) || size < 32) return 0;
    long long k = llrintl(scaled);
    int neg = signbit(pct) != 0;
    unsigned long long a = k < 0 ? (unsigned long long)-k : (unsigned long long)k;
    char digits[32];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + a % 10);
        a /= 10;
    } while (a || n <= (size_t)decimals); /* at least one digit before the point */
    char num[40];
    size_t len = 0;
    if (neg) num[len++] = '-';
    while (n > (size_t)decimals)
        num[len++] = digits[--n];
    num[len++] = '.';
    while (n)
        num[len++] = digits[--n];
    size_t o = 0;
    buf[o++] = ' ';
    buf[o++] = '(';
    for (size_t pad = len; pad < 5; pad++)
        buf[o++] = ' ';
    memcpy(buf + o, num, len);
    o += len;
    buf[o++] = '%';
    buf[o++] = ')';
    buf[o] = '\0';
    return 1;
}

char *textfmt_percent_text(double pct, char *buf, size_t size)
{
    if (-9.995 < pct && pct < 99.995) {
        if (!percent_digits(pct, 2, buf, size)) snprintf(buf, size, " (%5.2f%%)", pct);
    } else if (!percent_digits(pct, 1, buf, size)) {
        snprintf(buf, size, " (%5.1f%%)", pct);
    }
    return buf;
}

size_t textfmt_cell(char *buf, size_t size, tally_wide v, int defined, tally_wide total,
                    int show_percs, size_t width)
{
    /* a count takes at most 52 bytes (39 digits, 12 commas, a sign) */
    _Static_assert(TEXTFMT_CELL_MAX >= 52 + 10, "room for a count and nine spaces");
    char text[TEXTFMT_CELL_MAX];
    size_t n;
    if (defined)
        textfmt_commify(v, text);
    else
        strcpy(text, ".");
    n = strlen(text);
    if (show_percs) {
        if (defined && v != 0)
            textfmt_percent_text(textfmt_percent(v, total), text + n, sizeof(text) - n);
        else /* nine spaces where the percentage goes */
            memcpy(text + n, "         ", 10);
        n = strlen(text);
    }
    size_t pad = width > n ? width - n : 0;
    if (pad + n + 2 > size) { /* never with the documented buffer size */
        pad = 0;
        if (n + 2 > size) n = size > 2 ? size - 2 : 0;
    }
    memset(buf, ' ', pad);
    memcpy(buf + pad, text, n);
    buf[pad + n] = ' ';
    buf[pad + n + 1] = '\0';
    return pad + n + 1;
}

void textfmt_repeat(FILE *fp, int c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        putc(c, fp);
}

int textfmt_finish(FILE *fp, const char *what, struct tally_error *err)
{
    if (fflush(fp) || ferror(fp))
        return tally_error_set(err, NULL, 0, "error writing the %s", what);
    return 0;
}

/* A key's part of the running sum: an undefined cost (key -1) adds nothing. */
static tally_wide key_share(tally_wide k)
{
    return k > 0 ? k : 0;
}

/*
 * textfmt_keys_to_reach() (textfmt.h): a selection (three-way partitions around a median of three,
 * keeping the sum of the keys known to be larger) rather than a sort: linear in n. Reorders keys.
 */
size_t textfmt_keys_to_reach(tally_wide *keys, size_t n, tally_wide total, double thr,
                             tally_wide *last)
{
#define REACHED(s) (textfmt_percent((s), total) >= thr)
    size_t lo = 0, hi = n; /* keys[lo..hi) unordered, larger ones before, smaller after */
    tally_wide acc = 0;    /* the sum of keys[0..lo) */
    if (REACHED(acc)) return 0;
    while (hi - lo > 16) {
        tally_wide a = keys[lo], b = keys[lo + (hi - lo) / 2], c = keys[hi - 1];
        tally_wide piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t g = lo, i = lo, e = hi; /* [lo, g) > piv, [g, e) == piv, [e, hi) < piv */
        while (i < e) {
            tally_wide k = keys[i];
            if (k > piv) {
                keys[i++] = keys[g];
                keys[g++] = k;
            } else if (k < piv) {
                keys[i] = keys[--e];
                keys[e] = k;
            } else {
                i++;
            }
        }
        tally_wide sum = acc;
        for (size_t j = lo; j < g; j++)
            sum += key_share(keys[j]);
        if (REACHED(sum)) { /* among the larger ones */
            hi = g;
            continue;
        }
        for (size_t j = g; j < e; j++) {
            sum += key_share(piv);
            if (REACHED(sum)) {
                *last = piv;
                return j + 1;
            }
        }
        acc = sum;
        lo = e;
    }
    for (size_t i = lo + 1; i < hi; i++) /* a few left: sorted, largest first */
        for (size_t j = i; j > lo && keys[j - 1] < keys[j]; j--) {
            tally_wide t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    for (size_t j = lo; j < hi; j++) {
        acc += key_share(keys[j]);
        if (REACHED(acc)) {
            *last = keys[j];
            return j + 1;
        }
    }
    return n;
#undef REACHED
}
