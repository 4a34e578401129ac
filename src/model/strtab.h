/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strtab.h - interned strings.
 *
 * Every object, file and function name in a profile is stored once and
 * referred to by a 32-bit id. Id 0 is always the empty string. Strings are
 * NUL-terminated copies owned by the table; the pointers returned by
 * strtab_str() stay valid until strtab_free().
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
    char **blocks; /* all arena blocks, for freeing */
    size_t nblocks, blocks_cap;
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);

/* Return the id of the string s[0..len), adding a copy if it is new. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len);
/* Id of s if it is present, or UINT32_MAX. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t len);

static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
    return t->strs[id];
}
static inline size_t strtab_len(const struct strtab *t, uint32_t id)
{
    return t->lens[id];
}

#endif
