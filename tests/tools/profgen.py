#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Valid callgrind and cachegrind profiles made from a seed (issue 30), for
the differential harness tests/tools/gendiff.py.

    profgen.py callgrind|cachegrind SEED DIR [--oracle] [--size BYTES]

writes DIR/prof.out (callgrind) or DIR/prof.cg (cachegrind) and the source
files it names (some shorter than the lines they cost), and prints the
file's name. As a module: `callgrind(rnd, dir, ...)`, `cachegrind(rnd,
dir, ...)` return the path and what they chose (`Shape`).

What the files use, each chosen at random per file:
  callgrind   events (1 to 13, some of Callgrind's names, some made up),
              positions `line` or `instr line`, absolute and relative
              subpositions (+N, -N, *), name compression ((id) name, then
              (id)) or none, several objects, files and functions (a name
              shared by functions of two objects: one row), inlined code
              (fi=/fe=, back to the function's file), calls (cfi=/cfn=,
              cob=, calls=N TARGET and the call line) in a call graph
              without cycles, jumps (jump=, jcnd=) and their source lines,
              cost lines that leave trailing zero counts out (or every
              count written, with zeros), lines without costs, ties
              (functions of equal cost), counts near 2^63 (then no
              calls: their inclusive sums would pass 2^64), several parts,
              summary: or totals:, header lines (pid:, thread:, cmd:,
              desc:, creator:);
  cachegrind  events, desc: lines, fl=/fn= in any order (a function may
              come back), `.` and short lines, ties, counts near 2^63,
              a function named twice in a file, functions of no count
              line.

--oracle keeps to what the originals read as tally does, so that any
difference is a bug of one side: no hex subpositions, no trailing zero
written in a file that leaves counts out, one part, summary: always (what
docs/tally-annotate.md lists as deliberate differences is never made).
"""
import argparse
import os
import random
import sys

CG_EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
             "Bc", "Bcm", "Bi", "Bim"]
MADE_UP = ["Ge", "AcCost1", "Cyc", "SpLoss1", "sysCount", "Mem"]
NAMES = ["main", "f", "g", "helper", "_init", "malloc", "free", "compute", "parse_line",
         "std::vector<int>::push_back(int const&)", "0x0000000000401000", "run", "loop",
         "operator new(unsigned long)", "qsort", "cmp", "hash", "emit", "read_all", "step"]
FILES = ["a.c", "b.c", "util.h", "lib/x.c", "inc/vec.h", "???", "main.cpp", "z.c"]
OBJS = ["/usr/bin/prog", "/lib/libc.so.6", "/opt/lib/libm y.so", "./plugin.so"]

MAX = 2**64 - 1


class Shape:
    """What a file was made of (for the harness's choices of options)."""

    def __init__(self):
        self.events = []
        self.parts = 1
        self.big = False
        self.calls = False
        self.files = []
        self.total_key = "summary"
        self.include = None  # a folder of sources (for --include)
        self.sources = []  # the file names that have a source file


def counts(rnd, nev, big, scale):
    """One line's counts (a list of nev ints)."""
    out = []
    for _ in range(nev):
        r = rnd.random()
        if big:
            v = rnd.choice([0, 1, 2**62 + rnd.randint(0, 2**40), rnd.randint(1, 2**61),
                            10**15 * rnd.randint(1, 9)])
        elif r < 0.25:
            v = 0
        elif r < 0.4:
            v = rnd.choice([1, 2, 3, 10, 100, 1000])
        else:
            v = rnd.randint(1, scale)
        out.append(v)
    return out


def write_sources(rnd, d, files, maxline, sh):
    """Source files for some of the names (old mtime); some shorter than the lines
    costed; some in a folder `srcdir` (sh.include) that annotate must be told of."""
    if rnd.random() < 0.3:
        sh.include = "srcdir"
    for f in files:
        if f == "???" or rnd.random() < 0.25:
            continue
        path = os.path.join(d, f)
        if sh.include and rnd.random() < 0.5:
            path = os.path.join(d, sh.include, f)
        sh.sources.append(f)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        n = maxline.get(f, 10) + rnd.choice([0, 3, 20]) if rnd.random() < 0.85 else max(1, maxline.get(f, 10) // 2)
        with open(path, "w") as fp:
            for i in range(1, n + 1):
                fp.write("/* %s line %d */ x%d();\n" % (f, i, i))
        os.utime(path, (1577836800, 1577836800))


class Names:
    """Name compression: (id) name the first time, (id) after; or plain names."""

    def __init__(self, rnd, on):
        self.rnd = rnd
        self.on = on
        self.ids = {}

    def ref(self, kind, name):
        if not self.on:
            return name
        k = (kind, name)
        if k in self.ids:
            return "(%d)" % self.ids[k]
        self.ids[k] = len([1 for x in self.ids if x[0] == kind]) + 1
        return "(%d) %s" % (self.ids[k], name)


def callgrind(rnd, d, oracle=False, size=4000):
    """A callgrind file in d; returns (path, Shape)."""
    sh = Shape()
    nev = rnd.choice([1, 1, 2, 3, 5, 9, 13])
    pool = CG_EVENTS[:] if rnd.random() < 0.7 else CG_EVENTS + MADE_UP
    if rnd.random() < 0.7:
        events = pool[:nev] if nev <= len(pool) else pool
    else:
        events = rnd.sample(pool, min(nev, len(pool)))
    nev = len(events)
    sh.events = events
    big = rnd.random() < 0.12
    sh.big = big
    complete = rnd.random() < 0.3  # every count written, zeros too
    instr = rnd.random() < 0.35
    names = Names(rnd, rnd.random() < 0.6)
    nparts = 1 if oracle or rnd.random() < 0.7 else rnd.randint(2, 3)
    sh.parts = nparts
    nfn = max(2, size // 300 + rnd.randint(0, 4))
    objs = rnd.sample(OBJS, rnd.randint(1, len(OBJS)))
    files = rnd.sample(FILES, rnd.randint(1, len(FILES)))
    sh.files = files
    # functions: (obj, file, name, first line); a name may be shared by two objects
    fns = []
    seen = set()
    base = 1
    for i in range(nfn):
        name = rnd.choice(NAMES) if rnd.random() < 0.8 else "fn_%d" % i
        key = (rnd.choice(objs), rnd.choice(files), name)
        if key in seen:
            continue
        seen.add(key)
        fns.append(key + (base,))
        base += 40
    nfn = len(fns)
    sh.calls = not big and nfn > 1 and rnd.random() < 0.8
    # rows are (file, name): calls go to rows first seen later only, so that
    # rows make no cycle either (functions of two objects may share a row)
    rank = {}
    for ob, fl, name, _ in fns:
        rank.setdefault((fl, name), len(rank))
    # lines without costs clear the "every count written" rule (documented)
    jumps = rnd.random() < 0.3 and not (oracle and complete)
    scale = rnd.choice([10, 1000, 10**6, 10**9])
    tie = rnd.random() < 0.4
    lines = []
    maxline = {}
    addr = 0x401000
    sums = [0] * nev

    def fmt_counts(c):
        if complete:
            return " ".join(str(x) for x in c)
        n = len(c)
        while n and c[n - 1] == 0:
            n -= 1
        return " ".join(str(x) for x in c[:n])

    lines += ["# callgrind format", "version: 1", "creator: profgen 1.0"]
    if rnd.random() < 0.6:
        lines.append("pid: %d" % rnd.randint(1, 99999))
    if rnd.random() < 0.3:
        lines.append("thread: %d" % rnd.randint(1, 4))
    lines.append("cmd: ./prog" + rnd.choice(["", " -x", " in.txt 3"]))
    for part in range(1, nparts + 1):
        if part > 1:
            lines.append("")
        lines.append("part: %d" % part)
        if rnd.random() < 0.3:
            lines.append("desc: Trigger: Program termination")
        lines.append("positions: %s" % ("instr line" if instr else "line"))
        lines.append("events: %s" % " ".join(events))
        names = Names(rnd, names.on)  # ids start afresh with every part
        last_line = 0
        last_addr = addr
        order = list(range(nfn))
        rnd.shuffle(order)
        tie_cost = counts(rnd, nev, False, scale) if tie else None
        psums = [0] * nev
        for fi_ in order:
            ob, fl, name, lbase = fns[fi_]
            lines.append("ob=%s" % names.ref("ob", ob))
            lines.append("fl=%s" % names.ref("fl", fl))
            lines.append("fn=%s" % names.ref("fn", name))
            cur_file = fl
            tied = tie and rnd.random() < 0.5
            nl = 1 if tied else rnd.randint(0 if rnd.random() < 0.1 else 1, 6)
            for k in range(nl):
                # maybe inlined code from another file, then back
                if not tied and rnd.random() < 0.15 and len(files) > 1:
                    other = rnd.choice([f for f in files if f != cur_file])
                    lines.append("%s=%s" % (rnd.choice(["fi", "fe"]), names.ref("fl", other)))
                    cur_file = other
                elif cur_file != fl and rnd.random() < 0.5:
                    lines.append("fe=%s" % names.ref("fl", fl))
                    cur_file = fl
                ln = lbase + rnd.randint(0, 30)
                maxline[cur_file] = max(maxline.get(cur_file, 0), ln)
                c = tie_cost if tied else counts(rnd, nev, big, scale)
                if big and any(s + x > 2**63 for s, x in zip(sums, c)):
                    c = [0] * nev
                sums = [s + x for s, x in zip(sums, c)]
                psums = [s + x for s, x in zip(psums, c)]
                pos = position(rnd, instr, ln, last_line, addr, last_addr, oracle)
                last_line, last_addr = ln, addr
                addr += rnd.randint(1, 8)
                if all(x == 0 for x in c) and not complete and rnd.random() < 0.5:
                    lines.append(pos)  # a line without costs
                else:
                    lines.append((pos + " " + fmt_counts(c)).rstrip())
                if jumps and rnd.random() < 0.2:
                    tl = lbase + rnd.randint(0, 30)
                    if rnd.random() < 0.5:
                        lines.append("jump=%d %s" % (rnd.randint(1, 50),
                                                     position(rnd, instr, tl, last_line, addr, last_addr, oracle)))
                    else:
                        e = rnd.randint(1, 50)
                        lines.append("jcnd=%d/%d %s" % (rnd.randint(0, e), e,
                                                        position(rnd, instr, tl, last_line, addr, last_addr, oracle)))
                    lines.append(("* *" if instr else "*") if rnd.random() < 0.5 else
                                 position(rnd, instr, ln, last_line, addr, last_addr, oracle))
                if sh.calls and not tied and cur_file == fl and rnd.random() < 0.35:
                    callees = [j for j in (rnd.randrange(nfn) for _ in range(6))
                               if rank[fns[j][1], fns[j][2]] > rank[fl, name]]
                    if callees:
                        j = rnd.choice(callees)
                        cob, cfl, cname, cbase = fns[j]
                        if cob != ob:
                            lines.append("cob=%s" % names.ref("ob", cob))
                        if cfl != cur_file or rnd.random() < 0.3:
                            lines.append("%s=%s" % (rnd.choice(["cfi", "cfl"]), names.ref("fl", cfl)))
                        lines.append("cfn=%s" % names.ref("fn", cname))
                        tpos = position(rnd, instr, cbase, last_line, addr, last_addr, oracle)
                        lines.append("calls=%d %s" % (rnd.randint(1, 1000), tpos))
                        cl = lbase + rnd.randint(0, 30)
                        maxline[cur_file] = max(maxline.get(cur_file, 0), cl)
                        ic = counts(rnd, nev, False, scale * 10)
                        cpos = position(rnd, instr, cl, last_line, addr, last_addr, oracle)
                        last_line, last_addr = cl, addr
                        lines.append((cpos + " " + fmt_counts(ic)).rstrip())
        total = " ".join(str(s) for s in psums)
        if part == 1:
            sh.total_key = "summary" if oracle or rnd.random() < 0.7 else "totals"
        lines.append("%s: %s" % (sh.total_key, total))
    path = os.path.join(d, "prof.out")
    with open(path, "w") as fp:
        fp.write("\n".join(lines) + "\n")
    write_sources(rnd, d, files, maxline, sh)
    return path, sh


def position(rnd, instr, line, last_line, addr, last_addr, oracle):
    """The subpositions of a line: absolute, relative or '*'."""
    def sub(v, last, hexa):
        r = rnd.random()
        if v == last and r < 0.3:
            return "*"
        if r < 0.55:
            d = v - last
            if hexa and not oracle and rnd.random() < 0.3:
                return ("+0x%x" % d) if d >= 0 else ("-0x%x" % -d)
            return ("+%d" % d) if d >= 0 else ("-%d" % -d)
        return ("0x%x" % v) if hexa else str(v)
    if instr:
        return sub(addr, last_addr, True) + " " + sub(line, last_line, False)
    return sub(line, last_line, False)


def cachegrind(rnd, d, oracle=False, size=3000, events=None, name="prof.cg", plain=False):
    """A cachegrind file in d; returns (path, Shape)."""
    sh = Shape()
    if events is None:
        nev = rnd.choice([1, 2, 3, 4, 9, 13])
        events = CG_EVENTS[:nev] if rnd.random() < 0.7 else rnd.sample(CG_EVENTS + MADE_UP, nev)
    nev = len(events)
    sh.events = events
    big = rnd.random() < 0.12
    sh.big = big
    # '.' and short lines (then no written zeros, in --oracle); plain: for cg_merge,
    # which reads neither, and a desc: line, which it needs
    dotted = not plain and rnd.random() < 0.4
    scale = rnd.choice([10, 1000, 10**6, 10**9])
    files = rnd.sample(FILES, rnd.randint(1, 5))
    sh.files = files
    fnames = rnd.sample(NAMES, rnd.randint(1, 10))
    tie = rnd.random() < 0.4
    tie_cost = counts(rnd, nev, False, scale)
    lines = []
    if plain or rnd.random() < 0.8:  # cg_merge needs one
        lines.append("desc: I1 cache:         32768 B, 64 B, 8-way associative")
    if rnd.random() < 0.3:
        lines.append("desc: generated by profgen")
    lines.append("cmd: ./prog %d" % rnd.randint(0, 9))
    lines.append("events: " + " ".join(events))
    sums = [0] * nev
    maxline = {}
    nblocks = max(1, size // 200)
    for b in range(nblocks):
        fl = rnd.choice(files)
        fn = rnd.choice(fnames)
        lines.append("fl=" + fl)
        lines.append("fn=" + fn)
        if rnd.random() < 0.05:
            continue  # a function of no count line
        for k in range(rnd.randint(1, 6)):
            ln = rnd.randint(1, 60)
            maxline[fl] = max(maxline.get(fl, 0), ln)
            c = tie_cost if tie and k == 0 else counts(rnd, nev, big, scale)
            if big and any(s + x > 2**63 for s, x in zip(sums, c)):
                c = [0] * nev
            if dotted:
                # a prefix of non-zero counts, then '.' or nothing
                n = 0
                while n < nev and c[n] != 0:
                    n += 1
                c = c[:n] + [0] * (nev - n)
                text = [str(x) for x in c[:n]]
                if n < nev and rnd.random() < 0.5:
                    text += ["."] * rnd.randint(1, nev - n)
                if not text and not oracle:
                    text = ["."]
            else:
                text = [str(x) for x in c]
            sums = [s + x for s, x in zip(sums, c)]
            lines.append(" ".join([str(ln)] + text))
    lines.append("summary: " + " ".join(str(s) for s in sums))
    path = os.path.join(d, name)
    with open(path, "w") as fp:
        fp.write("\n".join(lines) + "\n")
    write_sources(rnd, d, files, maxline, sh)
    return path, sh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["callgrind", "cachegrind"])
    ap.add_argument("seed", type=int)
    ap.add_argument("dir")
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--size", type=int, default=4000)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rnd = random.Random(a.seed)
    f = callgrind if a.kind == "callgrind" else cachegrind
    path, _ = f(rnd, a.dir, a.oracle, a.size)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
