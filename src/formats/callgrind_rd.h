/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgrind_rd.h - the callgrind reader's state, shared by its two files:
 * callgrind_read.c (the body lines: costs, calls, jumps and names; the hot
 * path) and callgrind_header.c (the header lines and the end of a part).
 * Private to the reader: nothing else includes it.
 */
#ifndef TALLY_FORMATS_CALLGRIND_RD_H
#define TALLY_FORMATS_CALLGRIND_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../io/parse.h"
#include "../io/worker.h"
#include "../model/strtab.h"
#include "callgrind_int.h"
#include "format.h"
#include "sumbound.h"

/* compressed id -> interned name id, one map per kind (callgrind_read.c) */
struct idmap {
    uint64_t *keys;
    uint32_t *vals; /* name id + 1, 0 = empty slot */
    size_t n, cap;  /* cap: power of two or 0 */
};

/* ------------------------------------------------------------------------ */
/* Reader state.                                                            */

enum { PEND_NONE, PEND_CALL, PEND_JUMP };

/* entries of struct rd's function cache (a power of two) */
#define RD_FCACHE ((size_t)1 << 14)

/* struct rd's spec bits */
enum { SPEC_NAMES = 1, SPEC_CONT = 2 };

/* Position layouts that fast_cost_line() handles. */
enum { FAST_NONE, FAST_LINE, FAST_INSTR_LINE };

/*
 * The file-wide count limits: the file's self costs of each event name
 * (all parts) and its call counts stay under 2^64 (sumbound.h). While the
 * bound holds (tot_exact 0), tot has the sums of the parts that ended
 * (taken from their records at their end); from the line where it fails
 * (tot_exact 1), the sums of every line so far.
 */
struct rd_sums {
    uint64_t *tot;           /* [tot_names.n], by the name's id */
    struct strtab tot_names; /* the event names seen */
    size_t tot_cap;
    uint32_t *tot_of; /* [nev] the current part's event -> its total */
    uint64_t tot_or;  /* at least every cost read so far (SUMBOUND_OR_8DIGITS | longer ones) */
    int tot_exact;    /* the bound failed: tot is kept line by line */
    uint64_t calls;   /* the file's call counts (calls= lines) summed, kept under 2^64 */
};

/*
 * Parts folded into part 0 as they end (opt->merge_parts). A part after
 * the first can add its records straight to part 0 (the sum they would be
 * folded into) when nothing in that fold can differ from reading into its
 * own records: same events in the same order, call counts only (no call
 * costs), no jumps, unsigned costs (see choose_dst() in
 * callgrind_header.c). Its own metadata stays in rd.pt, folded at its
 * end; its self costs, which its `summary:` and `totals:` are checked
 * against, are summed in psum (per run of lines in cost_run(), per line
 * elsewhere).
 */
struct rd_fold {
    int fold_off;     /* a fold failed: the rest is left to profile_merge_parts() */
    struct part *dst; /* where the current part's records go: rd.pt or part 0 */
    uint64_t *psum;   /* [psum_cap] the current part's self costs when direct, then scratch */
    size_t psum_cap;
    int direct;       /* dst is part 0 */
    int sum_empty;    /* ... which held no cost or call record when the part began */
    size_t ndirect;   /* parts that ended so read (read_options.callgrind.direct_out) */
    size_t last_n[3]; /* records of the last part folded: costs, calls, jumps */
};

/*
 * The second reader of a split read (callgrind_split.c) starts in the
 * middle of the file, where the names defined before it are unknown
 * (SPEC_NAMES): it stands in placeholder names for them, resolved when its
 * result is merged. If it starts in the middle of a body (SPEC_CONT), the
 * object and file in force and the last positions are unknown too:
 * placeholders stand in for the first two, and it gives up at a relative
 * position before an absolute one and at header lines. It also gives up
 * at a name that looks like a placeholder. Its result is then dropped and
 * the first reader reads on. All zero for a reader from the start.
 */
struct rd_split {
    int spec;                          /* SPEC_* bits, 0 for a reader from the start */
    unsigned spec_unknown;             /* 1 << SP_*: kinds whose last position is unknown */
    unsigned spec_abs;                 /* kinds given as absolute numbers on the current line */
    int spec_fast;                     /* the part's fast layout, used once positions are known */
    const struct worker_job *spec_job; /* the second reader's job: give up once it stops */
};

/*
 * The reader: the parsing state (the line, the part's layout, the context
 * of names, what the next position line belongs to) and, by concern, the
 * count limits (sums), the folding of parts (fold) and the second reader
 * of a split read (split).
 */
struct rd {
    struct input *in;
    struct profile *p;
    struct part *pt; /* current part, NULL between parts */
    const struct read_options *opt;
    struct tally_error *err;
    const char *path;
    unsigned long lineno;
    struct idmap names[NAME_KINDS];

    int body;        /* the current part's `events:` line was seen */
    int header_open; /* ... and no body line since: `event:` lines still belong to it */
    size_t nev;      /* number of base events of the current part */
    unsigned npos;
    unsigned char poskind[SP_KINDS];
    uint64_t last[SP_KINDS]; /* last cost line's subpositions */

    /* cost context */
    uint32_t ob, fl, src; /* object, function file, current source file */
    int fl_ahead;         /* an fl= since the fn= in force: fl is the next fn='s file */
    uint32_t fnname, fn;
    int have_fn, fn_dirty;
    /* call target context (until the next calls=) */
    uint32_t cob, cfile, cfn;
    int have_cob, have_cfile, have_cfn;
    /* jump target context (until the next jump) */
    uint32_t jfile, jfn;
    int have_jfile, have_jfn;

    int pending; /* PEND_*: what the next position line belongs to */
    unsigned long pending_line;
    uint64_t call_count;
    uint32_t callee;
    struct position target;
    uint32_t jtarget_fn;
    int jcond;
    uint64_t jexec, jtaken;

    uint64_t *cost; /* [nev] scratch */
    size_t cost_cap;
    int warned_rcalls;
    int drop_addr; /* opt->drop_addr (or drop_line) */
    int drop_line; /* opt->drop_line */
    int fast;      /* FAST_*: layout for fast_cost_line(), FAST_NONE outside a body */
    char *copy;    /* a line copied to end it with '\n' (streams, last line) */
    size_t copy_cap;

    char *pend_text[2]; /* summary:/totals: seen before events: */
    unsigned long pend_line[2];

    /* the functions last found, by name id modulo RD_FCACHE (rd_function()) */
    struct rd_fcache {
        uint32_t name, obj, file, fn; /* fn: index + 1, 0 = empty */
    } * fcache;

    unsigned char *had_total; /* [part ordinal]: did the part have `totals:`? */
    size_t nread, had_cap;    /* parts finished */

    struct rd_sums sums;
    struct rd_fold fold;
    struct rd_split split;
};

/* Hot helpers of the cost line parser: always inlined. */
#define HOT static inline __attribute__((always_inline))

/* Quote at most 40 bytes of a line in messages. */
#define SHOW(s, n) (int)((n) > 40 ? 40 : (n)), (s)

HOT int is_eol(const char *s, const char *end)
{
    return s >= end || *s == '\n' || *s == '\r';
}

HOT int is_sep(const char *s, const char *end)
{
    return s >= end || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
}

HOT void skip_sp(const char **ps, const char *end)
{
    const char *s = *ps;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    *ps = s;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RD_WORD_DIGITS 1
/*
 * Numbers as words, the one place of the bit trick: how many of the 8
 * bytes of w (loaded from memory, little-endian) are decimal digits before
 * the first that is not (8: all of them). Loading 8 bytes and finding the
 * first non-digit avoids the mispredicted exit of a digit loop, which
 * otherwise dominates.
 */
HOT unsigned word_ndigits(uint64_t w)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ULL, zeros = 0x3030303030303030ULL;
    /* a byte is nonzero here iff it is not '0'..'9' (carries only move up) */
    uint64_t nd = ((w & hi) ^ zeros) | (((w + 0x0606060606060606ULL) & hi) ^ zeros);
    return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the first len (1 to 7) digits of w, combined pairwise with multiplications. */
HOT uint64_t word_value(uint64_t w, unsigned len)
{
    /* digits to the top bytes, most significant first: leading zeros */
    uint64_t v = (w - 0x3030303030303030ULL) << (64 - 8 * len);
    v = v * 10 + (v >> 8); /* even bytes: two-digit groups */
    return (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
}
#endif

/*
 * The one general scanner of numbers: unsigned, decimal or 0x-hex, from
 * *ps up to end at most. Returns PARSE_OK, PARSE_NONE (no digit) or
 * PARSE_OVERFLOW (io/parse.h); the caller words the error. Up to 7 digits
 * are read as a word (word_ndigits()), up to 19 with a loop (they cannot
 * overflow), longer ones and hex through parse_u64(). The fast paths of
 * the reader (fast_cost_line(), fast_key_line()) read the plain forms with
 * the same word trick and the digit loop fast_digits(), and give the line
 * to the general parsers, which use this, for anything else.
 */
HOT int scan_num(const char **ps, const char *end, uint64_t *out)
{
    const char *s = *ps;
    unsigned d;
#ifdef RD_WORD_DIGITS
    if (end - s >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        unsigned len = word_ndigits(w);
        if (len == 0) return PARSE_NONE;
        if (len < 8 && (s[0] != '0' || len != 1 || (s[1] | 0x20) != 'x')) {
            *ps = s + len;
            *out = word_value(w, len);
            return PARSE_OK;
        }
    }
#endif
    if (s >= end || (d = (unsigned)(unsigned char)*s - '0') > 9) return PARSE_NONE;
    if (d == 0 && s + 1 < end && (s[1] | 0x20) == 'x') return parse_u64(ps, end, out);
    uint64_t v = d;
    const char *q = s + 1;
    while (q < end && (d = (unsigned)(unsigned char)*q - '0') <= 9) {
        v = v * 10 + d;
        q++;
    }
    if (q - s > 19) return parse_u64(ps, end, out);
    *ps = q;
    *out = v;
    return PARSE_OK;
}

/*
 * The first negative count of a file (xdebug's memory deltas): the profile
 * becomes signed (profile_make_signed(); the fast parsers are off from
 * then on). vals[0..n) are the counts of the line read so far. Returns 0
 * or -1 with the error set (a count above 2^63-1 read before).
 */
int rd_go_signed(struct rd *r, const uint64_t *vals, size_t n);

/* Fail at the current line: sets r->err, returns -1. */
int rd_fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s, len without the spaces around it (and a '\r' at its end) */
static inline void rd_trim(const char **s, size_t *len)
{
    while (*len && parse_is_space(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && (parse_is_space((*s)[*len - 1]) || (*s)[*len - 1] == '\r'))
        (*len)--;
}

/* callgrind_read.c: a reader of `p` from `in` (r->lineno starts at in->lineno); its memory. */
void rd_init(struct rd *r, struct input *in, struct profile *p, const struct read_options *opt,
             struct tally_error *err);
void rd_release(struct rd *r);
/*
 * Free what only reading lines needs: the compressed-name maps (so
 * rd_name_of() finds nothing), the function cache and the line copy. The
 * counters, totals and profile stay. For a reader whose last line is read
 * (the split read's, before and during the merge of its halves).
 */
void rd_drop_maps(struct rd *r);
/* The name id that compressed id `id` of a kind (NAME_*) stands for, or UINT32_MAX. */
uint32_t rd_name_of(const struct rd *r, int kind, uint64_t id);

/* Give up a speculative read (r->spec): sets r->err, returns -1. */
int rd_spec_fail(struct rd *r);

/* callgrind_read.c: the lines from s to end (a last one may lack its '\n'). */
int rd_read_lines(struct rd *r, const char *s, const char *end);
/* A name placeholder of a speculative reader: "\1" then the kind digit and the
   compressed id ("\1o", "\1l": the object and file in force where it started). */
#define RD_PLACEHOLDER '\1'

/* callgrind_split.c: read data[0..len) on two threads when that pays; 1 = not split
   (the caller reads it), 0 done, -1 failed. */
int rd_read_split(struct rd *r, const char *data, size_t len);

/* callgrind_header.c: no object, file, function, call or jump target in force, no
   last positions (a new part; the second reader of a split at its split line). */
void rd_reset_context(struct rd *r);

/* callgrind_header.c: the slot in r->tot of an event name (made, zero, when new). */
uint32_t rd_total_of(struct rd *r, const char *name);

/* callgrind_header.c: one header line (given without its line end), with
   the meaning of callgrind_read()'s dispatch: 0 done, -1 failed. */
int rd_header_line(struct rd *r, const char *line, size_t len);
/* The end of the current part: checks and folds it (opt->merge_parts). */
int rd_finish_part(struct rd *r);

#endif
