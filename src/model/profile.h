/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h - the profile model: one in-memory form for every format.
 *
 * A `struct profile` owns:
 *   - `names`: the interned object, file and function names;
 *   - `funcs`: the functions, each identified by (object, file, name) ids
 *     and numbered in first-seen order;
 *   - one or more `struct part` (a dump of one process/thread/time range),
 *     each with its own event set, metadata and cost data.
 *
 * Cost data of a part lives in three record tables (see rectab.h):
 *   - costs: self cost at a position (function, source file, line,
 *     instruction address, basic block); the source file differs from the
 *     function's file for inlined code (`fi=`/`fe=`);
 *   - calls: (caller, call-site position, callee) -> call count, the
 *     callee's entry position, and the inclusive cost of those calls (a
 *     part with `call_counts_only` set keeps less: see there);
 *   - jumps: (source position, target position, conditional?) ->
 *     executed and taken counts.
 * Use the accessors below rather than poking at the packed records.
 *
 * Costs are unsigned 64-bit counters. Additions are checked: an overflow
 * makes the adding function return -1 (the caller reports it), it never
 * wraps. A profile whose `signed_costs` is set (the result of a diff, or a
 * file with negative counts) holds two's complement int64 values instead,
 * also with checked arithmetic.
 *
 * Memory grows with the number of distinct cost centres, not with the
 * size of the file that was read.
 */
#ifndef TALLY_PROFILE_H
#define TALLY_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "eventset.h"
#include "rectab.h"
#include "strtab.h"

enum profile_format {
    PROFILE_FORMAT_UNKNOWN = 0,
    PROFILE_FORMAT_CALLGRIND,
    PROFILE_FORMAT_CACHEGRIND,
    PROFILE_FORMAT_CONTEXTS, /* tally contexts (formats/contexts.h) */
    /* recognised, but not read into a profile by the format table: */
    PROFILE_FORMAT_GMON,  /* GNU gmon.out: read with its program by the gprof analysis */
    PROFILE_FORMAT_APROF, /* aprof report: an input-sensitive profile (model/isprof.h) */
};

/* Which subpositions cost lines carry (`positions:`). */
enum {
    POS_INSTR = 1, /* instruction address */
    POS_BB = 2,    /* basic block number */
    POS_LINE = 4,  /* source line */
};

struct function {
    uint32_t obj;  /* object name id (0 = unknown/empty) */
    uint32_t file; /* file name id of the function (`fl=`) */
    uint32_t name; /* function name id */
};

/* A position inside a function's code. */
struct position {
    uint32_t file; /* source file id (the function's file, or an fi=/fe= file) */
    uint64_t line;
    uint64_t addr;
    uint64_t bb;
};

/* One self-cost record, as returned by part_cost_get(). */
struct cost_rec {
    uint32_t fn; /* function index */
    struct position pos;
    uint64_t *cost; /* events.n values, writable */
};

struct call_rec {
    uint32_t caller, callee; /* function indices */
    struct position site;    /* call site in the caller */
    struct position target;  /* callee entry (file is the callee's file) */
    uint64_t *count;         /* number of calls, writable */
    uint64_t *cost;          /* inclusive cost of the calls, events.n values;
                                NULL when the part keeps call counts only */
};

struct jump_rec {
    uint32_t fn; /* source function */
    struct position src;
    uint32_t target_fn;
    struct position target;
    int conditional;    /* jcnd= (1) or jump= (0) */
    uint64_t *executed; /* times the jump instruction ran (jcnd) / was taken (jump) */
    uint64_t *taken;    /* times it was taken */
};

struct part {
    int has_pid, has_thread, has_part;
    uint64_t pid, thread, part_no;
    char *cmd;           /* `cmd:` value, NULL when absent */
    struct strlist desc; /* `desc:` values ("I1 cache: ...") */
    char *timerange;     /* unused by most formats; NULL */
    unsigned positions;  /* POS_* bits; POS_LINE when absent */
    struct eventset events;
    uint64_t *summary;                       /* [events.n] or NULL: `summary:` value */
    uint64_t *totals;                        /* [events.n] or NULL: `totals:` value */
    unsigned long summary_line, totals_line; /* where they were read (0 = unknown) */
    struct rectab costs;                     /* self costs */
    struct rectab calls;                     /* call arcs */
    struct rectab jumps;                     /* jumps */
    /*
     * Calls keep who calls whom and how often, nothing more: a call record
     * is (caller, callee, file of the call site, file of the target) ->
     * count. part_call_get() gives cost NULL and the line, address and
     * basic block of site and target as 0; part_add_call() ignores them.
     * For views that show no call cost and no line (annotate --auto=no
     * without --inclusive or --tree): 3 words a record instead of 10 plus
     * one per event. Set it with part_keep_call_counts_only().
     */
    int call_counts_only;
    /*
     * Every cost and call line of the part gave a count for each event:
     * xdebug and `pprof -callgrind` write zeros, Callgrind leaves trailing
     * zeros out. callgrind_annotate prints a zero that a line gave as `0`
     * and a count that no line gave as `.` (analysis/funcs.h: ndef), so with
     * this set every sum of at least one record is shown in full. The
     * callgrind and cachegrind readers set it (a cachegrind line that leaves
     * counts out or gives `.` clears it, as cg_annotate shows those as `.`),
     * and so does a diff (every count written); other readers leave it 0. A sum of parts
     * keeps it only when every part added has it.
     */
    int counts_complete;
};

/*
 * The `desc:` line by which a callgrind file says that its call costs
 * count each recursion once: a call of a function that was already on
 * its thread's stack adds its count but no cost, so the costs of the calls
 * into a function add up to the cost spent while it is on the stack
 * (tally record writes it; Callgrind's calls nest under recursion). The
 * "Option:" prefix keeps callgrind_annotate from printing it.
 */
#define PART_DESC_OUTERMOST "Option: call costs: outermost activations"

/* Whether the part's desc has that line; set or clear it (once). Adding
 * parts keeps it only when every part added has it. */
int part_calls_outermost(const struct part *pt);
void part_set_calls_outermost(struct part *pt, int on);

struct cct; /* cct.h */

struct profile {
    char *path;                 /* file it was read from, or NULL */
    enum profile_format format; /* format it was read from */
    char *creator;              /* `creator:` value, or NULL */
    int version;                /* `version:` value, 0 when absent */
    int signed_costs;           /* costs are int64 (diff results) */
    struct strtab names;
    struct rectab funcs; /* key: obj<<32|file, name; value: last mention; index = function id */
    uint64_t mentions;   /* profile_mention_function() calls so far */
    size_t nparts, parts_cap;
    struct part **parts;
    struct strlist warnings; /* non-fatal problems found while reading */
    struct cct *cct;         /* calling-context tree of part 0 (contexts files), or NULL; owned */
};

struct profile *profile_new(void);
void profile_free(struct profile *p);

/* Intern a name (object, file or function). */
static inline uint32_t profile_intern(struct profile *p, const char *s, size_t len)
{
    return strtab_intern(&p->names, s, len);
}
static inline const char *profile_str(const struct profile *p, uint32_t id)
{
    return strtab_str(&p->names, id);
}

/* The index of function (obj, file, name), creating it if new. */
uint32_t profile_function(struct profile *p, uint32_t obj, uint32_t file, uint32_t name);
size_t profile_nfunctions(const struct profile *p);
struct function profile_function_at(const struct profile *p, uint32_t fn);

/*
 * A reader saw a line that names function fn (the callgrind reader: each
 * `fn=` line). profile_function_mention() gives the ordinal (1, 2, ...)
 * of the last such line, 0 when none: callgrind_annotate shows a
 * FILE:FUNCTION row that functions of several objects share (code without
 * symbols is named by its offset, every library has an `_init`) with the
 * object of the last `fn=` line of that row, and tally annotate does the
 * same (analysis/funcs.c). part_accumulate() of another profile carries
 * its mentions over, numbered after the destination's.
 */
void profile_mention_function(struct profile *p, uint32_t fn);
uint64_t profile_function_mention(const struct profile *p, uint32_t fn);
/* Make fn's last mention at least `ordinal` (a reader merging what another thread read). */
void profile_raise_mention(struct profile *p, uint32_t fn, uint64_t ordinal);

/* Append a new empty part (positions POS_LINE, no events yet). */
struct part *profile_add_part(struct profile *p);

/* Record a warning (printf-style); the command-line layer prints them. */
void profile_warn(struct profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Add `n` costs (n <= events.n; missing ones count as 0) at a position of
 * function fn. Returns 0, or -1 when a sum would overflow.
 */
int part_add_cost(struct profile *p, struct part *pt, uint32_t fn, const struct position *pos,
                  const uint64_t *cost, size_t n);

/*
 * The cost vector (events.n values, zero when new) of the self-cost record
 * of fn at pos, creating the record. For readers that add costs on their
 * hot path themselves, with checked additions as part_add_cost() does.
 * Same record layout as profile.c.
 */
static inline uint64_t *part_cost_vector(struct part *pt, uint32_t fn, const struct position *pos)
{
    if (!pt->costs.count) pt->costs.val_words = pt->events.n;
    uint64_t key[4] = {(uint64_t)fn << 32 | pos->file, pos->line, pos->addr, pos->bb};
    return rectab_get4(&pt->costs, key); /* cost records have 4 key words */
}

/*
 * A new self-cost record of fn at pos (zero costs), appended without
 * looking it up: the part may then hold a position more than once. Only
 * for a part read to be added into a sum (read_options.cachegrind.unindexed), which
 * part_accumulate() reads in order.
 */
static inline uint64_t *part_cost_append(struct part *pt, uint32_t fn, const struct position *pos)
{
    if (!pt->costs.count) pt->costs.val_words = pt->events.n;
    uint64_t key[4] = {(uint64_t)fn << 32 | pos->file, pos->line, pos->addr, pos->bb};
    return rectab_append(&pt->costs, key);
}

/*
 * Add a call arc. cost may be NULL (no cost: only the count is added).
 * When pt->call_counts_only is set, only the count and the files of site
 * and target are kept. Returns 0, or -1 on overflow.
 */
int part_add_call(struct profile *p, struct part *pt, uint32_t caller, const struct position *site,
                  uint32_t callee, const struct position *target, uint64_t count,
                  const uint64_t *cost, size_t n);

/*
 * Make a part keep call counts only (see struct part): its call records,
 * if any, are folded into that form (records that differed only in lines,
 * addresses, blocks or costs become one, counts added). Returns 0, or -1
 * when a count would overflow (the part keeps counts only all the same).
 */
int part_keep_call_counts_only(struct profile *p, struct part *pt);

/* Add a jump. Returns 0, or -1 on overflow. */
int part_add_jump(struct profile *p, struct part *pt, uint32_t fn, const struct position *src,
                  uint32_t target_fn, const struct position *target, int conditional,
                  uint64_t executed, uint64_t taken);

/* Number of records, and record i unpacked (pointers stay valid). */
static inline size_t part_ncosts(const struct part *pt)
{
    return pt->costs.count;
}
static inline size_t part_ncalls(const struct part *pt)
{
    return pt->calls.count;
}
static inline size_t part_njumps(const struct part *pt)
{
    return pt->jumps.count;
}
void part_cost_get(const struct part *pt, size_t i, struct cost_rec *out);
void part_call_get(const struct part *pt, size_t i, struct call_rec *out);
void part_jump_get(const struct part *pt, size_t i, struct jump_rec *out);

/*
 * For a profile that views will read and nothing will add to: free the
 * indexes that find a function or a cost, call or jump record by its key
 * (views read them by number: profile_function_at(), part_cost_get(), ...).
 * Nothing else changes; a later lookup or addition builds the index it
 * needs again first (rectab_drop_index()). Names keep theirs.
 */
void profile_drop_indexes(struct profile *p);

/* Remove every cost, call and jump record (events, totals, metadata stay). */
void part_clear_records(struct part *pt);

/* Checked addition of vectors: dst[i] += src[i]. Returns 0 or -1. */
int cost_add(uint64_t *dst, const uint64_t *src, size_t n, int is_signed);
/* Checked dst[i] -= src[i] for signed vectors. Returns 0 or -1. */
int cost_sub_signed(uint64_t *dst, const uint64_t *src, size_t n);

/*
 * Sum of all self costs of a part into out[events.n]. Returns 0 or -1 on
 * overflow.
 */
int part_self_total(const struct profile *p, const struct part *pt, uint64_t *out);

/*
 * Compare `summary:` and `totals:` with the sum of the self costs and add
 * a warning naming the file, the event and both numbers for each mismatch.
 * In a callgrind profile `summary:` may be larger than the sum (the format
 * allows it and Callgrind does it); only a smaller one is a mismatch there.
 * Returns the number of mismatches.
 */
int part_check_totals(struct profile *p, struct part *pt);
/* The same with the sum of the self costs given (a reader that kept it). */
int part_check_totals_of(struct profile *p, struct part *pt, const uint64_t *self);

/*
 * Add everything of part `src` (of profile `sp`) into part `dst` of profile
 * `dp` (which may be the same profile). Events are matched by name: `src`
 * must have exactly the same set of base events as `dst` (any order), else
 * -1 with a message naming both lists. If `dst` has no events yet, it
 * takes those of `src`. Metadata (cmd, desc) of dst is kept, or copied when
 * dst has none. Summary/totals are summed when both have them.
 * Returns 0, or -1 with err (overflow or event mismatch).
 */
int part_accumulate(struct profile *dp, struct part *dst, const struct profile *sp,
                    const struct part *src, struct tally_error *err);
/*
 * The same, with the functions given: src's function f goes to dp's
 * function fnmap[f] (every index of sp's functions must be there) instead
 * of the one with the same (object, file, name).
 */
int part_accumulate_mapped(struct profile *dp, struct part *dst, const struct profile *sp,
                           const struct part *src, const uint32_t *fnmap, struct tally_error *err);
/*
 * The same, with the names given too: a position's file name id i of sp is
 * dp's name namemap[i] (every name id of sp must be there), for a reader
 * whose second profile holds placeholder names.
 */
int part_accumulate_maps(struct profile *dp, struct part *dst, const struct profile *sp,
                         const struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                         struct tally_error *err);
/*
 * The same, freeing src's records as they are added (src is left with
 * none, as part_clear_records() leaves it): memory holds dst and what is
 * left of src, not both whole.
 */
int part_accumulate_consume(struct profile *dp, struct part *dst, const struct profile *sp,
                            struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                            struct tally_error *err);

/* What part_accumulate_some() adds. */
enum {
    PART_ACC_META = 1,  /* events (checked, or taken when dst has none), metadata, stated totals */
    PART_ACC_COSTS = 2, /* the cost records */
    PART_ACC_ARCS = 4,  /* the call and jump records */
    PART_ACC_ALL = 7,
    PART_ACC_EAT = 8, /* free src's records of those kinds as they are added */
    /* with META: dst's records are src's own, added to it before (a reader that
       reads a part straight into the sum): its stated totals are taken as into
       a dst that held nothing, when dst held nothing before those */
    PART_ACC_DST_EMPTY = 16,
};
/*
 * part_accumulate_maps() of some of a part. The costs and the arcs go to
 * separate tables of dst, so two threads may add them at once, once the
 * metadata is added (it must come first: it takes or checks the events).
 * With PART_ACC_EAT the caller then calls part_clear_records(src).
 */
int part_accumulate_some(struct profile *dp, struct part *dst, const struct profile *sp,
                         struct part *src, const uint32_t *fnmap, const uint32_t *namemap,
                         unsigned what, struct tally_error *err);

/*
 * Fold every part into part 0 (all parts must have the same events).
 * Returns 0 or -1 with err.
 */
int profile_merge_parts(struct profile *p, struct tally_error *err);

/*
 * Fold the last part into part 0 and drop it: what profile_merge_parts()
 * does for that part, for readers that fold each part as soon as it is
 * read (memory then holds the sum and one part, not every part).
 * Returns 0, or -1 with err and the part left in place.
 */
int profile_fold_last_part(struct profile *p, struct tally_error *err);
/* The same for some of the part (PART_ACC_* bits): what a reader that put its records in part
   0 as it read them has left to fold (PART_ACC_META, with PART_ACC_DST_EMPTY as it applies). */
int profile_fold_last_part_some(struct profile *p, unsigned what, struct tally_error *err);

/* Make a profile signed (int64 costs). Fails (-1) if a value exceeds INT64_MAX. */
int profile_make_signed(struct profile *p, struct tally_error *err);

#endif
