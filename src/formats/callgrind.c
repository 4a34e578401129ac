/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder until the callgrind reader/writer lands. */
#include "format.h"

int callgrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                   struct tally_error *err)
{
    (void)p;
    (void)opt;
    return tally_error_set(err, in->path, 0, "callgrind reader not built yet");
}

int callgrind_write(const struct profile *p, FILE *fp, struct tally_error *err)
{
    (void)p;
    (void)fp;
    return tally_error_set(err, NULL, 0, "callgrind writer not built yet");
}
