# Sourced by the peer tests: make real profiles of the example programs
# with the installed Valgrind, once, into build/peer-profiles (reused
# while the example binaries do not change). Sets PROF to that folder.
#
# Files made (run from examples/, so file names are relative there):
#   cg.recurse.out      callgrind, default options
#   cg.wordfreq.out     callgrind, default options
#   cgx.wordfreq.out    callgrind --dump-instr=yes --collect-jumps=yes
#                       --cache-sim=yes --branch-sim=yes
#   cgx.recurse.out     the same for recurse
#   cgx.matrix.out      the same for matrix
#   cgparts.recurse.out callgrind --dump-every-bb=20000 --combine-dumps=yes (several parts)
#   cache.wordfreq.out  cachegrind (cache sim on, as 3.19 defaults)
#   cache.wordfreq2.out cachegrind of a different input size (for diff/merge)
#   cache.matrix.out    cachegrind --branch-sim=yes
#   cache.recurse.out   cachegrind
PROF="$ROOT/build/peer-profiles"
make_profiles() {
    make -s -C "$ROOT/examples" >/dev/null || return 1
    mkdir -p "$PROF"
    stamp="$PROF/.stamp"
    if [ -f "$stamp" ] && [ "$stamp" -nt "$ROOT/examples/wordfreq" ] &&
        [ "$stamp" -nt "$ROOT/examples/recurse" ] && [ "$stamp" -nt "$ROOT/examples/matrix" ] &&
        [ "$stamp" -nt "$ROOT/tests/peer/profiles.sh" ]; then
        return 0
    fi
    rm -f "$PROF"/*.out
    X="--dump-instr=yes --collect-jumps=yes --cache-sim=yes --branch-sim=yes"
    (
        cd "$ROOT/examples" || exit 1
        q="valgrind -q"
        $q --tool=callgrind --callgrind-out-file="$PROF/cg.recurse.out" ./recurse >/dev/null &&
        $q --tool=callgrind --callgrind-out-file="$PROF/cg.wordfreq.out" ./wordfreq 5000 >/dev/null &&
        $q --tool=callgrind $X --callgrind-out-file="$PROF/cgx.wordfreq.out" ./wordfreq 5000 >/dev/null &&
        $q --tool=callgrind $X --callgrind-out-file="$PROF/cgx.recurse.out" ./recurse >/dev/null &&
        $q --tool=callgrind $X --callgrind-out-file="$PROF/cgx.matrix.out" ./matrix 30 >/dev/null &&
        $q --tool=callgrind --dump-every-bb=20000 --combine-dumps=yes \
            --callgrind-out-file="$PROF/cgparts.recurse.out" ./recurse >/dev/null &&
        $q --tool=cachegrind --cachegrind-out-file="$PROF/cache.wordfreq.out" ./wordfreq 5000 >/dev/null &&
        $q --tool=cachegrind --cachegrind-out-file="$PROF/cache.wordfreq2.out" ./wordfreq 9000 >/dev/null &&
        $q --tool=cachegrind --branch-sim=yes --cachegrind-out-file="$PROF/cache.matrix.out" ./matrix 30 >/dev/null &&
        $q --tool=cachegrind --cachegrind-out-file="$PROF/cache.recurse.out" ./recurse >/dev/null
    ) || return 1
    touch "$stamp"
}
