/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - writing an output file atomically.
 *
 * outfile_open() creates a temporary file beside the destination; the
 * caller writes to `fp`; outfile_commit() flushes, checks every write
 * error and renames the temporary file over the destination. On any
 * failure (or outfile_abort()) the temporary file is removed, so a
 * half-written output never appears under the destination's name.
 * A NULL path or "-" writes to standard output instead.
 */
#ifndef TALLY_OUTFILE_H
#define TALLY_OUTFILE_H

#include <stdio.h>

#include "../model/error.h"

struct outfile {
    FILE *fp;
    char *path; /* destination, NULL for stdout */
    char *tmp;  /* temporary name, NULL for stdout */
};

int outfile_open(struct outfile *of, const char *path, struct tally_error *err);
int outfile_commit(struct outfile *of, struct tally_error *err);
void outfile_abort(struct outfile *of);

#endif
