/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strtab.h - interned strings.
 *
 * Every object, file and function name in a profile is stored once and
 * referred to by a 32-bit id. Id 0 is always the empty string. Strings are
 * NUL-terminated copies owned by the table; the pointers returned by
 * strtab_str() stay valid until strtab_release() (or strtab_free_below()).
 *
 * Memory: the strings and their NULs, copied into 64 KiB blocks in id
 * order, plus 8 bytes of pointer, 4 of length and 8 to 16 of hash index
 * per string.
 */
#ifndef TALLY_STRTAB_H
#define TALLY_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
    char **strs;     /* id -> string */
    uint32_t *lens;  /* id -> length */
    size_t n, cap;   /* number of ids in use, allocated ids */
    uint32_t *slots; /* open-addressing table of id+1 (0 = empty) */
    size_t nslots;   /* power of two */
    char *arena;     /* current block that strings are copied into */
    size_t arena_used, arena_size;
    char **blocks;         /* all arena blocks, for freeing (NULL once freed) */
    uint32_t *block_first; /* [nblocks] id of the first string of each block */
    size_t nblocks, blocks_cap;
    size_t nfreed; /* blocks freed by strtab_free_below(), from the first */
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);

/* Return the id of the string s[0..len), adding a copy if it is new. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len);
/* Id of s if it is present, or UINT32_MAX. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t len);

/*
 * For a caller that reads the strings once, in id order, and then releases
 * the table (a table copied into another one): free the hash index and
 * every block that holds only strings of ids below `upto`; with upto >=
 * n, everything but the structure. Freed memory is given back to the
 * system at once (malloc_trim(), see xtrim()). Afterwards only strings of
 * ids >= upto may be read (strtab_str(), strtab_len()); nothing may be
 * looked up or interned, and the next call must not give a lower bound.
 * strtab_release() frees the rest.
 */
void strtab_free_below(struct strtab *t, size_t upto);

static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
    return t->strs[id];
}
static inline size_t strtab_len(const struct strtab *t, uint32_t id)
{
    return t->lens[id];
}

#endif
