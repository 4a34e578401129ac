/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof.h - pprof's profile.proto (`tally convert --to=pprof`), for
 * `go tool pprof`, Grafana Pyroscope, Parca and other services that
 * ingest it. Encoded by hand (protobuf varints and length-delimited
 * fields, no protobuf library) and gzip-compressed with zlib, as pprof
 * expects its files.
 *
 * What is written (field numbers of perftools.profiles.Profile):
 *   1 sample_type   one ValueType per event of the tree: type = the event
 *                   name, unit = "count"
 *   2 sample        one per stack node of non-zero own weight (its total
 *                   minus its children's totals, see folded.h): location
 *                   ids from the innermost frame out (leaf first, as pprof
 *                   wants), one value per event
 *   3 mapping       one per object (ELF file) of the functions in the tree
 *   4 location      its mapping, address 0, one line: one location per
 *                   (function, source line) when the profile has lines,
 *                   else one per function at its first source line
 *   5 function      id, name, system_name (= name), filename, start_line;
 *                   one per (function, file): inlined code of another
 *                   file gets a record of its own
 *   6 string_table  index 0 is ""
 *  11 period_type, 12 period   the default event, "count"; period 1
 *  13 comment      how the stacks were made (exact or estimated)
 *  14 default_sample_type      the chosen event
 * Line-level samples (docs/tally-convert.md, "pprof source lines"): a
 * node's weight is split among its function's lines by their self costs,
 * then each caller frame among its call sites by their inclusive costs
 * (export/pprof_lines.h; whole counts, largest remainder, so every
 * node's parts and every event's samples add up exactly); samples with
 * the same location list are merged.
 * Ids (mapping, location, function) start at 1. Cost that belongs to no
 * frame (the root's own weight) is a sample of a function "[other]".
 * Values are int64: a cost above 2^63-1 is an error.
 */
#ifndef TALLY_EXPORT_PPROF_H
#define TALLY_EXPORT_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../analysis/stacks.h"
#include "../model/error.h"

struct pprof_options {
    size_t default_event; /* index into the tree's events */
    const char *comment;  /* extra comment (e.g. the command), or NULL */
};

/*
 * Encode the Profile message (not compressed) into a malloc'd buffer
 * (*out, *len). Returns 0, or -1 with err.
 */
int pprof_encode(const struct stack_tree *t, const struct pprof_options *o, uint8_t **out,
                 size_t *len, struct tally_error *err);

/* pprof_encode(), then gzip onto fp. Returns 0, or -1 with err. */
int pprof_write(const struct stack_tree *t, FILE *fp, const struct pprof_options *o,
                struct tally_error *err);

#endif
