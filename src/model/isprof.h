/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * isprof.h - the input-sensitive profile: what one aprof report holds.
 *
 * A classic profile (profile.h) gives one cost per cost centre. An
 * input-sensitive profile gives, for every routine, a set of *tuples*: one
 * per distinct input size (RMS or DRMS) seen on its activations, each
 * aggregating the costs of all activations that had that input size.
 * With a calling context tree (CCT) the same tuples exist per context.
 *
 *   struct isprof            metadata (the report's header lines) plus
 *     routines[]             name, image, optional mangled/full name, id
 *       tuples               routine tuples (p lines), hashed and sortable
 *     contexts[]             CCT nodes (x lines): routine, parent
 *       tuples               context tuples (q lines)
 *
 * Names are interned in `names` (strtab ids). Tuples live in fixed chunks
 * owned by the isprof, so a `struct isprof_tuple *` stays valid until
 * isprof_release(). Lookup of a tuple by (owner, input size) is hashed.
 *
 * Arithmetic is checked: adding two tuples whose sums would overflow
 * fails (-1 with err) instead of wrapping. Sums of squares are 128 bits.
 *
 * The file format (aprof versions 1-6, what tally writes) is in
 * src/formats/aprof.h and docs/internals/aprof.md.
 */
#ifndef TALLY_ISPROF_H
#define TALLY_ISPROF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "strtab.h"

typedef unsigned __int128 isprof_u128;

#define ISPROF_NONE SIZE_MAX /* "no index": no parent context, no routine */

/* Cost metric (`m` line). */
enum isprof_cost {
    ISPROF_COST_BB,    /* "bb-count": executed basic blocks (the default) */
    ISPROF_COST_INSTR, /* "vex-instr": executed guest instructions */
    ISPROF_COST_TIME,  /* "time-usec": time (read only; tally never writes it) */
};

/* Input metric (`i` line or `c tally input`). */
enum isprof_input {
    ISPROF_INPUT_RMS,  /* read memory size ("rms") */
    ISPROF_INPUT_DRMS, /* dynamic read memory size ("drms"; old reports: "rvms") */
};

/*
 * Which tuple fields a report carried. Old versions lack some (v1 has no
 * real/self fields, v2 and v3 have no sums of squares, ...); a missing
 * field reads as 0 and its bit is clear in isprof.fields. Merging keeps
 * only the bits both sides have.
 */
enum {
    ISPROF_F_SQR = 1u << 0,     /* sqr (cumulative sum of squares) */
    ISPROF_F_REAL = 1u << 1,    /* real_sum */
    ISPROF_F_SELF = 1u << 2,    /* self_sum */
    ISPROF_F_SELFMM = 1u << 3,  /* self_min, self_max */
    ISPROF_F_SELFSQR = 1u << 4, /* self_sqr */
    ISPROF_F_RMSSTAT = 1u << 5, /* rms_sum, rms_sqr (v5 RVMS; 0 placeholders in v6) */
    ISPROF_F_INDUCED = 1u << 6, /* the four syscall/thread-induced counts (DRMS) */
    ISPROF_F_V4 = 0x1f,         /* everything a 1.4 (v4) tuple has */
};

/*
 * A performance tuple: all activations of one routine (or context) whose
 * input size was `input`. Costs are in the unit of isprof.cost.
 */
struct isprof_tuple {
    uint64_t input;              /* RMS or DRMS of these activations */
    uint64_t calls;              /* number of activations (>= 1) */
    uint64_t min, max, sum;      /* cumulative (inclusive) cost */
    isprof_u128 sqr;             /* sum of squared cumulative costs */
    uint64_t real_sum;           /* sum over outermost activations only (no recursion) */
    uint64_t self_sum;           /* self (exclusive) cost */
    uint64_t self_min, self_max; /* self cost extremes */
    isprof_u128 self_sqr;        /* sum of squared self costs */
    /* DRMS only (ISPROF_F_RMSSTAT / ISPROF_F_INDUCED): */
    uint64_t rms_sum;       /* sum of the plain RMS (0 placeholder in v6) */
    isprof_u128 rms_sqr;    /* its sum of squares (0 placeholder in v6) */
    uint64_t cumul_syscall; /* induced reads caused by the kernel, incl. descendants */
    uint64_t cumul_thread;  /* induced reads caused by other threads, incl. descendants */
    uint64_t self_syscall;  /* same, in the activation itself */
    uint64_t self_thread;
    unsigned long line; /* report line it was read from (0 = not read from a file) */
};

/* A growable list of tuples of one owner (routine or context). */
struct isprof_tuples {
    struct isprof_tuple **items;
    size_t n, cap;
    int sorted; /* items are in ascending input order */
};

struct isprof_routine {
    uint32_t id;       /* routine id as in the file (r line); unique */
    uint32_t name;     /* strtab id: (possibly demangled) name */
    uint32_t image;    /* strtab id: ELF image path ("NONE" when unknown) */
    uint32_t mangled;  /* strtab id of the `u` name, or 0 (empty) */
    uint32_t fullname; /* strtab id of the `d` name, or 0 (empty) */
    struct isprof_tuples tuples;
    /*
     * 1 when `tuples` were computed by isprof_aggregate_contexts() rather
     * than read from p lines (writers then write q/x lines only).
     */
    int from_contexts;
};

/* A CCT node (x line). A context's parent always has a smaller index. */
struct isprof_context {
    uint32_t id;    /* context id as in the file; unique */
    size_t routine; /* index into isprof.routines */
    size_t parent;  /* index into isprof.contexts, or ISPROF_NONE (top level) */
    struct isprof_tuples tuples;
};

struct isprof {
    /* Metadata. Strings are owned, NULL when the line was absent. */
    unsigned version;          /* `v` read (0 when missing); writers choose their own */
    char *exe_mtime;           /* `e`: modification time of the executable (text as read) */
    char *created;             /* `t` of v<=5 or `c tally created`: report creation date */
    struct strlist comments;   /* `c` lines (text after "c "), except tally's own metadata */
    char *cmdline;             /* `f` */
    char *app;                 /* `a` */
    enum isprof_cost cost;     /* `m` (default bb-count) */
    enum isprof_input input;   /* `i` or `c tally input` (default rms) */
    unsigned resolution;       /* memory cell size in bytes (1,2,4,8,16), 0 = unknown */
    uint64_t total;            /* `k`: total program cost */
    int has_total;             /* a `k` line was present */
    unsigned long total_line;  /* ... and its line number */
    long thread;               /* `c tally thread N`: N>=1; -1 = all threads; 0 = unknown */
    unsigned fields;           /* ISPROF_F_* carried by the tuples */
    struct strlist favourites; /* `fav` lines (text after "fav ") */

    struct strtab names; /* routine names and images */
    struct isprof_routine *routines;
    size_t nroutines, routines_cap;
    struct isprof_context *contexts;
    size_t ncontexts, contexts_cap;

    /* Internal: indexes and tuple storage (do not touch). */
    struct isprof_index {
        uint64_t *keys; /* pairs of words per slot */
        size_t *vals;   /* per slot: an index + 1 or a tuple's address; 0 = empty */
        size_t nslots, n;
    } by_id, by_name, ctx_by_id, ctx_by_path;
    struct isprof_index tuple_map; /* (owner, input) -> the tuple's address */
    struct isprof_tuple **chunks;
    size_t nchunks, chunk_used;
};

/* Owner of a tuple: a routine or a context (by index). */
enum isprof_owner { ISPROF_ROUTINE, ISPROF_CONTEXT };

/* An empty profile: version 0, cost bb, input rms, resolution 0. */
void isprof_init(struct isprof *ip);
void isprof_release(struct isprof *ip);

/* Name of a cost metric as in the `m` line ("bb-count", ...), and back (-1 if unknown). */
const char *isprof_cost_name(enum isprof_cost c);
int isprof_cost_parse(const char *s, size_t len, enum isprof_cost *out);

/*
 * Add a routine. Returns its index, or ISPROF_NONE with err when the id
 * is already used. `image` NULL means "NONE". Two routines may share a
 * (name, image) pair only when read from a file that has them so.
 */
size_t isprof_add_routine(struct isprof *ip, uint32_t id, const char *name, const char *image,
                          struct tally_error *err);
/* Index of the routine with file id `id`, or ISPROF_NONE. */
size_t isprof_routine_by_id(const struct isprof *ip, uint32_t id);
/* Index of the (first) routine named (name, image), or ISPROF_NONE. */
size_t isprof_routine_by_name(const struct isprof *ip, const char *name, const char *image);
/* Strings of a routine. */
const char *isprof_routine_name(const struct isprof *ip, size_t r);
const char *isprof_routine_image(const struct isprof *ip, size_t r);
/* Set the mangled (u) or full (d) name of routine r. */
void isprof_set_mangled(struct isprof *ip, size_t r, const char *s, size_t len);
void isprof_set_fullname(struct isprof *ip, size_t r, const char *s, size_t len);

/*
 * Add a CCT node. `routine` is a routine index, `parent` a context index
 * or ISPROF_NONE. Returns its index, or ISPROF_NONE with err when the id
 * is already used.
 */
size_t isprof_add_context(struct isprof *ip, uint32_t id, size_t routine, size_t parent,
                          struct tally_error *err);
/* Index of the context with file id `id`, or ISPROF_NONE. */
size_t isprof_context_by_id(const struct isprof *ip, uint32_t id);
/* Index of the context of `routine` under `parent` (ISPROF_NONE = top level), or ISPROF_NONE. */
size_t isprof_context_child(const struct isprof *ip, size_t parent, size_t routine);

/* The tuple of owner (kind, idx) for input size `input`, or NULL. */
struct isprof_tuple *isprof_find(const struct isprof *ip, enum isprof_owner kind, size_t idx,
                                 uint64_t input);

/*
 * Add the activations summarised by `t` to owner (kind, idx): a new tuple
 * when its input size is new, else folded into the existing one (calls
 * and sums added, min/max folded). Returns the tuple, or NULL with err
 * when a sum would overflow (nothing is changed then) or t->calls is 0.
 */
struct isprof_tuple *isprof_add(struct isprof *ip, enum isprof_owner kind, size_t idx,
                                const struct isprof_tuple *t, struct tally_error *err);

/*
 * Fold src into dst (same input size assumed): 0, or -1 when a sum would
 * overflow (dst unchanged).
 */
int isprof_tuple_fold(struct isprof_tuple *dst, const struct isprof_tuple *src);

/*
 * The tuples of a routine or context in ascending input order. The array
 * belongs to ip and stays valid until ip changes. `n` gets the count.
 */
struct isprof_tuple *const *isprof_routine_tuples(struct isprof *ip, size_t r, size_t *n);
struct isprof_tuple *const *isprof_context_tuples(struct isprof *ip, size_t c, size_t *n);

/*
 * Per-routine tuples from context tuples: for every routine that has no
 * tuples of its own but has contexts, fold the tuples of all its contexts
 * by input size and mark it from_contexts. Readers call it after reading a
 * report with q lines, so every routine has tuples. 0, or -1 on overflow.
 */
int isprof_aggregate_contexts(struct isprof *ip, struct tally_error *err);

/* Number of tuples over all routines (not counting contexts); of all contexts. */
size_t isprof_count_routine_tuples(const struct isprof *ip);
size_t isprof_count_context_tuples(const struct isprof *ip);

/*
 * Merge `src` (a report of another run of the same program) into `dst`.
 * Refused (-1 with err, dst unchanged) when `a`, the input metric, the
 * memory resolution or the cost metric differ. A differing `e` (executable
 * mtime) is allowed and adds a message to `warnings`. Routines are matched
 * by (name, image), contexts by their routine path from the root, tuples
 * by input size; `k` totals are added; `fields` keeps the common bits.
 * New routines keep their file id when it is free in dst, else get one
 * above the largest; new contexts get ids above the largest in dst.
 * `src` must not be `dst`. Returns 0, or -1 with err (incompatible, or
 * overflow: dst may then be partly merged and should be discarded). An
 * overflow sets err->line to the line of src that pushed a sum over (the
 * tuple's or the k line's), with no file name: the caller knows src's file.
 */
int isprof_merge(struct isprof *dst, const struct isprof *src, struct strlist *warnings,
                 struct tally_error *err);

#endif
