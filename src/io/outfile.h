/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - writing an output file atomically.
 *
 * outfile_open() creates a temporary file beside the destination; the
 * caller writes to `fp`; outfile_commit() flushes, checks every write
 * error and renames the temporary file over the destination. On any
 * failure (or outfile_abort()) the temporary file is removed, so a
 * half-written output never appears under the destination's name.
 * A NULL path or "-" writes to standard output instead; an existing path
 * that is not a regular file (/dev/null, a FIFO) is written in place, not
 * replaced by a renamed file.
 */
#ifndef TALLY_OUTFILE_H
#define TALLY_OUTFILE_H

#include <stdio.h>

#include "../model/error.h"

struct outfile {
    FILE *fp;
    char *path; /* destination, NULL for stdout */
    char *tmp;  /* temporary name, NULL for stdout and for a device or FIFO */
    int slot;   /* its place among the tracked temporary files, or -1 */
};

/*
 * The temporary files in use are remembered (outfile_open() to
 * outfile_commit() or outfile_abort()), so that the command line's handler
 * of SIGINT, SIGTERM and SIGHUP can remove them before the process dies:
 * outfile_remove_temps() is async-signal-safe. Other temporary files are
 * added with outfile_track_temp() (it returns a slot, or -1 when the table
 * of 64 is full) and forgotten with outfile_untrack_temp(slot) once removed
 * or renamed; `path` must stay valid meanwhile. SIGKILL cannot be caught:
 * a killed process leaves its DEST.tmpXXXXXX file behind.
 */
int outfile_track_temp(const char *path);
void outfile_untrack_temp(int slot);
void outfile_remove_temps(void);

int outfile_open(struct outfile *of, const char *path, struct tally_error *err);
int outfile_commit(struct outfile *of, struct tally_error *err);
void outfile_abort(struct outfile *of);

#endif
