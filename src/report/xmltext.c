/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xmltext.c - escaped text for SVG and HTML (see xmltext.h). */
#include "xmltext.h"

#include "../io/utf8.h"

void xml_text(FILE *fp, const char *s, size_t max_chars)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    for (size_t n = 0; *u && n < max_chars; n++) {
        unsigned c = *u;
        if (c >= 0x80) {
            size_t len = utf8_len(u);
            if (len) {
                fwrite(u, 1, len, fp);
                u += len;
            } else {
                fputc('?', fp);
                u++;
            }
            continue;
        }
        u++;
        switch (c) {
        case '&':
            fputs("&amp;", fp);
            break;
        case '<':
            fputs("&lt;", fp);
            break;
        case '>':
            fputs("&gt;", fp);
            break;
        case '"':
            fputs("&quot;", fp);
            break;
        case '\'':
            fputs("&apos;", fp);
            break;
        default:
            if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n') fputc((int)c, fp);
        }
    }
}
