/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_callgrind.c - the gprof analysis as a callgrind profile.
 */
#include "gprof_callgrind.h"

int gprof_write_callgrind(const struct gprof *g, const struct elf_image *img, const char *cmd,
                          const char *path, struct tally_error *err)
{
    (void)g;
    (void)img;
    (void)cmd;
    return tally_error_set(err, path, 0, "--callgrind-out is not implemented yet");
}
