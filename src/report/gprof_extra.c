/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_extra.c - annotated source (-A) and the function ordering (-r) of
 * `tally gprof`.
 */
#include "gprof.h"

int gprof_print_annotated(struct gprof_report *r, struct gprof *g, const struct gprof_anno_opts *o,
                          struct tally_error *err)
{
    (void)r;
    (void)g;
    (void)o;
    (void)err;
    return 0;
}

void gprof_print_function_ordering(struct gprof_report *r, struct gprof *g)
{
    (void)r;
    (void)g;
}
