/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page.c - the document of the page (page.h).
 */
#include "page.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../io/bytebuf.h"
#include "../model/error.h"
#include "view_assets.h"

/* text gzip-compressed, in base64 lines of 76 characters, onto b */
static void add_gzip_base64(struct bytebuf *b, const char *text, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    /* 15 + 16: a gzip wrapper, which the browser's DecompressionStream reads */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        xalloc_failed(sizeof(z));
    uLong cap = deflateBound(&z, (uLong)len);
    unsigned char *gz = xmalloc(cap);
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)len;
    z.next_out = gz;
    z.avail_out = (uInt)cap;
    if (len > UINT32_MAX || deflate(&z, Z_FINISH) != Z_STREAM_END) xalloc_failed(cap);
    size_t n = z.total_out;
    deflateEnd(&z);
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char line[80];
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)gz[i] << 16;
        if (i + 1 < n) v |= (uint32_t)gz[i + 1] << 8;
        if (i + 2 < n) v |= gz[i + 2];
        line[k++] = digits[v >> 18 & 63];
        line[k++] = digits[v >> 12 & 63];
        line[k++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        line[k++] = i + 2 < n ? digits[v & 63] : '=';
        if (k == 76 || i + 3 >= n) {
            line[k++] = '\n';
            bytebuf_add(b, line, k);
            k = 0;
        }
    }
    free(gz);
}

static void add_lines(struct bytebuf *b, const char *const *lines)
{
    for (; *lines; lines++)
        bytebuf_add(b, *lines, strlen(*lines));
}

char *view_page(const char *snapshot, size_t *len)
{
    struct bytebuf b = {0};
    bytebuf_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width\">\n"
                       "<link rel=\"icon\" href=\"data:,\">\n<title>tally view</title>\n<style>\n");
    add_lines(&b, view_asset_css);
    bytebuf_printf(&b, "</style>\n</head>\n<body>\n");
    add_lines(&b, view_asset_body);
    if (snapshot) {
        bytebuf_printf(&b, "<script type=\"application/octet-stream\" id=\"tally-snapshot\" "
                           "data-encoding=\"gzip-base64\">\n");
        add_gzip_base64(&b, snapshot, strlen(snapshot));
        bytebuf_printf(&b, "</script>\n");
    }
    bytebuf_printf(&b, "<script>\n");
    add_lines(&b, view_asset_js);
    bytebuf_printf(&b, "</script>\n</body>\n</html>\n");
    *len = b.n;
    return b.s;
}
