/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - what `tally check` prints: its result (analysis/check.h) as
 * text for a terminal, as Markdown for a pull-request comment, or as JSON
 * (the schema is in docs/tally-check.md; its "schema" member is
 * CHECK_JSON_SCHEMA and changes when a member changes meaning).
 *
 * The writers only print; a write error shows in ferror(fp).
 */
#ifndef TALLY_REPORT_CHECK_H
#define TALLY_REPORT_CHECK_H

#include <stdio.h>

#include "../analysis/check.h"

#define CHECK_JSON_SCHEMA 1

enum check_format { CHECK_TEXT, CHECK_MARKDOWN, CHECK_JSON };

struct check_report_options {
    const char *const *base_files; /* the inputs of each side, for the heading */
    size_t nbase;
    const char *const *new_files;
    size_t nnew;
    size_t top; /* functions listed (largest change of the first column first) */
};

void check_write(FILE *fp, const struct check_result *res, enum check_format fmt,
                 const struct check_report_options *opt);

#endif
