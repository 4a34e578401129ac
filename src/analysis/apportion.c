/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apportion.c - the largest remainder method (apportion.h). */
#include "apportion.h"

#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

typedef unsigned __int128 u128;

void apportion_scratch_release(struct apportion_scratch *s)
{
    free(s->idx);
    free(s->rem_hi);
    free(s->rem_lo);
    memset(s, 0, sizeof(*s));
}

/* Larger remainder first; ties: the lower index (qsort_r, ctx = scratch). */
static int cmp_rem(const void *a, const void *b, void *ctx)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct apportion_scratch *s = ctx;
    if (s->rem_hi[i] != s->rem_hi[j]) return s->rem_hi[i] > s->rem_hi[j] ? -1 : 1;
    if (s->rem_lo[i] != s->rem_lo[j]) return s->rem_lo[i] > s->rem_lo[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

void apportion(uint64_t w, const uint64_t *weights, size_t stride, size_t n, uint64_t *out,
               enum apportion_zero zero, struct apportion_scratch *s)
{
    if (!n) return;
    u128 sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += weights[k * stride];
    int even = 0;
    if (sum == 0) {
        if (zero == APPORTION_ZERO_FIRST) {
            out[0] = w;
            for (size_t k = 1; k < n; k++)
                out[k] = 0;
            return;
        }
        even = 1;
        sum = n;
    }
    if (n == 1) {
        out[0] = w;
        return;
    }
    if (n > s->cap) {
        size_t cap = s->cap;
        s->idx = xgrow(s->idx, &cap, n, sizeof(*s->idx));
        cap = s->cap;
        s->rem_hi = xgrow(s->rem_hi, &cap, n, sizeof(*s->rem_hi));
        cap = s->cap;
        s->rem_lo = xgrow(s->rem_lo, &cap, n, sizeof(*s->rem_lo));
        s->cap = cap;
    }
    uint64_t given = 0;
    for (size_t k = 0; k < n; k++) {
        u128 prod = (u128)w * (even ? 1 : weights[k * stride]);
        u128 q = prod / sum, r = prod % sum;
        out[k] = (uint64_t)q;
        given += out[k];
        s->rem_hi[k] = (uint64_t)(r >> 64);
        s->rem_lo[k] = (uint64_t)r;
        s->idx[k] = k;
    }
    uint64_t left = w - given; /* fewer than n */
    if (!left) return;
    if (left <= 8) {
        /* a few units: pick the largest remainders one by one */
        for (; left; left--) {
            size_t best = 0;
            for (size_t k = 1; k < n; k++)
                if (s->rem_hi[k] > s->rem_hi[best] ||
                    (s->rem_hi[k] == s->rem_hi[best] && s->rem_lo[k] > s->rem_lo[best]))
                    best = k;
            out[best]++;
            s->rem_hi[best] = s->rem_lo[best] = 0;
        }
        return;
    }
    qsort_r(s->idx, n, sizeof(*s->idx), cmp_rem, s);
    for (size_t k = 0; k < left; k++)
        out[s->idx[k]]++;
}
