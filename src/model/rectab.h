/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rectab.h - a hash table of fixed-size records made of 64-bit words.
 *
 * A record is `key_words` words of key followed by `val_words` words of
 * value. Records are kept in insertion order in fixed-size blocks, so a
 * record's address never changes once created, and iterating 0..count-1
 * visits records in the order they were first seen (which makes every
 * writer and report deterministic). Values of a new record start as zero.
 *
 * Memory: (key_words + val_words) * 8 bytes per record plus 8 to 16 bytes
 * of index, grows with the number of distinct keys only.
 */
#ifndef TALLY_RECTAB_H
#define TALLY_RECTAB_H

#include <stddef.h>
#include <stdint.h>

#define RECTAB_BLOCK_SHIFT 12 /* 4096 records per block */

struct rectab {
    size_t key_words, val_words;
    size_t count;      /* number of records */
    uint64_t **blocks; /* record storage */
    size_t nblocks, blocks_cap;
    /* open addressing, one word per slot (one cache line touched per probe):
       upper 32 hash bits << 32 | record index + 1; 0 = empty */
    uint64_t *slots;
    size_t nslots; /* power of two, or 0 before the first insert */
    size_t hint;   /* record found last: lookups often ask for it or the next one */
};

void rectab_init(struct rectab *t, size_t key_words, size_t val_words);
void rectab_release(struct rectab *t);

/* Pointer to the record with index i (0 <= i < count); its key comes first. */
static inline uint64_t *rectab_at(const struct rectab *t, size_t i)
{
    return t->blocks[i >> RECTAB_BLOCK_SHIFT] +
           (i & ((1u << RECTAB_BLOCK_SHIFT) - 1)) * (t->key_words + t->val_words);
}

/* Value words of the record with index i. */
static inline uint64_t *rectab_val(const struct rectab *t, size_t i)
{
    return rectab_at(t, i) + t->key_words;
}

/*
 * Find the record with this key, creating it (values zero) when absent.
 * Returns a pointer to its value words. If `created` is not NULL it is set
 * to 1 for a new record, else 0.
 */
static inline uint64_t *rectab_get(struct rectab *t, const uint64_t *key, int *created);

/* Like rectab_get, but returns the record's index. */
size_t rectab_get_index(struct rectab *t, const uint64_t *key, int *created);

/*
 * rectab_get_index() without the check of the last record found (used by
 * the inline fast path below).
 */
size_t rectab_lookup(struct rectab *t, const uint64_t *key, int *created);

/* Does the record with index i have this key? (kw words, i < count) */
static inline int rectab_key_at(const struct rectab *t, size_t i, const uint64_t *key, size_t kw)
{
    const uint64_t *rec = rectab_at(t, i);
    uint64_t diff = 0;
    for (size_t w = 0; w < kw; w++)
        diff |= rec[w] ^ key[w];
    return !diff;
}

/*
 * Index of the record found last or of the one after it if either has this
 * key (a file read in order, or line-level aggregation, hits them without
 * hashing), else SIZE_MAX. The last record is tried first: consecutive
 * cost lines of one source line (instructions dropped) ask for it again.
 */
static inline size_t rectab_hint_index(struct rectab *t, const uint64_t *key)
{
    size_t kw = t->key_words, h = t->hint;
    if (h < t->count && rectab_key_at(t, h, key, kw)) return h;
    if (h + 1 < t->count && rectab_key_at(t, h + 1, key, kw)) {
        t->hint = h + 1;
        return h + 1;
    }
    return SIZE_MAX;
}

static inline uint64_t *rectab_get(struct rectab *t, const uint64_t *key, int *created)
{
    size_t i = rectab_hint_index(t, key);
    if (i != SIZE_MAX) {
        if (created) *created = 0;
        return rectab_val(t, i);
    }
    return rectab_val(t, rectab_lookup(t, key, created));
}

/*
 * rectab_get() for a table whose keys are 4 words (the readers' cost
 * records). The hint check is unrolled: with the general loop it costs
 * several times more, and the readers run it once for every cost line.
 */
static inline uint64_t *rectab_get4(struct rectab *t, const uint64_t key[4])
{
    size_t h = t->hint;
    for (int k = 0; k < 2; k++, h++) {
        if (h >= t->count) break;
        const uint64_t *rec = rectab_at(t, h);
        if (((rec[0] ^ key[0]) | (rec[1] ^ key[1]) | (rec[2] ^ key[2]) | (rec[3] ^ key[3])) == 0) {
            t->hint = h;
            return (uint64_t *)rec + 4;
        }
    }
    return rectab_val(t, rectab_lookup(t, key, NULL));
}

/*
 * Make room in the index for n records, so that the table does not grow
 * (and rehash) until it holds that many: for readers that can guess the
 * number of records from the size of the file. No effect when the index
 * is already that large.
 */
void rectab_reserve(struct rectab *t, size_t n);

/*
 * A new record with `key` and zero values, appended without looking the
 * key up (nor adding it to the index): the table may then hold a key more
 * than once. For a table that is only read in order (a profile read to be
 * added into a sum, which looks every record up itself); do not mix with
 * lookups. Returns the value words.
 */
uint64_t *rectab_append(struct rectab *t, const uint64_t *key);

/* Find without creating: value words or NULL. */
uint64_t *rectab_find(const struct rectab *t, const uint64_t *key);

/*
 * Free the index (the slots that find a record by key) of a table that
 * will be read by number only. Records stay where they are; a later lookup
 * or insertion builds the index again from them first, and rectab_find()
 * looks at every record meanwhile (slow: do not look up such a table).
 */
void rectab_drop_index(struct rectab *t);

/*
 * For a caller that reads the records once, in order, and then clears the
 * table: free the index and every block that holds records below `upto`
 * only. Afterwards records >= upto may still be read (rectab_at), but
 * nothing may be looked up or added until rectab_clear() or
 * rectab_release().
 */
void rectab_free_below(struct rectab *t, size_t upto);

/* Remove every record (keeps the shape). */
void rectab_clear(struct rectab *t);

#endif
