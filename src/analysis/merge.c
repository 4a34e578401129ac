/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.c - adding one profile into another (merge.h): their costs, calls
 * and jumps with part_accumulate(), and their calling-context trees node
 * by node when both have one with the same events.
 */
#include "merge.h"

#include <stdlib.h>

#include "../model/cct.h"

/*
 * Add the calling-context tree of `src` into that of `dst`. Returns 0, 1
 * when they cannot be added (an event of src has no place in dst's tree),
 * or -1 with err on overflow.
 */
static int add_cct(struct profile *dst, const struct profile *src, struct tally_error *err)
{
    const struct eventset *des = &dst->parts[0]->events, *ses = &src->parts[0]->events;
    size_t ne = src->cct->nevents;
    size_t *emap = xcalloc(ne + 1, sizeof(*emap));
    int rc = 0;
    for (size_t e = 0; e < ne && !rc; e++) {
        int k = e < ses->n ? eventset_index(des, ses->names[e]) : -1;
        if (k < 0 || (size_t)k >= dst->cct->nevents)
            rc = 1;
        else
            emap[e] = (size_t)k;
    }
    if (!rc) rc = cct_add_tree(dst->cct, dst, src->cct, src, emap, err);
    free(emap);
    return rc;
}

int profile_sum(struct profile *dst, struct profile *src, int *dropped, struct tally_error *err)
{
    if (src->signed_costs && profile_make_signed(dst, err)) return -1;
    if (dst->signed_costs && profile_make_signed(src, err)) return -1;
    if (part_accumulate(dst, dst->parts[0], src, src->parts[0], err)) return -1;
    /* a sum of several processes or threads is none of them */
    struct part *d = dst->parts[0];
    const struct part *s = src->parts[0];
    if (d->has_pid && (!s->has_pid || s->pid != d->pid)) d->has_pid = 0;
    if (d->has_thread && (!s->has_thread || s->thread != d->thread)) d->has_thread = 0;
    if (dst->cct) {
        dst->cct->has_thread = d->has_thread;
        dst->cct->thread = d->thread;
    }
    int rc = dst->cct && src->cct ? add_cct(dst, src, err) : dst->cct || src->cct ? 1 : 0;
    if (rc < 0) return -1;
    if (rc == 1) {
        *dropped = 1;
        cct_free(dst->cct);
        dst->cct = NULL;
    }
    return 0;
}
