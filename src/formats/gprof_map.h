/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_map.h - the map of `gprof --file-ordering` (-R MAP): `nm -A`
 * output, one "file.o:... name" per line, saying which object file
 * defines each function. Lines "No symbols in ..." are skipped.
 */
#ifndef TALLY_FORMATS_GPROF_MAP_H
#define TALLY_FORMATS_GPROF_MAP_H

#include <stddef.h>

#include "../model/error.h"

/* One line of the map: object file, symbol. */
struct gprof_map_entry {
    char *file, *func;
};

/*
 * Read the map at `path`. Returns the entries sorted by function name (*n
 * of them; free with gprof_map_free()), or NULL with err ("FILE:LINE: not
 * a line of `nm -A` output", or why the file cannot be opened).
 */
struct gprof_map_entry *gprof_map_read(const char *path, size_t *n, struct tally_error *err);
/* The entry of function `func` in a map sorted by gprof_map_read(), or NULL. */
const struct gprof_map_entry *gprof_map_find(const struct gprof_map_entry *map, size_t n,
                                             const char *func);
void gprof_map_free(struct gprof_map_entry *map, size_t n);

#endif
