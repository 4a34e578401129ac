/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_callgrind.c - libFuzzer harness for the callgrind reader and writer.
 *
 * Any input must be read without crashing; when it loads, it is written
 * back and the result must load again with the same number of records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/format.h"

static size_t records(const struct profile *p)
{
    size_t n = 0;
    for (size_t k = 0; k < p->nparts; k++)
        n += part_ncosts(p->parts[k]) + part_ncalls(p->parts[k]) + part_njumps(p->parts[k]);
    return n;
}

static struct profile *load(const void *data, size_t size, int drop)
{
    struct input in;
    struct tally_error err;
    if (input_open_mem(&in, "fuzz", data, size, &err)) return NULL;
    struct profile *p = profile_new();
    struct read_options opt = {0};
    opt.drop_addr = drop;
    opt.drop_jumps = drop;
    int rc = callgrind_read(&in, p, &opt, &err);
    input_close(&in);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *p = load(data, size, size & 1);
    if (!p) return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct tally_error err;
    if (fp && callgrind_write(p, fp, &err) == 0) {
        fclose(fp);
        struct profile *q = load(buf, len, 0);
        if (!q || records(q) != records(p)) abort();
        profile_free(q);
    } else if (fp) {
        fclose(fp);
    }
    free(buf);
    profile_free(p);
    return 0;
}
