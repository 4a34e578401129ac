/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gmon.h - reading, summing and writing gmon.out files (the profiles that
 * programs built with `gcc -pg` write), as GNU gprof 2.40 does.
 *
 * Three on-disk flavours are understood:
 *   - the GNU ("magic") format: a 20-byte header ("gmon", version 0 or 1,
 *     12 spare bytes), then any number of tagged records in any order:
 *     histograms (tag 0), call arcs (tag 1), basic-block counts (tag 2);
 *   - the old BSD format: low_pc, high_pc, ncnt header, 16-bit bins, then
 *     arcs until the end of the file;
 *   - the 4.4BSD format: the same with a version word (0x00051879), the
 *     profiling rate and 12 spare bytes in the header.
 * Every multi-byte field is in the byte order of the profiled executable
 * and addresses have its size (4 or 8 bytes); the caller reads both from
 * the executable's ELF header and passes them in gmon_read_opts. Decoding
 * is done byte by byte, so any combination works on any host.
 *
 * Summing. gmon_read() ADDS a file into `struct gmon`, so reading several
 * files in turn sums them with gprof's rules:
 *   - a histogram record with the same [low_pc, high_pc) as one already
 *     held is summed bin by bin; one with a range that touches no held
 *     record is appended; a partial overlap is refused;
 *   - the first histogram sets hz, the dimension, its abbreviation and the
 *     scale; a later one with another dimension, abbreviation or scale
 *     (difference > 1e-6) is refused; its rate is not checked;
 *   - BSD files are summed into the first histogram and must have its
 *     range and bin count (a 4.4BSD file also its rate);
 *   - arcs are appended as read (the analysis merges them by symbol);
 *   - basic-block counts are summed per address.
 * Every refusal is an error naming the file; `g` then holds whatever was
 * read before the bad record and should be released by the caller.
 *
 * The library never probes the system's clock rate: old BSD files have no
 * rate, so the caller passes one in gmon_read_opts.hertz (gprof uses its
 * setitimer probe, else sysconf(_SC_CLK_TCK)).
 */
#ifndef TALLY_GMON_H
#define TALLY_GMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/error.h"

/* Which flavour to read or write: gprof's -O a|b|4|m. */
enum gmon_flavour {
    GMON_FLAVOUR_AUTO = 0, /* read: GNU if the file starts with "gmon", else BSD; write: GNU */
    GMON_FLAVOUR_BSD,      /* old BSD or 4.4BSD (read decides by the version word) */
    GMON_FLAVOUR_BSD44,    /* 4.4BSD only (an old BSD header is refused) */
    GMON_FLAVOUR_MAGIC     /* GNU only (a file without "gmon" is refused) */
};

/* How the executable lays out the data; from its ELF header. */
struct gmon_layout {
    unsigned addr_size; /* 4 (ELFCLASS32) or 8 (ELFCLASS64); anything else is refused */
    int big_endian;     /* 1 for ELFDATA2MSB */
    int sign_extend;    /* 32-bit addresses are sign-extended (MIPS); normally 0 */
};

struct gmon_read_opts {
    enum gmon_flavour flavour;
    struct gmon_layout layout;
    /*
     * Ticks per second used for an old BSD file when nothing before it set
     * the rate; 0 = unknown: then hz becomes 1 and a warning "time is in
     * ticks, not seconds" is added to gmon.warnings.
     */
    unsigned hertz;
    size_t max_records; /* the most records one file may hold; 0 = GMON_MAX_RECORDS_DEFAULT */
};

/* What gmon_read() saw in the file just read (gprof -i). */
struct gmon_file_info {
    int version; /* GNU header version; for a BSD file whatever the last GNU file set (0) */
    enum gmon_flavour flavour;       /* MAGIC, BSD or BSD44: what the file turned out to be */
    unsigned long nhist, narcs, nbb; /* records of each kind (nbb: BB_COUNT records) */
};

/* One histogram: nbins counters over [low_pc, high_pc). */
struct gmon_hist {
    uint64_t low_pc, high_pc;
    uint32_t nbins;
    uint32_t prof_rate; /* the rate in the record that created it (unused by gprof) */
    char dimen[15 + 1]; /* its dimension, NUL-terminated (15 bytes on disk) */
    char dimen_abbrev;  /* e.g. 's' */
    uint64_t *bins;     /* nbins sample counts (summed over files; 16-bit on disk) */
};

/* One call-arc record, as read (addresses are raw file values). */
struct gmon_arc {
    uint64_t from_pc; /* the call site (caller's return address, quantised by glibc) */
    uint64_t self_pc; /* inside the callee, just after its mcount call */
    uint64_t count;   /* 32-bit in GNU files, address-sized in BSD files */
};

/* One basic-block count, summed per address. */
struct gmon_bb {
    uint64_t addr;
    uint64_t count;
};

/* Which kinds of data were read (gprof's gmon_input); decides what -s writes. */
enum {
    GMON_INPUT_HIST = 1,
    GMON_INPUT_ARCS = 2,
    GMON_INPUT_BB = 4,
};

struct gmon {
    unsigned input; /* GMON_INPUT_* */
    int version;    /* version of the last GNU file read (0 before any) */

    /*
     * Global histogram parameters, as gprof keeps them: set by the first
     * histogram (GNU record or BSD header). hz stays 0 when no file had a
     * histogram (gprof then prints -nan times). Before any histogram the
     * dimension is "seconds" / 's'.
     */
    uint32_t hz;
    char dimen[15 + 1];
    char dimen_abbrev;
    double hist_scale; /* (double)((high_pc - low_pc) / 2) / nbins of the first histogram */

    struct gmon_hist *hists; /* in order of first appearance */
    size_t nhists, hists_cap;

    struct gmon_arc *arcs; /* every arc record of every file, in file order */
    size_t narcs, arcs_cap;

    struct gmon_bb *bbs; /* one per distinct address, in order of first appearance */
    size_t nbbs, bbs_cap;
    size_t *bb_index; /* private: open-addressing index into bbs (SIZE_MAX = empty) */
    size_t bb_index_cap;

    struct gmon_file_info last; /* about the file read last */
    struct strlist warnings;    /* non-fatal findings, for the caller to print */
};

void gmon_init(struct gmon *g);
void gmon_release(struct gmon *g);

/*
 * Read the gmon file `path` ("-" = standard input; gzip or zstd too) and
 * add it into `g`. Returns 0, or -1 with err (err->file = path, err->line =
 * 0, the message names the problem and, for truncation or corruption, the
 * byte offset). A plain file is mapped, and every count in it is checked
 * against the file's size before anything is allocated for it; a pipe is
 * read as the decoding goes and refused at its first impossible bytes
 * (the bytes read so far are held until the end of the file).
 */
int gmon_read(struct gmon *g, const char *path, const struct gmon_read_opts *o,
              struct tally_error *err);

/* The same from memory; `name` is used in messages. */
int gmon_read_mem(struct gmon *g, const char *name, const void *data, size_t size,
                  const struct gmon_read_opts *o, struct tally_error *err);

/*
 * The most records (histogram records, arcs, basic-block counts) one file
 * may hold; the reader refuses the one past it, naming its byte. glibc's
 * profiler writes at most 2^20 arcs, so 2^24 leaves room for files summed
 * by gprof -s while an endless stream that looks like arcs is stopped
 * (a stream is decoded as it comes: memory grows with the records only).
 * The default of gmon_read_opts.max_records (tally --max-records=N sets it).
 */
#define GMON_MAX_RECORDS_DEFAULT ((size_t)1 << 24)

struct input;
/*
 * The same from an opened input (io/input.h), from where it stands: bytes
 * looked at with input_peek() are read again, so a pipe is opened once.
 */
int gmon_read_input(struct gmon *g, struct input *in, const struct gmon_read_opts *o,
                    struct tally_error *err);

struct gmon_write_opts {
    /*
     * AUTO or MAGIC: the GNU format, version 1, spare bytes zero; one
     * histogram record per histogram (with g->hz and g's dimension), one
     * arc record per arc, then one basic-block record with every block,
     * each part only if g->input says that kind was read.
     * BSD or BSD44: the first histogram and the arcs; 4.4BSD header when
     * BSD44 is asked or g->hz differs from `hertz`, else old BSD.
     */
    enum gmon_flavour flavour;
    struct gmon_layout layout;
    unsigned hertz; /* the system rate, for choosing old BSD vs 4.4BSD */
    /*
     * The arcs to write, in this order. gprof's -s writes arcs with the
     * symbols' start addresses, merged per symbol pair, in symbol order:
     * the analysis builds that list. NULL: write g->arcs as read.
     */
    const struct gmon_arc *arcs;
    size_t narcs;
};

/*
 * Write `g` to `path` atomically (io/outfile.h; "-" = stdout). Bins are
 * written as 16 bits, truncated as gprof does (a sum of 66000 is written
 * as 464); arc counts as 32 bits in the GNU format. Returns 0 or -1.
 */
int gmon_write(const struct gmon *g, const char *path, const struct gmon_write_opts *o,
               struct tally_error *err);

/* The same into a stdio stream (for tests and the fuzzer). */
int gmon_write_fp(const struct gmon *g, FILE *fp, const char *name, const struct gmon_write_opts *o,
                  struct tally_error *err);

/* "auto", "bsd", "4.4bsd", "magic" and gprof's one-letter forms a, b, 4, m; -1 if unknown. */
int gmon_flavour_from_name(const char *name);

#endif
