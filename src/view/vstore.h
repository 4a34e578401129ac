/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vstore.h - the records of one part as `tally view` keeps them: packed
 * and grouped by function (docs/internals/view.md, "Memory").
 *
 * A part's record tables hold every cost as a 64-bit word and every key
 * in full (a cost record of 13 events: 136 bytes; a call record: 184).
 * The view reads them by function only (the function's source lines, its
 * calls), so the session packs each part once it is read and frees its
 * records: per function with a record, its cost entries (file, line,
 * costs) and its call entries (file and line of the call site, callee,
 * calls, costs), each number a variable-length integer (LEB128; the
 * costs of a signed profile zigzag-coded). A cost entry of cc1's profile
 * takes about 25 bytes.
 *
 * Entries keep the order of the records within their function; costs are
 * in the part's own event order. Call records without costs (a part
 * keeping call counts only) are refused: the view needs the costs.
 */
#ifndef TALLY_VIEW_VSTORE_H
#define TALLY_VIEW_VSTORE_H
#include <stddef.h>
#include <stdint.h>
#include "../model/error.h"
#include "../model/profile.h"

struct vstore {
    size_t ncols;              /* values per entry: the part's base events */
    int zigzag;                /* signed costs */
    size_t nfn;                /* functions with an entry */
    uint32_t *fn;              /* [nfn] ascending function ids */
    size_t *cost_at, *call_at; /* [nfn + 1] where each function's entries start */
    unsigned char *cost, *call;
    uint64_t *total; /* [ncols] the part's self costs summed (checked) */
    size_t ncalls;   /* call entries */
};

/* Pack the records of part pt of p. Returns 0, or -1 with err (a call
 * record without costs, a total past 64 bits). */
int vstore_build(struct vstore *st, const struct profile *p, const struct part *pt,
                 struct tally_error *err);
void vstore_release(struct vstore *st);

/* The position of function fn in st->fn, or SIZE_MAX. */
size_t vstore_find(const struct vstore *st, uint32_t fn);

/* A decoded entry. */
struct vstore_entry {
    uint32_t file;
    uint64_t line;
    uint32_t callee; /* call entries */
    uint64_t count;  /* call entries */
    uint64_t *cost;  /* ncols words, the caller's buffer */
};

/* Decode the entry at q (one of the function's cost or call entries: q in
 * [cost + cost_at[i], cost + cost_at[i + 1]) or the same of call) into e;
 * returns where the next one starts. */
const unsigned char *vstore_next_cost(const struct vstore *st, const unsigned char *q,
                                      struct vstore_entry *e);
const unsigned char *vstore_next_call(const struct vstore *st, const unsigned char *q,
                                      struct vstore_entry *e);

#endif
