#!/bin/sh
# tally convert: usage and input errors, atomic output, and for every
# format a validity and round-trip check whose expected values come from
# another route: a contexts file written here (stacks and costs worked out
# by hand), callgrind_annotate / cg_annotate (totals), python3's JSON
# parser, protoc decoding the pprof output against a profile.proto this
# script writes from the public field numbers, GNU gprof's flat profile
# (gmon.out input), and for the real Callgrind profile of examples/recurse
# call counts known from its source (fib(18) makes 4181 leaf calls, chain
# 5000, each leaf call runs 14 instructions).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" convert "$@"
}
# conv WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS... : run_tally "convert ARGS"
# for a later check; when the run is not as wanted, say why as a diagnostic
conv() {
    cw=$1 co=$2 ce=$3
    shift 3
    run_tally "$cw" "$co" "$ce" convert "$@"
    [ -z "$why" ] || { echo "convert $*: $why"; head -n 5 "$TMP/err"; } | diag
}
# check_py NAME SCRIPT ARGS... : ok when the python script exits 0
check_py() {
    name=$1 script=$2
    shift 2
    if python3 "$script" "$@" >"$TMP/py.out" 2>&1; then
        ok "$name"
        grep '^# ' "$TMP/py.out" # what the script measured
    else
        not_ok "$name"
        head -n 30 "$TMP/py.out" | diag
    fi
}

# --- a calling-context tree whose stacks are known ----------------------
# main (self 120/10) calls work 3 times (900/30) and helper twice (50/5),
# helper calls work twice (400/20). Totals: Ir 1470, Dr 65.
cat >"$TMP/a.ctx" <<'EOF'
# tally contexts 1
creator: test
cmd: ./a.out
pid: 4242
events: Ir Dr
ob 1 /tmp/a.out
fl 1 a.c
fn 1 1 1 main
fn 2 1 1 work
fn 3 1 1 helper
x 1 0 1 1 120 10
x 2 1 2 3 900 30
x 3 1 3 2 50 5
x 4 3 2 2 400 20
totals: 1470 65
EOF

# --- usage errors (exit 2) ------------------------------------------------
expect "--help" 0 "usage: tally convert" "" --help
expect "no --to" 2 "" "--to=FORMAT is required" a.ctx
expect "unknown format" 2 "" "unknown format 'svg'" --to=svg a.ctx
expect "no input files" 2 "" "no input files" --to=json
expect "unknown option" 2 "" "unknown option '--bogus'" --to=json --bogus a.ctx
expect "option without value" 2 "" "'-o' needs a value" --to=json a.ctx -o
expect "listed in tally --help" 0 "convert" "" --help
run_tally 0 "convert .*json" "" --help
if [ -z "$why" ]; then ok "tally --help lists convert"; else not_ok "tally --help lists convert: $why"; fi

# --- input errors (exit 1) ------------------------------------------------
expect "missing input" 1 "" "^tally: .*nope.out" --to=json nope.out
printf 'this is not a profile\n' >"$TMP/junk.txt"
expect "unreadable input" 1 "" "^tally: .*junk.txt" --to=json junk.txt
expect "unknown event (usage: exit 2)" 2 "" "no event 'Bogus' in the input \(its events: Ir Dr\)" \
    --to=folded --event=Bogus a.ctx
for f in json speedscope callgrind; do
    expect "--event=Ir with --to=$f: refused, every event is there (usage: exit 2)" 2 "" \
        "--event chooses the event of --to=folded and the default sample type of --to=pprof" \
        --to=$f --event=Ir a.ctx
done
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$TMP/g.gmon"
expect "gmon.out without its program" 1 "" "g.gmon: a gmon.out file needs its program" \
    --to=json g.gmon

# --- atomic output --------------------------------------------------------
echo "keep me" >"$TMP/old.json"
conv 1 "" "nope.out" --to=json -o old.json nope.out
if [ -z "$why" ] && [ "$(cat "$TMP/old.json")" = "keep me" ] && [ -z "$(ls "$TMP" | grep '^old.json.')" ]; then
    ok "a failed conversion leaves -o untouched and no temporary file"
else
    not_ok "a failed conversion leaves -o untouched ($why)"
fi
conv 1 "" "no-such-dir" --to=json -o no-such-dir/x.json a.ctx
if [ -z "$why" ] && [ ! -e "$TMP/no-such-dir" ]; then ok "unwritable -o: exit 1"; else
    not_ok "unwritable -o: $why"; fi
# pprof is binary: never onto a terminal
if script -qec "$TALLY convert --to=pprof $TMP/a.ctx" /dev/null >"$TMP/tty.out" 2>&1; then
    not_ok "pprof refuses a terminal"; head -n 5 "$TMP/tty.out" | diag
elif grep -q "not writing it to a terminal" "$TMP/tty.out"; then ok "pprof refuses a terminal"; else
    not_ok "pprof refuses a terminal (message)"; head -n 5 "$TMP/tty.out" | diag
fi

# --- folded from exact stacks ---------------------------------------------
cat >"$TMP/a.folded.Ir" <<'EOF'
main 120
main;helper 50
main;helper;work 400
main;work 900
EOF
cat >"$TMP/a.folded.Dr" <<'EOF'
main 10
main;helper 5
main;helper;work 20
main;work 30
EOF
conv 0 "^main 120$" "stacks exact" --to=folded a.ctx
same_text "folded, exact stacks, first event (by hand)" "$TMP/a.folded.Ir" "$TMP/out"
conv 0 "" "stacks exact" --to=folded --event=Dr a.ctx -o a.Dr.folded
same_text "folded --event=Dr -o FILE (by hand)" "$TMP/a.folded.Dr" "$TMP/a.Dr.folded"
# two inputs: the calling contexts are added (every count doubles)
conv 0 "^main 240$" "stacks exact" --to=folded a.ctx a.ctx
awk '{ $NF = 2 * $NF; print }' "$TMP/a.folded.Ir" >"$TMP/a2.folded"
same_text "two contexts files: stacks summed, still exact" "$TMP/a2.folded" "$TMP/out"

# --- json from the contexts file (values by hand) -------------------------
cat >"$TMP/json_ctx.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "tally-profile" and d["version"] == 1
assert [e["name"] for e in d["events"]] == ["Ir", "Dr"], d["events"]
assert d["totals"] == [1470, 65], d["totals"]
assert d["metadata"]["cmd"] == "./a.out" and d["metadata"]["pid"] == 4242
f = {x["name"]: x for x in d["functions"]}
assert f["main"]["self"] == [120, 10] and f["main"]["inclusive"] == [1470, 65], f["main"]
assert f["work"]["self"] == [1300, 50] and f["work"]["inclusive"] == [1300, 50], f["work"]
assert f["helper"]["self"] == [50, 5] and f["helper"]["inclusive"] == [450, 25], f["helper"]
assert f["main"]["object"] == "/tmp/a.out" and f["main"]["file"] == "a.c"
for i, x in enumerate(d["functions"]):
    assert x["id"] == i
calls = {(d["functions"][c["caller"]]["name"], d["functions"][c["callee"]]["name"]):
         (c["count"], c["inclusive"]) for c in d["calls"]}
assert calls == {("main", "work"): (3, [900, 30]), ("main", "helper"): (2, [450, 25]),
                 ("helper", "work"): (2, [400, 20])}, calls
assert d["cycles"] == []
EOF
conv 0 "" "" --to=json -o a.json a.ctx
check "json is valid (python3 -m json.tool)" python3 -m json.tool "$TMP/a.json"
check_py "json of the contexts file: values by hand" "$TMP/json_ctx.py" "$TMP/a.json"

# --- speedscope from the contexts file ------------------------------------
cat >"$TMP/speedscope.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
totals = [int(x) for x in sys.argv[2].split(",")]
exact = sys.argv[3] == "exact"
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
assert all("name" in f for f in frames)
assert len(d["profiles"]) == len(totals), len(d["profiles"])
assert ("exact" in d["name"]) == exact, d["name"]
for p, total in zip(d["profiles"], totals):
    assert p["type"] == "sampled" and p["unit"] == "none" and p["startValue"] == 0
    assert len(p["samples"]) == len(p["weights"])
    assert sum(p["weights"]) == p["endValue"], (sum(p["weights"]), p["endValue"])
    # exact, and estimated too: rounded shares are apportioned so they add up
    assert p["endValue"] == total, (p["name"], p["endValue"], total)
    for s in p["samples"]:
        assert all(0 <= i < len(frames) for i in s)
if len(sys.argv) > 4:  # "stack=weight" pairs of the first profile, root first
    p = d["profiles"][0]
    got = {";".join(frames[i]["name"] for i in s): w for s, w in zip(p["samples"], p["weights"])}
    for pair in sys.argv[4:]:
        st, w = pair.rsplit("=", 1)
        assert got.get(st) == int(w), (st, got.get(st), w)
EOF
conv 0 "" "stacks exact" --to=speedscope -o a.speedscope.json a.ctx
check "speedscope is valid JSON" python3 -m json.tool "$TMP/a.speedscope.json"
check_py "speedscope: one profile per event, weights sum to the totals, stacks root first" \
    "$TMP/speedscope.py" "$TMP/a.speedscope.json" 1470,65 exact \
    main=120 "main;helper=50" "main;helper;work=400" "main;work=900"

# --- pprof: protoc decodes it against the public field numbers ------------
cat >"$TMP/profile.proto" <<'EOF'
syntax = "proto3";
package perftools.profiles;
message Profile {
  repeated ValueType sample_type = 1;
  repeated Sample sample = 2;
  repeated Mapping mapping = 3;
  repeated Location location = 4;
  repeated Function function = 5;
  repeated string string_table = 6;
  int64 drop_frames = 7;
  int64 keep_frames = 8;
  int64 time_nanos = 9;
  int64 duration_nanos = 10;
  ValueType period_type = 11;
  int64 period = 12;
  repeated int64 comment = 13;
  int64 default_sample_type = 14;
}
message ValueType { int64 type = 1; int64 unit = 2; }
message Sample {
  repeated uint64 location_id = 1;
  repeated int64 value = 2;
  repeated Label label = 3;
}
message Label { int64 key = 1; int64 str = 2; int64 num = 3; int64 num_unit = 4; }
message Mapping {
  uint64 id = 1; uint64 memory_start = 2; uint64 memory_limit = 3; uint64 file_offset = 4;
  int64 filename = 5; int64 build_id = 6; bool has_functions = 7; bool has_filenames = 8;
  bool has_line_numbers = 9; bool has_inline_frames = 10;
}
message Location {
  uint64 id = 1; uint64 mapping_id = 2; uint64 address = 3; repeated Line line = 4;
  bool is_folded = 5;
}
message Line { uint64 function_id = 1; int64 line = 2; int64 column = 3; }
message Function {
  uint64 id = 1; int64 name = 2; int64 system_name = 3; int64 filename = 4; int64 start_line = 5;
}
EOF
# pprof.py DECODED EVENTS TOTALS exact|estimated DEFAULT NAMES [LEAF-FIRST-STACK=VALUE...]
cat >"$TMP/pprof.py" <<'EOF'
import re, sys
def parse(lines):
    """protoc's text format (an iterator of lines) -> nested dicts of lists"""
    obj = {}
    for ln in lines:
        ln = ln.strip()
        if not ln:
            continue
        if ln == "}":
            return obj
        if ln.endswith("{"):
            obj.setdefault(ln[:-1].strip(), []).append(parse(lines))
            continue
        k, v = ln.split(":", 1)
        v = v.strip()
        v = v[1:-1].encode().decode("unicode_escape") if v.startswith('"') else v
        obj.setdefault(k, []).append(v)
    return obj
d = parse(iter(open(sys.argv[1]).read().splitlines()))
events, totals = sys.argv[2].split(","), [int(x) for x in sys.argv[3].split(",")]
exact, default, names = sys.argv[4] == "exact", sys.argv[5], sys.argv[6].split(",")
st = d["string_table"]
assert st[0] == "", st[0]
s = lambda i: st[int(i)]
assert [s(t["type"][0]) for t in d["sample_type"]] == events
assert all(s(t["unit"][0]) == "count" for t in d["sample_type"])
assert s(d["default_sample_type"][0]) == default
assert s(d["period_type"][0]["type"][0]) == default and d["period"] == ["1"]
comments = [s(c) for c in d.get("comment", [])]
assert any(c.startswith("stacks exact" if exact else "stacks estimated") for c in comments), comments
funcs = {f["id"][0]: f for f in d["function"]}
fname = {i: s(f["name"][0]) for i, f in funcs.items()}
for n in names:
    assert n in fname.values(), (n, sorted(fname.values()))
maps = {m["id"][0] for m in d["mapping"]}
locs = {}
for l in d["location"]:
    assert l["mapping_id"][0] in maps
    locs[l["id"][0]] = fname[l["line"][0]["function_id"][0]]
sums = [0] * len(events)
nsamples = len(d["sample"])
stacks = {}
for smp in d["sample"]:
    vals = [int(v) for v in smp["value"]]
    assert len(vals) == len(events)
    sums = [a + b for a, b in zip(sums, vals)]
    stacks[";".join(locs[i] for i in smp["location_id"])] = vals[0]
for e, got, want in zip(events, sums, totals):
    assert got == want, (e, got, want)  # estimated shares are apportioned to add up
for pair in sys.argv[7:]:
    k, v = pair.rsplit("=", 1)
    assert stacks.get(k) == int(v), (k, stacks.get(k), v)
EOF
decode() { # FILE.pb.gz -> FILE.txt
    gunzip -c "$1" >"$1.raw" &&
        protoc -I"$TMP" --decode perftools.profiles.Profile "$TMP/profile.proto" <"$1.raw" >"$1.txt"
}
conv 0 "" "stacks exact" --to=pprof -o a.pb.gz a.ctx
check "pprof: gzip + protoc --decode" decode "$TMP/a.pb.gz"
check_py "pprof: values sum to the totals per event, names, leaf-first stacks (by hand)" \
    "$TMP/pprof.py" "$TMP/a.pb.gz.txt" Ir,Dr 1470,65 exact Ir main,work,helper \
    main=120 "helper;main=50" "work;helper;main=400" "work;main=900"
conv 0 "" "stacks exact" --to=pprof --event=Dr -o a.Dr.pb.gz a.ctx
check "pprof --event=Dr: decodes" decode "$TMP/a.Dr.pb.gz"
check_py "pprof --event=Dr: default sample type Dr" \
    "$TMP/pprof.py" "$TMP/a.Dr.pb.gz.txt" Ir,Dr 1470,65 exact Dr main
"$TALLY" convert --to=pprof "$TMP/a.ctx" >"$TMP/pipe.pb.gz" 2>/dev/null
if cmp -s "$TMP/pipe.pb.gz" "$TMP/a.pb.gz"; then ok "pprof to a pipe = pprof to -o"; else
    not_ok "pprof to a pipe"; fi

# --- pprof line-level locations: a callgrind file worked out by hand -------
# F has self cost on lines 10 (Ir 30, Dr 3) and 12 (70, 1); G (line 20: 5, 1)
# calls F from line 21 (inclusive 40, 3) and from line 25 (60, 1). The
# expected samples are computed by hand in pplines.py (check_hand).
cat >"$TMP/h.cg" <<'EOF'
# callgrind format
version: 1
creator: hand
cmd: ./h
positions: line
events: Ir Dr
ob=/bin/h
fl=h.c
fn=F
10 30 3
12 70 1
fn=G
20 5 1
cfn=F
calls=1 10
21 40 3
cfn=F
calls=3 10
25 60 1
totals: 105 5
EOF
# pplines.py hand DECODED | real|cache DECODED PROFILE: line-level checks
# against the profile file itself, parsed here from the format description
cat >"$TMP/pplines.py" <<'EOF'
import sys, re
from collections import defaultdict

def parse_text(path):
    """protoc's text format -> nested dicts of lists"""
    lines = iter(open(path).read().splitlines())
    def rec():
        obj = {}
        for ln in lines:
            ln = ln.strip()
            if not ln:
                continue
            if ln == "}":
                return obj
            if ln.endswith("{"):
                obj.setdefault(ln[:-1].strip(), []).append(rec())
                continue
            k, v = ln.split(":", 1)
            v = v.strip()
            v = v[1:-1].encode().decode("unicode_escape") if v.startswith('"') else v
            obj.setdefault(k, []).append(v)
        return obj
    return rec()

def load_pprof(path):
    """-> events, samples [(frames, values)], frames = [(obj, fn, file, line)] leaf first"""
    d = parse_text(path)
    st = d["string_table"]
    s = lambda i: st[int(i)]
    events = [s(t["type"][0]) for t in d["sample_type"]]
    maps = {m["id"][0]: s(m.get("filename", ["0"])[0]) for m in d["mapping"]}
    funcs = {f["id"][0]: (s(f["name"][0]), s(f.get("filename", ["0"])[0])) for f in d["function"]}
    locs, seen = {}, set()
    for l in d["location"]:
        assert len(l["line"]) == 1, l
        ln = l["line"][0]
        fid, line = ln["function_id"][0], int(ln.get("line", ["0"])[0])
        assert (fid, line) not in seen, ("location twice", funcs[fid], line)
        seen.add((fid, line))
        name, file = funcs[fid]
        locs[l["id"][0]] = (maps[l["mapping_id"][0]], name, file, line)
    samples, lists = [], set()
    for smp in d.get("sample", []):
        ids = tuple(smp["location_id"])
        assert ids not in lists, ("two samples with one location list", ids)
        lists.add(ids)
        vals = [int(v) for v in smp.get("value", [])]
        assert len(vals) == len(events)
        samples.append(([locs[i] for i in ids], vals))
    return events, samples

def parse_profile(path):
    """callgrind or cachegrind file, parsed from the format description.
    -> events, self {(obj, fn, file, line): [costs]}, fself {(obj, fn): [costs]},
       sites {((obj, caller), (obj, callee)): {(file, line)}}, fnfile {(obj, fn): file}"""
    events, npos = None, 1
    names = {}
    ob = fl = src = fn = ""
    cob = cfn = None
    self_ = defaultdict(lambda: None)
    sites = defaultdict(set)
    fnfile = {}
    last = [0, 0]
    in_call = False
    def name(kind, v):
        m = re.match(r"^\((\d+)\)\s?(.*)$", v)
        if not m:
            return v
        if m.group(2):
            names[(kind, m.group(1))] = m.group(2)
        return names[(kind, m.group(1))]
    def pos(tok, i):
        if tok == "*":
            v = last[i]
        elif tok[0] in "+-":
            v = last[i] + int(tok, 0)
        else:
            v = int(tok, 0)
        last[i] = v
        return v
    for ln in open(path):
        ln = ln.rstrip("\n")
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r"^([a-z]+)[=:]\s?(.*)$", ln)
        if m and not ln[0].isdigit():
            k, v = m.group(1), m.group(2)
            if k == "events":
                events = v.split()
            elif k == "positions":
                npos = len(v.split())
            elif k == "ob":
                ob = name("ob", v)
            elif k == "fl":
                fl = src = name("fl", v)
            elif k in ("fi", "fe"):
                src = name("fl", v)
            elif k == "fn":
                fn = name("fn", v)
                src = fl
                fnfile[(ob, fn)] = fl
            elif k == "cob":
                cob = name("ob", v)
            elif k in ("cfi", "cfl", "jfi"):
                name("fl", v)
            elif k == "jfn":
                name("fn", v)
            elif k == "cfn":
                cfn = name("fn", v)
            elif k == "calls":
                in_call = True
            continue
        toks = ln.split()
        p = [pos(t, i) for i, t in enumerate(toks[:npos])]
        line = p[-1]
        vals = [int(x) for x in toks[npos:]] + [0] * (len(events) - len(toks[npos:]))
        if in_call:
            sites[((ob, fn), (cob if cob is not None else ob, cfn))].add((src, line))
            in_call = False
            cob = None
            continue
        k = (ob, fn, src, line)
        if self_[k] is None:
            self_[k] = [0] * len(events)
        self_[k] = [a + b for a, b in zip(self_[k], vals)]
    fself = defaultdict(lambda: [0] * len(events))
    for (o, f, s, l), v in self_.items():
        fself[(o, f)] = [a + b for a, b in zip(fself[(o, f)], v)]
    return events, dict(self_), dict(fself), sites, fnfile

def add(d, k, v):
    d[k] = [a + b for a, b in zip(d.get(k, [0] * len(v)), v)]

def check_real(decoded, profile, cache, exact=False):
    events, samples = load_pprof(decoded)
    pev, self_, fself, sites, fnfile = parse_profile(profile)
    assert events == pev, (events, pev)
    total = [0] * len(events)
    for v in self_.values():
        total = [a + b for a, b in zip(total, v)]
    got = [0] * len(events)
    for _, v in samples:
        got = [a + b for a, b in zip(got, v)]
    assert got == total, ("per-event sums", got, total)
    start = {}
    for (o, f, s, l) in self_:
        if l and s == fnfile.get((o, f)) and (start.get((o, f), 0) == 0 or l < start[(o, f)]):
            start[(o, f)] = l
    want_line = {}
    for (o, f, s, l), v in self_.items():
        k = (o, f, s, l) if l else (o, f, fnfile.get((o, f), s), start.get((o, f), 0))
        add(want_line, k, v)
    leaf_fn, leaf_line, contexts = {}, {}, defaultdict(set)
    nsite = 0
    for frames, v in samples:
        if cache:
            assert len(frames) == 1, frames
        o, f, s, l = frames[0]
        add(leaf_fn, (o, f), v)
        add(leaf_line, (o, f, s, l), v)
        contexts[(o, f)].add(tuple((x[0], x[1]) for x in frames))
        for callee, caller in zip(frames, frames[1:]):
            g = (caller[0], caller[1])
            ok = sites.get((g, (callee[0], callee[1])), set())
            lined = {x for x in ok if x[1]}
            if lined:
                assert (caller[2], caller[3]) in lined, ("not a call site", caller, callee, lined)
                nsite += 1
            else:
                assert caller[3] == start.get(g, 0), ("caller without call-site lines", caller)
    nz = lambda d: {k: v for k, v in d.items() if any(v)}
    fs, lf = nz(fself), nz(leaf_fn)
    single = {k for k, c in contexts.items() if len(c) == 1}
    assert set(lf) == set(fs), set(lf) ^ set(fs)
    # per function: the leaf total is the function's self cost exactly, for
    # every function (the stack tree splits each function's self cost among
    # its stacks by largest remainder when nothing is pruned, stacks.h)
    nexact = sum(1 for k in fs if lf.get(k) == fs.get(k))
    print("# %d of %d functions: leaf total = self cost (%d with one stack)" % (nexact, len(fs), len(single)))
    assert lf == fs, [(k, lf.get(k), fs.get(k)) for k in fs if lf.get(k) != fs.get(k)][:5]
    # per line, for a function in one stack: its leaf total split over the
    # function's lines by their self costs (largest remainder), which is the
    # lines' self costs whenever the leaf total is the function's self cost
    byfn = defaultdict(dict)
    for k, v in want_line.items():
        byfn[k[:2]][k] = v
    nlines = nsame = 0
    for f in single:
        # in the order of line, then file name (ties of the split go to the first)
        lines = sorted(byfn[f].items(), key=lambda kv: (kv[0][3], kv[0][2]))
        want = {}
        if lines:
            for e in range(len(events)):
                ws = [v[e] for _, v in lines]
                if not any(ws):
                    alt = [x for x in range(len(events)) if any(v[x] for _, v in lines)]
                    ws = [v[alt[0]] for _, v in lines] if alt else ws
                for (k, _), part in zip(lines, split(lf.get(f, [0] * len(events))[e], ws)):
                    want.setdefault(k, [0] * len(events))[e] = part
        want = nz(want)
        got = {k: v for k, v in nz(leaf_line).items() if k[:2] == f}
        assert got == want, ("lines of", f, got, want)
        nlines += len(want)
        if lf.get(f) == fs.get(f):
            for k, v in nz(byfn[f]).items():
                assert got.get(k) == v, ("line", k, got.get(k), v)
                nsame += 1
    print(len(fs), "functions,", len(single), "in one stack,", nexact, "with leaf total = self,",
          nlines, "lines split as computed,", nsame, "lines = their self cost,", nsite,
          "caller frames at call sites")
    assert nsame > 0 and (cache or nsite > 0)

def split(w, ws):
    """largest remainder: floor(w * x / sum), then a unit each to the largest
    remainders (ties: the first); an even split when every weight is 0"""
    tot = sum(ws) or len(ws)
    ws = ws if sum(ws) else [1] * len(ws)
    q = [w * x // tot for x in ws]
    r = sorted(range(len(ws)), key=lambda i: (-(w * ws[i] % tot), i))
    for i in r[:w - sum(q)]:
        q[i] += 1
    return q

def check_hand(decoded):
    events, samples = load_pprof(decoded)
    assert events == ["Ir", "Dr"]
    got = {";".join("%s:%d" % (x[1], x[3]) for x in fr): v for fr, v in samples}
    # F's lines 10 (30, 3) and 12 (70, 1); G calls F from 21 (incl. 40, 3) and 25 (60, 1).
    # Ir: 30 -> 30*40/100 = 12, 18; 70 -> 28, 42.  Dr: 3 -> 3*3/4 = 2.25, 0.75 -> 2, 1
    # (the unit left goes to the larger remainder 0.75); 1 -> 0.75, 0.25 -> 1, 0.
    want = {"G:20": [5, 1], "F:10;G:21": [12, 2], "F:10;G:25": [18, 1],
            "F:12;G:21": [28, 1], "F:12;G:25": [42, 0]}
    assert got == want, got
    leaf, site = {}, {}
    for fr, v in samples:
        add(leaf, "%s:%d" % (fr[0][1], fr[0][3]), v)
        if len(fr) > 1:
            add(site, "%s:%d" % (fr[1][1], fr[1][3]), v)
    assert leaf == {"G:20": [5, 1], "F:10": [30, 3], "F:12": [70, 1]}, leaf
    assert site == {"G:21": [40, 3], "G:25": [60, 1]}, site
    print("hand values equal")

if __name__ == "__main__":
    try:
        if sys.argv[1] == "hand":
            check_hand(sys.argv[2])
        else:
            check_real(sys.argv[2], sys.argv[3], sys.argv[1] == "cache")
    except AssertionError as e:
        print("FAILED:", str(e)[:1500])
        sys.exit(1)
EOF
conv 0 "" "stacks estimated" --to=pprof -o h.pb.gz h.cg
check "pprof lines: hand-made callgrind file decodes" decode "$TMP/h.pb.gz"
check_py "pprof lines: leaf lines 10/12 and call-site lines 21/25 carry the values computed by hand" \
    "$TMP/pplines.py" hand "$TMP/h.pb.gz.txt"
check "pprof lines: the comment says the lines are apportioned" \
    grep -q "lines apportioned" "$TMP/h.pb.gz.txt"
# no line information (a contexts file): one location per function, no such comment
check "pprof of a contexts file: no line comment" sh -c "! grep -q 'lines apportioned' '$TMP/a.pb.gz.txt'"

# --- callgrind and cachegrind from the contexts file ----------------------
conv 0 "" "" --to=callgrind -o a.cg a.ctx
conv 0 "" "" --to=json -o a.cg.json a.cg
check_py "callgrind from contexts: read back, same functions, calls and costs" \
    "$TMP/json_ctx.py" "$TMP/a.cg.json"
(cd "$TMP" && callgrind_annotate a.cg) >"$TMP/a.cg.ann" 2>&1
check "callgrind_annotate reads it: totals 1,470 65" \
    grep -Eq "^1,470 \(100.0%\) +65 \(100.0%\) +PROGRAM TOTALS" "$TMP/a.cg.ann"
conv 0 "" "" --to=cachegrind -o a.cache a.ctx
(cd "$TMP" && cg_annotate a.cache) >"$TMP/a.cache.ann" 2>&1
check "cg_annotate reads the cachegrind output: totals 1,470 65" \
    grep -Eq "^1,470 \(100.0%\) +65 \(100.0%\) +PROGRAM TOTALS" "$TMP/a.cache.ann"

# standard input, gzip-compressed
gzip -c "$TMP/a.cg" | "$TALLY" convert --to=json - >"$TMP/stdin.json" 2>"$TMP/stdin.err"
check_py "'-' reads standard input (gzip): same document" "$TMP/json_ctx.py" "$TMP/stdin.json"

# --- real profiles --------------------------------------------------------
if ! make_profiles; then
    not_ok "make the real profiles with valgrind"
    exit 1
fi
ok "make the real profiles with valgrind"
cp "$PROF/cgx.recurse.out" "$PROF/cg.recurse.out" "$PROF/cache.wordfreq.out" "$TMP/"

# compare.py A.json B.json: same functions (by object, file, name), self,
# inclusive, calls; and same totals
cat >"$TMP/compare.py" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert [e["name"] for e in a["events"]] == [e["name"] for e in b["events"]]
assert a["totals"] == b["totals"], (a["totals"], b["totals"])
only = sys.argv[4] if len(sys.argv) > 4 else ""  # object name suffix (and a known file)
mode = sys.argv[3] if len(sys.argv) > 3 else "all"  # all | nocalls | self
def funcs(d):
    return {(f["object"], f["file"], f["name"]): (f["self"], f["inclusive"] if mode != "self" else 0)
            for f in d["functions"]
            if (any(f["self"]) or any(f["inclusive"])) and f["object"].endswith(only)
            and (not only or f["file"] not in ("", "???"))}
def calls(d):
    fs = d["functions"]
    key = lambda i: (fs[i]["object"], fs[i]["file"], fs[i]["name"])
    return {(key(c["caller"]), key(c["callee"])): (c["count"], c["inclusive"]) for c in d["calls"]}
fa, fb = funcs(a), funcs(b)
assert fa == fb, [k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k)][:5]
if mode == "all":
    ca, cb = calls(a), calls(b)
    assert ca == cb, [k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)][:5]
print(len(fa), "functions equal")
EOF
for f in cgx.recurse cg.recurse; do
    conv 0 "" "" --to=callgrind -o "$f.cg" "$f.out"
    conv 0 "" "" --to=json --lines -o "$f.orig.json" "$f.out"
    conv 0 "" "" --to=json --lines -o "$f.back.json" "$f.cg"
    check_py "$f: callgrind round trip keeps every cost and call" \
        "$TMP/compare.py" "$TMP/$f.orig.json" "$TMP/$f.back.json"
    # the per-line costs too
    python3 -c "
import json,sys
a,b=(json.load(open(f)) for f in sys.argv[1:3])
la={(f['object'],f['name']):f.get('lines') for f in a['functions']}
lb={(f['object'],f['name']):f.get('lines') for f in b['functions']}
sys.exit(0 if la==lb else 1)" "$TMP/$f.orig.json" "$TMP/$f.back.json"
    if [ $? = 0 ]; then ok "$f: per-line costs equal after the round trip"; else
        not_ok "$f: per-line costs equal after the round trip"; fi
    (cd "$TMP" && callgrind_annotate "$f.out" | grep "PROGRAM TOTALS") >"$TMP/t1" 2>&1
    (cd "$TMP" && callgrind_annotate "$f.cg" | grep "PROGRAM TOTALS") >"$TMP/t2" 2>&1
    if [ -s "$TMP/t1" ]; then same_text "$f: callgrind_annotate totals equal" "$TMP/t1" "$TMP/t2"; else
        not_ok "$f: callgrind_annotate totals"; fi
done

# cachegrind: from cachegrind (round trip) and from callgrind
conv 0 "" "" --to=cachegrind -o wf.cache cache.wordfreq.out
(cd "$TMP" && cg_annotate cache.wordfreq.out | grep "PROGRAM TOTALS") >"$TMP/t1" 2>&1
(cd "$TMP" && cg_annotate wf.cache | grep "PROGRAM TOTALS") >"$TMP/t2" 2>&1
if [ -s "$TMP/t1" ]; then same_text "cachegrind round trip: cg_annotate totals equal" "$TMP/t1" "$TMP/t2"; else
    not_ok "cachegrind round trip: cg_annotate totals"; fi
conv 0 "" "" --to=json -o wf.orig.json cache.wordfreq.out
conv 0 "" "" --to=json -o wf.back.json wf.cache
check_py "cachegrind round trip keeps every function's cost" \
    "$TMP/compare.py" "$TMP/wf.orig.json" "$TMP/wf.back.json" nocalls
# (callgrind_annotate prints the summary: line, which Callgrind may make larger
# than the sum of the costs; cg_annotate sums the costs: compare with totals:)
conv 0 "" "" --to=cachegrind -o rec.cache cgx.recurse.out
grep '^totals:' "$TMP/cgx.recurse.out" | awk '{print $2}' >"$TMP/t1"
(cd "$TMP" && cg_annotate rec.cache | grep "PROGRAM TOTALS" | awk '{gsub(",", "", $1); print $1}') >"$TMP/t2"
if [ -s "$TMP/t1" ]; then same_text "callgrind -> cachegrind: cg_annotate's Ir total = the totals: line" \
    "$TMP/t1" "$TMP/t2"; else not_ok "callgrind -> cachegrind totals"; fi

# json against tally annotate's inclusive and self columns
run_tally 0 "" "" annotate --inclusive=yes --threshold=100 cg.recurse.out
cp "$TMP/out" "$TMP/ann.incl"
run_tally 0 "" "" annotate --inclusive=no --threshold=100 cg.recurse.out
cp "$TMP/out" "$TMP/ann.self"
cat >"$TMP/json_ann.py" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
def table(path):
    rows = {}
    for ln in open(path):
        m = re.match(r"^\s*([\d,]+) \([^)]*\)\s+(\S+):(\S+) \[", ln)
        if m:
            rows[m.group(3)] = int(m.group(1).replace(",", ""))
    return rows
incl, self_ = table(sys.argv[2]), table(sys.argv[3])
f = {x["name"]: x for x in d["functions"] if x["object"].endswith("/recurse")}
n = 0
for name in ("main", "fib", "leaf", "chain", "is_even", "is_odd"):
    assert f[name]["inclusive"][0] == incl[name], (name, f[name]["inclusive"], incl[name])
    assert f[name]["self"][0] == self_[name], (name, f[name]["self"], self_[name])
    n += 1
print(n, "functions checked")
EOF
conv 0 "" "" --to=json -o rec.json cg.recurse.out
check "json of a real profile is valid" python3 -m json.tool "$TMP/rec.json"
check_py "json self and inclusive = tally annotate's (main fib leaf chain is_even is_odd)" \
    "$TMP/json_ann.py" "$TMP/rec.json" "$TMP/ann.incl" "$TMP/ann.self"
tot=$(grep '^totals:' "$TMP/cgx.recurse.out" | sed 's/^totals: //')
evs=$(grep '^events:' "$TMP/cgx.recurse.out" | sed 's/^events: //')
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
sys.exit(0 if d['totals']==[int(x) for x in sys.argv[2].split()] and [e['name'] for e in d['events']]==sys.argv[3].split() else 1)" \
    "$TMP/rec.json" "$(grep '^totals:' "$TMP/cg.recurse.out" | sed 's/^totals: //')" Ir
if [ $? = 0 ]; then ok "json totals = the file's totals: line"; else not_ok "json totals"; fi
# several inputs are added first
conv 0 "" "" --to=json -o rec2.json cg.recurse.out cg.recurse.out
python3 -c "
import json,sys
a,b=(json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if b['totals']==[2*x for x in a['totals']] else 1)" "$TMP/rec.json" "$TMP/rec2.json"
if [ $? = 0 ]; then ok "two inputs: totals doubled"; else not_ok "two inputs: totals doubled"; fi

# folded from arcs: estimated, said on stderr; the stacks of recurse
conv 0 "" "stacks estimated from call arcs" --to=folded -o rec.folded cg.recurse.out
if [ -z "$why" ]; then ok "folded from call arcs says 'estimated' on stderr"; else not_ok "folded estimated: $why"; fi
total=$(echo "$tot" | awk '{print $1}')
sum=$(awk '{s += $NF} END {print s}' "$TMP/rec.folded")
if [ "$sum" = "$total" ]; then
    ok "folded counts add up to the Ir total exactly ($sum: estimated shares apportioned)"
else not_ok "folded counts: $sum, total $total"; fi
bad=$(awk '{ if ($NF !~ /^[0-9]+$/) print }' "$TMP/rec.folded" | head -n 3)
if [ -z "$bad" ]; then ok "every folded line ends in a count"; else not_ok "folded lines: $bad"; fi
# leaf costs 14 instructions a call; chain calls it 5000 times
check "folded: main;chain;leaf 70000 (5000 calls x 14 Ir)" grep -Eq ";main;chain;leaf 70000$" "$TMP/rec.folded"
check "folded: fib's recursion folded (fib under fib appears once per stack)" \
    sh -c "! grep -Eq ';fib;(.*;)?fib;' '$TMP/rec.folded'"
conv 0 "" "stacks estimated" --to=speedscope -o rec.ss.json cgx.recurse.out
check_py "speedscope of cgx.recurse: 13 events, weights = endValue, ~ totals" \
    "$TMP/speedscope.py" "$TMP/rec.ss.json" "$(echo "$tot" | tr ' ' ',')" estimated
conv 0 "" "stacks estimated" --to=pprof -o rec.pb.gz cgx.recurse.out
check "pprof of cgx.recurse decodes" decode "$TMP/rec.pb.gz"
check_py "pprof of cgx.recurse: 13 sample types, sums ~ totals, function names" \
    "$TMP/pprof.py" "$TMP/rec.pb.gz.txt" "$(echo "$evs" | tr ' ' ',')" "$(echo "$tot" | tr ' ' ',')" \
    estimated Ir main,fib,leaf,chain,is_even,is_odd

# pprof line-level locations of real profiles: per-event sums, per-function
# leaf totals and per-line leaf values against the file's own line costs;
# caller frames at the file's call-site lines; a cachegrind file gives
# one-frame samples whose (function, line) values are the file's line costs
for f in cg.wordfreq cgx.matrix cache.wordfreq; do
    cp "$PROF/$f.out" "$TMP/"
    conv 0 "" "stacks" --to=pprof -o "pl.$f.pb.gz" "$f.out"
    check "pprof lines of $f: decodes" decode "$TMP/pl.$f.pb.gz"
    mode=real
    case $f in cache.*) mode=cache ;; esac
    check_py "pprof lines of $f: sums, functions, lines and call sites agree with the file" \
        "$TMP/pplines.py" "$mode" "$TMP/pl.$f.pb.gz.txt" "$TMP/$f.out"
done

# --- exact stacks of a real run: tally record --contexts=yes -------------
mkdir -p "$TMP/rec"
# ($TALLY may be another build, e.g. ASan, without the tool's lib dir beside it)
if (cd "$TMP/rec" && TALLY_VALGRIND_LIB=$ROOT/build/valgrind/lib "$TALLY" record --contexts=yes -- "$ROOT/examples/recurse" >/dev/null 2>&1); then
    ok "tally record --contexts=yes examples/recurse"
    ctx=$(ls "$TMP"/rec/tally.ctx.*)
    cgo=$(ls "$TMP"/rec/tally.out.*)
    ctot=$(grep '^totals:' "$ctx" | sed 's/^totals: //')
    cevs=$(grep '^events:' "$ctx" | sed 's/^events: //')
    conv 0 "" "stacks exact" --to=folded -o rec/exact.folded "$ctx"
    sum=$(awk '{s += $NF} END {print s}' "$TMP/rec/exact.folded")
    if [ -z "$why" ] && [ "$sum" = "$(echo "$ctot" | awk '{print $1}')" ]; then
        ok "exact folded counts add up to the Ir total exactly ($sum)"
    else not_ok "exact folded: sum $sum, totals $ctot ($why)"; fi
    # 5000 calls of leaf from chain, 4181 from fib(18)'s leaves, 14 Ir each
    check "exact: main;chain;leaf 70000" grep -Eq ";main;chain;leaf 70000$" "$TMP/rec/exact.folded"
    check "exact: main;fib;leaf 58534 (4181 x 14)" grep -Eq ";main;fib;leaf 58534$" "$TMP/rec/exact.folded"
    # whole stacks: is_even(199) -> is_odd(198) -> ... -> 200 frames of the
    # two; fib calling fib directly is one frame
    deep=$(awk '{ $NF = ""; n = split($0, f, ";"); k = 0
                  for (i = 1; i <= n; i++) if (f[i] ~ /^is_(even|odd) *$/) k++
                  if (k > m) m = k } END { print m + 0 }' "$TMP/rec/exact.folded")
    check "exact: mutual recursion kept whole (200 frames of is_even and is_odd: $deep)" \
        test "$deep" = 200
    check "exact: direct self-recursion is one frame (no fib;fib)" \
        sh -c "! grep -q ';fib;fib' '$TMP/rec/exact.folded'"
    conv 0 "" "stacks exact" --to=pprof -o rec/exact.pb.gz "$ctx"
    check "pprof of the recording decodes" decode "$TMP/rec/exact.pb.gz"
    check_py "pprof of the recording: every event sums exactly to its total" \
        "$TMP/pprof.py" "$TMP/rec/exact.pb.gz.txt" "$(echo "$cevs" | tr ' ' ',')" \
        "$(echo "$ctot" | tr ' ' ',')" exact Ir main,fib,leaf,chain
    conv 0 "" "stacks exact" --to=speedscope -o rec/exact.ss.json "$ctx"
    check_py "speedscope of the recording: endValue = each event's total" \
        "$TMP/speedscope.py" "$TMP/rec/exact.ss.json" "$(echo "$ctot" | tr ' ' ',')" exact
    # the contexts file and the callgrind file of the same run agree on self
    # costs (the arcs' inclusive costs differ under recursion: the contexts
    # file's count each activation once)
    conv 0 "" "" --to=json -o rec/ctx.json "$ctx"
    conv 0 "" "" --to=json -o rec/cg.json "$cgo"
    check_py "json: the contexts and callgrind files of one run: same self costs in recurse" \
        "$TMP/compare.py" "$TMP/rec/ctx.json" "$TMP/rec/cg.json" self /examples/recurse
    # Given together, the two files of one run are joined, not added up:
    # the callgrind file's costs (and lines) with the contexts file's tree.
    conv 0 "" "" --to=json --lines -o rec/pair.json "$ctx" "$cgo"
    check "contexts + callgrind file of one run: the totals of one run, not twice" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["totals"] == b["totals"], (a["totals"], b["totals"])
assert sum(len(f["lines"]) for f in a["functions"]) > 50, "no lines"
' "$TMP/rec/pair.json" "$TMP/rec/cg.json"
    conv 0 "" "stacks exact" --to=folded -o rec/pair.folded "$cgo" "$ctx"
    check "contexts + callgrind file of one run: the exact stacks of the contexts file" \
        cmp "$TMP/rec/pair.folded" "$TMP/rec/exact.folded"
    # the same pid and command but other costs: refused, with the function
    python3 - "$cgo" "$TMP/rec/bumped.out" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
# the compressed id of leaf (defined wherever it first appears, fn= or cfn=)
ids = [m.group(1) for l in lines for m in [re.search(r"fn=\((\d+)\) leaf$", l)] if m]
fn, done = None, False
for i, l in enumerate(lines):
    if l.startswith("fn="):
        fn = re.match(r"fn=\((\d+)\)", l).group(1)
    elif fn == ids[0] and re.match(r"^[0-9+*-]\S* \d+", l):
        f = l.split(" ")
        f[1] = str(int(f[1]) + 1)  # one more Ir of leaf's own
        lines[i] = " ".join(f)
        done = True
        break
assert done
open(sys.argv[2], "w").write("\n".join(lines))
EOF
    conv 1 "" "but leaf costs [0-9]+ Ir there and [0-9]+ here: they are not the contexts and callgrind files of one run" \
        --to=folded -o rec/bad.folded "$ctx" rec/bumped.out
    if [ -z "$why" ] && [ ! -e "$TMP/rec/bad.folded" ]; then ok "a pair whose costs differ is refused"
    else not_ok "a pair whose costs differ is refused ($why)"; fi
    # another pid: two runs, added up (estimated stacks, with the warning)
    sed 's/^pid: .*/pid: 1/' "$cgo" >"$TMP/rec/other.out"
    conv 0 "" "not every input has calling contexts" --to=folded -o rec/two.folded "$ctx" rec/other.out
    if [ -z "$why" ]; then ok "contexts + callgrind file of another pid: added up"; else
        not_ok "contexts + callgrind file of another pid: $why"; fi
    # the report of the pair: exact stacks and the annotated source (the
    # contexts file alone has no lines, so no source)
    expect_run "report of the two files of one run" 0 "" "" report -o "$TMP/rec/rep" "$ctx" "$cgo"
    expect_run "report of the contexts file alone" 0 "" "" report -o "$TMP/rec/repc" "$ctx"
    # (the pages' answers are packed: tests/tools/reportcheck.py unpacks them)
    page() { python3 "$ROOT/tests/tools/reportcheck.py" eval "$1" 'json.dumps(s)'; }
    if page "$TMP/rec/rep/index.html" | grep -q 'return x \* 2654435761u % 1000003u;' &&
        ! page "$TMP/rec/repc/index.html" | grep -q 'return x \* 2654435761u % 1000003u;' &&
        page "$TMP/rec/rep/index.html" | grep -q '"kind": "exact"'; then
        ok "report of the pair: exact stacks and recurse.c's annotated source"
    else not_ok "report of the pair: exact stacks and recurse.c's annotated source"; fi
    # threads recorded apart: one thread's contexts do not pair with the
    # callgrind file of all threads; the merged contexts files do
    mkdir -p "$TMP/thr"
    if (cd "$TMP/thr" && TALLY_VALGRIND_LIB=$ROOT/build/valgrind/lib "$TALLY" record -q --cache-sim=no \
        --contexts=yes --separate-threads=yes --out-file=t.out --contexts-out-file=t.ctx \
        -- "$ROOT/examples/complexity/prodcons" >/dev/null 2>&1) && [ -f "$TMP/thr/t.ctx-2" ] &&
        [ -f "$TMP/thr/t.out-02" ]; then
        # the callgrind file of all threads: the per-thread files added up
        expect_run "merge the threads' callgrind files" 0 "" "" merge \
            -o "$TMP/thr/t.out" "$TMP/thr/t.out-01" "$TMP/thr/t.out-02"
        conv 1 "" "the contexts file holds one thread: add the contexts files of every thread first" \
            --to=folded -o thr/one.folded thr/t.ctx-1 thr/t.out
        if [ -z "$why" ]; then ok "one thread's contexts + the callgrind file: refused, saying why"
        else not_ok "one thread's contexts + the callgrind file: $why"; fi
        expect_run "merge the threads' contexts files" 0 "" "" merge --format=contexts \
            -o "$TMP/thr/all.ctx" "$TMP/thr/t.ctx-1" "$TMP/thr/t.ctx-2"
        check "the merged contexts file names no thread" sh -c "! grep -q '^thread:' '$TMP/thr/all.ctx'"
        conv 0 "" "" --to=json -o thr/pair.json thr/all.ctx thr/t.out
        conv 0 "" "" --to=json -o thr/cg.json thr/t.out
        check "every thread's contexts + the callgrind file: joined, the totals of one run" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["totals"] == b["totals"], (a["totals"], b["totals"])' "$TMP/thr/pair.json" "$TMP/thr/cg.json"
    else
        not_ok "tally record --separate-threads=yes --contexts=yes examples/complexity/prodcons"
    fi
    # tally annotate of the pair: the callgrind file's numbers, not twice them
    (cd "$TMP/rec" && "$TALLY" annotate "$ctx" "$cgo" | sed 1,2d >pair.ann &&
        "$TALLY" annotate "$cgo" | sed 1,2d >cg.ann)
    check "annotate of the two files of one run = annotate of the callgrind file" \
        sh -c "test -s '$TMP/rec/cg.ann' && cmp '$TMP/rec/pair.ann' '$TMP/rec/cg.ann'"
    expect_run "merge of the two files of one run warns that it counts twice" 0 "" \
        "contexts and callgrind files of one run: their sum counts every cost twice" \
        merge -o "$TMP/rec/twice.out" "$ctx" "$cgo"
else
    not_ok "tally record --contexts=yes examples/recurse"
fi

# contexts + a callgrind file of another run: the sum has no contexts
sed 's/^pid: .*/pid: 77/' "$TMP/a.cg" >"$TMP/a77.cg"
conv 0 "" "not every input has calling contexts" --to=folded -o mix.folded a.ctx a77.cg
if [ -z "$why" ]; then ok "contexts + callgrind: stacks estimated, with a warning"; else
    not_ok "contexts + callgrind: $why"; fi

# --- go tool pprof (Debian's golang-go): pprof's own reader ----------------
# It must read what tally writes, name the program's file, and show for
# every event the total and each function's flat cost as tally annotate
# (through its JSON) counts it: the self cost of every function, by name.
cat >"$TMP/gotop.py" <<'EOF'
import json, re, sys
from collections import Counter
top, js, event = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(js))
ev = [e["name"] for e in d["events"]].index(event)
want = Counter()
for f in d["functions"]:
    want[f["name"]] += f["self"][ev]
want = {k: v for k, v in want.items() if v}
got, total, rows = Counter(), None, False
for ln in open(top):
    m = re.search(r"accounting for (\d+), [\d.]+% of (\d+) total", ln)
    if m:
        total = int(m.group(2))
    if re.match(r"^\s+flat\s+flat%", ln):
        rows = True
        continue
    if rows:
        t = ln.split(None, 5)
        if len(t) == 6 and int(t[0]):
            got[t[5].rstrip("\n")] += int(t[0])
assert total == d["totals"][ev], (total, d["totals"][ev])
bad = [(k, want.get(k), got.get(k)) for k in set(want) | set(got) if want.get(k) != got.get(k)]
assert not bad, bad[:5]
print("# %s: %d functions, total %d" % (event, len(want), total))
EOF
# With -lines: the flat cost of every (function, file, line) equals the
# line's self cost in tally's JSON (--lines); pprof cleans the paths.
cat >"$TMP/golines.py" <<'EOF'
import json, os, re, sys
from collections import Counter
top, js, event = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(js))
ev = [e["name"] for e in d["events"]].index(event)
want = Counter()
for f in d["functions"]:
    for l in f["lines"]:
        path = l["file"] if l["file"] == "???" else os.path.normpath(l["file"])
        want[(f["name"], path, l["line"])] += l["self"][ev]
want = {k: v for k, v in want.items() if v}
got, rows = Counter(), False
for ln in open(top):
    if re.match(r"^\s+flat\s+flat%", ln):
        rows = True
        continue
    t = ln.rstrip("\n").split(None, 5)
    if rows and len(t) == 6 and int(t[0]):
        name, where = t[5].rsplit(" ", 1)
        m = re.fullmatch(r"(.*):(\d+)", where)
        got[(name, m.group(1), int(m.group(2))) if m else (name, where, 0)] += int(t[0])
bad = [(k, want.get(k), got.get(k)) for k in set(want) | set(got) if want.get(k) != got.get(k)]
assert not bad, (len(bad), sorted(bad, key=str)[:5])
assert sum(1 for k in want if k[2]) > 100, "few lines"
print("# %s: %d lines" % (event, len(want)))
EOF
if command -v go >/dev/null 2>&1; then
    mkdir -p "$TMP/gohome"
    for f in cg.wordfreq cgx.matrix cache.wordfreq; do
        cp "$PROF/$f.out" "$TMP/go.$f.out"
        conv 0 "" "stacks estimated" --to=pprof -o "go.$f.pb.gz" "go.$f.out"
        conv 0 "" "" --to=json --lines -o "go.$f.json" "go.$f.out"
        evs=$(python3 -c "import json,sys; print(' '.join(e['name'] for e in json.load(open(sys.argv[1]))['events'][:3]))" "$TMP/go.$f.json")
        for ev in $evs; do
            if HOME="$TMP/gohome" go tool pprof -top -nodecount=1000000 -nodefraction=0 \
                -edgefraction=0 -sample_index="$ev" "$TMP/go.$f.pb.gz" >"$TMP/go.top" 2>"$TMP/go.err"; then
                [ "$f" = cg.wordfreq ] && cp "$TMP/go.top" "$TMP/go.main.top"
                check_py "go tool pprof -top of $f, $ev: total and every function's flat cost" \
                    "$TMP/gotop.py" "$TMP/go.top" "$TMP/go.$f.json" "$ev"
            else
                not_ok "go tool pprof reads $f ($ev)"
                head -n 5 "$TMP/go.err" | diag
            fi
            if HOME="$TMP/gohome" go tool pprof -top -lines -nodecount=1000000 -nodefraction=0 \
                -edgefraction=0 -sample_index="$ev" "$TMP/go.$f.pb.gz" >"$TMP/go.lines" 2>"$TMP/go.err"; then
                check_py "go tool pprof -top -lines of $f, $ev: every line's flat cost is its self cost" \
                    "$TMP/golines.py" "$TMP/go.lines" "$TMP/go.$f.json" "$ev"
            else
                not_ok "go tool pprof -lines reads $f ($ev)"
                head -n 5 "$TMP/go.err" | diag
            fi
        done
    done
    # the two files of one recording: exact stacks and exact lines together
    if [ -s "$TMP/rec/pair.json" ]; then
        conv 0 "" "stacks exact" --to=pprof -o rec/pair.pb.gz "$ctx" "$cgo"
        for ev in Ir Dr; do
            if HOME="$TMP/gohome" go tool pprof -top -lines -nodecount=1000000 -nodefraction=0 \
                -edgefraction=0 -sample_index="$ev" "$TMP/rec/pair.pb.gz" >"$TMP/go.lines" 2>"$TMP/go.err"; then
                check_py "go tool pprof -lines of a contexts + callgrind pair ($ev): exact stacks, every line exact" \
                    "$TMP/golines.py" "$TMP/go.lines" "$TMP/rec/pair.json" "$ev"
            else
                not_ok "go tool pprof -lines reads the pair ($ev)"
                head -n 5 "$TMP/go.err" | diag
            fi
        done
    fi
    prog=$(sed -n 's/^File: //p' "$TMP/go.main.top")
    if [ "$prog" = wordfreq ]; then ok "go tool pprof: File: is the program (wordfreq)"; else
        not_ok "go tool pprof: File: is the program, not '$prog'"; fi
else
    ok "go tool pprof # SKIP go is not installed (sh scripts/install-deps.sh installs golang-go)"
fi

# --- gmon.out through the gprof analysis ----------------------------------
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles; then
    conv 0 "" "" --to=json -o cyc.json "$GEX/cycles" "$GPROF/cycles.gmon"
    gprof -b -p "$GEX/cycles" "$GPROF/cycles.gmon" >"$TMP/cyc.flat" 2>&1
    python3 -c "
import json,re,sys
d=json.load(open(sys.argv[1]))
assert [e['name'] for e in d['events']]==['Time']
secs=0.0
for ln in open(sys.argv[2]):
    m=re.match(r'^\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s',ln)
    if m: secs+=float(m.group(1))
f={x['name']:x for x in d['functions']}
assert 'main' in f and 'burn' in f
# gprof prints seconds to 0.01: the microseconds agree within 0.01 s per row
assert abs(d['totals'][0]/1e6-secs) <= 0.01*len(d['functions'])+0.01, (d['totals'], secs)
" "$TMP/cyc.json" "$TMP/cyc.flat"
    if [ $? = 0 ]; then ok "gmon.out: Time total = gprof's flat profile seconds"; else
        not_ok "gmon.out: Time total vs gprof"; fi
    conv 0 "" "estimated" --to=folded -o cyc.folded "$GEX/cycles" "$GPROF/cycles.gmon"
    check "gmon.out -> folded: stacks through main" grep -q "^main;" "$TMP/cyc.folded"
else
    not_ok "build the gprof examples"
fi
check_written
echo "1..$TESTN"
