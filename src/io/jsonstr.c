/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonstr.c - quoting a JSON string (see jsonstr.h).
 */
#include "jsonstr.h"

#include <string.h>

#include "utf8.h"

/* The length of the well-formed UTF-8 sequence at p, which has `left`
 * bytes before the end; 0 when none starts there. */
static size_t seq_len(const unsigned char *p, size_t left)
{
    if (left >= 4 || p[0] < 0x80) return utf8_len(p);
    /* near the end: look at a copy padded with zeros, which no sequence
     * accepts as a continuation byte */
    unsigned char tmp[4] = {0, 0, 0, 0};
    memcpy(tmp, p, left);
    size_t k = utf8_len(tmp);
    return k > left ? 0 : k;
}

void jsonstr_write(FILE *fp, const char *s, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    int script = (flags & JSONSTR_SCRIPT) != 0;
    putc('"', fp);
    while (p < end) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            putc('\\', fp);
            putc((int)c, fp);
            p++;
        } else if (c == '\t') {
            fputs("\\t", fp);
            p++;
        } else if (c == '\n' && !script) {
            fputs("\\n", fp);
            p++;
        } else if (c < 0x20 || c == 0x7f || (script && (c == '<' || c == '>' || c == '&'))) {
            fprintf(fp, "\\u%04x", c);
            p++;
        } else {
            size_t k = seq_len(p, (size_t)(end - p));
            if (!k) {
                fputs("\\ufffd", fp);
                p++;
            } else {
                fwrite(p, 1, k, fp);
                p += k;
            }
        }
    }
    putc('"', fp);
}

void jsonstr_puts(FILE *fp, const char *s, unsigned flags)
{
    jsonstr_write(fp, s ? s : "", s ? strlen(s) : 0, flags);
}
