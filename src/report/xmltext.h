/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xmltext.h - text inside SVG and HTML documents (element content and
 * double- or single-quoted attribute values), the one way every picture
 * and page writes names that come from profiles.
 */
#ifndef TALLY_XMLTEXT_H
#define TALLY_XMLTEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write at most max_chars characters of s: & < > " ' as entities, control
 * characters other than tab and newline left out (XML 1.0 does not allow
 * them), and each byte that does not start a well-formed UTF-8 sequence
 * as '?', so that a name in Latin-1 or a broken one still gives a document
 * that parses. SIZE_MAX for no limit.
 */
void xml_text(FILE *fp, const char *s, size_t max_chars);

#endif
