/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.h - reading profile files line by line.
 *
 * input_open() takes a path ("-" is standard input). Plain files are
 * mapped into memory; gzip and zstd files (recognised by their magic
 * bytes, not by their name) and pipes are streamed through a buffer, so a
 * compressed file is never held whole in memory. Lines are handed out
 * without their "\n" and without a trailing "\r" (CRLF files read like LF
 * files). A line pointer stays valid until the next input_getline().
 *
 * Errors (unreadable file, corrupt compressed data) fill `err` with the
 * file name and the line number reached.
 *
 * Lines are bounded: a line longer than in.max_line bytes (8 MiB unless the
 * caller sets another limit with input_set_max_line()) is an error naming
 * the file and the line, so a file without line ends (/dev/zero, a binary
 * file, a gzip bomb of one line) is refused after that many bytes instead of being buffered without
 * end. Readers that parse the mapped bytes in place apply the same limit themselves.
 */
#ifndef TALLY_INPUT_H
#define TALLY_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../model/error.h"

enum input_kind { INPUT_MAP, INPUT_MEM, INPUT_STREAM, INPUT_GZIP, INPUT_ZSTD };

struct input {
    char *path; /* name used in messages */
    enum input_kind kind;
    int fd;           /* -1 when none */
    const char *data; /* INPUT_MAP/INPUT_MEM: the whole content */
    size_t size;      /* its size */
    size_t pos;       /* next unread byte of data, or of buf */
    char *buf;        /* streamed content (decompressed) */
    size_t buf_len, buf_cap;
    unsigned char *raw; /* compressed bytes read from fd */
    size_t raw_len, raw_pos, raw_cap;
    void *codec;               /* z_stream or ZSTD_DCtx */
    int codec_done;            /* gzip: stream end reached, maybe another member follows */
    int eof;                   /* no more bytes from the source */
    unsigned long lineno;      /* number of the line last returned */
    size_t discarded;          /* INPUT_MAP: bytes before this were given back to the kernel */
    struct input_ahead *ahead; /* input_chunk()'s reading thread, or NULL */
    size_t max_line;           /* the longest line accepted (input_set_max_line()) */
    size_t check_step;         /* INPUT_MAP: bytes between tests of the line length */
};

/* The default longest line (bytes, without its "\n"). */
#define INPUT_MAX_LINE_DEFAULT ((size_t)8 << 20)

/*
 * Set the longest line this input accepts, in.max_line (0: the default,
 * which input_open() and input_open_mem() set). The caller chooses it
 * (`tally --max-line`); call it before reading.
 */
void input_set_max_line(struct input *in, size_t n);
/* Fill err with the error of line `lineno` of `path`, longer than max_line; returns -1. */
int input_line_too_long(const char *path, unsigned long lineno, size_t max_line,
                        struct tally_error *err);

/* Open a file ("-" = stdin). Returns 0, or -1 with err. */
int input_open(struct input *in, const char *path, struct tally_error *err);

/*
 * Read from memory (not copied; must outlive the input). Compressed data
 * is recognised here too. `name` is used in messages.
 */
int input_open_mem(struct input *in, const char *name, const void *data, size_t size,
                   struct tally_error *err);

/*
 * Next line: returns 1 and sets line and len, 0 at the end of input, or -1
 * with err on a read or decompression error.
 */
int input_getline(struct input *in, const char **line, size_t *len, struct tally_error *err);

/*
 * Look at up to `want` bytes of the (decompressed) start of the input
 * without consuming it; only valid before the first input_getline().
 * Returns 0 and sets data and len (len may be smaller at end of file), or -1.
 */
int input_peek(struct input *in, size_t want, const char **data, size_t *len,
               struct tally_error *err);

/*
 * Read up to n bytes of (decompressed) content, for binary formats: bytes
 * already looked at by input_peek() come first. Returns the number of
 * bytes read (smaller than n only at the end of the input), or -1 with err.
 */
long long input_read(struct input *in, void *dst, size_t n, struct tally_error *err);

/*
 * Tell the input that nothing before `upto` (a pointer into the mapped data)
 * will be read again. For a mapped file the pages before it are dropped
 * from the process every 256 KiB (at most: input_getline() calls it every
 * megabyte), so reading a large file does not
 * keep it all resident (peak memory stays near the model's size, not the
 * file's). No effect on other kinds of input. input_getline() does this by
 * itself; readers that parse the mapping in place call it as they go.
 */
void input_discard_before(struct input *in, const char *upto);
/*
 * Give back the pages of [from, to) of a mapped input, from the one that
 * holds `from` to the last one that ends by `to`, without touching what
 * input_discard_before() keeps track of: for a second thread parsing the
 * rest of the mapping, which gives back [from, to) after [.., from). Pages
 * given back are read again from the file if touched (so the page of
 * `from` may hold bytes another reader still reads).
 */
void input_discard_range(struct input *in, const char *from, const char *to);

/*
 * The next block of whole lines, for readers that parse in place: on 1,
 * *data holds *len bytes, every line ended by '\n' except a last line of
 * the input that has none. The block stays valid until the next call or
 * input_close(). Returns 0 at the end of the input, -1 with err (read or
 * decompression error, or a line longer than in.max_line). `lineno`
 * is the number of lines the caller has parsed so far: messages name the
 * line after it. Do not mix with input_getline() on one input.
 *
 * A mapped input is one block. A streamed one (pipe, gzip, zstd) comes in
 * blocks of about a megabyte; when more than one processor is available a
 * second thread reads and decompresses the next blocks while the caller
 * parses this one (the bytes and the errors are the same either way).
 */
int input_chunk(struct input *in, unsigned long lineno, const char **data, size_t *len,
                struct tally_error *err);

/*
 * The reader is done with a mapped input: give all its pages back now
 * (input_discard_before() does it only in steps of a megabyte), so that
 * many small inputs read one after the other do not all stay resident
 * until they are closed. No effect on other kinds of input.
 */
void input_discard_all(struct input *in);

/* Was the input compressed? ("gzip", "zstd" or NULL) */
const char *input_compression(const struct input *in);

/* Close; does nothing to a zeroed or already closed input. */
void input_close(struct input *in);

#endif
