/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_global.h - the state that the files of tally's Valgrind tool share:
 * the options, the cost centres (lines, instrs, segs, arcs, jumps), the
 * threads and their call stacks, and the functions each file offers the
 * others. The split follows Callgrind's: tl_main.c holds the options, the
 * run-time call tracking and the instrumentation (the hot path, in one
 * file); tl_cc.c finds cost centres at translation time; tl_sim.c queues
 * the events of a block and holds the simulators' run-time helpers;
 * tl_parts.c turns collection on and off, zeroes and keeps per-thread
 * counts; tl_dump.c writes the files and the summary.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_GLOBAL_H
#define TALLY_TL_GLOBAL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "sim_types.h"
#include "tl_cct.h"
#include "tl_util.h"

/*------------------------------------------------------------*/
/*--- Options (tl_setup.c)                                 ---*/
/*------------------------------------------------------------*/

extern Bool clo_cache_sim;
extern Bool clo_branch_sim;
extern Bool clo_simulate_wb, clo_simulate_hwpref; /* Callgrind's cache models */
extern Bool clo_cacheuse;                         /* Callgrind's cache-use model */
extern Bool clo_dump_instr;
extern Bool clo_calls;
extern const HChar *clo_out_file;
extern const HChar *clo_cachegrind_out_file;
extern Bool clo_separate;
extern Bool clo_jumps;
extern Bool clo_contexts;
extern const HChar *clo_ctx_out_file;
extern Bool clo_collect_atstart;  /* each new thread's collection state */
extern const HChar *clo_toggle;   /* --toggle-collect (the last one given) */
extern cache_cfg clo_I1, clo_D1, clo_LL;
/* The caches really simulated (after defaults and checks). */
extern cache_cfg sim_I1, sim_D1, sim_LL;

/*------------------------------------------------------------*/
/*--- Events and cost centres                              ---*/
/*------------------------------------------------------------*/

/* Callgrind's event order; the cachegrind writer reorders. */
enum {
    EV_Ir,
    EV_Dr,
    EV_Dw,
    EV_I1mr,
    EV_D1mr,
    EV_D1mw,
    EV_ILmr,
    EV_DLmr,
    EV_DLmw,
    EV_Bc,
    EV_Bcm,
    EV_Bi,
    EV_Bim,
    /* --simulate-wb=yes (written after DLmw, as Callgrind orders them) */
    EV_ILdmr,
    EV_DLdmr,
    EV_DLdmw,
    /* --cacheuse=yes (written after DLmw and the branch events, before Ge,
     * as Callgrind orders them); never in the running cost */
    EV_AcCost1,
    EV_SpLoss1,
    EV_AcCost2,
    EV_SpLoss2,
    /* --collect-bus=yes (written last, as Callgrind orders them) */
    EV_Ge,
    /* --collect-systime (after Ge, as Callgrind orders them) */
    EV_sysCount,
    EV_sysTime,
    EV_sysCpuTime,
    N_EV
};
extern const HChar *const ev_name[N_EV]; /* (tl_dump.c) */

/*
 * The events of this run. Every cost vector (of an instr, a line, an arc,
 * a thread's running cost, a frame's entry) holds only the events that the
 * options collect, n_out_ev of them, in the order of the file's `events:`
 * line: slot k holds event out_ev[k], and event e is in slot EVS(e) (-1:
 * not collected, never counted). choose_events() (tl_dump.c) decides them
 * once, after the options, before anything is counted: a new event is an
 * EV_ entry, its name, and its rule there. Ir Dr Dw are always collected,
 * in slots 0 to 2.
 */
extern Int out_ev[N_EV], n_out_ev;
extern Int ev_slot[N_EV];
#define EVS(e) (ev_slot[e])
/* The slot of an event that is collected, for the code that counts it:
 * Ir..DLmw, when collected, are the first slots in the enum's order
 * (choose_events checks it), so the simulators' helpers index them by a
 * constant. */
#define EVSC(e) ((e) <= EV_DLmw ? (Int)(e) : ev_slot[e])
#define EV_BYTES ((SizeT)n_out_ev * sizeof(ULong)) /* of one cost vector */

/* An interned string. Equal strings share one pointer, so keys compare by
 * pointer; the ids are the callgrind-format compression numbers (0 = not
 * written yet), one namespace for files and one for functions. */
typedef struct istr {
    struct istr *next;
    UInt hash;
    UInt fl_id, fn_id, ob_id;
    UChar fnf; /* a function's name: the patterns' verdicts (FNF_..., tl_fnpat.c) */
    struct istr *dem; /* a symbol's raw name: its demangled name (see fn_at) */
    HChar s[];
} istr;

/* One (file, function, line). */
typedef struct linecc {
    struct linecc *next;
    istr *file, *fn;
    istr *obj;  /* the object file ("???" when unknown) */
    istr *cgfn; /* Cachegrind's name: "???" without a symbol */
    UInt line;
    Bool pseudo;        /* not code: a signal's caller (`<signal N>`) */
    struct arc *arcs;   /* the calls its instrs make (by snext; each has its site) */
    struct jrec *jumps; /* the jumps of its instrs (by snext; each has its site) */
    struct fnrec *frec; /* its function in the callgrind file, while writing */
    void *cfn;          /* its function in the context tree (--contexts=yes) */
    struct fnact *act;  /* its function's depth on the stacks (--calls=yes) */
    ULong *cgkept;      /* costs of the parts already dumped, for the
                           cachegrind file (NULL until a dump has some) */
    ULong ev[];         /* [n_out_ev]: by slot (EVS) */
} linecc;

/* One guest instruction. Several can share an address when the code at
 * that address changed its debug info (unmapped and mapped again). There is
 * one per instruction translated, so it is kept small: 32 bytes, and its
 * costs only when they are written per instruction (its calls and jumps
 * are in its line's lists; see docs/internals/tool.md, "Memory"). */
typedef struct instrcc {
    struct instrcc *next;
    Addr addr;
    /* (the simulators read addr and len for every fetch: next to each
     * other, they share a cache line) */
    UInt len : 8;     /* bytes, 1 to 15 */
    UInt bias : 24;   /* its object's load bias: cc_obj_bias[bias] (see file_addr) */
    UInt id : 29;     /* index into the threads' stores (--separate-threads) */
    UInt nox : 1;     /* in one I1 line, and I1 and LL lines are equal */
    UInt touched : 1; /* in `parts_touched_instrs` (--separate-threads) */
    UInt has_own : 1; /* it has counters of its own (see icost) */
    linecc *line;
    ULong own[];      /* [n_out_ev] its counters, when it has its own */
} instrcc;

/* The counters instr i counts into (its runs, misses...; [n_out_ev], by
 * slot, EVS): its line's, which the line's instrs share (a line's cost is
 * the sum of theirs), or its own with --dump-instr=yes, with a simulator
 * (whose helpers count at every miss) and in PLT code, whose counts move
 * between clones by snapshots (plt_name). */
static inline ULong *icost(instrcc *i)
{
    return i->has_own ? i->own : i->line->ev;
}

/* --separate-threads: the instrs (and arcs, jumps) counted into since the
 * counters last went into a thread's store, so that a thread switch moves
 * only those; the instrs in a vector (parts_n_touched of them), the others in
 * lists. */
extern instrcc **parts_touched_instrs;
extern UInt parts_n_touched;
void touch_add(instrcc *n); /* (tl_parts.c; out of line: the simulators' helpers inline the test) */

/* Put record r (a jrec or an arc) on its touched list, once. */
#define TL_TOUCH(r, list)                                                                          \
    do {                                                                                           \
        if (clo_separate && !(r)->touched) {                                                       \
            (r)->touched = True;                                                                   \
            (r)->tnext = (list);                                                                   \
            (list) = (r);                                                                          \
        }                                                                                          \
    } while (0)

static inline void touch_instr(instrcc *n)
{
    if (UNLIKELY(clo_separate) && !n->touched) touch_add(n);
}

/* One flushed stretch of events: `count` runs; for each k it adds to slot
 * e[k].which of the costs of instruction e[k].idx of the block, ins[idx]
 * (for a dynblock its `cur`, so the counts go to the clone it runs for).
 * The segs of a block lie one after the other in one record, made at the
 * end of its translation, when the addresses of the counts in its IR are
 * filled in (segs_finish). */
typedef struct seg {
    ULong count; /* (first: the code's offsets are the segs') */
    struct instrcc **ins;
    UInt n;
    struct {
        UShort idx;   /* the instruction's index in its block */
        UShort which; /* the slot of the event counted (EVS) */
    } e[];
} seg;

static inline SizeT seg_size(UInt n)
{
    return (offsetof(seg, e) + n * sizeof(((seg *)0)->e[0]) + 7) & ~(SizeT)7;
}

/* Add what the n segs from sg counted into their instrs' costs and zero
 * their counts. */
static inline void segs_fold(seg *sg, UInt n)
{
    for (; n > 0; n--, sg = (seg *)((UChar *)sg + seg_size(sg->n))) {
        ULong c = sg->count;
        if (!c) continue;
        for (UInt k = 0; k < sg->n; k++) {
            instrcc *i = sg->ins[sg->e[k].idx];
            icost(i)[sg->e[k].which] += c;
            touch_instr(i);
        }
        sg->count = 0;
    }
}

/* The segs of a block, in the same record: n of them from `first`; all
 * blocks' in a list (cc_seg_blocks), for fold_segs. */
typedef struct segblock {
    struct segblock *next;
    UInt n;
    seg first[];
} segblock;

/* The running cost of the current thread (for inclusive costs); a dummy
 * when calls are not collected. Helpers add dynamic events (misses,
 * mispredicts, guarded accesses) here as well as into the instr. */
extern ULong *calls_run;

/* A jump from an instruction to an address: a conditional one (jcnd:
 * executed, taken) or an unconditional one (jump: taken). */
typedef struct jrec {
    struct jrec *next;  /* the dynamic-target hash chain */
    struct jrec *snext; /* its site's line's list */
    instrcc *site;
    Addr to;
    Addr to_file; /* `to` as the file has it (see file_addr) */
    linecc *target;
    Bool cond;
    Bool inverted; /* the Exit goes to the next instruction: taken = !guard */
    Bool skip;     /* a jump into a function entry: a call, not a jump */
    Bool touched;  /* on `parts_touched_jrecs` (--separate-threads) */
    UInt id;       /* its place in a thread's store (--separate-threads) */
    struct jrec *tnext;
    ULong exe, taken;
} jrec;

extern jrec *parts_touched_jrecs;

static inline void touch_jrec(jrec *j)
{
    TL_TOUCH(j, parts_touched_jrecs);
}

/* Collection on or off (--toggle-collect, --collect-atstart, client
 * requests). Once `parts_gated`, each run of a block adds this flag (0 or 1) to
 * its counters in the instrumented code; until collection first stops,
 * blocks add the constant 1, which saves a load per block. */
extern Bool parts_collecting;
extern Bool parts_gated;
extern htab calls_djumps; /* jumps with a computed target, by (site, target) */

/* Static events of a block up to one of its exits: what runs when the
 * block is left through that exit (all queued events are flushed before
 * each Exit, so this is exact). */
enum { SX_Ir, SX_Dr, SX_Dw, SX_Bc, SX_Bi, SX_Ge, N_SX };

/* K_SIG: a signal handler is entered (set by the delivery, not by code);
 * K_START: a thread's first block (--contexts=yes). */
typedef enum { K_JUMP, K_CALL, K_RET, K_SIG, K_START } exitkind;

typedef struct {
    UChar kind;         /* exitkind */
    Bool from_resolver; /* the block is in _dl_runtime_resolve* */
    Bool from_plt;      /* the block is PLT code */
    UInt idx;
    instrcc *site;      /* the instruction holding the exit */
    struct sbinfo *dyn; /* code without a symbol: the site is dyn->cur[idx] */
    istr *obj;          /* the object file of the block */
} exitinfo;

/* Instructions of a PLT block whose counts move to the function the stub
 * leads to (see plt_name). */
#define PLT_MAX_INSTRS 4

/* A block of code without a symbol: it belongs to the function whose frame
 * runs it, decided each time it runs (as Callgrind does), so its
 * instructions have one instr per function they ran for (a clone), and
 * its segs, helpers and exits use the current one. */
typedef struct dynclone {
    struct dynclone *next;
    const struct linecc *owner;
    struct instrcc *ins[];
} dynclone;

/* Instructions of a block that can have clones; longer blocks keep the
 * function they were first run for. */
#define DYN_MAX_INSTRS 128

/* --contexts=yes: the block's function in the context tree, the last frame
 * context it ran under, and its own */
typedef struct sbctx {
    cct_fn *cfn;
    cct_node *cbase, *cnode;
} sbctx;

/* A translated block, with --calls=yes: how it is entered, and, when it is
 * a dynblock (at most DYN_MAX_INSTRS instructions, so every block: a
 * superblock has at most 100), the function it runs for. One record per
 * block: 56 bytes and a pointer per instruction. */
typedef struct sbinfo {
    instrcc *first; /* the block's first instruction: the callee position */
    istr *obj;      /* its object file */
    Bool is_entry;  /* starts at a function symbol */
    Bool in_plt;
    Bool is_resolver;
    Bool is_dyn; /* a dynblock: the members below count (see sb_dyn) */
    UShort n;     /* instructions */
    UShort nsegs; /* segs, from `segs` */
    sbctx *cx;    /* --contexts=yes */
    struct seg *segs;
    /* dynblock: */
    const struct linecc *owner; /* the function it runs for now (read by the IR) */
    dynclone *clones;
    struct instrcc *cur[]; /* the current clone's instrs (read by the IR) */
} sbinfo;
typedef sbinfo dynblock;

static inline dynblock *sb_dyn(sbinfo *sb)
{
    return sb->is_dyn ? sb : NULL;
}

/* One call site -> callee entry: count and inclusive cost. */
typedef struct arc {
    struct arc *next;  /* hash chain */
    struct arc *snext; /* its site's line's list */
    instrcc *site, *callee;
    ULong calls;
    struct cct_node *cparent, *cchild; /* --contexts: the last call's contexts */
    UInt id;                           /* index into the threads' stores (--separate-threads) */
    Bool touched;                      /* on `parts_touched_arcs` (--separate-threads) */
    struct arc *tnext;
    ULong cost[]; /* [n_out_ev]: by slot (EVS) */
} arc;

extern arc *parts_touched_arcs;

static inline void touch_arc(arc *a)
{
    TL_TOUCH(a, parts_touched_arcs);
}

/* A call, or (sig) the mark of a signal delivery: the handler's frames are
 * above it; its sp is the interrupted stack pointer, its `enter` the
 * running cost at delivery, and it keeps the interrupted thread's state. */
/* A function (object, name: the callgrind file's function) and how many
 * times it is on each thread's stack, so that only the outermost call of
 * a recursion charges its arc (see push_call). `depth` is the depth on
 * thread `tid`'s stack; `more`, once a second thread has it on its stack
 * while `tid` does, the depths on every other thread's, by thread id. */
typedef struct fnact {
    struct fnact *next;
    istr *obj, *fn;
    UWord hash;
    UInt tid, depth;
    UInt *more;
    UChar hooks; /* HOOK_*: --dump-before, --zero-before, --dump-after */
    Bool sep_decided; /* recs and callers are set (tl_sep.c) */
    UShort recs, callers; /* --separate-recs and --separate-callers for it */
} fnact;

enum { HOOK_DUMP_BEFORE = 1, HOOK_ZERO_BEFORE = 2, HOOK_DUMP_AFTER = 4 };

typedef struct {
    arc *a;          /* NULL for a signal mark or a skipped call */
    fnact *act;      /* the callee's function as named in the file (fib'2) */
    fnact *base;     /* the callee's own function (fib; a skipped one's too) */
    linecc *owner;   /* the function its code runs for: the callee's named
                        line, or for a skipped call the caller's */
    instrcc *site;   /* the call site */
    UInt level;      /* the callee's recursion level (--separate-recs) */
    Bool skip;       /* a call into a --fn-skip function: not recorded */
    linecc *sigline; /* mark: `<signal N>` */
    Addr sp;
    Bool resolver;
    Bool toggle; /* the call flipped its thread's --toggle-collect state */
    Bool sig;
    Bool outer; /* the callee was not on the stack: the call charges its arc */
    /* mark of a handler on an alternate stack above the interrupted one:
     * the stack pointers the handler's code was seen at */
    Bool alt;
    /* (sw) the mark of a switch to another stack (tl_switch.c): a skipped
     * frame that keeps the frames below it; alt_lo and alt_hi are then the
     * stack pointers of the stack it left, sw_prev the index above the
     * mark before it (thread.sw_base) and sw_seg that stack's base;
     * sw_visit: a visit to the system stack that comes back (Go's
     * systemstack), which only a return to the stack it left ends */
    Bool sw, sw_visit;
    Addr alt_lo, alt_hi;
    Addr sw_seg;
    UInt sw_prev;
    exitinfo *saved;      /* mark: the transition the delivery interrupted */
    instrcc *saved_plt;   /* mark: an unresolved call into a PLT stub */
    Bool saved_collect;   /* mark: the thread's collection state (thread.collect) */
    cct_node *node;       /* --contexts: the callee's context (mark: the root) */
    cct_node *saved_node; /* mark: the interrupted context */
    ULong enter[N_EV];    /* the first n_out_ev slots (EVS) */
} frame;

/* PLT blocks run since the call into a stub; their costs are split among
 * them for the context tree (--contexts=yes) */
#define PLT_CHAIN 6

typedef struct {
    frame *stack;
    UInt depth, cap;
    exitinfo *pending; /* last exit before the thread was switched away */
    linecc *base;      /* the function of code without a symbol run at depth 0 */
    instrcc *plt_site; /* a call into a PLT stub, not yet resolved */
    Addr plt_sp;
    ULong plt_enter[N_EV]; /* running cost at that call (the stub is the callee's) */
    UInt n_plt;            /* PLT blocks run since then, and when each began */
    sbinfo *plt_sb[PLT_CHAIN];
    ULong plt_at[PLT_CHAIN][N_EV];
    ULong plt_snap[PLT_CHAIN][PLT_MAX_INSTRS][N_EV]; /* their instrs' counts then */
    Bool plt_wait;       /* they wait for the lazy-binding resolver's target */
    ULong plt_end[N_EV]; /* where the last of them ended (the resolver began) */
    UInt n_alt;          /* marks of handlers on an alternate stack above */
    UInt n_sig;          /* signal marks on the stack */
    UInt n_sw;           /* switch marks (tl_switch.c) */
    UInt sw_base;        /* the index above the topmost one (0: none) */
    Addr seg_sp;         /* with one, the stack pointer the switch landed on */
    cct_node *plt_node;  /* --contexts: the caller's node */
    ULong run[N_EV + 3]; /* by slot (EVS), RUN_IDD, RUN_PK (see run_sync), RUN_GATE */
    UInt tid;
    /* its own collection state (Callgrind's): from --collect-atstart,
     * flipped by --toggle-collect functions and CALLGRIND_TOGGLE_COLLECT;
     * collection is on while it runs if this and the instrumentation are
     * (tl_parts.c) */
    Bool collect;
    /* --separate-threads: this thread's counts, by instr id (n_out_ev
     * each), by arc id (calls, then n_out_ev costs) and by jump id
     * (executed, taken) */
    ULong *istore, *astore, *jstore;
    UInt n_istore, n_astore, n_jstore;
    cct_thread cct; /* --contexts=yes: where in the tree this thread runs */
    /* --collect-systime: the system call this thread is in (its
     * instruction) and the clocks when it began (tl_events.c) */
    instrcc *sys_site;
    ULong sys_wall, sys_cpu;
} thread;

/* The instrumented code adds a block's Ir, Dr and Dw to the running cost
 * as one word, run[RUN_IDD]: Ir in its low 24 bits, Dr in the next 20, Dw
 * in the top 20, one load, add and store per exit. run_sync() moves them
 * into their slots; every C entry point that reads a running cost calls it
 * first (h_enter, the thread and signal hooks, client requests, monitor
 * commands and the end). A thread runs at most 100,000 blocks between two
 * (Valgrind's scheduling quantum: each time slice starts with
 * tl_start_client_code), each of at most 100 instructions: at most 10^7 Ir
 * (< 2^24). A block adds its Dr and Dw there only while it has counted at
 * most IDD_MAX_D of each since its start (at most 10^6 in a quantum, <
 * 2^20); past that, into run[RUN_PK], Dr in the low 32 bits and Dw in the
 * high 32 (at most 100 instructions of at most 16 accesses each: far below
 * 2^32 in a quantum). */
#define RUN_IDD N_EV
#define RUN_PK (N_EV + 1)
#define RUN_GATE (N_EV + 2)
#define IDD_MAX_D 10

static inline void run_sync(thread *t)
{
    ULong w = t->run[RUN_IDD], pk = t->run[RUN_PK];
    if (w) {
        t->run[EVS(EV_Ir)] += w & 0xffffff;
        t->run[EVS(EV_Dr)] += (w >> 24) & 0xfffff;
        t->run[EVS(EV_Dw)] += w >> 44;
        t->run[RUN_IDD] = 0;
    }
    if (pk) {
        t->run[EVS(EV_Dr)] += (UInt)pk;
        t->run[EVS(EV_Dw)] += pk >> 32;
        t->run[RUN_PK] = 0;
    }
}

extern exitinfo *calls_last_exit; /* valid after exit_sync() (tl_main.c) */
void exit_sync(void);
extern thread **calls_threads;
extern UInt calls_n_threads;
extern thread *calls_cur_thread;
extern htab calls_arcs;

/*--- Records never freed (lines, instrs, segs, arcs, ...) ---*/

extern tl_arena cc_arena;

static inline void *arena_alloc(SizeT n)
{
    return tl_arena_alloc(&cc_arena, n);
}

static inline UWord addr_hash(Addr a)
{
    return (a ^ (a >> 13)) * 0x9E3779B97F4A7C15ull >> 20;
}

/*------------------------------------------------------------*/
/*--- What the files offer each other                      ---*/
/*------------------------------------------------------------*/

/*--- tl_cc.c: cost centres, found at translation time ---*/

extern htab cc_strs, cc_lines, cc_instrs;
extern segblock *cc_seg_blocks; /* dropped at the first collect_stop */

istr *intern(const HChar *s);
linecc *get_linecc(istr *file, istr *fn, istr *obj, istr *cgfn, UInt line);
istr *object_of(Addr a, Addr *bias);
istr *fn_at(Addr a); /* the function of code at a (demangled), NULL: no symbol */
/* Addresses in the files are Callgrind's: within the object (the run-time
 * address less the load bias of the debug info holding it, unchanged
 * without one), so that objdump on the object finds them. */
extern Addr *cc_obj_bias;
Addr file_addr(Addr a);
static inline Addr instr_file_addr(const instrcc *i)
{
    return i->addr - cc_obj_bias[i->bias];
}
linecc *lookup_position(Addr a, Addr entry, const linecc *owner, Bool follow);
instrcc *new_instrcc(Addr a, UInt len, linecc *l);
instrcc *get_instrcc(Addr a, UInt len, Addr entry, const linecc *owner, Bool follow);
Bool is_plt(Addr a);
void fold_segs(void);
jrec *get_jrec(instrcc *site, Addr to, Bool cond, Bool inverted);
UWord jrec_rehash(const void *p);

/*--- tl_fnpat.c: the function patterns of the options ---*/

/* The options that name functions; a function's verdicts are FNF(kind)
 * bits in its name's `fnf`, set once by fnpat_decide (FNF_DECIDED). */
enum { FNP_TOGGLE, FNP_SKIP, FNP_DUMP_BEFORE, FNP_DUMP_AFTER, FNP_ZERO_BEFORE, N_FNP };
#define FNF(kind) (1u << (kind))
#define FNF_DECIDED 0x80u
/* not a pattern's: the function calls its argument on the thread's system
 * stack and comes back (Go's runtime.systemstack; sw_name_flags) */
#define FNF_SWCALL 0x40u
/* not a pattern's: the function leaves its goroutine's stack for the
 * system stack (Go's runtime.mcall, runtime.morestack*; tl_switch.c) */
#define FNF_SWLEAVE 0x20u

Bool fnpat_match(const HChar *pattern, const HChar *s);
void fnpat_add(UInt kind, const HChar *opt, const HChar *pattern); /* the pattern is copied */
Bool fnpat_given(UInt kind);
void fnpat_decide(istr *fn);
void fnpat_report(void); /* at exit: the patterns that matched nothing (not with -q) */

/*--- tl_sep.c: --fn-skip, --skip-direct-rec, --separate-recs, --separate-callers ---*/

extern Bool sep_on, sep_skip_given;
Bool dump_process_option(const HChar *arg); /* tl_dump.c: the file's form */
void dump_print_usage(void);
void dump_post_clo_init(void);
Bool sep_process_option(const HChar *arg);
extern Bool clo_skip_plt; /* tl_sep.c */
void sep_print_usage(void);
Bool sep_post_clo_init(void); /* True: one of these options is given */
instrcc *sep_callee(thread *t, instrcc *callee, fnact *base, UInt bdepth, UInt *level);
void sep_report(void);

/*--- tl_sim.c: the event queue of a block and the run-time helpers ---*/

typedef enum { Ev_Ir, Ev_Dr, Ev_Dw, Ev_Bc, Ev_Bi, Ev_Ge } evkind;

typedef struct {
    evkind kind;
    instrcc *ins;
    IRExpr *addr;  /* Dr, Dw: the address */
    Int size;      /* Dr, Dw: bytes */
    IRExpr *extra; /* Bc: taken (word); Bi: the target */
    Bool i1hit;    /* Ir: a sure I1 hit on the most recently used line */
    Bool modify;   /* Dr: a write of the same bytes followed (a modify) */
    UShort idx;    /* the instruction's index in the block */
} event;

#define N_EVENTS 16

typedef struct {
    IRSB *sbOut;
    event ev[N_EVENTS];
    Int nev;
    UInt cnt[N_SX];       /* events of the block so far, by evkind (= SX_ order) */
    UInt charged[N_SX];   /* of which already added to the running cost */
    UInt idx;             /* the current instruction's index in the block */
    struct sbinfo *dyn;   /* a block of code without a symbol, or NULL */
    instrcc **ins;        /* the block's instrs by index (the segs' `ins`) */
    IRTemp runp;          /* calls_run, loaded at the block's start (--calls=yes) */
    /* the block's segs so far, in a scratch buffer, and the constants of
     * the IR that are their counts' addresses, with each one's offset from
     * the first seg (see seg) */
    UChar *segbuf;
    UInt seg_bytes, nsegs;
    struct segref *refs;
    UInt n_refs;
} tlstate;

void emit_call(IRSB *sb, Int regparms, const HChar *name, void *fn, IRExpr **args, IRExpr *guard);
IRExpr *ins_atom(tlstate *st, instrcc *ins, UInt idx);
void flush_events(tlstate *st);
seg *seg_new(tlstate *st, UInt n); /* tl_cc.c: a seg of n entries in st's scratch */
/* tl_cc.c: an IR constant of the address of the count of the seg `off`
 * bytes from the block's first, filled in by segs_finish */
IRConst *seg_count_addr(tlstate *st, UInt off);
void segs_finish(tlstate *st, sbinfo *sb); /* tl_cc.c: the block's segs into their record */
void add_event(tlstate *st, evkind kind, instrcc *ins, IRExpr *addr, Int size, IRExpr *extra);
UWord note_i1hit(tlstate *st, Addr a, UInt len, UWord prev_line);
void add_guarded(tlstate *st, Bool write, instrcc *ins, IRExpr *addr, Int size, IRExpr *guard);
VG_REGPARM(2) void h_jcnd(jrec *j, UWord guard);
VG_REGPARM(1) void h_jump(jrec *j);
VG_REGPARM(2) void h_jump_dyn(instrcc *site, Addr to);
/* The simulators' state lives in tl_sim.c: their option, their set-up
 * after the options (sets sim_min_line_size) and the one question translation
 * asks them. */
extern Int sim_min_line_size;
Bool sim_parse_opt(const HChar *arg);
void sim_init(void);
Bool sim_ir_nox(Addr a, UInt len);
void sim_reset_caches(void);
void sim_finish(void); /* --cacheuse: the lines still cached are charged */
/* --cacheuse: the use of instructions that did not run in a part (tid's,
 * 0: all threads) waits for a later one (see tl_sim.c) */
void sim_hold_unrun(UInt tid);
void sim_give_back(void);
/* A block was translated (with its dynblock: --calls=yes). */
void sim_note_block(dynblock *d);
/* The block whose n instrs are ins[] (a dynblock's cur[]) ends with a
 * client request: its IR, made here, notes it as it leaves; once the
 * request is handled (sim_request_done) its run counts in the part then
 * open, if its thread collects. A dump or a zeroing starts a part's list
 * of such runs anew (sim_requests_restart). */
void sim_request_exit(IRSB *sb, instrcc **ins, UInt n);
void sim_request_done(void);
void sim_requests_restart(void);
/* A run of a PLT block moved its counts from instr `from` to `to` (tl_main.c,
 * plt_name): the use of the lines `from` brought in then goes to `to`. */
void sim_moved(instrcc *from, instrcc *to);

/*--- tl_events.c: Callgrind's extra events (--collect-bus, --collect-systime) ---*/

enum { SYSTIME_NO, SYSTIME_MSEC, SYSTIME_USEC, SYSTIME_NSEC };
extern Bool clo_collect_bus;
extern Int clo_systime; /* SYSTIME_* */
Bool events_process_option(const HChar *arg);
void events_print_usage(void);
void events_post_clo_init(void);
/* The block ends with a system call (jump kind jk) made by instruction ins
 * (the block's last): remember ins for the system call hooks. */
void note_syscall(tlstate *st, instrcc *ins, IRJumpKind jk);

/*--- tl_main.c: call tracking ---*/

extern exitinfo calls_start_exit;
thread *get_thread(ThreadId tid);
frame *pop_call(thread *t);
frame *push_frame(thread *t);
const linecc *frame_owner(const thread *t);
/* tl_switch.c: switches between stacks (swapcontext, Go's gogo/mcall) */
#define SW_GAP 4096
void sw_mark(thread *t, Addr sp, Bool visit);
UChar sw_name_flags(const HChar *name);
Bool sw_visit_call(thread *t, const instrcc *site, Addr sp);
Bool sw_back(thread *t, Addr sp);
void sw_popped(thread *t, const frame *m);
extern UInt sw_n_parked; /* stacks left whose frames are kept (sw_resume) */
Bool sw_resume(thread *t, const sbinfo *sb, Addr sp);
void resume_frames(thread *t, const frame *v, UInt n); /* (tl_main.c) */
void note_owner(const thread *t);
void calls_finish(void);
void calls_unwind(void); /* instrumentation on or off: every call stack closes */
UInt n_functions(void); /* functions met by the call tracking */

/*--- tl_parts.c: collection on and off, zeroing, per-thread counts ---*/

extern Bool clo_instr_atstart, clo_combine_dumps;
void set_collecting(Bool on);
void thread_collect_init(thread *t);
Bool thread_collects(const thread *t);
void thread_collect_set(thread *t, Bool want);
void collect_start(void);
void collect_stop(void);
void collect_toggle(void);
void parts_init(Bool collect_atstart);
void instr_switch(Bool on, Bool reset_caches);
Bool instr_state(void); /* the instrumentation is on */
void zero_all(void);
UChar fn_hooks(istr *fn);
void hooks_enter(const fnact *a);
void hooks_leave(const fnact *a);
extern ULong parts_bbs_run;
Bool counting_bbs(void);
void dump_every_bb(ULong sched_blocks);
Bool parts_client_request(const UWord *args);
Bool parts_process_option(const HChar *arg);
void parts_print_usage(void);
void parts_post_clo_init(void);
void cct_restart(Bool keep);
void restart_frames(Bool add);
void stash_all(Bool final);
void unstash(thread *t, Bool clear);
void clear_counters(void);
void zero_counts(void);
void tl_start_client_code(ThreadId tid, ULong bbs_done);

/*--- tl_main.c: what tl_setup.c registers with the core ---*/
IRSB *tl_instrument(VgCallbackClosure *closure, IRSB *sbIn, const VexGuestLayout *layout,
                    const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy,
                    IRType hWordTy);
void tl_pre_deliver_signal(ThreadId tid, Int sigNo, Bool alt_stack);
void tl_post_deliver_signal(ThreadId tid, Int sigNo);
/* --separate-threads: the n_out_ev counters (by slot) of instr i in the store of thread
 * tid (which is not running) */
ULong *thread_instr_counts(UInt tid, const instrcc *i);
void tl_thread_exit(ThreadId tid);

/*--- tl_dump.c: the files and the summary ---*/

extern htab dump_fnrecs, dump_entry_files;
extern Int ctx_ev[N_EV], n_ctx_ev; /* the contexts file's: no cache-use events (slots, EVS) */
void choose_events(void);          /* out_ev, n_out_ev, ev_slot, ctx_ev */
Bool all_zero(const ULong *ev);
void clear_jumps(void);
void note_entry_file(const linecc *l);
extern Bool dump_writing; /* a part is being written, or the run ends */
void dump_part(const HChar *trigger);
void dump_hold_for_zero(void);
UInt dump_count(void); /* parts dumped so far by this process */
void tl_fini(Int exitcode);

/*--- tl_monitor.c: the monitor commands (vgdb, tally control) ---*/

Bool monitor_command(const HChar *req);
void monitor_note_block(Addr a); /* a block starting at a is translated */

#endif
