/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder until the cachegrind reader/writer lands. */
#include "format.h"

int cachegrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                   struct tally_error *err)
{
    (void)p;
    (void)opt;
    return tally_error_set(err, in->path, 0, "cachegrind reader not built yet");
}

int cachegrind_write(const struct profile *p, FILE *fp, struct tally_error *err)
{
    (void)p;
    (void)fp;
    return tally_error_set(err, NULL, 0, "cachegrind writer not built yet");
}
