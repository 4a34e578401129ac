#!/bin/sh
# Peer test of the branch predictors of `tally record` (valgrind/sim_branch.h)
# against Cachegrind 3.19's --branch-sim=yes.
#
# A static program without libc (below, amd64 assembly) runs a loop driven
# by a xorshift sequence: five conditional branches (two of them at
# addresses 128 bytes apart, so that they share predictor counters whenever
# their histories agree; one correlated with another through the global
# history; the loop's own back edge) and two indirect calls through a table
# of four functions, 512 bytes apart, so that they share one BTAC slot.
# Nothing else runs (no dynamic loader), so Cachegrind's Bc, Bcm, Bi and Bim
# for the whole run come from exactly these branches.  A host program feeds
# the same sequence, with the addresses read by nm, through sim_branch.h;
# the four totals must be equal, with VEX chasing off and on.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "# valgrind or nm not installed"
    ok "skipped: no Valgrind"
    exit 0
fi
CC=${CC:-gcc}

cat >"$TMP/prog.S" <<'EOF'
        .text
        .globl _start
_start:
        movabs $SEED, %r12
        mov $N_ITER, %r13d
        xor %r14d, %r14d
        lea table(%rip), %rbx
        .p2align 4
loop:   /* x ^= x << 13; x ^= x >> 7; x ^= x << 17 */
        mov %r12, %rax
        shl $13, %rax
        xor %rax, %r12
        mov %r12, %rax
        shr $7, %rax
        xor %rax, %r12
        mov %r12, %rax
        shl $17, %rax
        xor %rax, %r12
        test $3, %r12b
        .p2align 7, 0x90
        .globl brA
brA:    jnz 1f                  /* taken: x & 3 != 0 */
        add $1, %r14
1:      bt $9, %r12
        .globl brB
brB:    jc 2f                   /* taken: bit 9 */
        add $2, %r14
2:      test $1, %r12b
        .globl brC
brC:    jz 3f                   /* taken: x & 1 == 0 (follows brA's outcome often) */
        add $3, %r14
3:      mov %r12, %rcx
        shr $12, %rcx
        and $3, %rcx
        mov (%rbx,%rcx,8), %rax
        .p2align 9, 0x90
        .globl ind1
ind1:   call *%rax              /* f[(x >> 12) & 3] */
        mov %r12, %rcx
        shr $20, %rcx
        and $1, %rcx
        mov (%rbx,%rcx,8), %rax
        .p2align 9, 0x90
        .globl ind2
ind2:   call *%rax              /* f[(x >> 20) & 1]; same BTAC slot as ind1 */
        bt $30, %r12
        .p2align 7, 0x90
        .globl brD
brD:    jnc 4f                  /* taken: bit 30 clear; same counters as brA */
        add $4, %r14
4:      dec %r13d
        .globl brL
brL:    jnz loop
        mov $60, %eax
        xor %edi, %edi
        syscall
        .globl f0, f1, f2, f3
f0:     ret
f1:     add $1, %r14
        ret
f2:     ret
f3:     ret
        .section .rodata
        .p2align 3
table:  .quad f0, f1, f2, f3
EOF

cat >"$TMP/replay.c" <<'EOF'
#define TALLY_SIM_HOST 1
#include "sim_branch.h"

/* replay N SEED brA brB brC brD brL ind1 ind2 f0 f1 f2 f3 (addresses in hex):
 * the branches of prog.S in the order they run; prints Bc Bcm Bi Bim */
int main(int argc, char **argv)
{
    if (argc != 14) return 2;
    unsigned long n = strtoul(argv[1], NULL, 10);
    unsigned long long x = strtoull(argv[2], NULL, 0);
    Addr s[11];
    for (int k = 0; k < 11; k++) s[k] = strtoul(argv[k + 3], NULL, 16);
    const Addr a = s[0], b = s[1], c = s[2], d = s[3], l = s[4], i1 = s[5], i2 = s[6], *f = s + 7;
    ULong bc = 0, bcm = 0, bi = 0, bim = 0;
    branchsim_init();
    for (unsigned long it = 0; it < n; it++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        branchsim_cond(a, (x & 3) != 0, &bcm);
        branchsim_cond(b, (x >> 9) & 1, &bcm);
        branchsim_cond(c, (x & 1) == 0, &bcm);
        branchsim_ind(i1, f[(x >> 12) & 3], &bim);
        branchsim_ind(i2, f[(x >> 20) & 1], &bim);
        branchsim_cond(d, !((x >> 30) & 1), &bcm);
        branchsim_cond(l, it + 1 < n, &bcm);
        bc += 5;
        bi += 2;
    }
    printf("%llu %llu %llu %llu\n", bc, bcm, bi, bim);
    return 0;
}
EOF

if ! "$CC" -std=c17 -O2 -Wall -Wextra -Werror -I"$ROOT/valgrind" -o "$TMP/replay" "$TMP/replay.c" \
    >"$TMP/cc.out" 2>&1; then
    not_ok "sim_branch.h compiles as host C"
    diag <"$TMP/cc.out"
    exit 0
fi
ok "sim_branch.h compiles as host C"

# case N SEED: one program, its replay and Cachegrind, chasing off and on
case_run() {
    n=$1 seed=$2
    if ! "$CC" -DN_ITER="$n" -DSEED="$seed" -nostdlib -static -no-pie -o "$TMP/prog" "$TMP/prog.S" \
        >"$TMP/cc.out" 2>&1; then
        not_ok "assemble the test program (N=$n)"
        diag <"$TMP/cc.out"
        return
    fi
    # shellcheck disable=SC2046 # eleven addresses, split on purpose
    set -- $(for s in brA brB brC brD brL ind1 ind2 f0 f1 f2 f3; do
        nm "$TMP/prog" | awk -v s="$s" '$3 == s { print $1 }'
    done)
    if [ $# != 11 ]; then
        not_ok "symbols of the test program (N=$n)"
        return
    fi
    want=$("$TMP/replay" "$n" "$seed" "$@")
    for chase in no yes; do
        rm -f "$TMP/cg.out"
        valgrind -q --tool=cachegrind --cache-sim=no --branch-sim=yes --vex-guest-chase=$chase \
            --cachegrind-out-file="$TMP/cg.out" "$TMP/prog" >"$TMP/vg.out" 2>&1
        got=$(awk '/^events:/ { for (i = 2; i <= NF; i++) ev[$i] = i }
                   /^summary:/ { print $ev["Bc"], $ev["Bcm"], $ev["Bi"], $ev["Bim"] }' \
            "$TMP/cg.out" 2>/dev/null)
        if [ -n "$got" ] && [ "$got" = "$want" ]; then
            ok "N=$n seed=$seed chase=$chase: Bc Bcm Bi Bim = $got as Cachegrind"
        else
            not_ok "N=$n seed=$seed chase=$chase: Bc Bcm Bi Bim"
            { echo "cachegrind: ${got:-no summary}"; echo "sim_branch: $want"; cat "$TMP/vg.out"; } | diag
        fi
    done
}

case_run 20000 0x9e3779b97f4a7c15
case_run 3000 0x0123456789abcdef
case_run 50 0x5555
exit 0
