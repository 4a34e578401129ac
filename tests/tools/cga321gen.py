#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Small cachegrind profiles for the cg_annotate 3.21+ layout
(tests/peer/cga321.sh): the shapes that layout treats apart.

    cga321gen.py SEED DIR

writes DIR/p0.cg (and p1.cg, p2.cg: profiles to merge or --diff) and the
source files they name, and prints the arguments to give cg_annotate 3.21+
and `tally annotate --layout=3.21` (options chosen from the seed, then the
profiles). The files use: counts after a bare fl= (<unspecified>), line 0,
lines past the end of a source, negative and short count lines, names
that --mod-filename makes one (v1/x.rs and v2/x.rs, with the same bytes or
not), a file that does not exist, `???`, several desc: and cmd: lines; the
sources end lines with \n, \r\n or \r, may lack the last line end
(cg_annotate then drops a character) and end in a two-byte UTF-8
character; some sources are newer than the profiles.
"""
import os
import random
import sys

EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "Bc", "Bcm", "LongEventNameX"]
FILES = ["src/a.c", "src/b.c", "v1/x.rs", "v2/x.rs", "lib/\u00fc.c", "???", "gone.c", "e.c"]
FUNCS = ["main", "f1", "f2", "g", "h", "zz", "<weird>"]
LINES = ["int x;", "", "  return 0;", "\u00fcn\u00ef c\u00f6d\u00e9 \u20ac", "\tfoo();"]


def source(r, path):
    """A source file of 0 to 40 lines, its line ends chosen at random."""
    n = r.randint(0, 40)
    lines = [r.choice(LINES + ["// " + "z" * r.randint(0, 90)]) for _ in range(n)]
    sep = r.choice(["\n", "\n", "\r\n", "\r"])
    text = sep.join(lines)
    if n and r.random() < 0.6:
        text += sep
    if n and r.random() < 0.2:
        text += "\u00e9"
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def profile(r, events, path):
    """A cachegrind profile whose summary: is the sum of its counts."""
    total = [0] * len(events)
    out = [f"desc: d{r.randint(0, 1)} x " for _ in range(r.randint(0, 2))]
    out.append(f"cmd: prog {r.randint(0, 1)}")
    out.append("events: " + " ".join(events))
    for _ in range(r.randint(1, 10)):
        out.append("fl=" + r.choice(FILES))
        for _ in range(r.randint(0, 3)):
            if r.random() < 0.8:
                out.append("fn=" + r.choice(FUNCS))
            for _ in range(r.randint(0, 6)):
                line = r.choice([0, r.randint(1, 45), r.randint(1, 10)])
                counts = [r.choice([0, r.randint(1, 1000), r.randint(-500, 500),
                                    r.randint(0, 10**6)]) for _ in events]
                if r.random() < 0.2:
                    counts = counts[:r.randint(0, len(counts))]
                for i, c in enumerate(counts):
                    total[i] += c
                out.append(" ".join([str(line)] + [str(c) for c in counts]))
    out.append("summary: " + " ".join(str(t) for t in total))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def options(r, events, nprof):
    opts = []
    if r.random() < 0.3:
        opts.append("--threshold=" + r.choice(["0", "0.5", "1", "3", "0.01", "20"]))
    if r.random() < 0.3:
        opts.append("--context=" + str(r.randint(0, 4)))
    for opt in ("--show=", "--sort="):
        if r.random() < 0.3:
            opts.append(opt + ",".join(r.sample(events, r.randint(1, len(events)))))
    if r.random() < 0.2:
        opts.append("--no-show-percs")
    if r.random() < 0.1:
        opts.append("--no-annotate")
    if r.random() < 0.3:
        opts.append("--mod-filename=s/v[12]/vN/")
    if r.random() < 0.2:
        opts.append("--mod-funcname=s/f[0-9]/fN/")
    if nprof == 2 and r.random() < 0.5:
        opts.append("--diff")
    return opts


def main():
    seed, d = int(sys.argv[1]), sys.argv[2]
    r = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    events = r.sample(EVENTS, r.randint(1, 4))
    for fl in FILES:
        if fl not in ("???", "gone.c"):
            source(r, os.path.join(d, fl))
    if r.random() < 0.5:
        # the two names --mod-filename makes one: the same bytes
        with open(os.path.join(d, "v1/x.rs"), "rb") as f:
            same = f.read()
        with open(os.path.join(d, "v2/x.rs"), "wb") as f:
            f.write(same)
    nprof = r.randint(1, 3)
    profs = [f"p{k}.cg" for k in range(nprof)]
    for p in profs:
        profile(r, events, os.path.join(d, p))
    opts = options(r, events, nprof)
    # some sources newer than the profiles (the warning names each profile)
    base = 1600000000
    for k, p in enumerate(profs):
        os.utime(os.path.join(d, p), (base, base + k))
    for fl in FILES:
        path = os.path.join(d, fl)
        if os.path.exists(path):
            t = base + r.choice([-100, -100, -100, 0, 1, 100])
            os.utime(path, (t, t))
    print(" ".join(opts + profs))


main()
