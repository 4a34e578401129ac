/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h - the exporters: writers of views derived from a profile, for
 * other tools (`tally convert --to=json|folded|speedscope|pprof`).
 *
 * Unlike the formats of formats/format.h they are not lossless and have no
 * reader: they write what analysis/ computes from the model (inclusive
 * costs and cycles, stacks). Each is one row of exporters[] (export.c):
 *
 *   name          as `tally convert --to` spells it
 *   needs_stacks  the stack tree the caller builds first (analysis/stacks.h)
 *                 and hands to write(): none, one event (the chosen one,
 *                 so the tree's event 0), or every base event
 *   binary        the output is not text (never sent to a terminal)
 *   write         writes the view on fp; returns 0 or -1 with err
 *
 * docs/internals/adding-a-format.md says how to add one.
 */
#ifndef TALLY_EXPORT_EXPORT_H
#define TALLY_EXPORT_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "../analysis/stacks.h"
#include "../model/error.h"
#include "../model/profile.h"

enum export_stacks {
    EXPORT_NO_STACKS = 0,    /* write() gets t = NULL */
    EXPORT_STACKS_ONE_EVENT, /* the tree of the chosen event only */
    EXPORT_STACKS_ALL,       /* the tree of every base event */
};

struct export_options {
    size_t event;         /* the chosen event: index into part 0's events */
    int lines;            /* json: per-line self costs */
    const char *exporter; /* who writes, e.g. "tally 0.1.0" (speedscope) */
};

struct exporter {
    const char *name;
    enum export_stacks needs_stacks;
    int binary;
    int (*write)(const struct profile *p, const struct stack_tree *t,
                 const struct export_options *o, FILE *fp, struct tally_error *err);
};

/* The table, ended by a row with name NULL. */
extern const struct exporter exporters[];

/* The row named `name`, or NULL. */
const struct exporter *exporter_find(const char *name);

#endif
