/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash.h - small, fast, non-cryptographic hashing used by the interning
 * table and the record tables. Not suitable against adversarial input
 * flooding, which is acceptable for a local profile viewer.
 */
#ifndef TALLY_HASH_H
#define TALLY_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Mix one 64-bit word into a well-distributed 64-bit value. */
static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

/*
 * Hash `n` 64-bit words: one multiply per word, then one full mix. This is
 * on the hot path of every reader (one lookup per cost line).
 */
static inline uint64_t hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 31;
    }
    return hash_mix64(h);
}

/* Hash a byte string. */
static inline uint64_t hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x243f6a8885a308d3ULL ^ (len * 0x9e3779b97f4a7c15ULL);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = hash_mix64(h ^ w);
        p += 8;
        len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, len);
    return hash_mix64(h ^ w ^ ((uint64_t)len << 56));
}

#endif
