/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - tally's own JSON form of a profile (`tally convert --to=json`),
 * for scripts, plus the JSON string writer the other JSON writers share.
 *
 * The schema ("tally-profile", version 1) is documented in
 * docs/internals/convert.md: metadata, events, totals, one entry per
 * function (name, object, file, self and inclusive costs per base event,
 * its cycle), the call arcs between functions (count and inclusive cost),
 * the cycles (recursion) and, on request, per-line self costs.
 *
 * Inclusive costs follow the rule of inclusive.h (as `tally annotate`
 * computes them, with cycles). Functions are those of the profile model,
 * identified by (object, file, name); `id` is the function's index in the
 * profile, which is also its index in the "functions" array.
 *
 * Only part 0 is written: fold the parts first (read_options.merge_parts
 * or profile_merge_parts()).
 */
#ifndef TALLY_EXPORT_JSON_H
#define TALLY_EXPORT_JSON_H

#include <stdio.h>

#include "../model/error.h"
#include "../model/profile.h"

struct json_options {
    int lines;          /* add "lines" (per file and line self costs) to each function */
    const char *source; /* input file name(s) for metadata.source, or NULL */
};

/*
 * Write the profile as one JSON document on fp. Returns 0, or -1 with err
 * (a sum overflows, or the stream reports an error).
 */
int json_write(const struct profile *p, FILE *fp, const struct json_options *o,
               struct tally_error *err);

/*
 * Write `s` as a quoted JSON string: `"` `\` and control characters are
 * escaped, and bytes that are not valid UTF-8 become U+FFFD, so that the
 * output is always valid JSON whatever the names hold. NULL writes "".
 */
void json_put_string(FILE *fp, const char *s);

#endif
