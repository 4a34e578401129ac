/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "textfmt.h"

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

double textfmt_percent(tally_wide v, tally_wide total)
{
    if (total == 0) return 0.0;
    double num;
    if (v > INT64_MAX / 100 || v < INT64_MIN / 100)
        num = (double)v * 100.0;
    else
        num = (double)(v * 100);
    return num / (double)total;
}

char *textfmt_percent_text(double pct, char *buf, size_t size)
{
    if (-9.995 < pct && pct < 99.995)
        snprintf(buf, size, " (%5.2f%%)", pct);
    else
        snprintf(buf, size, " (%5.1f%%)", pct);
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
