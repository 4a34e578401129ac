#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The mutation sweep: mutants of real profiles through every command.

Each mutant of a real file (callgrind, cachegrind, contexts, aprof, gmon.out)
goes through every command that reads its format, on the tally given (the
ASan+UBSan build in make check and make hostile). Counted:

  crash       the process died of a signal, or exited with a code not 0, 1 or 2
  hang        it did not finish within the time limit
  sanitizer   AddressSanitizer or UndefinedBehaviorSanitizer reported something
  unnamed     it refused the input (exit 1) without a line "tally: MUTANT..." naming
              the mutant (the intact second file of merge and diff does not count)
  leftover    a temporary file (*.tmp*) or an empty report directory was left

Mutations: byte flips, cuts in the middle of a line, duplicated, deleted
and swapped lines, numbers made huge, negative or hexadecimal, NUL bytes,
1000-event lists, id games (an id replaced by another, or by 0) and
self-parented contexts nodes. The mutants are made from a seed, so a run
can be repeated; the mutant of a failure is kept in the work directory.

usage: sweep.py --tally T --mutants N [--seed S] [--timeout SECS] [--work DIR]
                [--gmon-exe EXE] FILE...
Prints the figures, then one line per problem; exit 1 if any.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile


def kind_of(path, data):
    if path.endswith(".gmon") or "fuzz_gmon" in path:
        return "gmon"
    if data.startswith(b"# tally contexts"):
        return "contexts"
    if path.endswith(".aprof") or "fuzz_aprof" in path:
        return "aprof"
    return "profile"


NUM = re.compile(rb"\d+")
ID = re.compile(rb"\((\d+)\)")


def mutate(data, kind, rnd):
    """One mutant of `data` (bytes)."""
    lines = data.split(b"\n")
    how = rnd.choice(["flip", "cut", "dup", "delete", "swap", "number", "nul", "events",
                      "ids", "selfparent", "multi"])
    if how == "multi":
        for _ in range(rnd.randint(2, 5)):
            data = mutate(data, kind, rnd)[0]
        return data, how
    if kind == "gmon" or how == "flip":
        b = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            if b:
                i = rnd.randrange(len(b))
                b[i] = rnd.randrange(256) if kind == "gmon" else b[i] ^ (1 << rnd.randrange(8))
        if kind == "gmon" and rnd.random() < 0.3:
            b = b[: rnd.randrange(len(b) + 1)]
        return bytes(b), how
    if how == "cut":
        i = rnd.randrange(len(data) + 1)
        return data[:i], how
    if how == "dup" and lines:
        i = rnd.randrange(len(lines))
        lines[i:i] = [lines[i]] * rnd.randint(1, 3)
    elif how == "delete" and lines:
        del lines[rnd.randrange(len(lines))]
    elif how == "swap" and len(lines) > 1:
        i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif how == "number":
        i = rnd.randrange(len(lines))
        nums = list(NUM.finditer(lines[i]))
        if nums:
            m = rnd.choice(nums)
            new = rnd.choice([b"18446744073709551615", b"18446744073709551616",
                              b"9223372036854775808", b"99999999999999999999999", b"-1",
                              b"-" + m.group(), b"0x" + m.group(), b"0", b"4294967296"])
            lines[i] = lines[i][: m.start()] + new + lines[i][m.end():]
    elif how == "nul":
        i = rnd.randrange(len(lines))
        j = rnd.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:j] + b"\0" + lines[i][j:]
    elif how == "events":
        ev = b" ".join(b"E%d" % k for k in range(1000))
        for i, l in enumerate(lines):
            if l.startswith(b"events:"):
                lines[i] = b"events: " + ev
                break
        else:
            lines.insert(min(1, len(lines)), b"events: " + ev)
    elif how == "ids":
        i = rnd.randrange(len(lines))
        if kind == "contexts":
            f = lines[i].split(b" ")
            if len(f) > 2:
                f[rnd.randrange(1, min(len(f), 4))] = rnd.choice([b"0", b"1", b"2", b"7"])
                lines[i] = b" ".join(f)
        else:
            ms = list(ID.finditer(lines[i]))
            if ms:
                m = rnd.choice(ms)
                lines[i] = lines[i][: m.start()] + b"(%d)" % rnd.choice([0, 1, 2, 999]) + \
                    lines[i][m.end():]
    elif how == "selfparent":
        xs = [k for k, l in enumerate(lines) if l.startswith(b"x ")]
        if xs:
            i = rnd.choice(xs)
            f = lines[i].split(b" ")
            if len(f) > 2:
                f[2] = f[1]  # its own parent
                lines[i] = b" ".join(f)
    return b"\n".join(lines), how


def commands(kind, f, other, exe):
    """The commands that read a file of this kind: (name, argv after tally, files named)."""
    if kind == "aprof":
        return [("complexity", ["complexity", f]), ("merge", ["merge", f]),
                ("merge2", ["merge", other, f]), ("report", ["report", "-o", "rep", f])]
    if kind == "gmon":
        if not exe:
            return []
        return [("gprof", ["gprof", "-b", exe, f]), ("convert", ["convert", "--to=folded", exe, f]),
                ("flame", ["flame", exe, f]), ("graph", ["graph", exe, f])]
    return [("annotate", ["annotate", f]), ("merge", ["merge", "-o", "m.out", f]),
            ("merge2", ["merge", other, f]), ("diff", ["diff", other, f]),
            ("json", ["convert", "--to=json", "-o", "c.json", f]),
            ("callgrind", ["convert", "--to=callgrind", f]), ("flame", ["flame", f]),
            ("graph", ["graph", f]), ("report", ["report", "-o", "rep", f])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tally", required=True)
    ap.add_argument("--mutants", type=int, default=30)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--work")
    ap.add_argument("--gmon-exe")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="tally-sweep.")
    os.makedirs(work, exist_ok=True)
    rnd = random.Random(a.seed)
    seeds = []
    for path in a.files:
        with open(path, "rb") as fp:
            data = fp.read()
        seeds.append((path, data, kind_of(path, data)))
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    counts = dict(mutants=0, runs=0, refused=0, accepted=0, crash=0, hang=0, sanitizer=0,
                  unnamed=0, leftover=0)
    problems = []
    for n in range(a.mutants):
        path, data, kind = seeds[n % len(seeds)]
        if kind == "gmon" and not a.gmon_exe:
            continue
        mutant, how = mutate(data, kind, rnd)
        counts["mutants"] += 1
        d = os.path.join(work, "m%05d" % n)
        os.makedirs(d)
        name = "mut.%s" % kind
        with open(os.path.join(d, name), "wb") as fp:
            fp.write(mutant)
        other = os.path.basename(path)
        shutil.copy(path, os.path.join(d, other))
        bad_here = False
        for cname, argv in commands(kind, name, other, a.gmon_exe):
            counts["runs"] += 1
            try:
                r = subprocess.run([a.tally] + argv, cwd=d, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   timeout=a.timeout)
                rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                counts["hang"] += 1
                problems.append("hang: %s: %s" % (d, " ".join(argv)))
                bad_here = True
                continue
            what = None
            if "AddressSanitizer" in err or "runtime error:" in err or "LeakSanitizer" in err:
                what = "sanitizer"
            elif rc < 0 or rc not in (0, 1, 2):
                what = "crash"
            if what:
                counts[what] += 1
                problems.append("%s (exit %d): %s: %s\n%s" % (what, rc, d, " ".join(argv),
                                                             err[-600:]))
                bad_here = True
                continue
            if rc == 0:
                counts["accepted"] += 1
            else:
                counts["refused"] += 1
                msgs = [l for l in err.splitlines() if l.startswith("tally: ") and
                        not l.startswith("tally: warning")]
                named = any(l.startswith("tally: " + name) for l in msgs)
                if rc == 1 and not named and other in argv:
                    # the intact file may be refused on its own account (a seed with
                    # odd parts): then the same command on the seed itself says so too
                    again = [other if x == name else x for x in argv]
                    r2 = subprocess.run([a.tally] + again, cwd=d, env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, timeout=a.timeout)
                    m2 = [l for l in r2.stderr.decode("utf-8", "replace").splitlines()
                          if l.startswith("tally: " + other)]
                    named = r2.returncode == 1 and msgs and msgs[-1] in m2
                if rc == 1 and not named:
                    counts["unnamed"] += 1
                    problems.append("unnamed: %s: %s: %s" % (d, " ".join(argv),
                                                             msgs[-1] if msgs else err[-200:]))
                    bad_here = True
            left = [x for x in os.listdir(d) if ".tmp" in x or x.startswith("tally-")]
            if os.path.isdir(os.path.join(d, "rep")) and rc != 0:
                left.append("rep/")
            if left:
                counts["leftover"] += 1
                problems.append("leftover %s: %s: %s" % (left, d, " ".join(argv)))
                bad_here = True
            for x in ("rep",):
                shutil.rmtree(os.path.join(d, x), ignore_errors=True)
        if not bad_here:
            shutil.rmtree(d)
    print("mutants %(mutants)d, runs %(runs)d (accepted %(accepted)d, refused %(refused)d): "
          "crashes %(crash)d, hangs %(hang)d, sanitizer reports %(sanitizer)d, refusals "
          "without a file name %(unnamed)d, leftovers %(leftover)d" % counts)
    for p in problems:
        print(p)
    if not a.work and not problems:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
