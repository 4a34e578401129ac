# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks of the page `tally report` writes (tests/cli/report.sh).

    reportcheck.py eval PAGE EXPR
        print the value of the python expression EXPR, where `s` is the
        page's snapshot (unpacked: base64, then gzip, then JSON) and
        `html` the page's text.
    reportcheck.py server URL PAGE
        every answer the page holds equals the answer of a `tally view`
        server (at URL) started on the same inputs: the meta (but for
        "snapshot"), each shipped row of the function table, and every
        function, source, graph, flame, sandwich and complexity answer,
        the call graphs' SVG text byte for byte.
    reportcheck.py rank PAGE PROFILE.json
        the shipped functions are the ones with the largest inclusive
        share, taking each function's largest share over every event,
        worked out from `tally convert --to=json` of the same input.

Each check prints "PASS name" or "FAIL name: why"."""
import base64
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewcheck  # noqa: E402  (its Server and its PASS/FAIL lines)
from viewcheck import report  # noqa: E402


def snapshot(page):
    html = open(page, encoding="utf-8").read()
    m = re.search(r'<script type="application/octet-stream" id="tally-snapshot" '
                  r'data-encoding="gzip-base64">(.*?)</script>', html, re.S)
    if not m:
        return None, html
    return json.loads(gzip.decompress(base64.b64decode("".join(m.group(1).split())))), html


def split_key(key):
    path, _, q = key.partition("?")
    return path, dict(kv.split("=", 1) for kv in q.split("&")) if q else {}


def check_server(url, s):
    srv = viewcheck.Server(url)

    def get(path, params):
        return srv.get("/api/" + path, params)
    kinds = {}
    for store in ("answers", "svg"):
        for key, want in s[store].items():
            path, params = split_key(key)
            if path == "functions":
                continue
            st, ty, body = get(path, params)
            if path == "meta":
                got = json.loads(body)
                want = dict(want)
                shot = want.pop("snapshot", None)
                ok = st == 200 and got == want and shot is not None
            elif store == "svg":
                ok = st == 200 and body.decode() == want
            else:
                ok = st == 200 and json.loads(body) == want
            k = kinds.setdefault(path, [0, []])
            k[0] += 1
            if not ok:
                k[1].append(key)
    for path, (n, bad) in sorted(kinds.items()):
        report(not bad, "the page's %d %s answers equal the server's" % (n, path), bad[:3])
    # the rows: each one as the server's table has it
    rows, off = {}, 0
    while True:
        st, ty, body = get("functions", {"offset": off, "limit": 5000})
        page = json.loads(body)
        for r in page["rows"]:
            rows[r["id"]] = r
        off += 5000
        if st != 200 or off >= page["total"]:
            break
    shipped = s["answers"]["functions"]["rows"]
    bad = [r["name"] for r in shipped if rows.get(r["id"]) != r]
    report(shipped and not bad, "the page's %d rows equal the server's" % len(shipped), bad[:3])
    report(s["answers"]["functions"]["all"] == s["answers"]["meta"]["nfunctions"],
           "the table counts every function of the profile")


def check_rank(s, prof):
    totals = prof["totals"]
    share = {}
    for f in prof["functions"]:
        share[f["id"]] = max((abs(c) / t if t else 0.0) for c, t in zip(f["inclusive"], totals))
    shipped = [r["id"] for r in s["answers"]["functions"]["rows"]]
    n = len(shipped)
    order = sorted(share, key=lambda i: (-share[i], i))
    cut = share[order[n - 1]] if n else 0
    # a tie at the cut may go either way: the others must be the same
    sure = {i for i in order[:n] if share[i] > cut}
    report(sure <= set(shipped) and all(share[i] >= cut for i in shipped),
           "the %d functions with the largest share are shipped" % n,
           (sorted(shipped), order[:n]))
    shares = [share[i] for i in shipped]
    report(shares == sorted(shares, reverse=True), "shipped in order of share")


def main():
    what = sys.argv[1]
    if what == "eval":
        s, html = snapshot(sys.argv[2])
        print(eval(sys.argv[3], {"s": s, "html": html, "re": re, "json": json}))
        return
    if what == "server":
        s, _ = snapshot(sys.argv[3])
        check_server(sys.argv[2], s)
    elif what == "rank":
        s, _ = snapshot(sys.argv[2])
        check_rank(s, json.load(open(sys.argv[3])))
    sys.exit(1 if viewcheck.failures else 0)


main()
