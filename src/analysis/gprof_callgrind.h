/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_callgrind.h - the gprof analysis as a callgrind profile
 * (`tally gprof --callgrind-out=FILE`), so that tally annotate and
 * KCachegrind can show it.
 *
 * One event, `Time`, in microseconds (see gprof_callgrind.c for how the
 * numbers are derived; docs/internals/gprof.md).
 */
#ifndef TALLY_ANALYSIS_GPROF_CALLGRIND_H
#define TALLY_ANALYSIS_GPROF_CALLGRIND_H

#include "../model/error.h"
#include "../symbols/elfsyms.h"
#include "gprof.h"

/* Build the profile from an assembled analysis and write it to `path`
 * atomically. Returns 0 or -1 with err. */
int gprof_write_callgrind(const struct gprof *g, const struct elf_image *img, const char *cmd,
                          const char *path, struct tally_error *err);

#endif
