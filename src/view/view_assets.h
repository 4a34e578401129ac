/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_assets.h - the page of tally view (placeholder until assets/view.*
 * and assets/embed.sh generate it).
 */
#ifndef TALLY_VIEW_ASSETS_H
#define TALLY_VIEW_ASSETS_H
#include <stddef.h>
static const char *const view_asset_css[] = {"body { font-family: sans-serif; }\n", NULL};
static const char *const view_asset_body[] = {"<div id=\"app\">tally view</div>\n", NULL};
static const char *const view_asset_js[] = {"\"use strict\";\n", NULL};
#endif
