/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for tally complexity: the analysis of an aprof report
 * (fits, the checks before a class, the ranking) and its reports.
 *
 * The input is read as a report. When it is accepted every routine is
 * analysed (no filters), and the verdicts must hold together: a class
 * only with at least FITCHECK_MIN_SIZES distinct sizes and a fitted or
 * constant model, a reason for every routine without one, clusters that
 * hold every point between them, ranks in the order of cmp_rank's groups.
 * Then the text, the JSON and the page with its plots (inline, for the
 * first 8 routines) are written to memory.
 */
#include "analysis/complexity.h"
#include "formats/aprof.h"
#include "report/complexity.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0: a growing class, 1: class 1, 2: no clear class (as cmp_rank). */
static int group(const struct complexity_routine *r)
{
    if (r->check.why != FITCHECK_CLASS) return 2;
    return r->check.cls == FIT_CLASS_1 ? 1 : 0;
}

static void write_all(const struct complexity *c, const struct isprof *ip,
                      const struct complexity_report_options *ro)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) abort();
    struct tally_error err;
    tally_error_clear(&err);
    if (complexity_write_text(c, ip, ro, fp, &err) || complexity_write_json(c, ip, ro, fp, &err) ||
        complexity_write_html_inline(c, ip, ro, fp, &err))
        abort();
    fclose(fp);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct isprof ip;
    isprof_init(&ip);
    struct tally_error err;
    tally_error_clear(&err);
    if (aprof_read_mem(&ip, "fuzz.aprof", (const char *)data, size, &err) != 0) {
        isprof_release(&ip);
        return 0;
    }
    struct complexity_options o;
    complexity_options_init(&o);
    o.min_points = 1;
    o.min_share = 0;
    o.top = 8;
    struct complexity c;
    if (complexity_analyse(&ip, &o, &c, &err) == 0) {
        for (size_t i = 0; i < c.nall; i++) {
            const struct complexity_routine *r = &c.all[i];
            const struct fitcheck *v = &r->check;
            char label[128];
            fitcheck_label(v, label, sizeof(label));
            if (v->why == FITCHECK_CLASS) {
                if (v->nsizes < FITCHECK_MIN_SIZES) abort();
                if (r->power.status != FIT_OK && r->power.status != FIT_CONSTANT) abort();
                if (strncmp(label, "no clear class", 14) == 0) abort();
            } else if (strncmp(label, "no clear class: ", 16) != 0 || !label[16]) {
                abort();
            }
            if (v->nclusters > FITCHECK_MAX_CLUSTERS) abort();
            if (v->nclusters > 1) {
                size_t sum = 0;
                for (size_t k = 0; k < v->nclusters; k++)
                    sum += v->cluster[k].npoints;
                if (sum != r->npoints || v->why != FITCHECK_CLUSTERS) abort();
            }
        }
        for (size_t i = 1; i < c.nranked; i++)
            if (group(c.ranked[i - 1]) > group(c.ranked[i])) abort();
        struct complexity_report_options ro = {.filters = &o};
        write_all(&c, &ip, &ro);
    }
    complexity_release(&c);
    isprof_release(&ip);
    return 0;
}
