/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "format.h"
#include "../io/outfile.h"
#include "../io/worker.h"
#include "aprof.h"
#include "contexts.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int line_starts(const char *data, size_t len, const char *word)
{
    size_t wl = strlen(word);
    const char *p = data, *end = data + len;
    while (p < end) {
        if ((size_t)(end - p) >= wl && memcmp(p, word, wl) == 0) return 1;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

/* How sure detect() is (struct format_ops). */
enum {
    DETECT_NO = 0,
    DETECT_WEAK_CG = 1, /* cachegrind's `desc:`: callgrind has it too */
    DETECT_EVENTS = 2,  /* `events:` alone: callgrind (cachegrind must have `cmd:`) */
    DETECT_CMD = 3,     /* `cmd:` without any callgrind-only key: cachegrind */
    DETECT_KEY = 4,     /* a key only callgrind has */
    DETECT_MAGIC = 5,   /* the format's own first line */
};

static int contexts_detect(const char *data, size_t len)
{
    static const char ctx[] = "# tally contexts"; /* any version: the reader checks it */
    return len >= sizeof(ctx) - 1 && memcmp(data, ctx, sizeof(ctx) - 1) == 0 ? DETECT_MAGIC
                                                                             : DETECT_NO;
}

static int callgrind_detect(const char *data, size_t len)
{
    static const char magic[] = "# callgrind format";
    if (len >= sizeof(magic) - 1 && memcmp(data, magic, sizeof(magic) - 1) == 0)
        return DETECT_MAGIC;
    /* Callgrind-only header and body keys. */
    static const char *const cg_keys[] = {
        "version:", "creator:", "positions:", "calls=", "ob=",    "cfn=",
        "part:",    "pid:",     "thread:",    "event:", "totals:"};
    for (size_t i = 0; i < sizeof(cg_keys) / sizeof(cg_keys[0]); i++)
        if (line_starts(data, len, cg_keys[i])) return DETECT_KEY;
    /* "fn=(12)" is callgrind name compression; cachegrind has "fn=(below main)" */
    char key[] = "fn=(0";
    for (char d = '0'; d <= '9'; d++) {
        key[4] = d;
        if (line_starts(data, len, key)) return DETECT_KEY;
    }
    if (line_starts(data, len, "events:")) return DETECT_EVENTS;
    return DETECT_NO;
}

static int cachegrind_detect(const char *data, size_t len)
{
    /* a cachegrind file must have a `cmd:` line; callgrind may omit it */
    if (line_starts(data, len, "cmd:")) return DETECT_CMD;
    if (line_starts(data, len, "desc:")) return DETECT_WEAK_CG;
    return DETECT_NO;
}

/* GNU gmon.out ("magic" flavour): an old BSD file has no magic and is not recognised */
static int gmon_detect(const char *data, size_t len)
{
    return len >= 4 && memcmp(data, "gmon", 4) == 0 ? DETECT_MAGIC : DETECT_NO;
}

/* an aprof report has no magic: the least sure of all, so any other format wins */
static int aprof_detect_row(const char *data, size_t len)
{
    return aprof_detect(data, len) ? DETECT_WEAK_CG : DETECT_NO;
}

static int contexts_read_row(struct input *in, struct profile *p, const struct read_options *opt,
                             struct tally_error *err)
{
    (void)opt;
    return contexts_read(in, p, err);
}

/* a profile without a current context tree (e.g. merged) is written as callgrind */
static int contexts_write_row(const struct profile *p, FILE *fp, struct tally_error *err)
{
    return contexts_tree_current(p) ? contexts_write(p, fp, err) : callgrind_write(p, fp, err);
}

const struct format_ops profile_formats[] = {
    {"callgrind", PROFILE_FORMAT_CALLGRIND, callgrind_detect, callgrind_read, callgrind_write, 1},
    {"cachegrind", PROFILE_FORMAT_CACHEGRIND, cachegrind_detect, cachegrind_read, cachegrind_write,
     1},
    {"contexts", PROFILE_FORMAT_CONTEXTS, contexts_detect, contexts_read_row, contexts_write_row,
     0},
    /* gmon.out needs its program (analysis/gprof_load.h), an aprof report is no cost profile
       (formats/aprof.h): the table recognises them, their own modules read them */
    {"gmon", PROFILE_FORMAT_GMON, gmon_detect, NULL, NULL, 0},
    {"aprof", PROFILE_FORMAT_APROF, aprof_detect_row, NULL, NULL, 0},
    {NULL, PROFILE_FORMAT_UNKNOWN, NULL, NULL, NULL, 0},
};

const struct format_ops *format_ops_of(enum profile_format f)
{
    for (const struct format_ops *r = profile_formats; r->name; r++)
        if (r->id == f) return r;
    return NULL;
}

enum profile_format format_detect(const char *data, size_t len)
{
    enum profile_format best = PROFILE_FORMAT_UNKNOWN;
    int score = DETECT_NO;
    for (const struct format_ops *r = profile_formats; r->name; r++) {
        int s = r->detect(data, len);
        if (s > score) {
            score = s;
            best = r->id;
        }
    }
    return best;
}

const char *format_name(enum profile_format f)
{
    const struct format_ops *r = format_ops_of(f);
    return r ? r->name : "unknown";
}

enum profile_format format_from_name(const char *name)
{
    for (const struct format_ops *r = profile_formats; r->name; r++)
        if (strcmp(name, r->name) == 0) return r->id;
    return PROFILE_FORMAT_UNKNOWN;
}

enum format_class format_classify(struct input *in, enum profile_format *f, struct tally_error *err)
{
    const char *b;
    size_t n;
    struct tally_error e;
    *f = PROFILE_FORMAT_UNKNOWN;
    if (input_peek(in, 4096, &b, &n, err ? err : &e)) return FORMAT_UNREADABLE;
    if (n >= 4 && memcmp(b, "\177ELF", 4) == 0) return FORMAT_PROGRAM;
    *f = format_detect(b, n);
    return *f == PROFILE_FORMAT_UNKNOWN ? FORMAT_OTHER : FORMAT_PROFILE;
}

enum format_class format_classify_path(const char *path, enum profile_format *f)
{
    struct stat st;
    *f = PROFILE_FORMAT_UNKNOWN;
    if (strcmp(path, "-") == 0) return FORMAT_STREAM;
    if (stat(path, &st) != 0) return FORMAT_OTHER;
    if (!S_ISREG(st.st_mode)) return FORMAT_STREAM;
    struct input in;
    struct tally_error e;
    if (input_open(&in, path, &e)) return FORMAT_OTHER;
    enum format_class k = format_classify(&in, f, NULL);
    input_close(&in);
    return k == FORMAT_UNREADABLE ? FORMAT_OTHER : k;
}

struct profile *profile_read(const char *path, const struct read_options *opt,
                             struct tally_error *err)
{
    struct input in;
    if (input_open(&in, path, err)) return NULL;
    struct profile *p = profile_read_input(&in, opt, err);
    input_close(&in);
    return p;
}

struct profile *profile_read_input(struct input *in, const struct read_options *opt,
                                   struct tally_error *err)
{
    static const struct read_options defaults;
    if (!opt) opt = &defaults;
    const char *path = in->path;
    const char *head;
    size_t hlen;
    if (input_peek(in, 4096, &head, &hlen, err)) return NULL;
    enum profile_format f = format_detect(head, hlen);
    if (f == PROFILE_FORMAT_GMON) {
        tally_error_set(err, path, 0,
                        "a gmon.out file needs its program: give the executable built with -pg "
                        "as an input too");
        return NULL;
    }
    if (f == PROFILE_FORMAT_UNKNOWN || f == PROFILE_FORMAT_APROF) {
        tally_error_set(err, path, hlen ? 1 : 0, "%s",
                        f == PROFILE_FORMAT_APROF
                            ? "an aprof report (input-sensitive profile), not a cost profile: "
                              "read it with 'tally complexity' or 'tally merge'"
                        : hlen ? "not a callgrind or cachegrind profile (no 'events:' line "
                                 "in the first 4 KiB)"
                               : "empty file, not a profile");
        return NULL;
    }
    struct profile *p = profile_new();
    p->path = xstrdup(path);
    p->format = f;
    int rc = format_ops_of(f)->read(in, p, opt, err);
    input_discard_all(in); /* read once: its pages need not stay resident */
    if (rc == 0 && opt->merge_parts) rc = profile_merge_parts(p, err);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

/*
 * The ring of profile_ahead: the profile the caller took last (given back
 * when it asks for the next) and the one read meanwhile.
 */
#define AHEAD_DEPTH 2

struct profile_ahead {
    struct input **ins;
    size_t n;
    struct read_options opt;
    size_t taken; /* profiles given to the caller */
    /* the thread, when there is one: it reads input `taken` while the caller works */
    struct worker_ahead *wa;
    struct profile *prof[AHEAD_DEPTH]; /* profile k in prof[k % AHEAD_DEPTH] until taken */
    struct tally_error errs[AHEAD_DEPTH];
    int failed; /* the thread's last read failed: it reads no more */
};

/* Input k's options: the first profile becomes the sum, it is never unindexed. */
static struct read_options ahead_opt(const struct profile_ahead *pa, size_t k)
{
    struct read_options o = pa->opt;
    if (k == 0) o.cachegrind.unindexed = 0;
    return o;
}

/* The reading thread's work (worker_ahead_start()): profile k. */
static int ahead_make(void *arg, size_t k)
{
    struct profile_ahead *pa = arg;
    if (k >= pa->n || pa->failed) return 0;
    struct tally_error *e = &pa->errs[k % AHEAD_DEPTH];
    tally_error_clear(e);
    struct read_options o = ahead_opt(pa, k);
    struct profile *p = profile_read_input(pa->ins[k], &o, e);
    pa->prof[k % AHEAD_DEPTH] = p;
    pa->failed = !p;
    return 1;
}

struct profile_ahead *profile_ahead_start(struct input **ins, size_t n,
                                          const struct read_options *opt)
{
    struct profile_ahead *pa = xcalloc(1, sizeof(*pa));
    pa->ins = ins;
    pa->n = n;
    if (opt) pa->opt = *opt;
    if (n < 2 || !worker_two_cpus()) return pa;
    /* the caller keeps the other CPU busy: no reader splits its file on it */
    int no_split = pa->opt.callgrind.no_split;
    pa->opt.callgrind.no_split = 1;
    pa->wa = worker_ahead_start(ahead_make, pa, AHEAD_DEPTH);
    if (!pa->wa) pa->opt.callgrind.no_split = no_split;
    return pa;
}

struct profile *profile_ahead_next(struct profile_ahead *pa, struct tally_error *err)
{
    if (pa->taken >= pa->n) return NULL;
    if (!pa->wa) {
        struct read_options o = ahead_opt(pa, pa->taken);
        return profile_read_input(pa->ins[pa->taken++], &o, err);
    }
    size_t k;
    if (!worker_ahead_next(pa->wa, &k)) return NULL; /* after a failure, as without the thread */
    struct profile *p = pa->prof[k % AHEAD_DEPTH];
    pa->prof[k % AHEAD_DEPTH] = NULL;
    pa->taken = k + 1;
    if (!p && err) *err = pa->errs[k % AHEAD_DEPTH];
    return p;
}

void profile_ahead_stop(struct profile_ahead *pa)
{
    if (!pa) return;
    worker_ahead_stop(pa->wa);
    for (size_t k = 0; k < AHEAD_DEPTH; k++)
        profile_free(pa->prof[k]);
    free(pa);
}

int profile_write(const struct profile *p, enum profile_format f, const char *path,
                  struct tally_error *err)
{
    struct outfile of;
    if (outfile_open(&of, path, err)) return -1;
    /* an unknown format is written as callgrind, as it always was */
    const struct format_ops *r = format_ops_of(f);
    int rc = (r ? r->write : callgrind_write)(p, of.fp, err);
    if (rc) {
        outfile_abort(&of);
        return -1;
    }
    return outfile_commit(&of, err);
}
