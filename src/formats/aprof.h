/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aprof.h - reading and writing aprof reports (input-sensitive profiles).
 *
 * The reader accepts report versions 1 to 6 (the 1.4 format of the aprof
 * documentation is version 4; versions 5 and 6 add the `i` input metric,
 * `t` memory resolution and DRMS tuple fields), plain, gzip or zstd, and
 * fills a `struct isprof` (src/model/isprof.h). Version 0 reports are
 * refused. Every malformed line is an error with FILE:LINE.
 *
 * The writer writes the 1.4 format (`v 4`) for RMS profiles and `v 6`
 * (with `i drms`, `t K` and 18-field tuples) for DRMS profiles, plus
 * tally's metadata as `c tally ...` comment lines. The exact layout is in
 * docs/internals/aprof.md; the Valgrind tool writes the same layout.
 */
#ifndef TALLY_APROF_H
#define TALLY_APROF_H

#include <stddef.h>
#include <stdio.h>

#include "../model/error.h"
#include "../model/isprof.h"

/*
 * Read the report at `path` ("-" = stdin) into `ip`, which must be freshly
 * initialised. When the report gives no memory resolution, a file name
 * ending in "_K.aprof" supplies it. Context tuples are aggregated per
 * routine (isprof_aggregate_contexts). Returns 0, or -1 with err (ip must
 * then be released and not used).
 */
int aprof_read(struct isprof *ip, const char *path, struct tally_error *err);

/* The same from memory; `name` is used in messages. */
int aprof_read_mem(struct isprof *ip, const char *name, const void *data, size_t size,
                   struct tally_error *err);

/* Does this look like an aprof report? (first non-comment tag is v/e/t/f/a/m/k/i/r) */
int aprof_detect(const char *data, size_t len);

struct input;
/*
 * aprof_read() from an opened input (io/input.h; not closed here): bytes
 * looked at with input_peek() are read again, so a pipe is read once.
 */
int aprof_read_input(struct isprof *ip, struct input *in, struct tally_error *err);

/* Write ip to `path` atomically ("-" or NULL = stdout). 0, or -1 with err. */
int aprof_write(const struct isprof *ip, const char *path, struct tally_error *err);

/* Write ip to an open stream (no error check beyond ferror; used by aprof_write). */
void aprof_write_fp(const struct isprof *ip, FILE *fp);

#endif
