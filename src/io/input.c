/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define RAW_CHUNK (256 * 1024)
#define BUF_CHUNK (1024 * 1024)

void input_set_max_line(struct input *in, size_t n)
{
    in->max_line = n ? n : INPUT_MAX_LINE_DEFAULT;
    in->check_step = in->max_line < ((size_t)1 << 20) ? in->max_line : (size_t)1 << 20;
}

int input_line_too_long(const char *path, unsigned long lineno, size_t max_line,
                        struct tally_error *err)
{
    return tally_error_set(err, path, lineno,
                           "line longer than %zu bytes: not a profile, or raise the limit with "
                           "'tally --max-line=BYTES COMMAND ...'",
                           max_line);
}

static int is_gzip(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

static int is_zstd(const unsigned char *p, size_t n)
{
    return n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd;
}

static void init_common(struct input *in, const char *name)
{
    memset(in, 0, sizeof(*in));
    in->fd = -1;
    in->path = xstrdup(name);
    input_set_max_line(in, 0);
}

static int start_codec(struct input *in, struct tally_error *err)
{
    if (in->kind == INPUT_GZIP) {
        z_stream *z = xcalloc(1, sizeof(*z));
        if (inflateInit2(z, 15 + 32) != Z_OK) {
            free(z);
            return tally_error_set(err, in->path, 0, "cannot start gzip decompression");
        }
        in->codec = z;
    } else if (in->kind == INPUT_ZSTD) {
        ZSTD_DCtx *z = ZSTD_createDCtx();
        if (!z) return tally_error_set(err, in->path, 0, "cannot start zstd decompression");
        in->codec = z;
    }
    return 0;
}

/* Read more raw bytes from fd (or take them from memory). 0 ok, -1 error. */
static int fill_raw(struct input *in, struct tally_error *err)
{
    if (in->raw_pos > 0) {
        memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
        in->raw_len -= in->raw_pos;
        in->raw_pos = 0;
    }
    if (in->fd < 0) {
        in->eof = 1; /* memory input: everything is already in raw */
        return 0;
    }
    if (in->raw_cap - in->raw_len < RAW_CHUNK / 2) {
        in->raw_cap = in->raw_len + RAW_CHUNK;
        in->raw = xrealloc(in->raw, in->raw_cap);
    }
    for (;;) {
        ssize_t r = read(in->fd, in->raw + in->raw_len, in->raw_cap - in->raw_len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return tally_error_set(err, in->path, in->lineno, "read error: %s", strerror(errno));
        if (r == 0) in->eof = 1;
        in->raw_len += (size_t)r;
        return 0;
    }
}

static void make_room(struct input *in, size_t want)
{
    if (in->pos > 0 && in->pos == in->buf_len) {
        in->pos = in->buf_len = 0;
    } else if (in->pos > 0 && in->buf_cap - in->buf_len < want) {
        memmove(in->buf, in->buf + in->pos, in->buf_len - in->pos);
        in->buf_len -= in->pos;
        in->pos = 0;
    }
    if (in->buf_cap - in->buf_len < want) {
        in->buf_cap = in->buf_len + (want > BUF_CHUNK ? want : BUF_CHUNK);
        in->buf = xrealloc(in->buf, in->buf_cap);
    }
}

/*
 * Append more decoded bytes to buf. Returns 1 if bytes were added, 0 at
 * the end of the input, -1 on error.
 */
static int fill_buf(struct input *in, struct tally_error *err)
{
    make_room(in, BUF_CHUNK / 2);
    for (;;) {
        if (in->raw_pos == in->raw_len) {
            if (in->eof) break;
            if (fill_raw(in, err)) return -1;
            if (in->raw_pos == in->raw_len && in->eof) break;
        }
        size_t avail = in->raw_len - in->raw_pos;
        unsigned char *src = in->raw + in->raw_pos;
        size_t room = in->buf_cap - in->buf_len;
        size_t produced = 0, consumed = 0;
        if (in->kind == INPUT_STREAM) {
            size_t n = avail < room ? avail : room;
            memcpy(in->buf + in->buf_len, src, n);
            produced = consumed = n;
        } else if (in->kind == INPUT_GZIP) {
            z_stream *z = in->codec;
            if (in->codec_done) {
                /* another gzip member follows (concatenated .gz files) */
                if (!is_gzip(src, avail) && !(avail < 2 && !in->eof))
                    return tally_error_set(err, in->path, in->lineno,
                                           "trailing garbage after gzip data");
                if (avail < 2) {
                    if (fill_raw(in, err)) return -1;
                    continue;
                }
                inflateReset(z);
                in->codec_done = 0;
            }
            z->next_in = src;
            z->avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
            z->next_out = (unsigned char *)in->buf + in->buf_len;
            z->avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
            int rc = inflate(z, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                return tally_error_set(err, in->path, in->lineno, "corrupt gzip data%s%s",
                                       z->msg ? ": " : "", z->msg ? z->msg : "");
            consumed = (size_t)(z->next_in - src);
            produced = (size_t)((char *)z->next_out - (in->buf + in->buf_len));
            if (rc == Z_STREAM_END) in->codec_done = 1;
        } else {
            ZSTD_inBuffer ib = {src, avail, 0};
            ZSTD_outBuffer ob = {in->buf + in->buf_len, room, 0};
            size_t rc = ZSTD_decompressStream(in->codec, &ob, &ib);
            if (ZSTD_isError(rc))
                return tally_error_set(err, in->path, in->lineno, "corrupt zstd data: %s",
                                       ZSTD_getErrorName(rc));
            consumed = ib.pos;
            produced = ob.pos;
            in->codec_done = rc == 0;
        }
        in->raw_pos += consumed;
        in->buf_len += produced;
        if (produced) return 1;
        if (!consumed && in->raw_pos == in->raw_len && in->eof) break;
        if (!consumed && !produced && in->fd < 0 && in->eof) break;
    }
    if (in->kind == INPUT_GZIP && !in->codec_done)
        return tally_error_set(err, in->path, in->lineno, "truncated gzip data");
    if (in->kind == INPUT_ZSTD && !in->codec_done)
        return tally_error_set(err, in->path, in->lineno, "truncated zstd data");
    return 0;
}

static int setup_stream(struct input *in, const unsigned char *head, size_t n,
                        struct tally_error *err)
{
    if (is_gzip(head, n))
        in->kind = INPUT_GZIP;
    else if (is_zstd(head, n))
        in->kind = INPUT_ZSTD;
    return start_codec(in, err);
}

int input_open_mem(struct input *in, const char *name, const void *data, size_t size,
                   struct tally_error *err)
{
    init_common(in, name);
    in->kind = INPUT_MEM;
    in->data = data;
    in->size = size;
    if (is_gzip(data, size) || is_zstd(data, size)) {
        in->raw = xmalloc(size ? size : 1);
        memcpy(in->raw, data, size);
        in->raw_len = in->raw_cap = size;
        in->eof = 1;
        in->data = NULL;
        if (setup_stream(in, data, size, err)) {
            input_close(in);
            return -1;
        }
    }
    return 0;
}

int input_open(struct input *in, const char *path, struct tally_error *err)
{
    init_common(in, path);
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tally_error_set(err, path, 0, "cannot open: %s", strerror(errno));
        input_close(in);
        return -1;
    }
    in->fd = fd;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        tally_error_set(err, path, 0, "is a directory, not a profile");
        input_close(in);
        return -1;
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
            const unsigned char *u = m;
            if (!is_gzip(u, (size_t)st.st_size) && !is_zstd(u, (size_t)st.st_size)) {
                in->kind = INPUT_MAP;
                in->data = m;
                in->size = (size_t)st.st_size;
                close(fd); /* the mapping stays: many inputs may be open at once */
                in->fd = -1;
                return 0;
            }
            munmap(m, (size_t)st.st_size);
        }
    }
    /* stream: read the first bytes to decide between plain and compressed */
    in->kind = INPUT_STREAM;
    while (in->raw_len < 4 && !in->eof)
        if (fill_raw(in, err)) {
            input_close(in);
            return -1;
        }
    if (setup_stream(in, in->raw, in->raw_len, err)) {
        input_close(in);
        return -1;
    }
    return 0;
}

int input_peek(struct input *in, size_t want, const char **data, size_t *len,
               struct tally_error *err)
{
    if (in->kind == INPUT_MAP || (in->kind == INPUT_MEM && in->data)) {
        *data = in->data;
        *len = in->size < want ? in->size : want;
        return 0;
    }
    while (in->buf_len - in->pos < want) {
        int r = fill_buf(in, err);
        if (r < 0) return -1;
        if (r == 0) break;
    }
    *data = in->buf ? in->buf + in->pos : "";
    size_t have = in->buf_len - in->pos;
    *len = have < want ? have : want;
    return 0;
}

long long input_read(struct input *in, void *dst, size_t n, struct tally_error *err)
{
    if (in->kind == INPUT_MAP || (in->kind == INPUT_MEM && in->data)) {
        size_t k = in->pos < in->size ? in->size - in->pos : 0;
        if (k > n) k = n;
        memcpy(dst, in->data + in->pos, k);
        in->pos += k;
        return (long long)k;
    }
    size_t got = 0;
    while (got < n) {
        if (in->pos == in->buf_len) {
            int r = fill_buf(in, err);
            if (r < 0) return -1;
            if (r == 0) break;
        }
        size_t k = in->buf_len - in->pos;
        if (k > n - got) k = n - got;
        memcpy((char *)dst + got, in->buf + in->pos, k);
        in->pos += k;
        got += k;
    }
    return (long long)got;
}

#define DISCARD_STEP ((size_t)1 << 18)

void input_discard_before(struct input *in, const char *upto)
{
    if (in->kind != INPUT_MAP || upto < in->data) return;
    size_t off = (size_t)(upto - in->data);
    if (off - in->discarded < DISCARD_STEP) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t end = off & ~(page - 1);
    if (end <= in->discarded) return;
    /* a private read-only file mapping: dropped pages would be re-read from the file */
    madvise((char *)in->data + in->discarded, end - in->discarded, MADV_DONTNEED);
    in->discarded = end;
}

void input_discard_range(struct input *in, const char *from, const char *to)
{
    if (in->kind != INPUT_MAP || from < in->data || to <= from) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t a = (size_t)(from - in->data) & ~(page - 1);
    size_t b = (size_t)(to - in->data) & ~(page - 1);
    if (b > a) madvise((char *)in->data + a, b - a, MADV_DONTNEED);
}

void input_discard_all(struct input *in)
{
    if (in->kind != INPUT_MAP || !in->data || in->discarded >= in->size) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t start = in->discarded & ~(page - 1);
    madvise((char *)in->data + start, in->size - start, MADV_DONTNEED);
    in->discarded = in->size;
}

/* input_getline() of a streamed input: kept apart so that the mapped path stays lean. */
static __attribute__((noinline)) int getline_stream(struct input *in, const char **line,
                                                    size_t *len, struct tally_error *err)
{
    size_t scanned = 0; /* bytes after pos known to hold no newline */
    for (;;) {
        char *s = in->buf ? in->buf + in->pos : NULL; /* no buffer before the first fill */
        size_t left = in->buf_len - in->pos;
        char *nl = left > scanned ? memchr(s + scanned, '\n', left - scanned) : NULL;
        if (!nl) {
            scanned = left;
            if (left > in->max_line)
                return input_line_too_long(in->path, in->lineno + 1, in->max_line, err);
            /* fill_buf keeps the unread bytes, so `scanned` stays valid */
            int r = fill_buf(in, err);
            if (r < 0) return -1;
            if (r > 0) continue;
            if (!left) return 0; /* end of input */
        }
        s = in->buf + in->pos;
        size_t n = nl ? (size_t)(nl - s) : left;
        if (n > in->max_line)
            return input_line_too_long(in->path, in->lineno + 1, in->max_line, err);
        in->pos += nl ? n + 1 : n;
        if (n && s[n - 1] == '\r') n--;
        *line = s;
        *len = n;
        in->lineno++;
        return 1;
    }
}

int input_getline(struct input *in, const char **line, size_t *len, struct tally_error *err)
{
    if (in->kind == INPUT_MAP || (in->kind == INPUT_MEM && in->data)) {
        if (in->pos >= in->size) return 0;
        const char *s = in->data + in->pos;
        size_t left = in->size - in->pos;
        const char *nl = memchr(s, '\n', left);
        size_t n = nl ? (size_t)(nl - s) : left;
        in->pos += nl ? n + 1 : n;
        /*
         * One test per line serves both the page discarding and the line
         * limit: a line longer than the limit has moved pos at least
         * check_step (the smaller of the two) past `discarded`.
         */
        if (in->pos - in->discarded >= in->check_step) {
            if (n > in->max_line)
                return input_line_too_long(in->path, in->lineno + 1, in->max_line, err);
            input_discard_before(in, s);
        }
        if (n && s[n - 1] == '\r') n--;
        *line = s;
        *len = n;
        in->lineno++;
        return 1;
    }
    return getline_stream(in, line, len, err);
}

/* ------------------------------------------------------------------------ */
/* Blocks of whole lines (input_chunk), read ahead by a second thread.      */

#define BLOCK_TARGET ((size_t)1 << 20)
#define AHEAD_SLOTS 4

/* What ends the blocks: nothing yet, the end of the input, or an error. */
enum { END_NONE, END_EOF, END_ERROR };

struct block_end {
    int end;           /* END_* */
    int err_next_line; /* the error names the line after the caller's (line too long) */
    struct tally_error err;
};

struct input_ahead {
    size_t cut;              /* single-threaded: the block handed out last, a prefix of in->buf */
    struct block_end be;     /* how the input ended (the reading thread's until it ends) */
    struct worker_ahead *wa; /* the thread that makes the blocks into `slot`, or NULL */
    struct {
        char *buf;
        size_t cap, len;
    } slot[AHEAD_SLOTS];
};

/*
 * Where the first line of buf[0, n) longer than max_line starts, or n. Only
 * a block longer than max_line can hold one, so blocks of the usual size
 * (a megabyte, the limit 8 MiB) are never scanned.
 */
static size_t first_long_line(const char *buf, size_t n, size_t max_line)
{
    if (n <= max_line) return n;
    size_t at = 0;
    while (at < n) {
        const char *nl = memchr(buf + at, '\n', n - at);
        size_t end = nl ? (size_t)(nl - buf) : n;
        if (end - at > max_line) return at;
        at = end + 1;
    }
    return n;
}

/*
 * Fill in->buf (whose unread bytes start at 0) up to BLOCK_TARGET bytes and
 * past one line end, or to the end of the input. Returns 1 with the length
 * of the block of whole lines in *cut; 0 when nothing is left; -1 on an
 * error. be says when the input ended (also with the last block, 1): an
 * error waits there until the whole lines before it were given out.
 */
static int make_block(struct input *in, struct block_end *be, size_t *cut)
{
    int eof = 0;
    for (;;) {
        if (in->buf_len >= BLOCK_TARGET || eof) {
            const char *nl = in->buf_len ? memrchr(in->buf, '\n', in->buf_len) : NULL;
            size_t whole = nl ? (size_t)(nl - in->buf) + 1 : 0;
            size_t long_at = first_long_line(in->buf, whole, in->max_line);
            if (long_at < whole) {
                /* the lines before it, then the error */
                if (long_at) {
                    *cut = long_at;
                    return 1;
                }
                whole = 0;
            }
            if (in->buf_len - whole > in->max_line) {
                /* the line after the whole ones is too long */
                if (whole) {
                    *cut = whole;
                    return 1;
                }
                be->end = END_ERROR;
                be->err_next_line = 1;
                tally_error_set(&be->err, in->path, 0,
                                "line longer than %zu bytes: not a profile, or raise the limit "
                                "with 'tally --max-line=BYTES COMMAND ...'",
                                in->max_line);
                return -1;
            }
            if (eof) {
                be->end = END_EOF;
                if (!in->buf_len) return 0;
                *cut = in->buf_len;
                return 1;
            }
            if (whole) {
                *cut = whole;
                return 1;
            }
        }
        int r = fill_buf(in, &be->err);
        if (r < 0) {
            be->end = END_ERROR;
            const char *nl = in->buf_len ? memrchr(in->buf, '\n', in->buf_len) : NULL;
            if (!nl) return -1;
            *cut = (size_t)(nl - in->buf) + 1;
            return 1;
        }
        if (r == 0) eof = 1;
    }
}

/* Drop the first n bytes of in->buf (a block given out). */
static void buf_drop(struct input *in, size_t n)
{
    memmove(in->buf, in->buf + n, in->buf_len - n);
    in->buf_len -= n;
    in->pos = 0;
}

/* The reading thread's work (worker_ahead_start()): block k into slot k % AHEAD_SLOTS. */
static int ahead_make(void *arg, size_t k)
{
    struct input *in = arg;
    struct input_ahead *a = in->ahead;
    size_t cut = 0;
    if (a->be.end || make_block(in, &a->be, &cut) <= 0) return 0;
    /* the slot's buffer takes the bytes after the block */
    size_t at = k % AHEAD_SLOTS;
    char *b = a->slot[at].buf;
    size_t cap = a->slot[at].cap, rest = in->buf_len - cut;
    if (cap < rest + BUF_CHUNK) {
        cap = rest + BUF_CHUNK;
        b = xrealloc(b, cap);
    }
    memcpy(b, in->buf + cut, rest);
    a->slot[at].buf = in->buf;
    a->slot[at].cap = in->buf_cap;
    a->slot[at].len = cut;
    in->buf = b;
    in->buf_cap = cap;
    in->buf_len = rest;
    in->pos = 0;
    return 1;
}

static int ahead_error(const struct input_ahead *a, unsigned long lineno, struct tally_error *err)
{
    if (err) {
        *err = a->be.err;
        err->line = a->be.err_next_line ? lineno + 1 : lineno;
    }
    return -1;
}

int input_chunk(struct input *in, unsigned long lineno, const char **data, size_t *len,
                struct tally_error *err)
{
    if (in->kind == INPUT_MAP || (in->kind == INPUT_MEM && in->data)) {
        if (in->pos >= in->size) return 0;
        *data = in->data + in->pos;
        *len = in->size - in->pos;
        in->pos = in->size;
        return 1;
    }
    struct input_ahead *a = in->ahead;
    if (!a) {
        a = in->ahead = xcalloc(1, sizeof(*a));
        if (in->pos) buf_drop(in, in->pos); /* bytes looked at by input_peek() stay */
        if (worker_two_cpus()) a->wa = worker_ahead_start(ahead_make, in, AHEAD_SLOTS);
    }
    if (a->wa) {
        size_t k;
        if (worker_ahead_next(a->wa, &k)) {
            *data = a->slot[k % AHEAD_SLOTS].buf;
            *len = a->slot[k % AHEAD_SLOTS].len;
            return 1;
        }
        /* the thread has finished: the input is the caller's again */
        worker_ahead_stop(a->wa);
        a->wa = NULL;
        return a->be.end == END_ERROR ? ahead_error(a, lineno, err) : 0;
    }
    if (a->cut) buf_drop(in, a->cut);
    a->cut = 0;
    size_t cut = 0;
    int rc = a->be.end ? 0 : make_block(in, &a->be, &cut);
    if (rc > 0) {
        a->cut = cut;
        *data = in->buf;
        *len = cut;
        return 1;
    }
    return a->be.end == END_ERROR ? ahead_error(a, lineno, err) : 0;
}

static void ahead_free(struct input *in)
{
    struct input_ahead *a = in->ahead;
    if (!a) return;
    worker_ahead_stop(a->wa);
    for (int k = 0; k < AHEAD_SLOTS; k++)
        free(a->slot[k].buf);
    free(a);
    in->ahead = NULL;
}

const char *input_compression(const struct input *in)
{
    return in->kind == INPUT_GZIP ? "gzip" : in->kind == INPUT_ZSTD ? "zstd" : NULL;
}

void input_close(struct input *in)
{
    if (!in->path) return; /* never opened (zeroed), or closed already */
    ahead_free(in);
    if (in->kind == INPUT_MAP && in->data) munmap((void *)in->data, in->size);
    if (in->fd >= 0) close(in->fd);
    if (in->codec) {
        if (in->kind == INPUT_GZIP) {
            inflateEnd(in->codec);
            free(in->codec);
        } else {
            ZSTD_freeDCtx(in->codec);
        }
    }
    free(in->buf);
    free(in->raw);
    free(in->path);
    memset(in, 0, sizeof(*in));
    in->fd = -1;
}
