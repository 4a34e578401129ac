/* sim_branch.h: tally's branch predictors, the same model as Cachegrind 3.19
 * (--branch-sim=yes), so that Bc/Bcm/Bi/Bim equal Cachegrind's.
 *
 * Included by exactly one translation unit (the tool's tl_sim.c, or a host
 * unit test with TALLY_SIM_HOST defined): the state below is file-static and
 * the hot functions are static inline so that the instrumentation helpers
 * can call them without a jump through the PLT-less tool binary.
 *
 * API (fixed by issue 4; the caller counts Bc/Bi itself):
 *   branchsim_init()                  forget everything (all counters 0, history 0,
 *                                     every BTAC entry 0)
 *   branchsim_cond(addr, taken, &Bcm) one conditional branch at instruction `addr`;
 *                                     `taken` is 0 or 1 (1 = control went to the
 *                                     target that is not the next instruction);
 *                                     adds 1 to *Bcm when the prediction was wrong
 *   branchsim_ind(addr, dst, &Bim)    one indirect jump or call at `addr` that went
 *                                     to `dst`; adds 1 to *Bim when the prediction
 *                                     was wrong
 *
 * The model (docs/internals/branchsim.md has the worked examples):
 *  - conditional: 16384 two-bit saturating counters, all starting at 0
 *    ("strongly not taken").  The counter used is chosen by 14 bits: the 7
 *    low bits of the global history (one bit per conditional branch, newest
 *    in bit 0) above the 7 low bits of the instruction address (amd64
 *    instructions are byte aligned, so no address bits are dropped).  The
 *    prediction is "taken" when the counter is 2 or 3.  After the branch the
 *    outcome is shifted into the history and the counter moves one step
 *    towards it.  One history for the whole program (all threads).
 *  - indirect: a 512-entry table of last targets indexed by the 9 low bits
 *    of the instruction address, all starting at 0.  The prediction is the
 *    stored target; the entry then takes the actual one.
 *
 * Copyright (C) 2026 the tally authors.  GPL-2.0-or-later. */
#ifndef TALLY_SIM_BRANCH_H
#define TALLY_SIM_BRANCH_H

#include "sim_types.h"

#define BRANCHSIM_ADDR_BITS 7 /* instruction address bits in a counter index */
#define BRANCHSIM_HIST_BITS 7 /* history bits in a counter index */
#define BRANCHSIM_N_COUNTERS (1u << (BRANCHSIM_ADDR_BITS + BRANCHSIM_HIST_BITS)) /* 16384 */
#define BRANCHSIM_N_BTAC 512u

/* Counters, 0..3.  One byte each: 16 KiB, the same footprint as the
 * original, so the host cache behaves alike. */
static UChar branchsim_counter[BRANCHSIM_N_COUNTERS];
/* The global history.  Only its low BRANCHSIM_HIST_BITS bits are ever read;
 * they are kept pre-shifted into index position (bits 7..13) so that the
 * hot path is one OR with the address bits. */
static UWord branchsim_hist_idx;
/* Last target of each indirect-branch slot. */
static Addr branchsim_btac[BRANCHSIM_N_BTAC];

static inline void branchsim_init(void)
{
    sim_memset(branchsim_counter, 0, sizeof branchsim_counter);
    sim_memset(branchsim_btac, 0, sizeof branchsim_btac);
    branchsim_hist_idx = 0;
}

/* The counter after one step towards the outcome: [taken][counter]. */
static const UChar branchsim_step[2][4] = {{0, 0, 1, 2}, {1, 2, 3, 3}};

static inline void branchsim_cond(Addr instr_addr, Word taken, ULong *mispredicts)
{
    const UWord amask = (1u << BRANCHSIM_ADDR_BITS) - 1;
    const UWord hmask = (BRANCHSIM_N_COUNTERS - 1) & ~amask;
    UWord t = taken != 0;
    UWord i = branchsim_hist_idx | (instr_addr & amask);
    UWord c = branchsim_counter[i];
    /* predicted taken is bit 1 of the counter; a miss when it differs from t */
    *mispredicts += (c >> 1) ^ t;
    branchsim_counter[i] = branchsim_step[t][c];
    /* shift the outcome in at index bit 7, dropping the oldest bit */
    branchsim_hist_idx = ((branchsim_hist_idx << 1) | (t << BRANCHSIM_ADDR_BITS)) & hmask;
}

static inline void branchsim_ind(Addr instr_addr, Addr actual_dst, ULong *mispredicts)
{
    Addr *slot = &branchsim_btac[instr_addr & (BRANCHSIM_N_BTAC - 1)];
    *mispredicts += *slot != actual_dst;
    *slot = actual_dst;
}

#endif /* TALLY_SIM_BRANCH_H */
