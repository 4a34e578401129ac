/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page.h - the one HTML document of tally view's page (assets/view*): as
 * the server answers it, or with a snapshot of answers embedded (the
 * page then answers its own questions from it, for `tally report`).
 */
#ifndef TALLY_VIEW_PAGE_H
#define TALLY_VIEW_PAGE_H
#include <stddef.h>

/*
 * The document (malloc'd, its length in *len). `snapshot`, when not NULL,
 * is JSON text put gzip-compressed, in base64, in <script
 * type="application/octet-stream" id="tally-snapshot"
 * data-encoding="gzip-base64"> before the page's script (the page unpacks
 * it with the browser's DecompressionStream; JSON of 15 MB takes 2 MB).
 */
char *view_page(const char *snapshot, size_t *len);

#endif
