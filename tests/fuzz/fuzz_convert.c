/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_convert.c - libFuzzer harness for the writers of `tally convert`.
 *
 * An input that loads as a callgrind or contexts profile is written as
 * the tally-profile JSON document, folded stacks (every event), speedscope
 * and pprof. None may fail on an unsigned profile whose stack tree builds,
 * and the folded counts of each event must add up to the tree's root
 * total (the stack writers' contract, folded.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stacks.h"
#include "formats/contexts.h"
#include "export/folded.h"
#include "formats/format.h"
#include "export/json.h"
#include "export/pprof.h"
#include "export/speedscope.h"

static struct profile *load(const void *data, size_t size)
{
    struct input in;
    struct tally_error err;
    if (input_open_mem(&in, "fuzz", data, size, &err)) return NULL;
    struct profile *p = profile_new();
    enum profile_format f = format_detect(data, size);
    struct read_options opt = {.merge_parts = 1};
    int rc = f == PROFILE_FORMAT_CONTEXTS ? contexts_read(&in, p, &err)
                                          : callgrind_read(&in, p, &opt, &err);
    input_close(&in);
    if (rc == 0 && p->nparts > 1) rc = profile_merge_parts(p, &err);
    if (rc || p->nparts == 0) {
        profile_free(p);
        return NULL;
    }
    return p;
}

/* Sum of the counts of folded text. */
static uint64_t folded_sum(const char *text)
{
    uint64_t sum = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        if (!nl) abort(); /* every line ends in a newline */
        const char *sp = nl;
        while (sp > l && sp[-1] != ' ')
            sp--;
        if (sp == l || sp == nl) abort(); /* "STACK COUNT" */
        sum += strtoull(sp, NULL, 10);
        l = nl + 1;
    }
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *p = load(data, size);
    if (!p) return 0;
    struct tally_error err;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct json_options jo = {.lines = 1};
    int jrc = json_write(p, fp, &jo, &err);
    fclose(fp);
    free(buf);
    (void)jrc; /* may fail on overflow only */

    struct stack_tree t;
    struct stack_options so = {.part = -1, .event = -1, .max_nodes = 100000};
    if (stacks_build(&t, p, &so, &err) == 0) {
        for (size_t e = 0; e < t.nev; e++) {
            buf = NULL;
            fp = open_memstream(&buf, &len);
            if (folded_write(&t, e, fp, &err)) abort();
            fclose(fp);
            if (folded_sum(buf) != stack_total(&t, 0)[e]) abort();
            free(buf);
        }
        buf = NULL;
        fp = open_memstream(&buf, &len);
        struct speedscope_options sso = {0};
        if (speedscope_write(&t, fp, &sso, &err)) abort();
        fclose(fp);
        free(buf);
        uint8_t *pb;
        size_t pblen;
        struct pprof_options po = {0};
        int big = 0;
        for (size_t i = 0; i < t.n * t.nev; i++)
            if (t.total[i] > (uint64_t)INT64_MAX) big = 1;
        if (pprof_encode(&t, &po, &pb, &pblen, &err) == 0)
            free(pb);
        else if (!big)
            abort();
        stacks_release(&t);
    }
    profile_free(p);
    return 0;
}
