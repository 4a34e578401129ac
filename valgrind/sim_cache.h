/* sim_cache.h: tally's I1/D1/LL cache simulator, giving the same miss counts
 * as Cachegrind 3.19 (see docs/internals/cachesim.md for the rules).
 *
 * Included by exactly one translation unit (valgrind/tl_sim.c); every
 * function is static.  Compiles as host C too (define TALLY_SIM_HOST before
 * including; tests/unit/test_cachesim.c does).
 *
 * NOTE FOR the tool (API additions to the issue-4 plan; the planned names
 * all exist with the planned signatures):
 *  - Command-line caches start as CACHESIM_CFG_UNSET; cachesim_parse_opt()
 *    fills them.  Then call cachesim_configure(&I1, &D1, &LL) ONCE in
 *    post_clo_init: it does what Cachegrind does after option parsing
 *    (auto-detection, LL tweak, warnings, command-line override, -v listing,
 *    minimum line size check) and returns False when the tool must stop (the
 *    reason is already printed: exit with status 1).  Then cachesim_init().
 *    cachesim_default_config() is only the auto-detected + tweaked part.
 *  - cachesim_min_line_size (after cachesim_init) is the clamp for Dirty and
 *    CAS data sizes.
 *  - cachesim_is_IrNoX() / cachesim_I1_doref_NoX(): Cachegrind's fast path for
 *    instructions that sit in one line when I1 and LL lines are equal; same
 *    counts as cachesim_I1_doref(), fewer tests per call.
 *  - cachesim_desc() formats the text of a "desc: I1 cache:" line.
 *  - Callgrind's models: cachesim_set_models() (write-back, prefetch) with
 *    cachesim_I1_read/D1_read/D1_write; cachesim_set_cacheuse() (--cacheuse)
 *    with cachesim_cu_I1/cachesim_cu_D1 and cachesim_cu_finish(), whose
 *    charges go to the caller's function (see the cache-use section below).
 *
 * Copyright (C) 2026 the tally authors.  GPL-2.0-or-later. */
#ifndef TALLY_SIM_CACHE_H
#define TALLY_SIM_CACHE_H

#include "sim_types.h"

#ifdef TALLY_SIM_TOOL
#include "pub_tool_options.h" /* VG_(clo_verbosity) */
#endif

/* Messages: dmsg for warnings, umsg for what the user asked for (-v) or
 * fatal configuration problems.  A test may define both before including. */
#ifndef CACHESIM_DMSG
#ifdef TALLY_SIM_TOOL
#define CACHESIM_DMSG(...) VG_(dmsg)(__VA_ARGS__)
#define CACHESIM_UMSG(...) VG_(umsg)(__VA_ARGS__)
#else
#define CACHESIM_DMSG(...) fprintf(stderr, __VA_ARGS__)
#define CACHESIM_UMSG(...) fprintf(stderr, __VA_ARGS__)
#endif
#endif

#if defined(__GNUC__)
#define CACHESIM_UNUSED __attribute__((unused))
#define CACHESIM_LIKELY(x) __builtin_expect(!!(x), 1)
#define CACHESIM_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define CACHESIM_UNUSED
#define CACHESIM_LIKELY(x) (x)
#define CACHESIM_ALWAYS_INLINE inline
#endif

/* ---- configuration ------------------------------------------------------ */

/* cache_cfg (size, assoc, line_size) is in sim_types.h. */

/* A cache not given on the command line. */
#define CACHESIM_CFG_UNSET ((cache_cfg){-1, -1, -1})
#define CACHESIM_CFG_IS_SET(c) ((c)->size != -1 || (c)->assoc != -1 || (c)->line_size != -1)

/* Smallest line size accepted: with 16 B lines no access of at most 16 bytes
 * touches more than two lines. */
#define CACHESIM_MIN_LINE_SIZE 16

/* Cachegrind's fallback for x86/amd64 when the host's caches are unknown. */
#define CACHESIM_DEFAULT_I1 ((cache_cfg){65536, 2, 64})
#define CACHESIM_DEFAULT_D1 ((cache_cfg){65536, 2, 64})
#define CACHESIM_DEFAULT_LL ((cache_cfg){262144, 8, 64})

/* 1 if x (> 0) is a power of two. */
static inline Bool cachesim_is_pow2(ULong x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static inline Int cachesim_log2(ULong x)
{
    Int n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

/* Why `c` cannot be simulated, or NULL if it can.  The tests run in
 * Cachegrind's order (set count, line power of two, line minimum, size > line,
 * assoc <= lines); non-positive values, which Cachegrind does not guard
 * against, are refused first.  `name` ("I1", "D1", "LL") starts the message;
 * the text lives in a static buffer until the next call. */
static CACHESIM_UNUSED const HChar *cachesim_check(const cache_cfg *c, const HChar *name)
{
    static HChar buf[160];
    const HChar *why = NULL;
    Long size = c->size, assoc = c->assoc, line = c->line_size;

    if (size <= 0 || assoc <= 0 || line <= 0)
        why = "size, associativity and line size must all be positive";
    else if (size % (line * assoc) != 0 || !cachesim_is_pow2((ULong)(size / line / assoc)))
        why = "the number of sets, size / (line size * associativity), is not a power of two";
    else if (!cachesim_is_pow2((ULong)line))
        why = "the line size is not a power of two";
    else if (line < CACHESIM_MIN_LINE_SIZE)
        why = "the line size is below the 16-byte minimum";
    else if (size <= line)
        why = "the cache is not larger than one line";
    else if (assoc > size / line)
        why = "the associativity is larger than the number of lines (size / line size)";
    if (!why) return NULL;

    SizeT n = 0;
    if (name) {
        for (const HChar *p = name; *p && n < 16; p++)
            buf[n++] = *p;
        buf[n++] = ' ';
        for (const HChar *p = "cache: "; *p; p++)
            buf[n++] = *p;
    }
    for (const HChar *p = why; *p && n + 1 < sizeof buf; p++)
        buf[n++] = *p;
    buf[n] = '\0';
    return buf;
}

/* Parses "SIZE,ASSOC,LINE" (three decimal integers that fit an Int) into
 * *out and checks it.  NULL on success, else the reason. */
static CACHESIM_UNUSED const HChar *cachesim_parse_value(const HChar *val, cache_cfg *out,
                                                         const HChar *name)
{
    Long v[3];
    const HChar *p = val;
    for (Int i = 0; i < 3; i++) {
        Long x = 0;
        const HChar *start = p;
        while (*p >= '0' && *p <= '9') {
            x = x * 10 + (*p - '0');
            if (x > 0x7fffffffLL) return "one of the three numbers is too large";
            p++;
        }
        if (p == start) return "expected three numbers: SIZE,ASSOC,LINE_SIZE (bytes, ways, bytes)";
        v[i] = x;
        if (*p != (i < 2 ? ',' : '\0'))
            return "expected three numbers: SIZE,ASSOC,LINE_SIZE (bytes, ways, bytes)";
        if (i < 2) p++;
    }
    cache_cfg c = {(Int)v[0], (Int)v[1], (Int)v[2]};
    const HChar *why = cachesim_check(&c, name);
    if (why) return why;
    *out = c;
    return NULL;
}

/* Recognises --I1=, --D1=, --LL= (and its old name --L2=).  Returns False if
 * `arg` is none of them.  Otherwise sets *err to NULL and fills the cache, or
 * sets *err to the reason the value is bad (the cache is left as it was). */
static CACHESIM_UNUSED Bool cachesim_parse_opt_msg(const HChar *arg, cache_cfg *I1, cache_cfg *D1,
                                                   cache_cfg *LL, const HChar **err)
{
    static const struct {
        const HChar *prefix, *name;
        Int which;
    } opts[] = {{"--I1=", "I1", 0}, {"--D1=", "D1", 1}, {"--LL=", "LL", 2}, {"--L2=", "LL", 2}};
    for (UInt i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (sim_strncmp(arg, opts[i].prefix, 5) != 0) continue;
        cache_cfg *dst = opts[i].which == 0 ? I1 : opts[i].which == 1 ? D1 : LL;
        *err = cachesim_parse_value(arg + 5, dst, opts[i].name);
        return True;
    }
    *err = NULL;
    return False;
}

#ifdef TALLY_SIM_TOOL
/* The tool's form: a bad value is a fatal option error, as in Cachegrind. */
static CACHESIM_UNUSED Bool cachesim_parse_opt(const HChar *arg, cache_cfg *I1, cache_cfg *D1,
                                               cache_cfg *LL)
{
    const HChar *err;
    if (!cachesim_parse_opt_msg(arg, I1, D1, LL, &err)) return False;
    if (err) VG_(fmsg_bad_option)(arg, "%s\n", err);
    return True;
}
#endif

/* One cache as the host describes it (a neutral copy of VexCache, so that the
 * configuration logic can be tested without Valgrind). */
enum { CACHESIM_HW_DATA, CACHESIM_HW_INSN, CACHESIM_HW_UNIFIED };
typedef struct {
    Int kind; /* CACHESIM_HW_* */
    UInt level, size, line_size, assoc;
    Bool is_trace_cache;
} cachesim_hw;

static const cachesim_hw *cachesim_hw_find(const cachesim_hw *hw, UInt n, Int kind, UInt level)
{
    for (UInt i = 0; i < n; i++)
        if (hw[i].level == level && hw[i].kind == kind) return &hw[i];
    return NULL;
}

/* Picks I1, D1 and LL from the host's caches as Cachegrind does: the level-1
 * instruction and data caches and the unified cache of the highest level;
 * the x86/amd64 defaults if any of the three is missing.  `all_given`: all
 * three caches came from the command line (silences the defaults warning). */
static CACHESIM_UNUSED void cachesim_pick(const cachesim_hw *hw, UInt n, UInt num_levels,
                                          Bool all_given, cache_cfg *I1, cache_cfg *D1,
                                          cache_cfg *LL)
{
    const cachesim_hw *i1 = cachesim_hw_find(hw, n, CACHESIM_HW_INSN, 1);
    const cachesim_hw *d1 = cachesim_hw_find(hw, n, CACHESIM_HW_DATA, 1);
    const cachesim_hw *ll = cachesim_hw_find(hw, n, CACHESIM_HW_UNIFIED, num_levels);

    if (n > 0 && !ll) CACHESIM_DMSG("warning: L2 cache not installed, ignore LL results.\n");
    if (ll && num_levels > 2)
        CACHESIM_DMSG("warning: L%u cache found, using its data for the LL simulation.\n",
                      num_levels);
    if (i1 && d1 && ll) {
        if (i1->is_trace_cache) {
            /* A Pentium 4 trace cache counts micro-ops; Cachegrind guesses
             * a byte size (16 KiB for the 12/16 K models, else 32 KiB) and
             * 32-byte lines. */
            UInt guess = (i1->size == 12 * 1024 || i1->size == 16 * 1024) ? 16 * 1024 : 32 * 1024;
            CACHESIM_DMSG("warning: Pentium 4 with %u KB micro-op instruction trace cache\n",
                          i1->size / 1024);
            CACHESIM_DMSG("         Simulating a %u KB I-cache with %u B lines\n", guess / 1024,
                          32u);
            *I1 = (cache_cfg){(Int)guess, (Int)i1->assoc, 32};
        } else {
            *I1 = (cache_cfg){(Int)i1->size, (Int)i1->assoc, (Int)i1->line_size};
        }
        *D1 = (cache_cfg){(Int)d1->size, (Int)d1->assoc, (Int)d1->line_size};
        *LL = (cache_cfg){(Int)ll->size, (Int)ll->assoc, (Int)ll->line_size};
        return;
    }
    *I1 = CACHESIM_DEFAULT_I1;
    *D1 = CACHESIM_DEFAULT_D1;
    *LL = CACHESIM_DEFAULT_LL;
    if (!all_given)
        CACHESIM_DMSG("Warning: Cannot auto-detect cache config, using defaults.\n"
                      "         Run with -v to see.\n");
}

/* Cachegrind's LL adjustment: when size / (assoc * line) is not a power of
 * two, round the set count down to one and scale the associativity up to
 * keep roughly the same size; the line size never changes.  Warns (two
 * lines) when anything changed. */
static CACHESIM_UNUSED void cachesim_tweak_LL(cache_cfg *LL)
{
    if (LL->size <= 0 || LL->assoc <= 0 || LL->line_size <= 0) return;
    UInt size = (UInt)LL->size, assoc = (UInt)LL->assoc, line = (UInt)LL->line_size;
    UInt sets = size / (assoc * line);
    if (sets == 0) return;
    UInt new_size, new_assoc = assoc;
    if (cachesim_is_pow2(sets)) {
        new_size = line * assoc * sets;
    } else {
        UInt new_sets = 1u << cachesim_log2(sets);
        double factor = (double)sets / (double)new_sets;
        new_assoc = (UInt)(0.5 + factor * (double)assoc);
        new_size = line * new_assoc * new_sets;
    }
    if (new_size == size && new_assoc == assoc) return;
    CACHESIM_DMSG("warning: specified LL cache: line_size %u  assoc %u  total_size %'u\n", line,
                  assoc, size);
    CACHESIM_DMSG("warning: simulated LL cache: line_size %u  assoc %u  total_size %'u\n", line,
                  new_assoc, new_size);
    LL->size = (Int)new_size;
    LL->assoc = (Int)new_assoc;
}

/* The whole post-option configuration from a host description (the
 * testable core of cachesim_configure).  In: I1/D1/LL hold the command-line
 * caches or CACHESIM_CFG_UNSET.  Out: the caches to simulate.  `verbose`
 * lists them; `largest_reg` is the widest guest access in bytes.  Returns
 * False, after printing why, when the run cannot go on. */
static CACHESIM_UNUSED Bool cachesim_configure_from(const cachesim_hw *hw, UInt n, UInt num_levels,
                                                    cache_cfg *I1, cache_cfg *D1, cache_cfg *LL,
                                                    Bool verbose, Int largest_reg)
{
    cache_cfg *clo[3] = {I1, D1, LL};
    Bool given[3];
    for (Int i = 0; i < 3; i++)
        given[i] = CACHESIM_CFG_IS_SET(clo[i]);

    cache_cfg det[3];
    cachesim_pick(hw, n, num_levels, given[0] && given[1] && given[2], &det[0], &det[1], &det[2]);
    cachesim_tweak_LL(&det[2]);

    static const HChar *const names[3] = {"I1", "D1", "LL"};
    for (Int i = 0; i < 3; i++) {
        const HChar *why = cachesim_check(&det[i], NULL);
        if (!why) continue;
        CACHESIM_UMSG("The host's %s cache cannot be simulated: %s\n", names[i], why);
        CACHESIM_UMSG("  %s: %'d B, %d-way, %d B lines\n", names[i], det[i].size, det[i].assoc,
                      det[i].line_size);
        if (!given[i]) {
            CACHESIM_UMSG("Give a simulated one with --%s=SIZE,ASSOC,LINE_SIZE.\n", names[i]);
            return False;
        }
    }
    for (Int i = 0; i < 3; i++)
        if (!given[i]) *clo[i] = det[i];

    if (verbose) {
        CACHESIM_UMSG("Cache configuration used:\n");
        for (Int i = 0; i < 3; i++)
            CACHESIM_UMSG("  %s: %'d B, %d-way, %d B lines\n", names[i], clo[i]->size,
                          clo[i]->assoc, clo[i]->line_size);
    }

    Int min_line = I1->line_size;
    if (D1->line_size < min_line) min_line = D1->line_size;
    if (LL->line_size < min_line) min_line = LL->line_size;
    if (min_line < largest_reg) {
        CACHESIM_UMSG("tally: cannot simulate: the smallest cache line (%d B) is shorter than the\n"
                      "  widest register (%d B), so one access could touch three lines.\n",
                      min_line, largest_reg);
        return False;
    }
    return True;
}

#ifdef TALLY_SIM_TOOL
/* The host's caches as the core found them (CPUID), in cachesim_hw form.
 * Returns the number of caches, at most `max`. */
static UInt cachesim_host_caches(cachesim_hw *hw, UInt max, UInt *num_levels)
{
    VexArchInfo vai;
    VG_(machine_get_VexArchInfo)(NULL, &vai);
    const VexCacheInfo *ci = &vai.hwcache_info;
    UInt n = 0;
    for (UInt i = 0; i < ci->num_caches && n < max; i++) {
        const VexCache *v = &ci->caches[i];
        hw[n].kind = v->kind == DATA_CACHE   ? CACHESIM_HW_DATA
                     : v->kind == INSN_CACHE ? CACHESIM_HW_INSN
                                             : CACHESIM_HW_UNIFIED;
        hw[n].level = v->level;
        hw[n].size = v->sizeB;
        hw[n].line_size = v->line_sizeB;
        hw[n].assoc = v->assoc;
        hw[n].is_trace_cache = v->is_trace_cache;
        n++;
    }
    *num_levels = ci->num_levels;
    return n;
}

/* See the note at the top. */
static CACHESIM_UNUSED Bool cachesim_configure(cache_cfg *I1, cache_cfg *D1, cache_cfg *LL)
{
    cachesim_hw hw[16];
    UInt levels, n = cachesim_host_caches(hw, 16, &levels);
    return cachesim_configure_from(hw, n, levels, I1, D1, LL, VG_(clo_verbosity) >= 2,
                                   VG_(machine_get_size_of_largest_guest_register)());
}

/* Only the auto-detected and LL-adjusted caches (with their warnings). */
static CACHESIM_UNUSED void cachesim_default_config(cache_cfg *I1, cache_cfg *D1, cache_cfg *LL)
{
    cachesim_hw hw[16];
    UInt levels, n = cachesim_host_caches(hw, 16, &levels);
    cachesim_pick(hw, n, levels, False, I1, D1, LL);
    cachesim_tweak_LL(LL);
}
#endif

/* The text of a desc: line for a cache: "65536 B, 64 B, 2-way associative"
 * or "... direct-mapped".  `buf` needs 64 bytes. */
static CACHESIM_UNUSED void cachesim_desc(const cache_cfg *c, HChar *buf)
{
    SizeT n = 0;
    Long nums[3] = {c->size, c->line_size, c->assoc};
    for (Int k = 0; k < 3; k++) {
        if (k == 2 && c->assoc == 1) break;
        HChar tmp[24];
        Int t = 0;
        Long v = nums[k];
        if (v < 0) {
            buf[n++] = '-';
            v = -v;
        }
        do {
            tmp[t++] = (HChar)('0' + v % 10);
            v /= 10;
        } while (v);
        while (t)
            buf[n++] = tmp[--t];
        const HChar *sep = k < 2 ? " B, " : "-way associative";
        for (const HChar *p = sep; *p; p++)
            buf[n++] = *p;
    }
    if (c->assoc == 1)
        for (const HChar *p = "direct-mapped"; *p; p++)
            buf[n++] = *p;
    buf[n] = '\0';
}

/* ---- simulation --------------------------------------------------------- */

/* One cache.  tags[set * assoc + way] holds the block numbers (address >>
 * line_bits, the whole number, not just the bits above the set index) of
 * the set's lines, most recently used first.  All start at 0, so block 0
 * looks resident at the start, exactly as in Cachegrind. */
typedef struct cachesim_use cachesim_use;

typedef struct {
    UWord *tags;
    cachesim_use *use; /* --cacheuse: one record per line slot (see below) */
    cachesim_use *last; /* --cacheuse: the record of the line looked up last */
    UWord sets_mask;
    UWord tag_mask; /* --simulate-wb, --cacheuse: address bits 31 down to the set
                       index's top (a 32-bit mask, see cachesim_init_one) */
    Int line_bits;
    Int assoc;
    cache_cfg cfg;
} cachesim_cache;

static cachesim_cache cachesim_I1, cachesim_D1, cachesim_LL;
static Int cachesim_min_line_size CACHESIM_UNUSED;

/* Callgrind's models (cachesim_set_models): --simulate-wb, --simulate-hwpref,
 * and (cachesim_set_cacheuse) --cacheuse. */
static Bool cachesim_wb, cachesim_hwpref, cachesim_cu;

/* --cacheuse: what is known of the line in one slot of a cache.  A slot is
 * a place in a set (set * assoc + k) that keeps its record while the LRU
 * order of the set changes; a line that comes in takes the slot of the line
 * it evicts. */
struct cachesim_use {
    void *cc;   /* the cost centre of the instruction that brought the line in
                   (NULL: none; its use is never charged) */
    UInt count; /* accesses since then (a 32-bit count, wrapping as Callgrind's) */
    UInt mask;  /* which 32nds of the line were accessed (bit k: the k-th) */
    UInt dep;   /* L1 lines: the LL slot of the line when it came in */
    UInt who;   /* the caller's tag of that instruction (its thread) */
};

/* Where a --cacheuse charge goes: `charge(cc, who, level, accost, sploss)`
 * with level 0 for I1/D1 (AcCost1 SpLoss1) and 1 for LL (AcCost2 SpLoss2),
 * called only while *collect is True. */
typedef void (*cachesim_cu_charge_fn)(void *cc, UInt who, Int level, UInt accost, UInt sploss);
static cachesim_cu_charge_fn cachesim_cu_charge;
static const Bool *cachesim_cu_collect;
#define CACHESIM_CU_NONE 0xffffffffu

/* The prefetcher's streams: one per 4 KiB page, 8 of them (page number
 * modulo 8); the last LL block seen and the run of consecutive blocks
 * (positive going up, negative going down). */
#define CACHESIM_PF_STREAMS 8
#define CACHESIM_PF_PAGEBITS 12
static UInt cachesim_pf_last[CACHESIM_PF_STREAMS];
static Int cachesim_pf_seq[CACHESIM_PF_STREAMS];

static void cachesim_init_one(cachesim_cache *c, const cache_cfg *cfg, const HChar *name)
{
    tl_assert(cachesim_check(cfg, name) == NULL);
    UWord sets = (UWord)(cfg->size / cfg->line_size / cfg->assoc);
    UWord n = sets * (UWord)cfg->assoc;
    if (c->tags) sim_free(c->tags);
    c->tags = sim_malloc("tally.cachesim.tags", n * sizeof(UWord));
    sim_memset(c->tags, 0, n * sizeof(UWord));
    c->sets_mask = sets - 1;
    c->line_bits = cachesim_log2((ULong)cfg->line_size);
    /* Callgrind builds this mask in 32-bit arithmetic, so its write-back
     * and cache-use tags keep only address bits up to 31: two addresses
     * 4 GiB apart are the same line for it, and so for us. */
    Int tag_shift = c->line_bits + cachesim_log2((ULong)sets);
    c->tag_mask = (UWord)(UInt) ~(((UInt)1 << tag_shift) - 1);
    c->assoc = cfg->assoc;
    c->cfg = *cfg;
    if (c->use) sim_free(c->use);
    c->use = NULL;
    c->last = NULL;
    if (!cachesim_cu) return;
    /* each way holds its tag in bits 0..31 and its slot above them; way k
     * starts in slot k with tag 0 (so, as the write-back model's, the lines
     * whose tag bits are all 0 look resident at the start) */
    c->use = sim_malloc("tally.cachesim.use", n * sizeof(cachesim_use));
    for (UWord i = 0; i < n; i++) {
        c->tags[i] = (i % (UWord)cfg->assoc) << 32;
        c->use[i] = (cachesim_use){NULL, 0, 0, CACHESIM_CU_NONE, 0};
    }
}

/* Sets up (or resets) the three caches, all lines empty (tags 0).  The
 * configurations must pass cachesim_check. */
static CACHESIM_UNUSED void cachesim_init(const cache_cfg *I1, const cache_cfg *D1,
                                          const cache_cfg *LL)
{
    cachesim_init_one(&cachesim_I1, I1, "I1");
    cachesim_init_one(&cachesim_D1, D1, "D1");
    cachesim_init_one(&cachesim_LL, LL, "LL");
    Int m = I1->line_size;
    if (D1->line_size < m) m = D1->line_size;
    if (LL->line_size < m) m = LL->line_size;
    cachesim_min_line_size = m;
    for (Int i = 0; i < CACHESIM_PF_STREAMS; i++) {
        cachesim_pf_last[i] = 0;
        cachesim_pf_seq[i] = 0;
    }
}

/* Chooses the model: Callgrind's write-back LL (`wb`) and/or its LL
 * prefetcher (`hwpref`); both False is the plain model of Cachegrind.  Call
 * before simulating (cachesim_init keeps it). */
static CACHESIM_UNUSED void cachesim_set_models(Bool wb, Bool hwpref)
{
    cachesim_wb = wb;
    cachesim_hwpref = hwpref;
}

/* Turns Callgrind's cache-use model on or off (--cacheuse); `charge` and
 * `collect` say where its events go and when (see cachesim_cu_charge_fn).
 * Call before cachesim_init, which allocates the use records.  The model
 * has no write-back and no prefetcher (cachesim_set_models(False, False)). */
static CACHESIM_UNUSED void cachesim_set_cacheuse(Bool on, cachesim_cu_charge_fn charge,
                                                  const Bool *collect)
{
    cachesim_cu = on;
    cachesim_cu_charge = charge;
    cachesim_cu_collect = collect;
}

/* Frees the tag arrays (host tests; the tool never needs it). */
static CACHESIM_UNUSED void cachesim_done(void)
{
    cachesim_cache *all[3] = {&cachesim_I1, &cachesim_D1, &cachesim_LL};
    for (Int i = 0; i < 3; i++) {
        if (all[i]->tags) sim_free(all[i]->tags);
        if (all[i]->use) sim_free(all[i]->use);
        all[i]->tags = NULL;
        all[i]->use = NULL;
    }
}

/* Looks `block` up in its set and makes it the most recently used line:
 * on a hit at way i the ways before it move down one; on a miss every way
 * moves down one (the least recently used line leaves) and the block is
 * allocated at way 0, reads and writes alike.  Returns True on a miss.
 * Search and shift are one pass: each way is moved down as it is passed. */
static CACHESIM_ALWAYS_INLINE Bool cachesim_set_miss(cachesim_cache *c, UWord block)
{
    UWord *set = c->tags + (block & c->sets_mask) * (UWord)c->assoc;
    UWord prev = set[0];
    if (CACHESIM_LIKELY(prev == block)) return False;
    Int assoc = c->assoc;
    for (Int i = 1; i < assoc; i++) {
        UWord cur = set[i];
        set[i] = prev;
        if (cur == block) {
            set[0] = block;
            return False;
        }
        prev = cur;
    }
    set[0] = block;
    return True;
}

/* One access of `size` (>= 1) bytes at `a`.  An access that straddles two
 * lines looks both up (both update LRU, first line first) and is one access
 * with at most one miss.  size <= the line size, so no access spans three. */
static CACHESIM_ALWAYS_INLINE Bool cachesim_ref_miss(cachesim_cache *c, Addr a, UChar size)
{
    UWord b1 = a >> c->line_bits;
    UWord b2 = (a + size - 1) >> c->line_bits;
    if (CACHESIM_LIKELY(b1 == b2)) return cachesim_set_miss(c, b1);
    tl_assert(b2 == b1 + 1);
    Bool m1 = cachesim_set_miss(c, b1);
    Bool m2 = cachesim_set_miss(c, b2);
    return m1 | m2;
}

/* An instruction fetch: I1, and on an I1 miss LL with the same bytes. */
static CACHESIM_ALWAYS_INLINE void cachesim_I1_doref(Addr a, UChar size, ULong *m1, ULong *mL)
{
    if (cachesim_ref_miss(&cachesim_I1, a, size)) {
        (*m1)++;
        if (cachesim_ref_miss(&cachesim_LL, a, size)) (*mL)++;
    }
}

/* A data access (read or write: the caches do not tell them apart). */
static CACHESIM_ALWAYS_INLINE void cachesim_D1_doref(Addr a, UChar size, ULong *m1, ULong *mL)
{
    if (cachesim_ref_miss(&cachesim_D1, a, size)) {
        (*m1)++;
        if (cachesim_ref_miss(&cachesim_LL, a, size)) (*mL)++;
    }
}

/* At instrumentation time: may the instruction at [a, a+size) use
 * cachesim_I1_doref_NoX?  Yes when it lies in one I1 line and I1 and LL
 * lines have the same size (then it lies in one LL line too), and the model
 * is the plain one. */
static inline Bool cachesim_is_IrNoX(Addr a, UChar size)
{
    if (cachesim_wb || cachesim_hwpref || cachesim_cu) return False;
    if (cachesim_I1.line_bits != cachesim_LL.line_bits) return False;
    return (a >> cachesim_I1.line_bits) == ((a + size - 1) >> cachesim_I1.line_bits);
}

/* cachesim_I1_doref for an instruction that passed cachesim_is_IrNoX. */
static CACHESIM_ALWAYS_INLINE void cachesim_I1_doref_NoX(Addr a, UChar size, ULong *m1, ULong *mL)
{
    UWord block = a >> cachesim_I1.line_bits;
    (void)size;
    if (cachesim_set_miss(&cachesim_I1, block)) {
        (*m1)++;
        if (cachesim_set_miss(&cachesim_LL, block)) (*mL)++;
    }
}

/* ---- Callgrind's write-back and prefetch models ------------------------ */

/* The outcome of one reference in the hierarchy, as Callgrind counts it:
 * each level includes the ones before (an LL miss is an L1 miss too). */
enum { CACHESIM_L1_HIT, CACHESIM_LL_HIT, CACHESIM_LL_MISS, CACHESIM_LL_MISS_DIRTY };

/* Bit 0 of a write-back LL tag: the line was written since it came in. */
#define CACHESIM_DIRTY ((UWord)1)

/* One set of the write-back LL.  Tags are `addr & tag_mask` (the address
 * bits above the set index; 0 at the start, so in every set the lines of
 * the first sets * line bytes look resident and clean), bit 0 the dirty
 * flag.  LRU as cachesim_set_miss; a write makes the line dirty, hit or
 * miss.  Returns CACHESIM_LL_HIT for a hit, else LL_MISS or, when the line
 * that left was dirty, LL_MISS_DIRTY. */
static CACHESIM_ALWAYS_INLINE Int cachesim_wb_set(cachesim_cache *c, UWord set_no, UWord tag,
                                                  UWord dirty)
{
    UWord *set = c->tags + set_no * (UWord)c->assoc;
    if (tag == (set[0] & ~CACHESIM_DIRTY)) {
        set[0] |= dirty;
        return CACHESIM_LL_HIT;
    }
    Int assoc = c->assoc;
    for (Int i = 1; i < assoc; i++) {
        if (tag == (set[i] & ~CACHESIM_DIRTY)) {
            UWord t = set[i] | dirty;
            for (Int j = i; j > 0; j--)
                set[j] = set[j - 1];
            set[0] = t;
            return CACHESIM_LL_HIT;
        }
    }
    UWord out = set[assoc - 1];
    for (Int j = assoc - 1; j > 0; j--)
        set[j] = set[j - 1];
    set[0] = tag | dirty;
    return (out & CACHESIM_DIRTY) ? CACHESIM_LL_MISS_DIRTY : CACHESIM_LL_MISS;
}

/* One reference to the write-back LL.  As Callgrind, a straddle is told by
 * the set numbers: two sets, both looked up (a dirty eviction in either
 * wins, then a miss in either); the same set (only with one set) one
 * lookup, of the first line. */
static CACHESIM_ALWAYS_INLINE Int cachesim_wb_ref(cachesim_cache *c, Addr a, UChar size,
                                                  UWord dirty)
{
    UWord set1 = (a >> c->line_bits) & c->sets_mask;
    UWord set2 = ((a + size - 1) >> c->line_bits) & c->sets_mask;
    if (CACHESIM_LIKELY(set1 == set2)) return cachesim_wb_set(c, set1, a & c->tag_mask, dirty);
    tl_assert(((set1 + 1) & c->sets_mask) == set2);
    Int r1 = cachesim_wb_set(c, set1, a & c->tag_mask, dirty);
    Int r2 = cachesim_wb_set(c, set2, (a + size - 1) & c->tag_mask, dirty);
    if (r1 == CACHESIM_LL_MISS_DIRTY || r2 == CACHESIM_LL_MISS_DIRTY) return CACHESIM_LL_MISS_DIRTY;
    return (r1 == CACHESIM_LL_MISS || r2 == CACHESIM_LL_MISS) ? CACHESIM_LL_MISS
                                                              : CACHESIM_LL_HIT;
}

/* Callgrind's LL prefetcher, told of an access at `a`: a stream per 4 KiB
 * page (8 streams: page number modulo 8) remembers the last LL block (as a
 * 32-bit number) and a run count.  A block one above the last starts or
 * extends an upward run, one below a downward run; from the third block of
 * a run on, the line 5 lines ahead (+5 or -5 line sizes from `a`) is
 * looked up in LL as a plain one-byte reference (it comes in, clean, and
 * becomes the most recently used).  Any other block ends the run; the same
 * block changes nothing. */
static CACHESIM_ALWAYS_INLINE void cachesim_prefetch(Addr a)
{
    UInt stream = (UInt)((a >> CACHESIM_PF_PAGEBITS) % CACHESIM_PF_STREAMS);
    UInt block = (UInt)(a >> cachesim_LL.line_bits);
    UInt last = cachesim_pf_last[stream];
    Int *seq = &cachesim_pf_seq[stream];
    if (block == last) return;
    if (*seq == 0) {
        if (last + 1 == block)
            (*seq)++;
        else if (last - 1 == block)
            (*seq)--;
    } else if (*seq > 0) {
        if (last + 1 == block) {
            (*seq)++;
            if (*seq >= 2)
                (void)cachesim_ref_miss(&cachesim_LL, a + 5 * (Addr)cachesim_LL.cfg.line_size, 1);
        } else {
            *seq = 0;
        }
    } else {
        if (last - 1 == block) {
            (*seq)--;
            if (*seq <= -2)
                (void)cachesim_ref_miss(&cachesim_LL, a - 5 * (Addr)cachesim_LL.cfg.line_size, 1);
        } else {
            *seq = 0;
        }
    }
    cachesim_pf_last[stream] = block;
}

/* The LL part of a read after an L1 miss, in the chosen model. */
static CACHESIM_ALWAYS_INLINE Int cachesim_LL_after_miss(Addr a, UChar size, UWord dirty)
{
    if (cachesim_wb) return cachesim_wb_ref(&cachesim_LL, a, size, dirty);
    return cachesim_ref_miss(&cachesim_LL, a, size) ? CACHESIM_LL_MISS : CACHESIM_LL_HIT;
}

/* Callgrind's simulator calls, for every model: an instruction fetch, a
 * data read and a data write.  The plain model gives the counts of
 * cachesim_I1_doref / cachesim_D1_doref.  With write-back, LL is the only
 * cache with dirty lines (L1 is write-through): a write that hits in D1
 * still reaches LL to make its line dirty (the LRU order changes, the
 * result stays an L1 hit).  With the prefetcher, reads tell it of every L1
 * miss before LL is looked up; writes do the same without write-back, and
 * with write-back tell it of every write, before D1 is looked up. */
static CACHESIM_ALWAYS_INLINE Int cachesim_I1_read(Addr a, UChar size)
{
    if (!cachesim_ref_miss(&cachesim_I1, a, size)) return CACHESIM_L1_HIT;
    if (cachesim_hwpref) cachesim_prefetch(a);
    return cachesim_LL_after_miss(a, size, 0);
}

static CACHESIM_ALWAYS_INLINE Int cachesim_D1_read(Addr a, UChar size)
{
    if (!cachesim_ref_miss(&cachesim_D1, a, size)) return CACHESIM_L1_HIT;
    if (cachesim_hwpref) cachesim_prefetch(a);
    return cachesim_LL_after_miss(a, size, 0);
}

static CACHESIM_ALWAYS_INLINE Int cachesim_D1_write(Addr a, UChar size)
{
    if (cachesim_hwpref && cachesim_wb) cachesim_prefetch(a);
    if (!cachesim_ref_miss(&cachesim_D1, a, size)) {
        if (cachesim_wb) (void)cachesim_wb_ref(&cachesim_LL, a, size, CACHESIM_DIRTY);
        return CACHESIM_L1_HIT;
    }
    if (cachesim_hwpref && !cachesim_wb) cachesim_prefetch(a);
    return cachesim_LL_after_miss(a, size, CACHESIM_DIRTY);
}

/* ---- Callgrind's cache-use model (--cacheuse=yes) ---------------------- */

/*
 * The caches behave as in the write-back model without dirty lines: LRU,
 * allocation on every miss, tags of address bits 31 down to the set
 * index's top, a straddle told by the set numbers.  Besides, every line
 * slot has a use record (cachesim_use):
 *  - an L1 (I1 or D1) access that hits counts one use of the line and
 *    marks the 32nds of the line it touched; a straddle marks from its
 *    first byte to the end of the first line and from the start of the
 *    second line to its last byte;
 *  - an L1 miss charges the evicted line (below), then the slot belongs to
 *    the new line: 1 use, the marks of this access, the instruction that
 *    asked for it; LL is then looked up with the new line's address (not
 *    when that address is 0) and the L1 slot remembers the LL slot that
 *    holds it;
 *  - an LL lookup counts no use; a miss charges the evicted LL line and
 *    gives the slot to the new line with 0 uses and no marks.  An LL line
 *    gets its uses and marks from the L1 lines that leave L1 while it holds
 *    their LL slot;
 *  - charging a line that was used at least once, while collecting, and
 *    that has an instruction: AcCost += 1000 / uses (integer division),
 *    SpLoss += the bytes of the line not marked, ((32 - marks) * line) / 32;
 *    for an L1 line its uses and marks then go to its LL slot.  Nothing is
 *    charged or passed on otherwise;
 *  - at the end (cachesim_cu_finish, while collecting) every line that has
 *    an instruction is charged: I1's, then D1's (both passing their use on
 *    to LL), then LL's.
 */

/* The bits of a use mask from the 32nd holding byte `off` of a line to the
 * last (from) or from the first to it (upto). */
static inline UInt cachesim_cu_part(const cachesim_cache *c, UWord off, Bool last)
{
    if (c->line_bits >= 5) return (UInt)(off >> (c->line_bits - 5));
    UInt per = 1u << (5 - c->line_bits); /* 16-byte lines: two bits a byte */
    return (UInt)off * per + (last ? per - 1 : 0);
}

static inline UInt cachesim_cu_from(const cachesim_cache *c, UWord off)
{
    return ~0u << cachesim_cu_part(c, off, False);
}

static inline UInt cachesim_cu_upto(const cachesim_cache *c, UWord off)
{
    UInt k = cachesim_cu_part(c, off, True);
    return k >= 31 ? ~0u : (2u << k) - 1;
}

static inline UInt cachesim_cu_ones(UInt x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* Charges the line in slot `k` of cache c (level 0: L1, 1: LL) as it
 * leaves; an L1 line passes its use on to its LL slot. */
static void cachesim_cu_leave(cachesim_cache *c, UWord k, Int level)
{
    cachesim_use *u = &c->use[k];
    if (u->count == 0 || !u->cc || !*cachesim_cu_collect) return;
    UInt loss = (UInt)(((32 - cachesim_cu_ones(u->mask)) * (UInt)c->cfg.line_size) >> 5);
    cachesim_cu_charge(u->cc, u->who, level, 1000u / u->count, loss);
    if (level == 0 && u->dep != CACHESIM_CU_NONE) {
        cachesim_use *d = &cachesim_LL.use[u->dep];
        d->count += u->count;
        d->mask |= u->mask;
    }
}

/* Looks up the line of `a` in set `set_no` of c and makes it the most
 * recently used; returns its slot, and *miss whether it came in (into
 * the slot of the least recently used line, which left). */
static inline UWord cachesim_cu_find(cachesim_cache *c, UWord set_no, Addr a, Bool *miss)
{
    UWord *set = c->tags + set_no * (UWord)c->assoc;
    UInt tag = (UInt)(a & c->tag_mask);
    UWord prev = set[0];
    *miss = False;
    if ((UInt)prev == tag) return set_no * (UWord)c->assoc + (prev >> 32);
    Int assoc = c->assoc;
    for (Int i = 1; i < assoc; i++) {
        UWord cur = set[i];
        set[i] = prev;
        if ((UInt)cur == tag) {
            set[0] = cur;
            return set_no * (UWord)c->assoc + (cur >> 32);
        }
        prev = cur;
    }
    *miss = True;
    set[0] = (prev >> 32 << 32) | tag;
    return set_no * (UWord)c->assoc + (prev >> 32);
}

/* LL, asked by an L1 miss for the line at `line_addr`: the LL slot goes
 * into *dep. */
static Int cachesim_cu_LL(Addr line_addr, UInt *dep, void *cc, UInt who)
{
    cachesim_cache *c = &cachesim_LL;
    Bool miss;
    UWord k = cachesim_cu_find(c, (line_addr >> c->line_bits) & c->sets_mask, line_addr, &miss);
    *dep = (UInt)k;
    if (!miss) return CACHESIM_LL_HIT;
    cachesim_cu_leave(c, k, 1);
    c->use[k] = (cachesim_use){cc, 0, 0, CACHESIM_CU_NONE, who};
    return CACHESIM_LL_MISS;
}

/* One line of an L1 access at `a` touching the 32nds in `mask` (the
 * lookup past the most recently used way, and a miss). */
static __attribute__((noinline)) Int cachesim_cu_line_slow(cachesim_cache *c, UWord set_no, Addr a,
                                                           UInt mask, void *cc, UInt who)
{
    Bool miss;
    UWord k = cachesim_cu_find(c, set_no, a, &miss);
    cachesim_use *u = &c->use[k];
    c->last = u;
    if (!miss) {
        u->count++;
        u->mask |= mask;
        return CACHESIM_L1_HIT;
    }
    cachesim_cu_leave(c, k, 0);
    u->cc = cc;
    u->who = who;
    u->count = 1;
    u->mask = mask;
    Addr line_addr = a & ~(Addr)(c->cfg.line_size - 1);
    /* (the LL slot stays as it was: Callgrind skips LL for line 0) */
    if (line_addr == 0) return CACHESIM_LL_HIT;
    return cachesim_cu_LL(line_addr, &u->dep, cc, who);
}

/* The same, first trying the most recently used way (a hit there moves
 * nothing). */
static CACHESIM_ALWAYS_INLINE Int cachesim_cu_line(cachesim_cache *c, UWord set_no, Addr a,
                                                   UInt mask, void *cc, UInt who)
{
    UWord first = c->tags[set_no * (UWord)c->assoc];
    if (CACHESIM_LIKELY((UInt)first == (UInt)(a & c->tag_mask))) {
        cachesim_use *u = &c->use[set_no * (UWord)c->assoc + (first >> 32)];
        c->last = u;
        u->count++;
        u->mask |= mask;
        return CACHESIM_L1_HIT;
    }
    return cachesim_cu_line_slow(c, set_no, a, mask, cc, who);
}

/* An access of `size` bytes at `a` to I1 or D1 by the instruction `cc`
 * (who: its thread): CACHESIM_L1_HIT, LL_HIT or LL_MISS. */
static CACHESIM_ALWAYS_INLINE Int cachesim_cu_ref(cachesim_cache *c, Addr a, UChar size, void *cc,
                                                  UInt who)
{
    Addr end = a + size - 1;
    UWord set1 = (a >> c->line_bits) & c->sets_mask, set2 = (end >> c->line_bits) & c->sets_mask;
    UWord lmask = (UWord)c->cfg.line_size - 1;
    if (CACHESIM_LIKELY(set1 == set2))
        return cachesim_cu_line(
            c, set1, a, cachesim_cu_from(c, a & lmask) & cachesim_cu_upto(c, end & lmask), cc, who);
    tl_assert(((set1 + 1) & c->sets_mask) == set2);
    Int r1 = cachesim_cu_line(c, set1, a, cachesim_cu_from(c, a & lmask), cc, who);
    Int r2 = cachesim_cu_line(c, set2, end, cachesim_cu_upto(c, end & lmask), cc, who);
    return r1 > r2 ? r1 : r2;
}

static CACHESIM_ALWAYS_INLINE Int cachesim_cu_I1(Addr a, UChar size, void *cc, UInt who)
{
    return cachesim_cu_ref(&cachesim_I1, a, size, cc, who);
}

/* The use bits of an access of `size` bytes at `a` that lies in one line
 * of c. */
static CACHESIM_UNUSED UInt cachesim_cu_mask(const cachesim_cache *c, Addr a, UInt size)
{
    UWord lmask = (UWord)c->cfg.line_size - 1;
    return cachesim_cu_from(c, a & lmask) & cachesim_cu_upto(c, (a + size - 1) & lmask);
}

/* Reads and writes alike. */
static CACHESIM_ALWAYS_INLINE Int cachesim_cu_D1(Addr a, UChar size, void *cc, UInt who)
{
    return cachesim_cu_ref(&cachesim_D1, a, size, cc, who);
}

/* The end of the run: the lines still cached are charged (only while
 * collecting), I1's and D1's first, then LL's with what they passed on. */
static CACHESIM_UNUSED void cachesim_cu_finish(void)
{
    if (!cachesim_cu || !*cachesim_cu_collect) return;
    cachesim_cache *all[3] = {&cachesim_I1, &cachesim_D1, &cachesim_LL};
    for (Int i = 0; i < 3; i++) {
        cachesim_cache *c = all[i];
        UWord n = (c->sets_mask + 1) * (UWord)c->assoc;
        for (UWord k = 0; k < n; k++) {
            if (!c->use[k].cc) continue;
            cachesim_cu_leave(c, k, i == 2);
            c->use[k].cc = NULL;
            c->use[k].count = 0;
            c->use[k].mask = 0;
        }
    }
}

#endif /* TALLY_SIM_CACHE_H */
