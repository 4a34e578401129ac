/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytebuf.h - the one growable byte buffer of tally: text built up piece
 * by piece (a DOT label, a translated regex, a folded stack line) or bytes
 * of an encoded message (pprof's protobuf).
 *
 * `s` holds `n` bytes followed by a NUL (once anything was added, even an
 * empty piece), so text can be used as a C string; binary data may hold
 * NULs of its own. Growth goes through xgrow() (model/error.h): running
 * out of memory ends the program, so no call fails. Setting `n` to 0
 * empties the buffer and keeps its memory. The buffer owns `s`; release it
 * with bytebuf_release() or take it over (free() it).
 */
#ifndef TALLY_BYTEBUF_H
#define TALLY_BYTEBUF_H

#include <stddef.h>

struct bytebuf {
    char *s;
    size_t n, cap;
};

/* Append n bytes of data (data may be NULL when n is 0). */
void bytebuf_add(struct bytebuf *b, const void *data, size_t n);
void bytebuf_addc(struct bytebuf *b, char c);
/* Append the text printf would write. */
void bytebuf_printf(struct bytebuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bytebuf_release(struct bytebuf *b);

#endif
