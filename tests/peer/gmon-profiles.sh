# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the gprof peer tests (a library, not a test: tests/run.sh
# skips it). make_gmon_profiles builds the programs of examples/gprof/ with
# -pg (into build/gprof-examples/, see examples/gprof/Makefile) and runs
# each once to get its gmon.out, kept in build/gprof-profiles/ and reused
# while the binaries and this script do not change. Samples differ from run
# to run, so every comparison runs tally and gprof on the SAME files.
#
# Sets GEX (the binaries, plus cs.map) and GPROF (the profiles):
#   cycles.gmon        cycles (300 loops, ~0.7 s of samples)
#   cycles.b.gmon      cycles 100 (a second run, to sum with the first)
#   cycles-nopie.gmon  cycles-nopie
#   cycles-moved.gmon  cycles-moved 100
#   selfrec.gmon       selfrec (fib 24)
#   selfrec.b.gmon     selfrec 20
#   selfrec-O2.gmon    selfrec-O2
#   cs.gmon            cs
#   many.gmon          many 300
#   shapes.gmon        shapes
#   shapes-dw4.gmon    shapes-dw4
#   cycles.bsd         cycles.gmon rewritten in the old BSD format
#   cycles.44bsd       cycles.gmon rewritten in the 4.4BSD format
# Programs run in a scratch folder under GPROF, so gmon.out lands there.
GEX="$ROOT/build/gprof-examples"
GPROF="$ROOT/build/gprof-profiles"
GMON_RUNS="cycles:cycles: cycles.b:cycles:100 cycles-nopie:cycles-nopie: cycles-moved:cycles-moved:100
selfrec:selfrec:
selfrec.b:selfrec:20 selfrec-O2:selfrec-O2: cs:cs: many:many:300 shapes:shapes:
shapes-dw4:shapes-dw4:"

make_gmon_profiles() {
    make -s -C "$ROOT/examples/gprof" OUT="$GEX" >/dev/null || return 1
    mkdir -p "$GPROF/run"
    stamp="$GPROF/.stamp"
    if [ -f "$stamp" ] && [ "$stamp" -nt "$ROOT/tests/peer/gmon-profiles.sh" ]; then
        fresh=yes
        for b in "$GEX"/*; do
            [ -x "$b" ] && [ "$b" -nt "$stamp" ] && fresh=no
        done
        [ "$fresh" = yes ] && return 0
    fi
    rm -f "$GPROF"/*.gmon
    for r in $GMON_RUNS; do
        name=${r%%:*} rest=${r#*:}
        prog=${rest%%:*} arg=${rest#*:}
        (
            cd "$GPROF/run" || exit 1
            rm -f gmon.out
            # shellcheck disable=SC2086 # the argument is absent or one word
            "$GEX/$prog" $arg >/dev/null && [ -s gmon.out ] && mv gmon.out "$GPROF/$name.gmon"
        ) || { echo "gmon-profiles: running $prog $arg failed" >&2; return 1; }
    done
    gmon_to_bsd "$GPROF/cycles.gmon" "$GPROF/cycles.bsd" old || return 1
    gmon_to_bsd "$GPROF/cycles.gmon" "$GPROF/cycles.44bsd" 4.4 || return 1
    touch "$stamp"
}

# gmon_to_bsd IN OUT old|4.4 : rewrite a GNU-format gmon.out of a 64-bit
# little-endian program (one histogram, arcs) in a BSD format: low_pc,
# high_pc, the byte size of header and bins, (4.4BSD: the version 0x51879,
# the rate, 12 spare bytes), the bins, then arcs with 64-bit counts.
gmon_to_bsd() {
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
src, dst, kind = sys.argv[1:4]
data = open(src, "rb").read()
assert data[:4] == b"gmon", "not a GNU gmon.out"
pos, hist, arcs = 20, None, []
while pos < len(data):
    tag = data[pos]
    pos += 1
    if tag == 0:
        low, high, nbins, rate = struct.unpack_from("<QQII", data, pos)
        pos += 40
        assert hist is None, "more than one histogram"
        hist = (low, high, nbins, rate, data[pos:pos + 2 * nbins])
        pos += 2 * nbins
    elif tag == 1:
        arcs.append(struct.unpack_from("<QQI", data, pos))
        pos += 20
    else:
        raise SystemExit("unexpected record tag %d" % tag)
low, high, nbins, rate, bins = hist
size = 40 if kind == "4.4" else 20
out = struct.pack("<QQI", low, high, size + 2 * nbins)
if kind == "4.4":
    out += struct.pack("<II", 0x51879, rate) + bytes(12)
out += bins
for frm, to, count in arcs:
    out += struct.pack("<QQQ", frm, to, count)
open(dst, "wb").write(out)
PY
}
