/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.h - reading any supported profile file into the model, and the
 * per-format entry points.
 *
 * profile_read() opens a file (plain, gzip or zstd; "-" for stdin),
 * recognises its format from the content (never from the name) and
 * returns a new profile, or NULL with `err` set ("FILE:LINE: message").
 * Non-fatal findings (a `summary:` that does not match the costs, clamped
 * negative costs, ...) are left in profile->warnings for the caller to
 * print.
 *
 * Writers produce text on a stdio stream; use io/outfile.h to write a
 * file atomically. They return 0, or -1 with err when the profile cannot
 * be expressed in that format (or the stream reports an error).
 *
 * Every lossless format of the model is one row of profile_formats[]
 * (format.c): its name, how its first bytes are recognised, its reader
 * and its writer. docs/internals/adding-a-format.md says how to add one.
 * Derived views (json, folded, speedscope, pprof) are not formats of the
 * model: they are exporters (export/export.h).
 */
#ifndef TALLY_FORMAT_H
#define TALLY_FORMAT_H

#include <stdio.h>

#include "../io/input.h"
#include "../model/profile.h"

/* Knobs of the callgrind reader alone (read_options.callgrind; other readers ignore them). */
struct callgrind_read_options {
    int no_split; /* parse on the calling thread only (the reader may otherwise read a
                     large mapped file on two; the caller keeps the other core busy) */
    /* the smallest mapped file the reader may read on two threads:
       0 = READ_SPLIT_MIN_DEFAULT, READ_SPLIT_NEVER = none */
    size_t split_min;
    int *split_out; /* when not NULL, set to READ_SPLIT_* */
    /* when not NULL, set to the number of parts (after the first) whose records the
       reader added straight to part 0 (with merge_parts, call counts only and no jumps:
       see callgrind_rd.h) */
    size_t *direct_out;
    /*
     * Calls keep caller, callee, count and the files of call site and
     * target, nothing more (struct part: call_counts_only), for views that
     * show no call cost and no line (annotate --auto=no without --inclusive
     * or --tree). The call lines are parsed and checked as ever, but their
     * costs are not added up, so a sum of call costs past 2^64-1 (an error
     * otherwise) passes unnoticed.
     */
    int call_counts_only;
};

/* Knobs of the cachegrind reader alone (read_options.cachegrind; other readers ignore them). */
struct cachegrind_read_options {
    int unindexed; /* the profile is only added into a sum (profile_sum()): its cost
                      records may repeat a position, as they are appended without a lookup */
    /* cg_annotate 3.21+'s rule: a `fl=` line starts the function "<unspecified>"
       of that file (made at once, counts or not), which the next `fn=` ends;
       without it, counts after `fl=` stay with the function in force (3.19) */
    int fl_unspecified;
};

struct read_options {
    int merge_parts; /* fold all parts into one (events must agree) */
    int drop_addr;   /* forget instruction addresses: line-level costs only */
    int drop_jumps;  /* do not keep jump records */
    int drop_line;   /* forget source lines too (and addresses): costs and calls per function
                        and file, for views that show no line (annotate --auto=no) */
    /*
     * Without merge_parts: called as each part of a callgrind file is read
     * whole (its index in p->parts), on the calling thread; it may free
     * the part's records (part_clear_records()), so that memory holds one
     * part's records at a time. When a big file is read on two threads,
     * the parts the second thread read are added to p at the end without
     * a call. Other readers do not call it.
     */
    void (*part_done)(void *ctx, struct profile *p, size_t part);
    void *part_done_ctx;
    struct callgrind_read_options callgrind;   /* what only the callgrind reader reads */
    struct cachegrind_read_options cachegrind; /* what only the cachegrind reader reads */
};

#define READ_SPLIT_MIN_DEFAULT ((size_t)1 << 20)
#define READ_SPLIT_NEVER ((size_t)-1)

/* How the callgrind reader read a file (read_options.callgrind.split_out). */
enum {
    READ_SPLIT_NONE, /* on one thread */
    READ_SPLIT_PART, /* on two, the second reading whole parts */
    READ_SPLIT_BODY, /* on two, the second continuing a part from a fn= line */
};

/*
 * One lossless format of the model.
 *
 * detect() looks at the first bytes of (decompressed) content and says how
 * sure it is that they are this format: 0 = not this format, higher = more
 * sure (a magic first line beats a key only this format has, which beats a
 * key that others may have too). format_detect() takes the highest; a tie
 * goes to the earlier row.
 *
 * read() fills a fresh profile `p` from an opened input; write() writes
 * `p` on a stream. Both return 0 or -1 with err.
 */
struct format_ops {
    const char *name; /* as --format/--to spell it */
    enum profile_format id;
    int (*detect)(const char *data, size_t len);
    int (*read)(struct input *in, struct profile *p, const struct read_options *opt,
                struct tally_error *err);
    int (*write)(const struct profile *p, FILE *fp, struct tally_error *err);
    int convert; /* offered by `tally convert --to` */
};

/*
 * The table, ended by a row with name NULL. The rows of gmon and aprof have
 * no read() nor write(): they are recognised here and read by their own
 * modules (a gmon.out with its program by analysis/gprof_load.h, an aprof
 * report into an isprof by formats/aprof.h).
 */
extern const struct format_ops profile_formats[];

/* The row of `f`, or NULL for PROFILE_FORMAT_UNKNOWN. */
const struct format_ops *format_ops_of(enum profile_format f);

/* Guess the format from the first bytes of (decompressed) content. */
enum profile_format format_detect(const char *data, size_t len);
const char *format_name(enum profile_format f);
/* A row's name ("callgrind", "gmon", ...) -> enum; UNKNOWN otherwise. */
enum profile_format format_from_name(const char *name);

/*
 * What an input is, for the commands that take several kinds (the CLI
 * never looks at the bytes of an input itself).
 */
enum format_class {
    FORMAT_OTHER,      /* none of the below: unreadable, empty, or something else (a source file) */
    FORMAT_PROFILE,    /* a row of the table; which one is in *f */
    FORMAT_PROGRAM,    /* an ELF file: the program of the gmon.out files after it */
    FORMAT_UNREADABLE, /* (format_classify) its first bytes could not be read: err says why */
    FORMAT_STREAM,     /* (format_classify_path) "-", a pipe or a FIFO: not looked at, as it
                          could not be read again */
};
/* What the opened input is, from its first bytes (nothing is consumed); err may be NULL. */
enum format_class format_classify(struct input *in, enum profile_format *f,
                                  struct tally_error *err);
/* The same by path: the file is opened, looked at and closed (a missing one: FORMAT_OTHER). */
enum format_class format_classify_path(const char *path, enum profile_format *f);

struct profile *profile_read(const char *path, const struct read_options *opt,
                             struct tally_error *err);
/*
 * The same from an opened input (not closed here), from where it stands:
 * bytes looked at with input_peek() are read again, so a pipe is opened
 * and read once.
 */
struct profile *profile_read_input(struct input *in, const struct read_options *opt,
                                   struct tally_error *err);

/*
 * Read opened inputs one after the other, the next one on a second thread
 * (when there is a second processor) while the caller works on the last
 * one: profile_ahead_next() gives the profiles in order, the same that
 * profile_read_input() would give, with the same errors. At most one
 * profile is read ahead. With opt->cachegrind.unindexed, every input but the first
 * is read unindexed (the caller adds them into the first one). The inputs
 * must stay open until profile_ahead_stop(), which waits for the thread
 * and frees what was not taken (NULL: nothing to do).
 */
struct profile_ahead;
struct profile_ahead *profile_ahead_start(struct input **ins, size_t n,
                                          const struct read_options *opt);
/* The next profile (the caller owns it), or NULL with err (then stop). */
struct profile *profile_ahead_next(struct profile_ahead *pa, struct tally_error *err);
void profile_ahead_stop(struct profile_ahead *pa);

/* Read from an already opened input into `p` (which must be fresh). */
int callgrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                   struct tally_error *err);
int cachegrind_read(struct input *in, struct profile *p, const struct read_options *opt,
                    struct tally_error *err);

/* Write every part, with name and position compression. */
int callgrind_write(const struct profile *p, FILE *fp, struct tally_error *err);
/*
 * Write the cachegrind format: one part only (merge first), line-level
 * self costs per (file, function); calls and jumps have no place in it.
 */
int cachegrind_write(const struct profile *p, FILE *fp, struct tally_error *err);

/* Write `p` in format `f` to `path` ("-" = stdout) atomically. */
int profile_write(const struct profile *p, enum profile_format f, const char *path,
                  struct tally_error *err);

#endif
