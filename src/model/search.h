/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * search.h - binary search over an array sorted by a uint64_t field.
 *
 * SEARCH_UPPER(array, n, field, key) returns how many of the first n
 * elements have `field` <= key, i.e. the index just after the last element
 * at or before key (0 when there is none). The array must be sorted by
 * `field`, ascending; equal keys are allowed. O(log n), no allocation.
 */
#ifndef TALLY_SEARCH_H
#define TALLY_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t search_upper_u64(const void *base, size_t n, size_t stride, size_t offset,
                                      uint64_t key)
{
    const char *b = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, b + mid * stride + offset, sizeof(k));
        if (k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#define SEARCH_UPPER(array, n, field, key)                                                         \
    search_upper_u64((array), (n), sizeof(*(array)), offsetof(__typeof__(*(array)), field), (key))

#endif
