#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check `tally complexity --format=json` against an independent computation.

usage: complexity_check.py REPORT.aprof JSON [expect NAME=CLASS ...]

Reads the v4 report itself (p lines), and for every routine in the JSON
ranking recomputes: calls, total cost (sum of real sums), share of `k`,
and the best fit of cost = a + b*n^c to (max(n,1), worst cost) by another
method than tally's (a grid over c with a and b by linear least squares,
refined by golden-section search), then compares. Prints one line per
mismatch and exits 1 if there is any.
"""
import json
import math
import sys


def read_report(path):
    routines, names, k = {}, {}, None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "k":
                k = int(t[1])
            elif t[0] == "r":
                rid = int(t[-1])
                name = line[line.index('"') + 1: line.index('" "')]
                names[rid] = name
                routines[name] = []
            elif t[0] == "p":
                rid, n, mn, mx, s, sqr, calls, real = map(int, t[1:9])
                routines[names[rid]].append((n, calls, mn, mx, s, real))
    return routines, k


def fixed_c(xs, ys, c):
    g = [x ** c for x in xs]
    mg, my = sum(g) / len(g), sum(ys) / len(ys)
    sgg = sum((v - mg) ** 2 for v in g)
    if sgg <= 1e-300 * max(1.0, mg * mg):
        return None
    b = sum((gi - mg) * (y - my) for gi, y in zip(g, ys)) / sgg
    a = my - b * mg
    rss = sum((y - a - b * gi) ** 2 for gi, y in zip(g, ys))
    return rss, a, b


def fit(xs, ys):
    best = None
    steps = 2000
    for i in range(1, steps + 1):  # c in (0, 8]: the exponents of these reports
        c = 8.0 * i / steps
        r = fixed_c(xs, ys, c)
        if r and (best is None or r[0] < best[0]):
            best = (r[0], c)
    lo, hi = max(1e-9, best[1] - 0.004), best[1] + 0.004
    phi = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        m1, m2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
        r1, r2 = fixed_c(xs, ys, m1), fixed_c(xs, ys, m2)
        if r1 and r2 and r1[0] < r2[0]:
            hi = m2
        else:
            lo = m1
    c = (lo + hi) / 2
    rss = fixed_c(xs, ys, c)[0]
    my = sum(ys) / len(ys)
    tss = sum((y - my) ** 2 for y in ys)
    return c, 1 - rss / tss


def main():
    report, out = sys.argv[1], sys.argv[2]
    expect = dict(a.split("=", 1) for a in sys.argv[3:])
    routines, k = read_report(report)
    doc = json.load(open(out))
    bad = []
    seen = set()
    for r in doc["ranking"]:
        name = r["name"]
        seen.add(name)
        ts = sorted(routines[name])
        calls = sum(t[1] for t in ts)
        total = sum(t[5] for t in ts)
        if r["calls"] != calls:
            bad.append(f"{name}: calls {r['calls']}, want {calls}")
        if r["cost"] != total:
            bad.append(f"{name}: cost {r['cost']}, want {total}")
        if abs(r["share"] - 100.0 * total / k) > 1e-9:
            bad.append(f"{name}: share {r['share']}, want {100.0 * total / k}")
        if [t["n"] for t in r["tuples"]] != [t[0] for t in ts]:
            bad.append(f"{name}: tuple sizes differ")
        for t, u in zip(r["tuples"], ts):
            if t["worst"] != u[3] or t["best"] != u[2] or abs(t["avg"] - u[4] / u[1]) > 1e-9:
                bad.append(f"{name}: tuple n={u[0]} differs")
        xs = [max(t[0], 1) for t in ts]
        ys = [t[3] for t in ts]
        if len(set(ys)) > 1 and len(set(xs)) >= 3:
            c, r2 = fit(xs, ys)
            if r["fit"]["status"] != "fitted":
                bad.append(f"{name}: not fitted")
            elif abs(r["fit"]["c"] - c) > 0.01 or abs(r["fit"]["r2"] - r2) > 1e-3:
                bad.append(f"{name}: c={r['fit']['c']:.4f} R2={r['fit']['r2']:.5f}, "
                           f"independent fit c={c:.4f} R2={r2:.5f}")
        if name in expect and r["class"] != expect[name]:
            bad.append(f"{name}: class {r['class']}, want {expect[name]}")
    for name in expect:
        if name not in seen:
            bad.append(f"{name}: not in the ranking")
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
