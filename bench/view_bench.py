# SPDX-License-Identifier: GPL-2.0-or-later
"""Speed and memory of `tally view` on one profile (bench/view.sh).

    view_bench.py TALLY PROFILE USABLE_S MEDIAN_MS WORST_MS MEMORY_SHARE

Starts `tally view --no-browser PROFILE` and measures, as the page uses
the server:
  - usable: from the start of the process until the page, meta, the first
    60 rows of the table, the first row's function and its source have
    been answered (what the page asks before it shows anything);
  - clicks: for 40 functions spread over the 200 costliest, what a click
    asks (function, source, call graph, flame graph below it, sandwich),
    plus sorting and searching the table: median and worst answer time,
    the call graph's `dot` run included (first click, nothing cached);
  - memory: the server's peak resident memory (VmHWM) against the file;
  - 100 clients at once: `ab -n 2000 -c 100` on the table (when installed).
Prints one line per figure with its target and "met" or "MISSED"."""
import http.client
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.parse


def main():
    tally, prof = sys.argv[1], sys.argv[2]
    usable_s, median_ms, worst_ms, mem_share = (float(x) for x in sys.argv[3:7])
    size = os.path.getsize(prof)
    t0 = time.monotonic()
    p = subprocess.Popen([tally, "view", "--no-browser", prof], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, text=True)
    url = None
    for line in p.stderr:
        m = re.match(r"tally: view at (\S+)", line)
        if m:
            url = m.group(1)
            break
    if not url:
        print("tally view did not start")
        sys.exit(1)
    u = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(u.query)["t"][0]
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)

    def get(path, **q):
        q["t"] = token
        start = time.monotonic()
        conn.request("GET", path + "?" + urllib.parse.urlencode(q))
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError("%s %s: %d %s" % (path, q, r.status, body[:200]))
        return body, (time.monotonic() - start) * 1000

    import json
    get("/")
    get("/api/meta")
    rows = json.loads(get("/api/functions", limit=60)[0])["rows"]
    get("/api/function", id=rows[0]["id"])
    get("/api/source", id=rows[0]["id"])
    usable = time.monotonic() - t0
    top = json.loads(get("/api/functions", limit=200)[0])["rows"]
    picks = top[::5][:40]
    times, worst_of = [], {}
    for r in picks:
        for what, q in (("function", {}), ("source", {}), ("graph", {"up": 2, "down": 2}),
                        ("flame", {}), ("sandwich", {})):
            _, ms = get("/api/" + what, id=r["id"], **q)
            times.append(ms)
            worst_of[what] = max(worst_of.get(what, 0), ms)
    for q in ({"sort": "self"}, {"sort": "name"}, {"q": "(?i)tree"}, {"q": "^f[0-9]+$"},
              {"sort": "calls", "offset": 1000}):
        _, ms = get("/api/functions", limit=60, **q)
        times.append(ms)
        worst_of["functions"] = max(worst_of.get("functions", 0), ms)
    status = open("/proc/%d/status" % p.pid).read()
    hwm = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) * 1024
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) * 1024
    ab = None
    if subprocess.run(["sh", "-c", "command -v ab"], stdout=subprocess.DEVNULL).returncode == 0:
        out = subprocess.run(["ab", "-q", "-n", "2000", "-c", "100",
                              "http://%s:%d/api/functions?t=%s&limit=60" % (u.hostname, u.port,
                                                                            token)],
                             capture_output=True, text=True).stdout
        failed = re.search(r"Failed requests:\s+(\d+)", out)
        non2xx = re.search(r"Non-2xx responses:\s+(\d+)", out)
        rps = re.search(r"Requests per second:\s+([\d.]+)", out)
        ab = (int(failed.group(1)) if failed else -1, int(non2xx.group(1)) if non2xx else 0,
              float(rps.group(1)) if rps else 0)
    p.terminate()
    p.wait()

    def verdict(ok):
        return "met" if ok else "MISSED"
    med = statistics.median(times)
    worst = max(times)
    print("  usable after      %7.2f s     (target <= %g s: %s)" % (usable, usable_s,
                                                                   verdict(usable <= usable_s)))
    print("  clicks: median    %7.1f ms    (target <= %g ms: %s)" % (med, median_ms,
                                                                   verdict(med <= median_ms)))
    print("  clicks: worst     %7.1f ms    (target <= %g ms: %s); %s" % (
        worst, worst_ms, verdict(worst <= worst_ms),
        ", ".join("%s %.0f" % kv for kv in sorted(worst_of.items()))))
    print("  memory: peak      %7.1f MB    = %.3f of the file (target <= %g: %s); serving %.1f MB"
          % (hwm / 1e6, hwm / size, mem_share, verdict(hwm / size <= mem_share), rss / 1e6))
    if ab:
        print("  100 clients:      %d failed, %d not 2xx of 2000, %.0f requests/s (%s)" % (
            ab[0], ab[1], ab[2], verdict(ab[0] == 0 and ab[1] == 0)))


main()
