#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The differential harness of issue 30: generated valid profiles
(tests/tools/profgen.py) through tally and through the originals, and
through tally's own roads, which must all agree.

usage: gendiff.py --tally T (--files N | --seconds S) [--seed S] [--work DIR]
                  [--checks a,b,...]

Checks (each file goes through every check, or those of --checks):
  annotate-callgrind   tally annotate = callgrind_annotate, an option set
                       drawn at random (--threshold, --show, --sort with
                       per-event thresholds, --inclusive, --tree, --auto,
                       --context, --show-percs)
  annotate-cachegrind  tally annotate = cg_annotate, likewise
  merge                tally merge = cg_merge on two or three cachegrind files
                       (compared as what they say: counts per file, function
                       and line, and the summary)
  diff                 tally diff = cg_diff on two cachegrind files (same)
  roads                tally annotate, all of one file, gives the same text
                       read whole and split (TALLY_READ_SPLIT), from standard
                       input, gzip-compressed, on one CPU (taskset), and the
                       lean --auto=no table the same rows as the full one
                       (callgrind and cachegrind files, every feature of the
                       generator, several parts too)

What docs/tally-annotate.md lists as deliberate differences is not
generated (profgen.py --oracle) or normalised here: rows of equal cost
(ties) are compared as sets (the originals keep Perl's hash order: where
the table is cut inside a tie, only the costs of that last group), the
annotated files as a set (tally orders them by name), and the `<`, `>`
and `=>` lines of equal cost as sets. Where a tie decides more than the
order (cg_annotate stops at the first undefined count, which it sorts
with the counts of 1), the original is run again under other Perl hash
seeds, and tally's report must be one of those it gives.

Prints one line per check: "CHECK: N files, D differences", then one line
per difference with the folder kept for it (WORK/fail-CHECK-SEED: the
inputs, cmd.txt, both outputs); exits 1 when there is one.
"""
import argparse
import difflib
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profgen  # noqa: E402

CHECKS = ["annotate-callgrind", "annotate-cachegrind", "merge", "diff", "roads"]


def run(cmd, cwd, env=None, stdin=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(cmd, cwd=cwd, env=e, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# normalising annotate's text (the deliberate differences of ordering)

CELL_RE = re.compile(r"\s*(\.|-?[\d,]+(?: \(\s*-?[\d.]+%\))?)(?=\s)")
RULE = "-" * 80


def cells(line, ncols):
    """The ncols cost cells at the start of a table line and the rest, or None."""
    out = []
    pos = 0
    for _ in range(ncols):
        m = CELL_RE.match(line, pos)
        if not m:
            return None
        out.append(m.group(1))
        pos = m.end()
    return out, line[pos:].strip()


class Table:
    """The columns of a report: shown events and where the sort events are."""

    def __init__(self, text):
        shown = re.search(r"^Events shown:\s+(.*)$", text, re.M)
        order = re.search(r"^Event sort order:\s+(.*)$", text, re.M)
        self.shown = shown.group(1).split() if shown else []
        sort = order.group(1).split() if order else self.shown
        self.keys = [self.shown.index(e) for e in sort if e in self.shown] or [0]
        # cg_annotate sorts by absolute value, an undefined count as 1
        self.cg = re.search(r"^Data file:", text, re.M) is not None

    def sort_value(self, cell):
        """What the original's sort compares of a cell."""
        n = cell.split(" ")[0].replace(",", "")
        if not self.cg:
            return n
        return "1" if n == "." else n.lstrip("-")

    def key(self, line, mark=None):
        """The sort-key cells of a table line (of kind mark: '<', '>', '*', '=>'), or None."""
        c = cells(line, len(self.shown))
        if not c:
            return None
        rest = c[1]
        if mark is not None and not rest.startswith(mark + " "):
            return None
        if mark is None and rest[:2] in ("< ", "> ", "* ", "=>"):
            return None
        return tuple(self.sort_value(c[0][i]) for i in self.keys)


def sort_runs(lines, keyf, cut_last=False):
    """Runs of consecutive lines of equal key (keyf: key or None) sorted; with
    cut_last, the run at the end of the list stands for its key and length only."""
    out = []
    i = 0
    while i < len(lines):
        k = keyf(lines[i])
        if k is None:
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and keyf(lines[j]) == k:
            j += 1
        run_ = lines[i:j]
        if cut_last and j == len(lines) and len(run_) > 1:
            out.append("<%d of cost %s>" % (len(run_), " ".join(k)))
        else:
            out += sorted(run_)
        i = j
    return out


def normalise_table(lines, t, cut):
    """The function table (rows, or tree blocks separated by blank lines)."""
    if not any(t.key(x, "*") for x in lines):
        body = [x for x in lines if x != ""]
        if cut and t.cg:
            # rows of 1 tie with undefined ones, after which cg_annotate stops
            # (its stop rule gives them 0%): where, its hash order decides
            while body and t.key(body[-1]) and set(t.key(body[-1])) == {"1"}:
                body.pop()
        return sort_runs(body, t.key, cut)
    blocks, cur = [], []
    for x in lines:
        if x == "":
            if cur:
                blocks.append(cur)
            cur = []
        else:
            cur.append(x)
    if cur:
        blocks.append(cur)
    texts = []
    for b in blocks:
        b = sort_runs(b, lambda x: t.key(x, "<"))
        b = sort_runs(b, lambda x: t.key(x, ">"))
        star = [t.key(x, "*") for x in b if t.key(x, "*")]
        texts.append((star[0] if star else None, "\n".join(b)))
    keyed = {tx: k for k, tx in texts}
    return sort_runs([tx for _, tx in texts], lambda tx: keyed[tx], cut)


def normalise(text, cut):
    """The report with ties sorted, annotated files in name order and the
    list of files not found sorted (the deliberate differences of order)."""
    t = Table(text)
    lines = text.split("\n")
    out, files = [], []
    i = 0
    while i < len(lines):
        x = lines[i]
        if x.rstrip().endswith("file:function") and i + 1 < len(lines) and lines[i + 1] == RULE:
            out += [x, RULE]
            j = i + 2
            while j < len(lines) and not (lines[j] == RULE or (lines[j] == "" and j + 1 < len(lines)
                                                               and lines[j + 1] == RULE)):
                j += 1
            out += normalise_table(lines[i + 2:j], t, cut)
            i = j
            continue
        if x.startswith("User annotated:") and x[len("User annotated:"):].strip():
            # the files given, in name order (the originals: Perl's hash order)
            j = i + 1
            while j < len(lines) and lines[j].startswith(" " * 18) and lines[j].strip():
                j += 1
            names = sorted([x[len("User annotated:"):].strip()] + [y.strip() for y in lines[i + 1:j]])
            out += ["User annotated: " + " ".join(names)]
            i = j
            continue
        if x.startswith("The following files chosen for auto-annotation could not be found"):
            out += [x, lines[i + 1]]
            j = i + 2
            while j < len(lines) and lines[j].startswith("  "):
                j += 1
            out += sorted(lines[i + 2:j])
            i = j
            continue
        if x.startswith("-- Auto-annotated source:") or x.startswith("-- User-annotated source:"):
            # to the rule before the next file, or before the count of annotated events
            j = i + 1
            while j < len(lines) and not (lines[j] == RULE and j + 1 < len(lines) and (
                    lines[j + 1].startswith("-- Auto-annotated source:")
                    or lines[j + 1].startswith("-- User-annotated source:")
                    or lines[j + 1].startswith("The following files chosen")
                    or (j + 3 < len(lines) and lines[j + 2] == RULE
                        and lines[j + 3].endswith("events annotated")))):
                j += 1
            sec = sort_runs(lines[i:j], lambda y: t.key(y, "=>"))
            files.append("\n".join(sec))
            i = j
            continue
        out.append(x)
        i += 1
    return "\n".join(out) + "\n== annotated files, in name order ==\n" + "\n".join(sorted(files))


# ---------------------------------------------------------------------------
# cachegrind files as what they say

def cg_content(text, wraps=False):
    """{(file, function, line): counts}, summary, events (zero lines dropped).
    wraps: cg_merge adds in signed 64 bits, so a sum past 2^63-1 prints negative
    (docs/tally-merge.md): such counts are taken modulo 2^64."""
    fix = (lambda v: v % 2**64) if wraps else (lambda v: v)

    def num(x):
        # cg_diff prints large differences as Perl's doubles (2e+15): kept
        # as floats, compared within their precision (same())
        return float(x) if "e" in x else int(x)
    d = {}
    fl = fn = None
    events = summary = None
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            fl = line[3:]
        elif line.startswith("fn="):
            fn = line[3:]
        elif line.startswith("summary:"):
            summary = [fix(num(x)) for x in line.split()[1:]]
        elif line and (line[0].isdigit() or line[0] == "-"):
            parts = line.split()
            c = [0 if x == "." else fix(num(x)) for x in parts[1:]]
            c += [0] * ((len(events) if events else 0) - len(c))
            k = (fl, fn, int(parts[0]))
            old = d.get(k, [0] * len(c))
            d[k] = [fix(a + b) for a, b in zip(old, c)]
    d = {k: v for k, v in d.items() if any(v)}
    return d, summary, events


def same(a, b):
    """cg_content() results equal (a float within a double's precision)."""
    def eq(x, y):
        if isinstance(x, float) or isinstance(y, float):
            return abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1)
        return x == y

    def eqv(u, v):
        return u is None and v is None or (u is not None and v is not None and len(u) == len(v)
                                           and all(eq(x, y) for x, y in zip(u, v)))
    return (a[0].keys() == b[0].keys() and all(eqv(a[0][k], b[0][k]) for k in a[0])
            and eqv(a[1], b[1]) and a[2] == b[2])


# ---------------------------------------------------------------------------

class Harness:
    def __init__(self, a):
        self.tally = os.path.abspath(a.tally)
        self.work = a.work
        self.counts = {c: [0, 0] for c in CHECKS}
        self.problems = []

    def fail(self, check, seed, d, what, a, b, cmd):
        self.counts[check][1] += 1
        keep = os.path.join(self.work, "fail-%s-%d" % (check, seed))
        if os.path.exists(keep):
            shutil.rmtree(keep)
        shutil.copytree(d, keep)
        with open(os.path.join(keep, "cmd.txt"), "w") as fp:
            fp.write(cmd + "\n")
        with open(os.path.join(keep, "expected.txt"), "w") as fp:
            fp.write(a)
        with open(os.path.join(keep, "tally.txt"), "w") as fp:
            fp.write(b)
        diff = list(difflib.unified_diff(a.split("\n"), b.split("\n"), "original", "tally",
                                         n=1, lineterm=""))
        self.problems.append("%s seed %d: %s (%s) in %s\n%s" % (
            check, seed, what, cmd, keep, "\n".join("  " + x for x in diff[:14])))

    def annotate_opts(self, rnd, sh, cachegrind):
        ev = sh.events
        o = []
        if rnd.random() < 0.5:
            if cachegrind:
                o.append("--threshold=%s" % rnd.choice(["0", "0.1", "1", "5", "20", "2.5"]))
            else:
                o.append("--threshold=%s" % rnd.choice(["0", "1", "50", "90", "99", "100", "99.5"]))
        if rnd.random() < 0.3 and len(ev) > 1:
            o.append("--show=" + ",".join(rnd.sample(ev, rnd.randint(1, len(ev)))))
        if rnd.random() < 0.3:
            s = rnd.sample(ev, rnd.randint(1, min(3, len(ev))))
            if not cachegrind and rnd.random() < 0.4:
                s = ["%s:%d" % (e, rnd.choice([10, 50, 99, 100])) for e in s]
            show = [x for x in o if x.startswith("--show=")]
            if show:  # the sort events must be shown
                shown = show[0][7:].split(",")
                s = [x for x in s if x.split(":")[0] in shown] or [shown[0]]
            o.append("--sort=" + ",".join(s))
        if not cachegrind and rnd.random() < 0.3 and not sh.big:
            o.append("--inclusive=yes")
        if not cachegrind and rnd.random() < 0.3:
            o.append("--tree=" + rnd.choice(["caller", "calling", "both", "none"]))
        if rnd.random() < 0.3:
            o.append("--auto=no")
        if rnd.random() < 0.3:
            o.append("--context=%d" % rnd.choice([0, 1, 2, 8, 20]))
        if rnd.random() < 0.2:
            o.append("--show-percs=" + rnd.choice(["yes", "no"]))
        if sh.include and rnd.random() < 0.7:
            o.append("--include=" + sh.include)
        return o

    def check_annotate(self, seed, kind):
        check = "annotate-" + kind
        rnd = random.Random(seed)
        d = tempfile.mkdtemp(dir=self.work)
        try:
            size = rnd.choice([1000, 3000, 10000, 40000])
            if kind == "callgrind":
                path, sh = profgen.callgrind(rnd, d, True, size)
                orig = "callgrind_annotate"
            else:
                path, sh = profgen.cachegrind(rnd, d, True, size)
                orig = "cg_annotate"
            name = os.path.basename(path)
            os.utime(path, (1609459200, 1609459200))
            opts = self.annotate_opts(rnd, sh, kind == "cachegrind")
            # source files named after the profile (user-annotated), found or not
            # (that exist: the originals stop at one they cannot find)
            user = []
            if sh.sources and rnd.random() < 0.2:
                user = rnd.sample(sh.sources, rnd.randint(1, len(sh.sources)))
                if sh.include and any(os.path.exists(os.path.join(d, sh.include, u)) for u in user):
                    if not any(o.startswith("--include=") for o in opts):
                        opts.append("--include=" + sh.include)
            rc1, o1, e1 = run([orig] + opts + [name] + user, d)
            rc2, o2, e2 = run([self.tally, "annotate"] + opts + [name] + user, d)
            self.counts[check][0] += 1
            cmd = " ".join(opts + [name] + user)
            if rc1 != 0:
                self.fail(check, seed, d, "the original failed: " + e1.strip()[:200], o1, o2, cmd)
                return
            if rc2 != 0:
                self.fail(check, seed, d, "tally failed: " + e2.strip()[:200], o1, o2, cmd)
                return
            cut = "--threshold=100" not in opts
            n1, n2 = normalise(o1, cut), normalise(o2, cut)
            # where ties decide, the original's output depends on Perl's hash
            # order (cg_annotate stops at an undefined count, which sorts with
            # 1): tally's must be one of those it gives
            for hs in range(8):
                if n1 == n2:
                    break
                _, o3, _ = run([orig] + opts + [name] + user, d, {"PERL_HASH_SEED": str(hs),
                                                                   "PERL_PERTURB_KEYS": "0"})
                if normalise(o3, cut) == n2:
                    n1 = n2
            if n1 != n2:
                self.fail(check, seed, d, "outputs differ", n1, n2, cmd)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def check_merge_diff(self, seed, check):
        rnd = random.Random(seed)
        d = tempfile.mkdtemp(dir=self.work)
        try:
            n = 2 if check == "diff" else rnd.randint(2, 3)
            events = None
            names = []
            for i in range(n):
                sub = random.Random(seed * 7 + i)
                path, sh = profgen.cachegrind(sub if i else rnd, d, True, rnd.choice([500, 3000]),
                                              events, "p%d.cg" % i, True)
                events = sh.events
                names.append(os.path.basename(path))
            if check == "merge":
                ocmd = ["cg_merge", "-o", "orig.cg"] + names
                tcmd = [self.tally, "merge", "-o", "tally.cg"] + names
            else:
                ocmd = ["cg_diff"] + names
                tcmd = [self.tally, "diff", "-o", "tally.cg"] + names
            rc1, o1, e1 = run(ocmd, d)
            rc2, o2, e2 = run(tcmd, d)
            self.counts[check][0] += 1
            if check == "merge":
                # a sum past 2^64-1 is an error for tally, a wrap for cg_merge
                # (docs/tally-merge.md): tally must refuse it
                tot = None
                for nm in names:
                    with open(os.path.join(d, nm)) as fp:
                        s = cg_content(fp.read())[1]
                    tot = s if tot is None else [x + y for x, y in zip(tot, s)]
                if tot and max(tot) > 2**64 - 1:
                    if rc2 != 1 or "overflow" not in e2:
                        self.fail(check, seed, d, "a sum past 2^64-1 not refused", "", o2 + e2,
                                  " ".join(names))
                    return
            if check == "merge" and rc1 == 0:
                with open(os.path.join(d, "orig.cg")) as fp:
                    o1 = fp.read()
            if rc2 == 0:
                with open(os.path.join(d, "tally.cg")) as fp:
                    o2 = fp.read()
            cmd = " ".join(x if x != self.tally else "tally" for x in tcmd)
            if rc1 != 0 or rc2 != 0:
                self.fail(check, seed, d, "exit %d (original) %d (tally): %s %s" % (
                    rc1, rc2, e1.strip()[:100], e2.strip()[:100]), o1, o2, cmd)
                return
            c1, c2 = cg_content(o1, check == "merge"), cg_content(o2)
            if not same(c1, c2):
                fmt = lambda c: "\n".join("%s %s %s %s" % (k + (v,)) for k, v in sorted(c[0].items())) + \
                    "\nsummary %s events %s\n" % (c[1], c[2])
                self.fail(check, seed, d, "contents differ", fmt(c1), fmt(c2), cmd)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def check_roads(self, seed):
        check = "roads"
        rnd = random.Random(seed)
        d = tempfile.mkdtemp(dir=self.work)
        try:
            # now and then a file of several MB (the split read, the sort and
            # printing on two CPUs)
            size = rnd.choice([2000, 20000, 200000]) if rnd.random() < 0.99 else 8000000
            if rnd.random() < 0.6:
                path, sh = profgen.callgrind(rnd, d, False, size)
            else:
                path, sh = profgen.cachegrind(rnd, d, False, size)
            name = os.path.basename(path)
            opts = ["--threshold=100"] + (["--inclusive=yes"] if rnd.random() < 0.3 and not sh.big else [])
            base = [self.tally, "annotate"] + opts
            self.counts[check][0] += 1
            rc, ref, err = run(base + [name], d)
            if rc != 0:
                self.fail(check, seed, d, "tally failed: " + err.strip()[:200], "", ref, " ".join(opts + [name]))
                return
            with open(path, "rb") as fp:
                data = fp.read()
            with gzip.open(path + ".gz", "wb") as gz:
                gz.write(data)
            with open(os.path.join(d, "crlf"), "wb") as fp:
                fp.write(data.replace(b"\n", b"\r\n"))
            split = str(rnd.choice([1024, 4096, 65536, "off"]))
            roads = [
                ("split read (TALLY_READ_SPLIT=%s)" % split, base + [name], {"TALLY_READ_SPLIT": split}, None, None),
                ("one CPU (taskset -c 0)", ["taskset", "-c", "0"] + base + [name], None, None, None),
                ("gzip", base + [name + ".gz"], None, None, (name + ".gz", name)),
                ("standard input", base + ["-"], None, path, None),
                ("CRLF line ends", base + ["crlf"], None, None, ("crlf", name)),
            ]
            if shutil.which("zstd"):
                run(["zstd", "-q", "-f", name, "-o", name + ".zst"], d)
                roads.append(("zstd", base + [name + ".zst"], None, None, (name + ".zst", name)))
            for what, cmd, env, stdin, rename in roads:
                if stdin:
                    with open(stdin, "rb") as fp:
                        rc, out, err = run(cmd, d, env, fp)
                else:
                    rc, out, err = run(cmd, d, env)
                if rename:
                    out = out.replace(rename[0], rename[1])
                if stdin:
                    out = re.sub(r"'-'|'\(standard input\)'|'<stdin>'", "'%s'" % name, out)
                    out = out.replace("Data file:        -\n", "Data file:        %s\n" % name)
                if rc != 0 or out != ref:
                    self.fail(check, seed, d, what, ref, out + err, " ".join(opts + [name]))
                    return
            # the lean table: the rows of --auto=no are those of --auto=yes, for
            # the file alone and for its sum with a profile of no cost (same events)
            with open(os.path.join(d, "empty"), "w") as fp:
                if name.endswith(".cg"):
                    fp.write("desc: x\ncmd: y\nevents: %s\nsummary: %s\n" % (
                        " ".join(sh.events), " ".join("0" for _ in sh.events)))
                else:
                    fp.write("events: %s\n%s: %s\n" % (" ".join(sh.events), sh.total_key,
                                                        " ".join("0" for _ in sh.events)))

            def cut(t):
                t = t.split("Auto-annotation:")[1].split("\n-- ")[0].split("The following files chosen")[0]
                return re.sub(r"[-\n]*$", "", t.split("\n", 1)[1])
            tables = []
            for files in ([name], ["empty", name], [name, "empty"]):
                for auto in ("no", "yes"):
                    rc, out, err = run(base + ["--auto=" + auto] + files, d)
                    tables.append(("--auto=%s %s" % (auto, " ".join(files)), cut(out) if rc == 0 else err))
            for what, t in tables[1:]:
                if t != tables[0][1]:
                    self.fail(check, seed, d, "rows of %s against %s" % (what, tables[0][0]), tables[0][1], t,
                              " ".join(opts + [name]))
                    return
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def one(self, seed, checks):
        for c in checks:
            if c.startswith("annotate-"):
                self.check_annotate(seed, c[len("annotate-"):])
            elif c in ("merge", "diff"):
                self.check_merge_diff(seed, c)
            else:
                self.check_roads(seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tally", required=True)
    ap.add_argument("--files", type=int, default=0, help="seeds to run (each: every check)")
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default=None)
    ap.add_argument("--checks", default=",".join(CHECKS))
    a = ap.parse_args()
    checks = [c for c in a.checks.split(",") if c]
    for c in checks:
        if c not in CHECKS:
            ap.error("unknown check %s" % c)
    own = a.work is None
    a.work = a.work or tempfile.mkdtemp(prefix="gendiff.")
    os.makedirs(a.work, exist_ok=True)
    h = Harness(a)
    start = time.time()
    seed = a.seed
    while True:
        if a.files and seed - a.seed >= a.files:
            break
        if a.seconds and time.time() - start >= a.seconds:
            break
        if not a.files and not a.seconds:
            break
        h.one(seed, checks)
        seed += 1
    bad = 0
    for c in checks:
        n, k = h.counts[c]
        bad += k
        print("%s: %d files, %d differences" % (c, n, k))
    for p in h.problems:
        print(p)
    if own and not bad:
        shutil.rmtree(a.work, ignore_errors=True)
    elif bad:
        print("kept in %s" % a.work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
