/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page.c - the document of the page (page.h).
 */
#include "page.h"

#include <string.h>

#include "../io/bytebuf.h"
#include "view_assets.h"

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
        bytebuf_printf(&b, "<script type=\"application/json\" id=\"tally-snapshot\">");
        bytebuf_add(&b, snapshot, strlen(snapshot));
        bytebuf_printf(&b, "</script>\n");
    }
    bytebuf_printf(&b, "<script>\n");
    add_lines(&b, view_asset_js);
    bytebuf_printf(&b, "</script>\n</body>\n</html>\n");
    *len = b.n;
    return b.s;
}
