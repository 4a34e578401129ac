# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks of a running `tally view` server (tests/cli/view.sh).

    viewcheck.py api URL PROFILE.json [FUNCTION-NAME]
        the API's numbers against `tally convert --to=json --lines` of the
        same input: totals, every row of the table (paged), sort orders,
        the regex filter, every function's callers and callees, the source
        lines of FUNCTION-NAME, the flame graph and sandwich sums, the call
        graph's nodes.
    viewcheck.py parts URL A.json B.json SUM.json
        the parts of two inputs: each part alone and their sum (the
        default) against the JSON export of each input and of their sum.
    viewcheck.py threads URL T1.json .. Tn.json SUM.json T1 .. Tn
        the same, and the parts' labels from the profiles' headers.
    viewcheck.py complexity URL COMPLEXITY.json NAME
        the complexity of routine NAME against tally complexity's JSON.
    viewcheck.py compare URL NEW.json BASE.json
        --base: every row's base costs, functions only the base has, the
        order of sort=change, a function's callees in the base, the flame
        graph's base costs and the graph's change labels.
    viewcheck.py hostile URL
        security: the token, the Host header, methods, bodies, paths,
        oversized and malformed requests, then random requests; the server
        must answer each with an error (never a crash, a hang or a file)
        and still answer the page afterwards.

Each check prints "PASS name" or "FAIL name: why"; the shell test turns
them into TAP lines."""
import http.client
import json
import random
import re
import socket
import sys
import urllib.parse

failures = 0


def report(ok, name, why=""):
    global failures
    if ok:
        print("PASS " + name)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, why))
    sys.stdout.flush()


class Server:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.token = urllib.parse.parse_qs(u.query)["t"][0]

    def get(self, path, params=None, token=True, headers=None, method="GET"):
        q = dict(params or {})
        if token:
            q["t"] = self.token
        target = path + ("?" + urllib.parse.urlencode(q) if q else "")
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        c.request(method, target, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, r.getheader("Content-Type", ""), body

    def api(self, what, **params):
        st, ty, body = self.get("/api/" + what, params)
        if st != 200:
            raise RuntimeError("%s %s: %d %s" % (what, params, st, body[:200]))
        return json.loads(body) if "json" in ty else body.decode()

    def raw(self, data, timeout=3):
        """Send bytes as they are; the status line answered, or '' when the
        connection closed (or stayed silent for `timeout` seconds) without
        one."""
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            s.sendall(data)
            got = b""
            while b"\r\n" not in got:
                try:
                    chunk = s.recv(4096)
                except socket.timeout:
                    break
                if not chunk:
                    break
                got += chunk
            return got.split(b"\r\n", 1)[0].decode("latin-1")
        finally:
            s.close()


def num(x):
    return int(x)


def check_api(srv, prof, fname):
    meta = srv.api("meta")
    events = [e["name"] for e in prof["events"]]
    report([e["name"] for e in meta["events"]] == events, "meta: the events", meta["events"])
    report([num(x) for x in meta["totals"]] == prof["totals"], "meta: the totals",
           (meta["totals"], prof["totals"]))
    funcs = {f["id"]: f for f in prof["functions"]}
    callers = {}
    callees = {}
    for a in prof["calls"]:
        callees.setdefault(a["caller"], []).append(a)
        callers.setdefault(a["callee"], []).append(a)
    with_cost = {i for i, f in funcs.items()
                 if any(f["self"]) or i in callers or i in callees}
    # every row, 7 at a time, in every order
    for sort in ("incl", "self", "calls", "name", "obj", "file"):
        rows, off = [], 0
        while True:
            page = srv.api("functions", sort=sort, offset=off, limit=7, ev=len(events) - 1)
            rows += page["rows"]
            off += 7
            if off >= page["total"]:
                break
        ids = [r["id"] for r in rows]
        report(sorted(ids) == sorted(with_cost) and len(set(ids)) == len(ids),
               "functions sort=%s: every function with a cost, once" % sort,
               (len(ids), len(with_cost)))
        ev = len(events) - 1
        key = {"incl": lambda r: -num(r["incl"][ev]), "self": lambda r: -num(r["self"][ev]),
               "calls": lambda r: -r["calls"], "name": lambda r: r["name"].encode(),
               "obj": lambda r: r["obj"].encode(), "file": lambda r: r["file"].encode()}[sort]
        keys = [key(r) for r in rows]
        report(keys == sorted(keys), "functions sort=%s: in order" % sort)
        if sort == "incl":
            bad = [r["name"] for r in rows
                   if [num(x) for x in r["self"]] != funcs[r["id"]]["self"]
                   or [num(x) for x in r["incl"]] != funcs[r["id"]]["inclusive"]
                   or r["name"] != funcs[r["id"]]["name"]
                   or r["obj"] != funcs[r["id"]]["object"]]
            report(not bad, "functions: self and inclusive costs as the JSON export's", bad[:5])
            calls_in = {}
            for a in prof["calls"]:
                rec = a["caller"] == a["callee"] or (
                    funcs[a["caller"]]["cycle"] and
                    funcs[a["caller"]]["cycle"] == funcs[a["callee"]]["cycle"])
                if not rec:
                    calls_in[a["callee"]] = calls_in.get(a["callee"], 0) + a["count"]
            bad = [r["name"] for r in rows if r["calls"] != calls_in.get(r["id"], 0)]
            report(not bad, "functions: calls from outside each recursion", bad[:5])
    allrows = srv.api("functions", limit=5000)
    page = srv.api("functions", offset=2, limit=3)
    report([r["id"] for r in page["rows"]] == [r["id"] for r in allrows["rows"][2:5]],
           "functions: offset and limit")
    # the filter and the matched share
    pat = "^[a-f]"
    got = srv.api("functions", q=pat, limit=5000)
    want = {i for i in with_cost if re.search(pat, funcs[i]["name"])}
    report({r["id"] for r in got["rows"]} == want and got["total"] == len(want),
           "functions q=%s: the rows Python's re finds" % pat)
    share = [sum(funcs[i]["self"][e] for i in want) for e in range(len(events))]
    report([num(x) for x in got["match_self"]] == share, "functions q: the matched self costs")
    st, _, body = srv.get("/api/functions", {"q": "(("})
    report(st == 400 and b"regex" in body, "functions q=((: 400 naming the regex", (st, body))
    # callers and callees of every function
    bad = []
    for i in sorted(with_cost):
        f = srv.api("function", id=i)
        want_in = sorted((a["caller"], a["count"], a["inclusive"]) for a in callers.get(i, []))
        want_out = sorted((a["callee"], a["count"], a["inclusive"]) for a in callees.get(i, []))
        got_in = sorted((c["id"], c["calls"], [num(x) for x in c["incl"]]) for c in f["callers"])
        got_out = sorted((c["id"], c["calls"], [num(x) for x in c["incl"]]) for c in f["callees"])
        if want_in != got_in or want_out != got_out:
            bad.append(funcs[i]["name"])
    report(not bad, "function: callers and callees as the JSON export's calls", bad[:5])
    # the source of one function: per-line self costs as the export's lines
    fid = next(i for i, f in funcs.items() if f["name"] == fname)
    src = srv.api("source", id=fid)
    got = {}
    for fl in src["files"]:
        for ln in fl["lines"]:
            if ln["self"] is not None:
                got[(fl["file"], ln["n"])] = [num(x) for x in ln["self"]]
    want = {(ln["file"], ln["line"]): ln["self"] for ln in funcs[fid].get("lines", [])}
    report(got == want, "source of %s: the self cost of each line" % fname, (got, want))
    texts = [ln for fl in src["files"] for ln in fl["lines"] if ln["text"] is not None]
    report(len(texts) > 0 and src["files"][0]["path"], "source of %s: the text is there" % fname)
    bad = []
    for fl in src["files"]:
        for ln in fl["lines"]:
            if ln["incl"] is None:
                continue
            s = [num(x) for x in (ln["self"] or [0] * len(events))]
            c = [sum(num(k["incl"][e]) for k in ln["calls"]) for e in range(len(events))]
            if [num(x) for x in ln["incl"]] != [a + b for a, b in zip(s, c)]:
                bad.append(ln["n"])
    report(not bad, "source: a line's inclusive cost is its self cost plus its calls'", bad)
    called = sum(k["calls"] for fl in src["files"] for ln in fl["lines"] for k in ln["calls"])
    report(called == sum(a["count"] for a in callees.get(fid, [])),
           "source: the calls under the lines are the function's calls")
    # flame graph: the root holds the total, no node holds less than its children
    fl = srv.api("flame", ev=0)

    def walk(n, bad):
        kids = n[3]
        if sum(k[1] for k in kids) + n[2] > n[1]:
            bad.append(n[0])
        for k in kids:
            walk(k, bad)
    bad = []
    walk(fl["tree"], bad)
    report(fl["tree"][1] == prof["totals"][0] and not bad,
           "flame: the root is the total, children within their parent", bad[:5])
    sw = srv.api("sandwich", id=fid, ev=0)
    report(sw["callees"][1] == sw["callers"][1] and sw["callees"][0] == sw["names"].index(fname),
           "sandwich of %s: callers and callees trees of one cost, rooted at it" % fname)
    for what, ans in (("flame", fl), ("sandwich", sw)):
        bad = [(n, o) for n, i, o in zip(ans["names"], ans["ids"], ans["objs"])
               if ans["objects"][o] != funcs[i]["object"] or funcs[i]["name"] != n]
        report(not bad and len(ans["objs"]) == len(ans["ids"]) and
               len(set(ans["objects"])) == len(ans["objects"]),
               "%s: each name's object (objs into objects, once each) as the JSON export's" % what, bad[:5])
    svg = srv.api("graph", id=fid, ev=0, up=1, down=1)
    ids = {int(x) for x in re.findall(r'<g id="f(\d+)" class="node', svg)}
    want = {fid} | {a["caller"] for a in callers.get(fid, [])} | \
        {a["callee"] for a in callees.get(fid, [])}
    report(ids == want, "graph up=1 down=1: the function, its callers and callees", (ids, want))
    report(re.search(r'<g id="f%d" class="node sel"' % fid, svg) is not None,
           "graph: the selected function is marked")
    box = re.search(r'<g id="f%d" class="node sel">(.*?)</g>' % fid, svg, re.S)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", box.group(1)) if box else []
    report(len(texts) == 3 and texts[0] == fname and "?" not in "".join(texts),
           "graph: a box's lines (name, shares, calls) are lines of their own", texts)
    mid = next(i for i, f in funcs.items() if f["name"] == "main")
    svg = srv.api("graph", id=mid, ev=0, up=1, down=0)
    report(">(below main)<" in svg, "graph: a name in brackets is not folded ((below main))")


def check_hostile(srv):
    def status(st, want, name, body=b""):
        report(st in want, name, "status %s %r" % (st, body[:120]))

    st, _, b = srv.get("/", token=False)
    status(st, (403,), "the page without the token: 403", b)
    st, _, b = srv.get("/api/meta", {"t": srv.token[:-1]}, token=False)
    status(st, (403,), "a token one digit short: 403", b)
    st, _, b = srv.get("/api/meta", {"t": srv.token + "0"}, token=False)
    status(st, (403,), "a token one digit long: 403", b)
    st, ty, b = srv.get("/")
    report(st == 200 and ty.startswith("text/html") and b"<script>" in b, "the page with the token")
    for host in ("evil.example:%d" % srv.port, "127.0.0.1", "127.0.0.1:%d.evil" % srv.port, ""):
        st, _, b = srv.get("/api/meta", headers={"Host": host})
        status(st, (421, 400), "Host %r: refused" % host, b)
    line = srv.raw(b"GET /api/meta?t=%s HTTP/1.0\r\n\r\n" % srv.token.encode())
    report(" 421 " in line or " 400 " in line, "HTTP/1.0 without a Host: refused", line)
    for m in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
        st, _, b = srv.get("/api/meta", method=m)
        status(st, (405,), "%s: 405" % m, b)
    line = srv.raw(b"GET /api/meta?t=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 5\r\n"
                   b"\r\nhello" % (srv.token.encode(), srv.port))
    report(" 413 " in line, "a GET with a body: 413", line)
    for path in ("/etc/passwd", "/../../../../etc/passwd", "/api/../../etc/passwd",
                 "/%2e%2e/%2e%2e/etc/passwd", "/api/meta/../../x", "//api/meta", "/api/",
                 "/api/source/../../etc/passwd", "/index.html", "/api/meta\x00"):
        try:
            st, _, b = srv.get(urllib.parse.quote(path, safe="/%?=&"))
        except Exception as e:  # an answer of the server's own HTTP library
            st, b = -1, str(e).encode()
        report(st in (400, 404) and b"root:" not in b,
               "path %s: no file, an error" % path.replace("\x00", "%00"),
               (st, b[:100]))
    st, _, b = srv.get("/api/functions", {"k%d" % i: "1" for i in range(20)})
    status(st, (400,), "20 arguments: 400", b)
    line = srv.raw(b"GET /api/meta?t=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: %s\r\n\r\n" % (
        srv.token.encode(), srv.port, b"a" * 200000))
    report(line == "" or re.search(r" (4\d\d) ", line), "a 200 KB header: refused", line)
    line = srv.raw(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    report(line == "" or re.search(r" (4\d\d) ", line), "a 100 KB URL: refused", line)
    for what, junk in (("a word", b"GARBAGE\r\n\r\n"), ("binary", b"\x00\xff\xfe\r\n\r\n"),
                       ("a method alone", b"GET\r\n\r\n"),
                       ("HTTP/9.9", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n"),
                       ("empty lines", b"\r\n\r\n\r\n")):
        line = srv.raw(junk)
        report(line == "" or re.search(r" (4\d\d|505) ", line),
               "a malformed request (%s): refused or dropped" % what, line)
    # a request cut short, then closed
    s = socket.create_connection((srv.host, srv.port), timeout=5)
    s.sendall(b"GET /api/meta?t=")
    s.close()
    # random questions: every answer an error or a result, JSON when it says so
    rnd = random.Random(1)
    paths = ["/api/meta", "/api/functions", "/api/function", "/api/source", "/api/graph",
             "/api/flame", "/api/sandwich", "/api/complexity", "/api/x", "/"]
    keys = ["id", "ev", "sort", "dir", "q", "offset", "limit", "up", "down", "parts", "zz"]
    vals = ["0", "1", "-1", "18446744073709551616", "99999999999", "", "a", "%zz", "(?", ".*",
            "incl", "name", "asc", "\u00e9\u4e2d", "1e3", "0x10", " 1", "(a+)+$", "\\", "7" * 300]
    bad = []
    for k in range(400):
        q = {rnd.choice(keys): rnd.choice(vals) for _ in range(rnd.randint(0, 5))}
        p = rnd.choice(paths)
        try:
            st, ty, b = srv.get(p, q)
        except Exception as e:
            bad.append((p, q, str(e)))
            break
        if st not in (200, 400, 404, 422, 503):
            bad.append((p, q, st))
        elif "json" in ty:
            try:
                json.loads(b)
            except ValueError:
                bad.append((p, q, "not JSON"))
    report(not bad, "400 random questions: each answered, JSON when JSON", bad[:3])
    st, _, _ = srv.get("/api/meta")
    report(st == 200, "the server still answers")


def check_parts(srv, jsons, labels=None):
    """jsons: the JSON export of each input, then of their sum; labels:
    the parts' labels, when the test knows them."""
    profs = [json.load(open(j)) for j in jsons]
    meta = srv.api("meta")
    if labels is not None:
        report([p["label"] for p in meta["parts"]] == labels, "the parts' labels",
               [p["label"] for p in meta["parts"]])
    report(len(meta["parts"]) == len(profs) - 1 and meta["selected"] == "all",
           "one per input, every part selected", (meta["parts"], meta["selected"]))
    for i, prof in enumerate(profs):
        sel = {} if i == len(profs) - 1 else {"parts": str(i)}
        what = "the sum" if not sel else "part %d" % i
        m = srv.api("meta", **sel)
        report([num(x) for x in m["totals"]] == prof["totals"], "totals of " + what)
        if sel:
            report([num(x) for x in meta["parts"][i]["totals"]] == prof["totals"],
                   "meta's totals of part %d" % i)
        rows = srv.api("functions", limit=5000, **sel)["rows"]
        byname = {(f["name"], f["object"]): f for f in prof["functions"]}
        bad = [r["name"] for r in rows
               if [num(x) for x in r["self"]] != byname[(r["name"], r["obj"])]["self"]
               or [num(x) for x in r["incl"]] != byname[(r["name"], r["obj"])]["inclusive"]]
        report(not bad, "self and inclusive costs of %s as its JSON export's" % what, bad[:5])
        fl = srv.api("flame", ev=0, **sel)
        report(fl["tree"][1] == prof["totals"][0], "the flame graph of %s holds its total" % what,
               (fl["tree"][1], prof["totals"][0]))
    st, _, b = srv.get("/api/meta", {"parts": "9"})
    report(st == 400 and b"no part" in b, "parts=9: 400", b)
    st, _, b = srv.get("/api/meta", {"parts": "0;1"})
    report(st == 400, "parts=0;1: 400", b)
    if len(meta["parts"]) >= 2:
        a = srv.api("functions", parts="1,0", limit=5)
        b2 = srv.api("functions", parts="0,1", limit=5)
        report(a == b2, "parts=1,0 is parts=0,1")


def check_complexity(srv, cx, name):
    """cx: `tally complexity --format=json --min-share=0 --min-points=1` of the report."""
    meta = srv.api("meta")
    report(meta["complexity"] is True, "meta says there is an aprof report")
    want = next(r for r in cx["ranking"] if r["name"] == name)
    fid = srv.api("functions", q="^%s$" % re.escape(name))["rows"][0]["id"]
    got = srv.api("complexity", id=fid)
    report(got["class"] == want["class"], "the class of %s as tally complexity's" % name,
           (got["class"], want["class"]))
    report([[p[0], p[1], p[2], p[3], p[4]] for p in got["points"]] ==
           [[t["n"], t["worst"], t["avg"], t["best"], t["calls"]] for t in want["tuples"]],
           "the points of %s as tally complexity's" % name)
    report(abs(got["model"]["c"] - want["fit"]["c"]) < 1e-9, "the fitted exponent")
    st, _, b = srv.get("/api/complexity", {"id": srv.api("functions", sort="name")["rows"][0]["id"]})
    report(st in (200, 404), "a function without a routine: an answer", (st, b))


def check_compare(srv, new, base):
    """new, base: JSON exports of the profile and of the base."""
    meta = srv.api("meta")
    report(meta["base"] is not None and [num(x) for x in meta["base"]["totals"]] == base["totals"],
           "meta: the base's totals")
    bkey = {(f["name"], f["object"]): f for f in base["functions"]}
    nkey = {(f["name"], f["object"]): f for f in new["functions"]}
    rows = srv.api("functions", limit=5000, sort="change")["rows"]
    zero = [0] * len(base["totals"])
    bad = [r["name"] for r in rows
           if [num(x) for x in r["base_incl"]] != bkey.get((r["name"], r["obj"]), {}).get(
               "inclusive", zero)
           or [num(x) for x in r["base_self"]] != bkey.get((r["name"], r["obj"]), {}).get(
               "self", zero)]
    report(not bad, "every row's base costs as the base's JSON export's", bad[:5])
    gone = [k for k, f in bkey.items() if k not in nkey and (any(f["self"]) or any(f["inclusive"]))]
    names = {(r["name"], r["obj"]) for r in rows}
    report(gone and all(k in names for k in gone),
           "a function only the base has is a row (its cost went)", gone)
    ch = [num(r["incl"][0]) - num(r["base_incl"][0]) for r in rows]
    report(ch == sorted(ch, reverse=True), "sort=change: the largest growth first")
    up = srv.api("functions", limit=5000, sort="change", dir="asc")["rows"]
    report([r["id"] for r in up] != [r["id"] for r in rows] and
           [num(r["incl"][0]) - num(r["base_incl"][0]) for r in up] == sorted(ch),
           "sort=change dir=asc: the largest fall first")
    f = next(r for r in rows if r["name"] == "main")
    d = srv.api("function", id=f["id"])
    bmain = next(x for x in base["functions"] if x["name"] == "main")
    bcalls = {(base["functions"][a["callee"]]["name"]): a for a in base["calls"]
              if a["caller"] == bmain["id"]}
    bad = [c["name"] for c in d["callees"]
           if [num(x) for x in c["base_incl"]] != bcalls.get(c["name"], {}).get("inclusive", zero)
           or c["base_calls"] != bcalls.get(c["name"], {}).get("count", 0)]
    report(not bad, "main's callees: the base's calls and costs", bad)
    fl = srv.api("flame", ev=0)
    report(fl["base_total"] == base["totals"][0] and fl["tree"][4] == base["totals"][0],
           "flame: the root's base cost is the base's total")
    svg = srv.api("graph", id=f["id"], ev=0)
    report("\u0394" in svg, "graph: the boxes show the change")
    st, _, b = srv.get("/api/functions", {"sort": "change"})
    report(st == 200, "sort=change answers", b[:100])


def main():
    srv = Server(sys.argv[2])
    if sys.argv[1] == "api":
        check_api(srv, json.load(open(sys.argv[3])), sys.argv[4])
    elif sys.argv[1] == "compare":
        check_compare(srv, json.load(open(sys.argv[3])), json.load(open(sys.argv[4])))
    elif sys.argv[1] == "complexity":
        check_complexity(srv, json.load(open(sys.argv[3])), sys.argv[4])
    elif sys.argv[1] == "parts":
        check_parts(srv, sys.argv[3:])
    elif sys.argv[1] == "threads":
        # PROFILE.json ... SUM.json, then the profiles: their thread:, part:
        # and pid: lines make the labels ("thread 2, part 1, pid 42")
        files = sys.argv[3:]
        n = (len(files) - 1) // 2
        labels = []
        for f in files[n + 1:]:
            head = {}
            for line in open(f, errors="replace"):
                m = re.match(r"(thread|part|pid):\s*(\d+)", line)
                if m and m.group(1) not in head:
                    head[m.group(1)] = m.group(2)
                if line.startswith("fn="):
                    break
            labels.append(", ".join("%s %s" % (k, head[k]) for k in ("thread", "part", "pid")
                                    if k in head))
        check_parts(srv, files[:n + 1], labels)
    else:
        check_hostile(srv)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
