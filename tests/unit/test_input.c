/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for io/input: line splitting, CRLF, gzip/zstd streaming. */
#include "testutil.h"
#include "io/parse.h"
#include "io/worker.h"

#include <ctype.h>

#include <sched.h>
#include <zlib.h>
#include <zstd.h>

/* Build a text of n numbered lines (CRLF ends when crlf). */
static char *make_text(size_t n, int crlf, size_t *len)
{
    size_t cap = n * 32 + 1;
    char *s = malloc(cap), *p = s;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "line %zu%s", i, crlf ? "\r\n" : "\n");
    *len = (size_t)(p - s);
    return s;
}

static unsigned char *gzip_data(const char *src, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, len) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)src;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

/* Read all lines, checking they are "line I" in order. */
static void expect_lines(struct input *in, size_t n)
{
    struct tally_error err;
    const char *line;
    size_t len, i = 0;
    int rc;
    char want[32];
    while ((rc = input_getline(in, &line, &len, &err)) == 1) {
        int wl = sprintf(want, "line %zu", i);
        assert_int_equal(len, (size_t)wl);
        assert_memory_equal(line, want, len);
        i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, n);
}

static void test_mem_lines(void **state)
{
    size_t len;
    char *text = make_text(1000, 0, &len);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "m", text, len, &err), 0);
    expect_lines(&in, 1000);
    input_close(&in);
    free(text);
}

static void test_crlf_and_no_final_newline(void **state)
{
    const char *text = "a\r\nb\r\n\r\nlast";
    struct input in;
    struct tally_error err;
    const char *line;
    size_t len;
    assert_int_equal(input_open_mem(&in, "m", text, strlen(text), &err), 0);
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(len, 1);
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(len, 0);
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(len, 4);
    assert_memory_equal(line, "last", 4);
    assert_int_equal(in.lineno, 4);
    assert_int_equal(input_getline(&in, &line, &len, &err), 0);
    input_close(&in);
}

static void test_gzip_file_streamed(void **state)
{
    size_t len, glen;
    char *text = make_text(300000, 1, &len); /* several MB: many buffer refills */
    unsigned char *gz = gzip_data(text, len, &glen);
    char *path = test_tmpfile(gz, glen);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open(&in, path, &err), 0);
    assert_string_equal(input_compression(&in), "gzip");
    const char *head;
    size_t hlen;
    assert_int_equal(input_peek(&in, 7, &head, &hlen, &err), 0);
    assert_int_equal(hlen, 7);
    assert_memory_equal(head, "line 0\r", 7);
    expect_lines(&in, 300000);
    input_close(&in);
    unlink(path);
    free(path);
    free(gz);
    free(text);
}

static void test_gzip_concatenated_members(void **state)
{
    size_t l1, l2, g1, g2;
    char *t1 = make_text(10, 0, &l1);
    unsigned char *a = gzip_data(t1, l1, &g1);
    /* second member continues the numbering */
    char *t2 = malloc(64);
    l2 = (size_t)sprintf(t2, "line 10\nline 11\n");
    unsigned char *b = gzip_data(t2, l2, &g2);
    unsigned char *both = malloc(g1 + g2);
    memcpy(both, a, g1);
    memcpy(both + g1, b, g2);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "m", both, g1 + g2, &err), 0);
    expect_lines(&in, 12);
    input_close(&in);
    free(t1), free(t2), free(a), free(b), free(both);
}

static void test_truncated_gzip_is_an_error(void **state)
{
    size_t len, glen;
    char *text = make_text(5000, 0, &len);
    unsigned char *gz = gzip_data(text, len, &glen);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "cut.gz", gz, glen / 2, &err), 0);
    const char *line;
    size_t l;
    int rc;
    while ((rc = input_getline(&in, &line, &l, &err)) == 1)
        ;
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "gzip"));
    assert_string_equal(err.file, "cut.gz");
    input_close(&in);
    free(text);
    free(gz);
}

static void test_zstd_file(void **state)
{
    size_t len;
    char *text = make_text(200000, 0, &len);
    size_t cap = ZSTD_compressBound(len);
    void *z = malloc(cap);
    size_t zlen = ZSTD_compress(z, cap, text, len, 3);
    assert_false(ZSTD_isError(zlen));
    char *path = test_tmpfile(z, zlen);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open(&in, path, &err), 0);
    assert_string_equal(input_compression(&in), "zstd");
    expect_lines(&in, 200000);
    input_close(&in);
    unlink(path);
    free(path);
    free(z);
    free(text);
}

static void test_plain_file_mapped(void **state)
{
    size_t len;
    char *text = make_text(5000, 0, &len);
    char *path = test_tmpfile(text, len);
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open(&in, path, &err), 0);
    assert_null(input_compression(&in));
    expect_lines(&in, 5000);
    input_close(&in);
    unlink(path);
    free(path);
    free(text);
}

static void test_missing_file(void **state)
{
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open(&in, "/nonexistent/tally", &err), -1);
    assert_string_equal(err.file, "/nonexistent/tally");
    assert_non_null(strstr(err.msg, "cannot open"));
}

/* Lines of 100 and 300 bytes with the limit at 200: line 2 is refused, mapped or streamed. */
static void check_line_limit(struct input *in)
{
    struct tally_error err;
    const char *line;
    size_t len;
    assert_int_equal(input_getline(in, &line, &len, &err), 1);
    assert_int_equal(len, 100);
    assert_int_equal(input_getline(in, &line, &len, &err), -1);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.msg, "line longer than 200 bytes"));
}

static void test_line_limit(void **state)
{
    char text[100 + 1 + 300 + 1];
    memset(text, 'a', sizeof(text));
    text[100] = '\n';
    text[401] = '\n';
    /* mapped */
    char *path = test_tmpfile(text, sizeof(text));
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open(&in, path, &err), 0);
    assert_int_equal(in.max_line, INPUT_MAX_LINE_DEFAULT);
    input_set_max_line(&in, 200);
    check_line_limit(&in);
    input_close(&in);
    unlink(path);
    free(path);
    /* streamed (gzip), and the last line without a line end */
    size_t glen;
    unsigned char *gz = gzip_data(text, sizeof(text) - 1, &glen);
    path = test_tmpfile(gz, glen);
    assert_int_equal(input_open(&in, path, &err), 0);
    assert_int_equal(in.max_line, INPUT_MAX_LINE_DEFAULT);
    input_set_max_line(&in, 200);
    check_line_limit(&in);
    input_close(&in);
    unlink(path);
    free(path);
    free(gz);
    /* raised: read whole; 0 restores the default */
    assert_int_equal(input_open_mem(&in, "m", text, sizeof(text), &err), 0);
    input_set_max_line(&in, 300);
    const char *line;
    size_t len;
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(input_getline(&in, &line, &len, &err), 1);
    assert_int_equal(len, 300);
    input_set_max_line(&in, 0);
    assert_int_equal(in.max_line, INPUT_MAX_LINE_DEFAULT);
    input_close(&in);
    input_close(&in); /* a closed input may be closed again */
}

/*
 * Read a gzip input (in memory) by blocks: the blocks put together are the
 * text, each ends with a line end except a last line without one, and an
 * error names the line that input_getline() names on the same bytes.
 * Returns the number of lines seen, or sets *err_line on an error.
 */
/* The line limit of the inputs chunk_read() and getline_read() open (0: the default). */
static size_t limit;

static size_t chunk_read(const unsigned char *gz, size_t glen, const char *text, size_t len,
                         int *rc_out, unsigned long *err_line)
{
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "c.gz", gz, glen, &err), 0);
    input_set_max_line(&in, limit);
    const char *data;
    size_t n, got = 0;
    unsigned long lines = 0;
    int rc;
    while ((rc = input_chunk(&in, lines, &data, &n, &err)) == 1) {
        assert_true(n > 0);
        assert_true(got + n <= len);
        assert_memory_equal(data, text + got, n);
        got += n;
        for (size_t i = 0; i < n; i++)
            lines += data[i] == '\n';
        if (data[n - 1] != '\n') assert_int_equal(got, len); /* only the last line */
    }
    *rc_out = rc;
    if (rc == 0) assert_int_equal(got, len);
    if (rc < 0) *err_line = err.line;
    input_close(&in);
    return lines;
}

/* The same through input_getline(): lines, or the line an error names. */
static size_t getline_read(const unsigned char *gz, size_t glen, int *rc_out,
                           unsigned long *err_line)
{
    struct input in;
    struct tally_error err;
    assert_int_equal(input_open_mem(&in, "c.gz", gz, glen, &err), 0);
    input_set_max_line(&in, limit);
    const char *line;
    size_t l, lines = 0;
    int rc;
    while ((rc = input_getline(&in, &line, &l, &err)) == 1)
        lines++;
    *rc_out = rc;
    if (rc < 0) *err_line = err.line;
    input_close(&in);
    return lines;
}

static void check_chunks(void)
{
    /* several blocks of a megabyte, the last line without its end */
    size_t len, glen;
    char *text = make_text(300000, 0, &len);
    len--;
    unsigned char *gz = gzip_data(text, len, &glen);
    int rc1, rc2;
    unsigned long l1 = 0, l2 = 0;
    size_t n1 = chunk_read(gz, glen, text, len, &rc1, &l1);
    size_t n2 = getline_read(gz, glen, &rc2, &l2);
    assert_int_equal(rc1, 0);
    assert_int_equal(rc2, 0);
    assert_int_equal(n1 + 1, n2); /* the last line has no '\n' */
    /* cut short: the same error at the same line */
    n1 = chunk_read(gz, glen / 2, text, len, &rc1, &l1);
    n2 = getline_read(gz, glen / 2, &rc2, &l2);
    assert_int_equal(rc1, -1);
    assert_int_equal(rc2, -1);
    assert_int_equal(l1, l2);
    assert_int_equal(n1, n2);
    free(gz);
    /* a line past the limit: the same line named */
    limit = 1000;
    memset(text + 2000000, 'x', 5000);
    gz = gzip_data(text, len, &glen);
    chunk_read(gz, glen, text, len, &rc1, &l1);
    getline_read(gz, glen, &rc2, &l2);
    assert_int_equal(rc1, -1);
    assert_int_equal(rc2, -1);
    assert_int_equal(l1, l2);
    limit = 0;
    free(gz);
    free(text);
}

/* input_chunk() on a stream: with the reading thread, and on one processor without it. */
static void test_chunks(void **state)
{
    check_chunks();
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
    check_chunks();
    assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

/* input_read() hands out the peeked bytes first, then the rest, for any kind of input. */
static void test_input_read(void **state)
{
    size_t len, glen;
    char *text = make_text(20000, 0, &len);
    unsigned char *gz = gzip_data(text, len, &glen);
    char *paths[2] = {test_tmpfile(text, len), test_tmpfile(gz, glen)};
    for (int k = 0; k < 2; k++) {
        struct input in;
        struct tally_error err;
        assert_int_equal(input_open(&in, paths[k], &err), 0);
        const char *head;
        size_t hlen;
        assert_int_equal(input_peek(&in, 4, &head, &hlen, &err), 0);
        char *back = malloc(len + 10);
        size_t got = 0;
        long long r;
        while ((r = input_read(&in, back + got, 777, &err)) > 0)
            got += (size_t)r;
        assert_int_equal(r, 0);
        assert_int_equal(got, len);
        assert_memory_equal(back, text, len);
        free(back);
        input_close(&in);
        unlink(paths[k]);
        free(paths[k]);
    }
    free(gz);
    free(text);
}

/*
 * io/parse.h's hexadecimal digits against the C library's (isxdigit and
 * strtoul), for every byte, and parse_u64's 0x numbers against strtoull.
 */
static void test_parse_hex(void **state)
{
    (void)state;
    for (int c = 0; c < 256; c++) {
        char s[2] = {(char)c, 0};
        unsigned want = c && isxdigit(c) ? (unsigned)strtoul(s, NULL, 16) : 16;
        unsigned got = parse_hexdigit((char)c);
        if (got != want) fail_msg("byte %d: %u, want %u", c, got, want);
    }
    static const char *const ok[] = {"0x0", "0XaB", "0xffffffffFFFFFFFF", "0x123456789abcdef0"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
        const char *p = ok[i];
        uint64_t v;
        assert_int_equal(parse_u64(&p, ok[i] + strlen(ok[i]), &v), PARSE_OK);
        assert_true(v == strtoull(ok[i], NULL, 16));
        assert_ptr_equal(p, ok[i] + strlen(ok[i]));
    }
    const char *big = "0x10000000000000000", *p = big;
    uint64_t v;
    assert_int_equal(parse_u64(&p, big + strlen(big), &v), PARSE_OVERFLOW);
    const char *none = "0xg";
    p = none;
    assert_int_equal(parse_u64(&p, none + 3, &v), PARSE_NONE); /* "0x" and no digit */
    assert_ptr_equal(p, none);
}

/* What the worker saw of itself. */
struct seen {
    int cpu;
    cpu_set_t set;
};

static void note_cpu(void *arg)
{
    struct seen *w = arg;
    w->cpu = sched_getcpu();
    pthread_getaffinity_np(pthread_self(), sizeof(w->set), &w->set);
}

/* The worker runs on another CPU than its caller, which gets its CPUs back. */
static void test_worker_apart(void **state)
{
    (void)state;
    cpu_set_t before, during, after;
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
    struct seen w;
    memset(&w, 0, sizeof(w));
    struct worker_job wk;
    assert_int_equal(worker_job_start(&wk, note_cpu, &w), 1);
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(during), &during), 0);
    worker_job_finish(&wk);
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(after), &after), 0);
    assert_true(CPU_EQUAL(&before, &after));
    if (CPU_COUNT(&before) < 2) {
        /* one CPU: nothing is bound */
        assert_true(CPU_EQUAL(&during, &before));
        return;
    }
    /* the caller was bound to one CPU, the worker to the others */
    assert_int_equal(CPU_COUNT(&during), 1);
    assert_false(CPU_ISSET(w.cpu, &during));
    assert_int_equal(CPU_COUNT(&w.set), CPU_COUNT(&before) - 1);
    cpu_set_t both;
    CPU_AND(&both, &w.set, &during);
    assert_int_equal(CPU_COUNT(&both), 0);
}

/* A job asked to stop sees it, and ends. */
static void spin_until_stopped(void *arg)
{
    struct worker_job *j = arg;
    while (!worker_job_stopping(j))
        sched_yield();
}

static void test_worker_job_cancel(void **state)
{
    (void)state;
    struct worker_job j;
    if (worker_job_start(&j, spin_until_stopped, &j)) assert_false(worker_job_stopping(&j));
    worker_job_cancel(&j); /* returns: the job saw the stop (or never ran) */
    assert_true(worker_job_stopping(&j));
}

/* worker_ahead's producer: item k is k * k in slot k % 3; 100 items. */
struct squares {
    unsigned long slot[3];
    size_t made;
};

static int make_square(void *ctx, size_t k)
{
    struct squares *q = ctx;
    if (k >= 100) return 0;
    q->slot[k % 3] = (unsigned long)(k * k);
    q->made = k + 1;
    return 1;
}

/* Items come in order, each intact in its slot; a stop in the middle ends the producer. */
static void test_worker_ahead(void **state)
{
    (void)state;
    struct squares q = {{0}, 0};
    struct worker_ahead *a = worker_ahead_start(make_square, &q, 3);
    if (!a) return; /* no thread: the caller makes the items itself */
    size_t k, n = 0;
    while (worker_ahead_next(a, &k)) {
        assert_int_equal(k, n);
        assert_int_equal(q.slot[k % 3], k * k);
        n++;
    }
    assert_int_equal(n, 100);
    worker_ahead_stop(a);
    memset(&q, 0, sizeof(q));
    a = worker_ahead_start(make_square, &q, 3);
    assert_non_null(a);
    for (n = 0; n < 10; n++) {
        assert_true(worker_ahead_next(a, &k));
        assert_int_equal(k, n);
        assert_int_equal(q.slot[k % 3], k * k);
    }
    worker_ahead_stop(a);
    /* at most the ring ahead of the last item taken (9) */
    assert_true(q.made <= 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_lines),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_gzip_file_streamed),
        cmocka_unit_test(test_gzip_concatenated_members),
        cmocka_unit_test(test_truncated_gzip_is_an_error),
        cmocka_unit_test(test_zstd_file),
        cmocka_unit_test(test_plain_file_mapped),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_input_read),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_parse_hex),
        cmocka_unit_test(test_worker_apart),
        cmocka_unit_test(test_worker_job_cancel),
        cmocka_unit_test(test_worker_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
