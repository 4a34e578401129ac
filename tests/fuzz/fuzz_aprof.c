/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the aprof report reader, writer and merge.
 *
 * The input is read as a report. When it is accepted it is written, the
 * text is read back (it must be accepted) and written again: both texts
 * must be identical, and the two models must have as many routines,
 * contexts and tuples. Then the report is merged with its re-read copy:
 * that must succeed unless a sum overflows, and double every call count.
 */
#include "formats/aprof.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *write_mem(const struct isprof *ip, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) abort();
    aprof_write_fp(ip, fp);
    fclose(fp);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct isprof a, b;
    struct tally_error err;
    tally_error_clear(&err);
    isprof_init(&a);
    if (aprof_read_mem(&a, "fuzz", data, size, &err)) {
        if (!err.msg[0]) abort(); /* every failure says why */
        isprof_release(&a);
        return 0;
    }
    size_t len1, len2;
    char *t1 = write_mem(&a, &len1);
    isprof_init(&b);
    if (aprof_read_mem(&b, "rt", t1, len1, &err)) {
        fprintf(stderr, "written report not readable: %s:%lu: %s\n", err.file, err.line, err.msg);
        abort();
    }
    char *t2 = write_mem(&b, &len2);
    if (len1 != len2 || memcmp(t1, t2, len1)) abort();
    if (a.nroutines != b.nroutines || a.ncontexts != b.ncontexts ||
        isprof_count_routine_tuples(&a) != isprof_count_routine_tuples(&b) ||
        isprof_count_context_tuples(&a) != isprof_count_context_tuples(&b))
        abort();
    /* merge with itself (the re-read copy): calls double where nothing overflows */
    uint64_t calls = 0;
    int small = 1;
    for (size_t r = 0; r < a.nroutines; r++)
        for (size_t i = 0; i < a.routines[r].tuples.n; i++) {
            const struct isprof_tuple *t = a.routines[r].tuples.items[i];
            if (t->calls > UINT32_MAX || t->sum > UINT32_MAX || t->real_sum > UINT32_MAX) small = 0;
            calls += t->calls;
        }
    struct strlist warn = {0};
    int rc = isprof_merge(&a, &b, &warn, &err);
    strlist_release(&warn);
    if (rc == 0 && small) {
        uint64_t after = 0;
        for (size_t r = 0; r < a.nroutines; r++)
            for (size_t i = 0; i < a.routines[r].tuples.n; i++)
                after += a.routines[r].tuples.items[i]->calls;
        if (after != 2 * calls) abort();
    }
    free(t1);
    free(t2);
    isprof_release(&a);
    isprof_release(&b);
    return 0;
}
