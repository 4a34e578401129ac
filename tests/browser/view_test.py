# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive the page of `tally view` in headless Chromium with Selenium (tests/browser/view.sh
starts the server and writes the inputs). Prints TAP lines ("ok - ..." / "not ok - ...").

  view_test.py MODE URL JSON PROFILE SHOTPREFIX

URL is the address the server printed; JSON is `tally convert --to=json --lines` of PROFILE,
where every expected number comes from (the call sites of the small profile are read from
PROFILE itself). With VIEW_REPORT=1 in the environment, URL is a page written by tally report
(file://...), which must do the same from the answers it holds. MODE: small (every view, in depth), parts (the parts selector; the JSON of
the second part alone in $VIEW_PART_JSON), base (a comparison with that part as the base),
complexity (a profile with its aprof report), real (a program's profile), many (the virtual
scrolling of a big table).
"""
import json
import os
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

By = None  # selenium's locator names, imported once the browser is there

FAILED = []
SIZES = [(1400, 900), (1024, 700)]
TABS = ["graph", "source", "flame", "icicle", "sandwich", "maps"]


PREFIX = [""]  # the profile's label: every line names it
# URL is a page of tally report (file://): the same application, its answers in the page
REPORT = bool(os.environ.get("VIEW_REPORT"))


def check(name, cond, detail=None):
    if PREFIX[0] and not name.startswith(PREFIX[0]):
        name = PREFIX[0] + ": " + name
    if cond:
        print("ok - " + name)
    else:
        FAILED.append(name)
        print("not ok - " + name)
        if detail is not None:
            for line in str(detail).splitlines()[:30]:
                print("#   " + line)
    return cond


def note(text):
    print("# " + text)


# ---- what the page must show, from tally convert --to=json ----
class Expect:
    def __init__(self, path):
        self.d = json.load(open(path))
        self.funcs = self.d["functions"]
        self.totals = [int(t) for t in self.d["totals"]]
        self.events = [e["name"] for e in self.d["events"]]
        self.calls_in = [0] * len(self.funcs)
        self.callers = [[] for _ in self.funcs]
        self.callees = [[] for _ in self.funcs]
        for c in self.d["calls"]:
            # calls into a function from outside its recursion: not its self-calls, not the
            # calls between members of its cycle
            a, b = self.funcs[c["caller"]], self.funcs[c["callee"]]
            if a["id"] != b["id"] and not (a["cycle"] and a["cycle"] == b["cycle"]):
                self.calls_in[c["callee"]] += c["count"]
            self.callers[c["callee"]].append(c)
            self.callees[c["caller"]].append(c)
        self.by_name = {}
        for f in self.funcs:
            self.by_name.setdefault(f["name"], []).append(f)

    def one(self, name):
        fs = self.by_name.get(name, [])
        return fs[0] if len(fs) == 1 else None

    def pct(self, v, e):
        """the share as the page writes it (TV.pct)"""
        t = self.totals[e]
        p = 100.0 * int(v) / t if t else 0.0
        a = abs(p)
        if 0 < a < 0.01:
            return ("<" if p > 0 else ">-") + "0.01%"
        return ("%.0f" % p if a >= 99.995 or a == 0 else "%.2f" % p) + "%"


def sorted_values(ex, key, ev, desc=True):
    vals = [int(f[key][ev]) if key != "calls" else ex.calls_in[f["id"]] for f in ex.funcs]
    return sorted(vals, reverse=desc)


# ---- the browser ----
class Page:
    def __init__(self, w, h):
        self.b = browser.Browser(w, h)
        self.d = self.b.driver
        self.d.set_script_timeout(30)
        self.size(w, h)

    def size(self, w, h):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def wait(self, script, timeout=10.0, what=None):
        """the value of script once it is truthy, or None after timeout seconds"""
        end = time.time() + timeout
        while True:
            try:
                v = self.js("return (" + script + ");")
            except Exception:  # the page is between two states
                v = None
            if v:
                return v
            if time.time() > end:
                if what:
                    note("waited %.0f s for %s" % (timeout, what))
                return None
            time.sleep(0.05)

    def idle(self, timeout=10.0):
        """no request of the page in flight and nothing busy"""
        self.wait("!document.querySelector('[aria-busy=true]') && "
                  "!document.querySelector('#v-rows .vrow.wait') && "
                  "!/Loading/.test(document.getElementById('v-fn').textContent)", timeout)
        time.sleep(0.25)

    def errors(self):
        """the console's errors since the last call"""
        return self.b.take_errors()

    def shot(self, path):
        self.d.save_screenshot(path)
        with open(path, "rb") as f:
            head = f.read(8)
        return head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 5000

    def state(self):
        h = self.js("return location.hash").lstrip("#")
        return dict(urllib.parse.parse_qsl(h))

    def rows(self):
        return self.js("""return Array.from(document.querySelectorAll('#v-rows .vrow.fn')).map(r => ({
            id: +r.dataset.id, i: +r.dataset.i,
            name: r.querySelector('.c-name').title.split('\\n')[0],
            shown: r.querySelector('.c-name').textContent,
            incl: r.querySelector('.c-incl').dataset.v, self: r.querySelector('.c-self').dataset.v,
            pincl: r.querySelector('.c-incl .p').textContent,
            pself: r.querySelector('.c-self .p').textContent,
            calls: r.querySelector('.c-calls').dataset.v, obj: r.querySelector('.c-obj').title,
            sel: r.classList.contains('sel')}))""")

    def selected(self):
        return self.js("var h = document.getElementById('v-fname'); return h ? h.title : null;")

    def click_row(self, name):
        el = self.js("""return Array.from(document.querySelectorAll('#v-rows .vrow.fn')).find(
            r => r.querySelector('.c-name').title.split('\\n')[0] === arguments[0]) || null""", name)
        if el is None:
            return False
        el.click()
        return True

    def rel(self, which):
        return self.js("""return Array.from(document.querySelectorAll('#v-%s tr[data-id]')).map(tr => ({
            id: +tr.dataset.id, name: tr.title.split('\\n')[0],
            calls: tr.querySelector('td.n').dataset.v, incl: tr.querySelector('td.i').dataset.v}))"""
                       % which)

    def tab(self, name):
        self.d.find_element(By.CSS_SELECTOR, "#v-tabs [data-tab=%s]" % name).click()

    def type_search(self, text, sel="#v-search"):
        el = self.d.find_element(By.CSS_SELECTOR, sel)
        el.clear()
        self.js("arguments[0].value=''; arguments[0].dispatchEvent(new Event('input'))", el)
        if text:
            el.send_keys(text)

    def quit(self):
        self.b.close()


def select_name(p, name, timeout=10):
    return p.wait("document.getElementById('v-fname') && "
                  "document.getElementById('v-fname').title === %s" % json.dumps(name), timeout)


def check_rows(p, ex, ev, what, key="incl"):
    """the rows in sight against the JSON: values, shares, calls, and their order"""
    rows = p.rows()
    bad = []
    for r in rows:
        cands = [f for f in ex.by_name.get(r["name"], [])
                 if str(f["inclusive"][ev]) == r["incl"] and str(f["self"][ev]) == r["self"]]
        if not cands:
            bad.append("%s: incl %s self %s, not in the JSON" % (r["name"], r["incl"], r["self"]))
            continue
        f = cands[0]
        if r["pincl"] != ex.pct(f["inclusive"][ev], ev) or r["pself"] != ex.pct(f["self"][ev], ev):
            bad.append("%s: shares %s %s, expected %s %s" % (
                r["name"], r["pincl"], r["pself"], ex.pct(f["inclusive"][ev], ev), ex.pct(f["self"][ev], ev)))
        if r["calls"] != str(ex.calls_in[f["id"]]):
            bad.append("%s: calls %s, expected %d" % (r["name"], r["calls"], ex.calls_in[f["id"]]))
    check("%s: %d rows with the JSON's self, inclusive, shares and calls" % (what, len(rows)),
          rows and not bad, "\n".join(bad))
    return rows


def check_order(p, ex, key, ev, desc, what):
    rows = p.rows()
    jkey = {"incl": "inclusive", "self": "self", "calls": "calls"}[key]
    got = [int(r[key]) for r in rows]
    want = sorted_values(ex, jkey, ev, desc)
    first = rows[0]["i"] if rows else 0
    check("%s: the rows follow the JSON's %s values, %s" % (what, key, "largest first" if desc else
                                                            "smallest first"),
          got and got == want[first:first + len(got)], "%s\n%s" % (got[:12], want[first:first + 12]))


# ---- the small profile: call sites read from its own lines ----
def call_sites(profile):
    """{caller name: {line: [(callee, calls, [incl...])]}} of an uncompressed callgrind file"""
    out = {}
    fn = None
    pending = None
    for line in open(profile):
        line = line.rstrip("\n")
        if line.startswith("fn="):
            fn = line[3:]
        elif line.startswith("cfn="):
            callee = line[4:]
        elif line.startswith("calls="):
            pending = (callee, int(line.split()[0][6:]))
        elif pending and line[:1].isdigit():
            nums = [int(x) for x in line.split()]
            out.setdefault(fn, {}).setdefault(nums[0], []).append((pending[0], pending[1], nums[1:]))
            pending = None
    return out


def check_callers(p, ex, f, ev, what):
    ok = True
    for which, arcs, other in (("callers", ex.callers[f["id"]], "caller"),
                               ("callees", ex.callees[f["id"]], "callee")):
        got = sorted((r["name"], r["calls"], r["incl"]) for r in p.rel(which))
        want = sorted((ex.funcs[c[other]]["name"], str(c["count"]), str(c["inclusive"][ev]))
                      for c in arcs)
        ok &= check("%s: the %s of %s (%d): names, calls and inclusive cost of the arcs" % (
            what, which, f["name"], len(want)), got == want, "page %s\nJSON %s" % (got, want))
    return ok


def check_graph_click(p, ex, f, what):
    """the call graph around f: its node is selected; a click on a neighbour selects it"""
    p.tab("graph")
    got = p.wait("document.querySelector('#g-body svg g.node#f' + %d)" % p.js(
        "return TV.state.fn"), 20, "the call graph")
    check("%s: the call graph shows %s as the node f<ID> (%s)" % (what, f["name"],
                                                              "found" if got else "missing"), got)
    nodes = p.js("return Array.from(document.querySelectorAll('#g-body svg g.node')).map("
                 "g => [g.id, g.classList.contains('sel'), (g.querySelector('title')||{}).textContent])")
    sel = [n for n in nodes if n[1]]
    check("%s: one node has the class sel, the selected function's" % what,
          len(sel) == 1 and sel[0][0] == "f%d" % p.js("return TV.state.fn"), nodes[:10])
    # no name of the profiles here has a '?': one in a label is a line break escaped away
    odd = p.js("return Array.from(document.querySelectorAll('#g-body svg text')).map(t => t.textContent)"
               ".filter(t => t.indexOf('?') >= 0)")
    check("%s: the call graph's labels have their line breaks (no '?' in %d labels)" % (
        what, p.js("return document.querySelectorAll('#g-body svg text').length")), not odd, odd[:5])
    neigh = [c["caller"] for c in ex.callers[f["id"]] if c["caller"] != f["id"]] + \
        [c["callee"] for c in ex.callees[f["id"]] if c["callee"] != f["id"]]
    names = set(ex.funcs[i]["name"] for i in neigh)
    # a node of a caller or callee of the page's lists (the server's ids)
    near = p.js("return Array.from(document.querySelectorAll('#v-rel tr[data-id]')).map(tr => 'f' + tr.dataset.id)")
    target = None
    for gid, _, title in nodes:
        if gid != "f%d" % p.js("return TV.state.fn") and gid in near:
            target = gid
            break
    if not check("%s: the call graph has a neighbour node to click" % what, target is not None, nodes):
        return
    el = p.d.find_element(By.CSS_SELECTOR, "#g-body svg g.node#%s" % target)
    part = el.find_elements(By.CSS_SELECTOR, "text") or el.find_elements(By.CSS_SELECTOR, "polygon, path")
    p.js("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", el)
    (part[0] if part else el).click()
    want_id = int(target[1:])
    ok = p.wait("TV.state.fn === %d && document.getElementById('v-fname') && "
                "document.getElementById('v-fn').getAttribute('data-id') === '%d'" % (want_id, want_id), 10)
    name = p.selected()
    check("%s: a click on the node %s selects that function (%s), one of %s's neighbours" % (
        what, target, name, f["name"]), ok and name in names, "%s not in %s" % (name, sorted(names)[:10]))
    check("%s: the address follows the graph's click (fn=%d)" % (what, want_id),
          p.state().get("fn") == str(want_id), p.state())


def flame_tree_share(data, rx):
    """the share of the outermost frames whose name matches rx, from the page's flame data"""
    names = data["names"]
    hit = [0]

    def walk(n, under):
        name = names[n[0]] if n[0] >= 0 else None
        m = name is not None and re.search(rx, name)
        if m and not under:
            hit[0] += int(n[1])
            return
        for c in n[3] or []:
            walk(c, under)
    walk(data["tree"], False)
    root = int(data["tree"][1])
    return 100.0 * hit[0] / root if root else 0


def check_maps(p, ex, f, what):
    """the callee map and the caller map of f: boxes inside their parent, siblings apart, each
    child's area its share of the parent's inner box (the parent's own cost left empty), names
    from the JSON's callees and callers, one colour per object, a click selects"""
    p.tab("maps")
    fid = p.js("return TV.state.fn")
    for side in ("callee", "caller"):
        p.js("var s = document.getElementById('m-which'); s.value = '%s'; s.dispatchEvent(new Event('change'))"
             % side)
        ok = p.wait("TV.state.map === '%s' && document.querySelector('#m-body svg.tmap g.tm')" % side, 20,
                    "the %s map" % side)
        p.idle()
        time.sleep(0.2)
        boxes = p.js("""return Array.from(document.querySelectorAll('#m-body svg.tmap g.tm')).map(g => {
            var r = g.querySelector('rect');
            return {i: +g.dataset.i, d: +g.dataset.d, t: +g.dataset.t, id: g.dataset.id === undefined ? null :
                    +g.dataset.id, obj: g.dataset.obj || null, fill: r.getAttribute('fill'),
                    x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'),
                    h: +r.getAttribute('height')}; })""") or []
        if not check("%s: the %s map of %s is drawn (%d boxes)" % (what, side, f["name"], len(boxes)),
                     ok and boxes and boxes[0]["id"] == fid, boxes[:3]):
            continue
        # the parent of each box: the nearest box before it one level up (the drawing order is depth first)
        parent, stack = {}, []
        for b in boxes:
            while stack and stack[-1]["d"] >= b["d"]:
                stack.pop()
            parent[b["i"]] = stack[-1] if stack else None
            stack.append(b)
        pad, head = p.js("return [TV.maps.PAD, TV.maps.HEAD]")
        eps = 0.2
        bad_in, bad_area, bad_overlap = [], [], []
        kids = {}
        for b in boxes:
            q = parent[b["i"]]
            if q is None:
                continue
            kids.setdefault(q["i"], []).append(b)
            if not (b["x"] >= q["x"] + pad - eps and b["y"] >= q["y"] + pad + head - eps and
                    b["x"] + b["w"] <= q["x"] + q["w"] - pad + eps and b["y"] + b["h"] <= q["y"] + q["h"] - pad + eps):
                bad_in.append((b, q))
            inner = (q["w"] - 2 * pad) * (q["h"] - 2 * pad - head)
            # rectangles are written with one decimal: an error of 0.05 on each side
            tol = 0.06 * (b["w"] + b["h"]) + 0.01 * b["w"] * b["h"]
            if abs(b["w"] * b["h"] - inner * b["t"] / q["t"]) > tol:
                bad_area.append((b["w"] * b["h"], inner * b["t"] / q["t"]))
        for sib in kids.values():
            for a in range(len(sib)):
                for c in range(a + 1, len(sib)):
                    x, y = sib[a], sib[c]
                    if (min(x["x"] + x["w"], y["x"] + y["w"]) - max(x["x"], y["x"]) > eps and
                            min(x["y"] + x["h"], y["y"] + y["h"]) - max(x["y"], y["y"]) > eps):
                        bad_overlap.append((x["i"], y["i"]))
        check("%s, %s map: every box inside its parent's inner box" % (what, side), not bad_in, bad_in[:3])
        check("%s, %s map: siblings do not overlap" % (what, side), not bad_overlap, bad_overlap[:3])
        check("%s, %s map: each box's area is its cost's share of its parent's inner box (%d boxes)" % (
            what, side, len(boxes) - 1), not bad_area, bad_area[:3])
        first = [ex.funcs[b["id"]]["name"] for b in kids.get(boxes[0]["i"], []) if b["id"] is not None]
        near = set(ex.funcs[c["callee" if side == "callee" else "caller"]]["name"]
                   for c in (ex.callees if side == "callee" else ex.callers)[f["id"]])
        check("%s, %s map: the boxes inside %s are its %ss (%s)" % (what, side, f["name"], side, first[:5]),
              set(first) <= near, "not %s" % sorted(near)[:10])
        objs = {}
        for b in boxes:
            if b["id"] is not None:
                objs.setdefault(b["obj"], set()).add(re.sub(r",\d+%\)$", ")", b["fill"]))
        want_obj = all(b["obj"] == (ex.funcs[b["id"]]["object"] or "(no object)")
                       for b in boxes if b["id"] is not None)
        hues = [list(v) for v in objs.values()]
        check("%s, %s map: boxes carry their function's object, one hue per object (%d objects)" % (
            what, side, len(objs)), want_obj and all(len(h) == 1 for h in hues) and
            len(set(h[0] for h in hues)) == len(hues), objs)
        legend = p.js("return Array.from(document.querySelectorAll('#m-body .tm-legend span')).map(s => s.textContent)")
        check("%s, %s map: the legend names the objects drawn" % (what, side),
              sorted(legend) == sorted(o or "(no object)" for o in objs), legend)
    # a click on a box with none inside selects its function
    target = p.js("var gs = Array.from(document.querySelectorAll('#m-body g.tm')); var g = gs.find("
                  "(g, j) => g.dataset.id !== undefined && +g.dataset.id !== TV.state.fn && "
                  "(j + 1 === gs.length || +gs[j + 1].dataset.d <= +g.dataset.d) && "
                  "g.querySelector('rect').getAttribute('width') > 20 && "
                  "g.querySelector('rect').getAttribute('height') > 12); return g ? +g.dataset.id : null")
    if target is not None:
        el = [e for e in p.d.find_elements(By.CSS_SELECTOR, "#m-body g.tm[data-id='%d'] > rect" % target)][-1]
        p.js("arguments[0].scrollIntoView({block: 'center'})", el)
        el.click()
        check("%s: a click on a box selects its function (%s)" % (what, ex.funcs[target]["name"]),
              p.wait("TV.state.fn === %d" % target, 10))
        p.d.back()
        p.wait("TV.state.fn === %d" % fid, 10)
    p.js("var s = document.getElementById('m-which'); s.value = 'callee'; s.dispatchEvent(new Event('change'))")
    check("%s: the map is in the address (map=callee)" % what, p.state().get("map") == "callee")


def check_flame(p, ex, ev, what, focus_name, shots=None):
    for tab in ("flame", "icicle"):
        p.tab(tab)
        ok = p.wait("document.querySelector('#p-%s svg.flame g.fr')" % tab, 30, "the " + tab)
        if not check("%s: the %s is drawn (SVG frames)" % (what, tab), ok):
            return
        data = p.js("return TV.flame.data()")
        check("%s: the %s's root is the total of %s (%s)" % (what, tab, ex.events[ev], data["total"]),
              int(data["total"]) == ex.totals[ev] and int(data["tree"][1]) == ex.totals[ev],
              "%s %s" % (data["total"], data["tree"][1]))
        kind = data["kind"]
        notetext = p.js("return document.querySelector('#p-%s .f-note').textContent" % tab)
        check("%s: the %s says when it is estimated (kind %s: %r)" % (what, tab, kind, notetext),
              (kind == "estimated") == ("estimated from the call arcs" in notetext))
        ys = p.js("return Array.from(document.querySelectorAll('#p-%s g.fr')).filter(g => "
                  "g.dataset.i === '0').map(g => +g.querySelector('rect').getAttribute('y'))" % tab)
        svgh = p.js("return +document.querySelector('#p-%s svg.flame').getAttribute('height')" % tab)
        check("%s: the root frame is at the %s" % (what, "bottom" if tab == "flame" else "top"),
              ys and ((ys[0] == 0) if tab == "icicle" else abs(ys[0] + 17 - svgh) < 1), "%s %s" % (ys, svgh))
        # zoom: a click on a frame of focus_name
        fr = p.js("return Array.from(document.querySelectorAll('#p-%s g.fr')).find(g => g.dataset.i !== '0' &&"
                  " g.querySelector('title').textContent.split('\\n')[0] === %s) || null" % (tab, json.dumps(focus_name)))
        if not check("%s: the %s has a frame of %s" % (what, tab, focus_name), fr is not None):
            continue
        p.js("arguments[0].scrollIntoView({block: 'center'})", fr)
        fr.find_element(By.CSS_SELECTOR, "rect").click()
        ok = select_name(p, focus_name)
        width = p.js("return +document.querySelector('#p-%s svg.flame').getAttribute('width')" % tab)
        zw = p.js("""var z = TV.flame.zoom[%r]; var g = document.querySelector('#p-%s g.fr[data-i="' + z + '"] rect');
                     return g ? +g.getAttribute('width') : 0""" % (tab, tab))
        check("%s: a click on a frame of %s in the %s zooms to it (%.0f of %.0f px) and selects it" % (
            what, focus_name, tab, zw, width), ok and zw >= width - 2)
        me = p.js("return document.querySelectorAll('#p-%s g.fr.me').length" % tab)
        check("%s: the selected function's frames are outlined (%d)" % (what, me), me > 0)
        p.d.find_element(By.CSS_SELECTOR, "#p-%s .f-reset" % tab).click()
        time.sleep(0.2)
        check("%s: reset zoom shows the whole %s" % (what, tab), p.js("return TV.flame.zoom[%r]" % tab) == 0)
        # search highlighting and its matched share
        rx = "^" + re.escape(focus_name) + "$"
        p.type_search(rx, "#p-%s .f-search" % tab)
        txt = p.wait("(document.querySelector('#p-%s .f-match').textContent.match(/matched: ([0-9.]+)%%/)"
                     "||[])[1]" % tab, 5)
        hits = p.js("return document.querySelectorAll('#p-%s g.fr.hit').length" % tab)
        want = flame_tree_share(data, rx)
        check("%s: the %s's search highlights %d frames, matched share %s%% (the tree's frames of %s: %.2f%%)"
              % (what, tab, hits, txt, focus_name, want),
              hits > 0 and txt is not None and abs(float(txt) - want) < 0.006)
        f = ex.one(focus_name)
        if f:
            note("%s: %s's inclusive share in the JSON is %.2f%% (the %s's frames: %.2f%%)" % (
                what, focus_name, 100.0 * int(f["inclusive"][ev]) / ex.totals[ev], tab, want))
        p.type_search("", "#p-%s .f-search" % tab)
        p.wait("!document.querySelector('#p-%s g.fr.hit')" % tab, 5)


def shots(p, prefix, what, tabs):
    for w, h in SIZES:
        p.size(w, h)
        time.sleep(0.3)
        for tab in tabs:
            p.tab(tab)
            p.idle(20)
            time.sleep(0.4)
            path = "%s-%s-%d.png" % (prefix, tab, w)
            check("%s: screenshot %s" % (what, os.path.basename(path)), p.shot(path))
        # the table fits: no sideways scrolling, the sort column in sight
        over = p.js("""var s = document.getElementById('v-scroll'), th = document.querySelector('#v-thead .on');
            var r = th ? th.getBoundingClientRect() : null;
            return [document.documentElement.scrollWidth - innerWidth, s.scrollWidth - s.clientWidth,
                    r ? r.left : -1, r ? r.right : 1e9, innerWidth]""")
        check("%s at %dx%d: no sideways scrolling, the sort column's header in sight %s" % (what, w, h, over),
              over[0] <= 0 and over[1] <= 0 and over[2] >= 0 and over[3] <= over[4])
    p.size(*SIZES[0])


def check_source(p, ex, f, sites, ev, what, srcfile):
    p.tab("source")
    ok = p.wait("document.querySelector('#s-body table.src') || document.querySelector('#s-body .err')",
                20, "the source")
    if not check("%s: the source of %s is shown" % (what, f["name"]), ok and not p.js(
            "return document.querySelector('#s-body .err')")):
        return
    lines = p.js("""return Array.from(document.querySelectorAll('#s-body table.src tr[data-n]')).map(tr => ({
        n: +tr.dataset.n, file: tr.closest('table').dataset.file,
        self: tr.querySelector('td.sc').dataset.v || null, incl: tr.querySelector('td.ic').dataset.v || null,
        text: tr.querySelector('td.code').textContent}))""")
    calls = p.js("""return Array.from(document.querySelectorAll('#s-body tr.call')).map(tr => ({
        line: +tr.dataset.line, id: +tr.dataset.id, name: tr.title,
        incl: tr.querySelector('td.ic').dataset.v}))""")
    want_self = {}
    for ln in f.get("lines", []):
        if ln["file"] == f["file"]:  # line 0: costs without a line, shown first
            want_self[ln["line"]] = want_self.get(ln["line"], 0) + int(ln["self"][ev])
    got_self = {ln["n"]: int(ln["self"]) for ln in lines if ln["self"] is not None and ln["file"] == f["file"]}
    check("%s: the self cost of each line of %s (%d lines with cost)" % (what, f["name"], len(want_self)),
          {k: v for k, v in got_self.items() if v} == {k: v for k, v in want_self.items() if v},
          "page %s\nJSON %s" % (got_self, want_self))
    if sites is not None:
        want_incl = dict(want_self)
        want_calls = []
        for n, cs in sites.items():
            for callee, count, cost in cs:
                want_incl[n] = want_incl.get(n, 0) + cost[ev]
                want_calls.append((n, callee, str(cost[ev])))
        got_incl = {ln["n"]: int(ln["incl"]) for ln in lines if ln["incl"] is not None}
        check("%s: the inclusive cost of each line (self + the calls made there)" % what,
              {k: v for k, v in got_incl.items() if v} == {k: v for k, v in want_incl.items() if v},
              "page %s\nexpected %s" % (got_incl, want_incl))
        got_calls = sorted((c["line"], c["name"], c["incl"]) for c in calls)
        check("%s: the calls are listed under their lines" % what, got_calls == sorted(want_calls),
              "page %s\nexpected %s" % (got_calls, sorted(want_calls)))
    if srcfile and os.path.exists(srcfile):
        text = open(srcfile).read().split("\n")
        bad = [ln for ln in lines if ln["file"] == f["file"] and 0 < ln["n"] <= len(text)
               and ln["text"] != text[ln["n"] - 1]]
        check("%s: the source lines are the file's text" % what, lines and not bad, bad[:5])


def check_url_copy(p, url_before, what, expect):
    """the address, opened in a new window, restores the state"""
    url = p.js("return location.href")
    main = p.d.current_window_handle
    p.d.switch_to.new_window("window")
    p.size(*SIZES[0])
    p.d.get(url)
    ok = select_name(p, expect["name"], 20)
    st = p.js("""return {tab: (document.querySelector('#v-tabs [aria-selected=true]')||{}).dataset.tab,
        sort: (document.querySelector('#v-thead .on')||{dataset:{}}).dataset.sort,
        asc: !!document.querySelector('#v-thead .on.asc'), ev: document.getElementById('v-event').value,
        q: document.getElementById('v-search').value}""")
    want = {"tab": expect["tab"], "sort": expect["sort"], "asc": expect["dir"] == "asc",
            "ev": str(expect["ev"]), "q": expect["q"]}
    check("%s: the copied address restores the state in a new window (%s)" % (what, url.split("#")[1]),
          ok and st == want, "got %s\nwant %s, selected %s" % (st, want, p.selected()))
    p.idle()
    errs = p.errors()
    check("%s: no console errors in the new window" % what, not errs, "\n".join(errs))
    p.d.close()
    p.d.switch_to.window(main)


def load(p, url, what, timeout=30):
    t0 = time.time()
    p.d.get(url)
    ok = p.wait("document.querySelector('#v-rows .vrow.fn') && document.getElementById('v-fname')",
                timeout, "the first rows")
    note("%s: the table and the selected function came in %.2f s" % (what, time.time() - t0))
    return ok


def small(p, url, ex, profile, prefix):
    w = "small"
    sites = call_sites(profile)
    srcfile = os.path.join(os.path.dirname(profile), "src.c")
    check("the page loads, with the table and a selected function", load(p, url, w))
    check("the title is the command (%s)" % ex.d["metadata"].get("cmd"),
          p.js("return document.getElementById('v-title').textContent") == ex.d["metadata"].get("cmd"))
    evs = p.js("return Array.from(document.querySelectorAll('#v-event option')).map(o => o.textContent)")
    check("the event selector lists the events %s" % evs, evs == ex.events)
    check_rows(p, ex, 0, w + ", by inclusive Ir")
    check_order(p, ex, "incl", 0, True, w)
    rows = p.rows()
    check("the first row is selected on load (%s)" % rows[0]["name"],
          p.selected() == rows[0]["name"] and rows[0]["sel"] and p.state().get("fn") == str(rows[0]["id"]))
    names = [r["shown"] for r in rows]
    check("the C++ name is folded (%s)" % [n for n in names if "vector" in n],
          "std::vector<…>::push_back(…)" in names, names)
    check("names are text, not markup", p.js("return document.querySelectorAll('#v-rows b').length") == 0)

    work, helper = ex.one("work"), ex.one("helper")
    check("a click on the row of work selects it", p.click_row("work") and select_name(p, "work"))
    rows = p.rows()
    k = [r["name"] for r in rows].index("work")
    p.d.switch_to.active_element.send_keys("\ue015")  # the down arrow
    check("the down arrow selects the next row (%s)" % rows[k + 1]["name"], select_name(p, rows[k + 1]["name"]))
    p.d.switch_to.active_element.send_keys("\ue013")  # the up arrow
    check("the up arrow selects work again", select_name(p, "work"))
    check_callers(p, ex, work, 0, w)
    fn = p.js("return document.getElementById('v-fn').textContent")
    check("the header of work: self and inclusive cost with their shares", (
        "Incl %s (%s)" % ("{:,}".format(work["inclusive"][0]), ex.pct(work["inclusive"][0], 0)) in fn and
        "Self %s (%s)" % ("{:,}".format(work["self"][0]), ex.pct(work["self"][0], 0)) in fn), fn)
    check_source(p, ex, work, sites.get("work", {}), 0, w, srcfile)
    # the server runs with --editor='vscode://file/{path}:{line}'
    links = p.js("return Array.from(document.querySelectorAll('#s-body td.ln a')).map(a => "
                 "[a.closest('tr').dataset.n, a.getAttribute('href')])")
    want = [[n, "vscode://file/%s:%s" % (urllib.parse.quote(srcfile, safe="/-_.~"), n)] for n, _ in links]
    check("the source lines link to the editor of meta.editor (%d links, %s)" % (
        len(links), links[0][1] if links else "none"), links and links == want, "%s\n%s" % (links[:3], want[:3]))
    p.tab("graph")
    # a callee in the list selects it
    p.js("Array.from(document.querySelectorAll('#v-callees tr[data-id]')).find("
         "tr => tr.title.split('\\n')[0] === 'helper').click()")
    check("a click on the callee helper selects it", select_name(p, "helper"))
    check_callers(p, ex, helper, 0, w)
    check("the row of helper is highlighted", [r["name"] for r in p.rows() if r["sel"]] == ["helper"])
    p.d.back()
    check("back restores work", select_name(p, "work") and p.state().get("fn") == str(
        p.js("return TV.state.fn")) and [r["name"] for r in p.rows() if r["sel"]] == ["work"])
    p.d.forward()
    check("forward restores helper", select_name(p, "helper"))
    p.d.back()
    select_name(p, "work")
    check_graph_click(p, ex, work, w)
    sel = p.selected()
    p.d.back()
    check("back after the graph's click restores work (from %s)" % sel, select_name(p, "work"))
    # graph levels
    p.js("var s = document.getElementById('g-down'); s.value = '0'; s.dispatchEvent(new Event('change'))")
    p.wait("TV.state.down === 0")
    time.sleep(0.3)
    p.idle()
    ids = p.js("return Array.from(document.querySelectorAll('#g-body svg g.node')).map(g => g.id)")
    wid = p.js("return TV.state.fn")
    up_ids = set("f%d" % r["id"] for r in p.rows() if r["name"] in
                 set(ex.funcs[c["caller"]]["name"] for c in ex.callers[work["id"]]))
    if REPORT:  # the page holds the graphs of 2 levels up and down only, and says so
        msg = p.js("return (document.querySelector('#g-body .err')||{}).textContent")
        check("callees 0: 'not in this report' (%r)" % msg, msg and "not in this report" in msg)
    else:
        check("callees 0: the call graph shows work and its callers only (%s)" % ids,
              ids and set(ids) == up_ids | {"f%d" % wid}, "want %s" % sorted(up_ids | {"f%d" % wid}))
    check("the levels are in the address (down=0)", p.state().get("down") == "0")
    check_flame(p, ex, 0, w, "work")
    check_maps(p, ex, work, w)
    # the flame graph under the selected function (api/flame?id=): its root is work's cost
    select_name(p, "work")
    p.tab("flame")
    p.d.find_element(By.CSS_SELECTOR, "#p-flame .f-focus").click()
    ok = p.wait("/under work/.test(document.querySelector('#p-flame .f-note').textContent) && "
                "TV.flame.data() && TV.state.ff !== null", 10, "the flame graph under work")
    data = p.js("return TV.flame.data()")
    check("'Under the selection': the flame graph's root is work, inclusive %d (%s)" % (
        work["inclusive"][0], data["tree"][1] if data else None),
        ok and int(data["tree"][1]) == int(work["inclusive"][0]) and p.state().get("ff") == str(
            p.js("return TV.state.fn")))
    p.d.find_element(By.CSS_SELECTOR, "#p-flame .f-focus").click()
    ok = p.wait("TV.state.ff === null && TV.flame.data() && +TV.flame.data().tree[1] === %d" % ex.totals[0], 10)
    check("'The whole program' brings the whole flame graph back", ok)
    # sandwich of helper
    p.js("TV.select(%d, 'push')" % p.js("return +document.querySelector('#v-callees tr[data-id]').dataset.id"))
    select_name(p, "helper")
    p.tab("sandwich")
    ok = p.wait("document.querySelectorAll('#w-body svg.flame').length === 2", 20, "the sandwich")
    got = p.js("""return Array.from(document.querySelectorAll('#w-body .wsec')).map(s => [s.dataset.side,
        Array.from(s.querySelectorAll('g.fr title')).map(t => t.textContent.split('\\n')[0])])""") or []
    side = dict((s, set(n)) for s, n in got)
    want_callers = set(ex.funcs[c["caller"]]["name"] for c in ex.callers[helper["id"]])
    check("the sandwich of helper: callers above %s, helper at the root" % sorted(want_callers),
          ok and want_callers <= side.get("callers", set()) and "helper" in side.get("callers", set()),
          got)
    fr = p.js("return Array.from(document.querySelectorAll('#w-body .wsec[data-side=callers] g.fr')).find("
              "g => g.querySelector('title').textContent.split('\\n')[0] === 'work') || null")
    if fr is not None:
        fr.find_element(By.CSS_SELECTOR, "rect").click()
        check("a click in the sandwich selects work", select_name(p, "work"))
    # the event, the sort, the search
    p.js("var s = document.getElementById('v-event'); s.value = '1'; s.dispatchEvent(new Event('change'))")
    p.wait("document.querySelector('#v-thead .c-incl').textContent === 'Incl Dr'")
    p.idle()
    check_rows(p, ex, 1, w + ", by inclusive Dr")
    check_order(p, ex, "incl", 1, True, w + " Dr")
    fn = p.js("return document.getElementById('v-fn').textContent")
    check("the header of work follows the event (Dr)",
          "Incl %s (%s)" % ("{:,}".format(work["inclusive"][1]), ex.pct(work["inclusive"][1], 1)) in fn, fn)
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=self]").click()
    p.wait("document.querySelector('#v-thead .on').dataset.sort === 'self'")
    p.idle()
    check_order(p, ex, "self", 1, True, w + " by self Dr")
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=self]").click()
    p.wait("document.querySelector('#v-thead .on.asc')")
    p.idle()
    check_order(p, ex, "self", 1, False, w + " by self Dr, second click")
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=calls]").click()
    p.wait("document.querySelector('#v-thead .on').dataset.sort === 'calls'")
    p.idle()
    check_order(p, ex, "calls", 1, True, w + " by calls")
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=self]").click()
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=self]").click()
    p.wait("document.querySelector('#v-thead .on.asc')")
    rx = "^(work|helper)$"
    p.type_search(rx)
    p.wait("TV.state.q === %s && document.querySelectorAll('#v-rows .vrow.fn').length === 2" % json.dumps(rx))
    p.idle()
    got = sorted(r["name"] for r in p.rows())
    want = sorted(f["name"] for f in ex.funcs if re.search(rx, f["name"]))
    check("the search %s keeps %s" % (rx, want), got == want, got)
    ms = sum(int(f["self"][1]) for f in ex.funcs if re.search(rx, f["name"]))
    mt = p.js("return document.getElementById('v-match').textContent")
    check("the search shows the matched share (%s)" % mt, ("self " + ex.pct(ms, 1)) in mt and
          ("2 of %d functions" % len(ex.funcs)) in mt)
    p.tab("source")
    p.idle()
    check_url_copy(p, url, w, {"name": "work", "tab": "source", "sort": "self", "dir": "asc", "ev": 1, "q": rx})
    p.type_search("")
    p.wait("document.querySelectorAll('#v-rows .vrow.fn').length === %d" % len(ex.funcs))
    p.js("var s = document.getElementById('v-event'); s.value = '0'; s.dispatchEvent(new Event('change'))")
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=incl]").click()
    p.idle()
    shots(p, prefix, w, TABS)
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))
    if REPORT:
        report_left_out(p, ex)
    else:
        errors_shown(p, url)


def report_left_out(p, ex):
    """a page of tally report says what it holds, and what it left out where it is asked for
    (the page was written with --max-graphs=2: the call graphs of the two costliest functions)"""
    note_text = p.js("var n = document.getElementById('v-snapnote'); return n.hidden ? '' : n.textContent")
    check("the page says what it holds (%r)" % note_text,
          ("holds %d of the %d functions" % (len(ex.funcs), len(ex.funcs))) in note_text and
          "the call graph of 2" in note_text)
    rows = p.rows()
    first, other = rows[0], rows[-1]
    p.js("TV.set({up: 2, down: 2}, 'push')")
    p.tab("graph")
    p.js("TV.select(%d, 'push')" % other["id"])
    ok = p.wait("(document.querySelector('#g-body .err')||{}).textContent", 10, "the graph left out")
    check("a call graph left out: 'not in this report' where it was asked for (%r)" % ok,
          bool(ok) and "not in this report" in ok)
    p.js("TV.select(%d, 'push')" % first["id"])
    ok = p.wait("document.querySelector('#g-body svg g.node#f%d')" % first["id"], 10, "the graph shipped")
    check("the call graph of %s is in the page" % first["name"], bool(ok))
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def errors_shown(p, url):
    """an error of the server is shown where it happened (and only the failed requests reach the
    console)"""
    p.type_search("(")
    ok = p.wait("(document.querySelector('#v-tmsg .err')||{}).textContent", 10, "the regex error")
    check("a bad regex: the server's error is shown above the table (%r)" % ok, bool(ok))
    p.type_search("")
    p.wait("!document.querySelector('#v-tmsg .err') || document.getElementById('v-tmsg').hidden")
    base = url.split("#")[0]
    p.d.get(base + "#fn=987654321&tab=source")
    ok = p.wait("(document.querySelector('#v-fn .err')||{}).textContent", 10, "the unknown id")
    check("an unknown function id: the error is shown in the function's header (%r)" % ok, bool(ok))
    ok = p.wait("(document.querySelector('#s-body .err')||{}).textContent", 10)
    check("... and in the source pane that asked (%r)" % ok, bool(ok))
    errs = [e for e in p.errors() if not re.search(r"status of (400|404)", e)]
    check("the console has nothing but the failed requests", not errs, "\n".join(errs))


def parts(p, url, ex, profile, prefix):
    """two parts: both summed, then the second alone (its JSON: $VIEW_PART_JSON)"""
    ex2 = Expect(os.environ["VIEW_PART_JSON"])
    check("the page loads", load(p, url, "parts"))
    labels = p.js("return Array.from(document.querySelectorAll('#v-parts-list label')).map(l => "
                  "[l.textContent.trim(), l.querySelector('input').checked])")
    check("the parts selector lists the two parts, both chosen (%s)" % labels,
          p.js("return !document.getElementById('v-parts').hidden") and len(labels) == 2 and
          all(c for _, c in labels))
    check_rows(p, ex, 0, "parts: both parts")
    p.js("document.getElementById('v-parts').open = true")
    p.d.find_elements(By.CSS_SELECTOR, "#v-parts-list input")[0].click()
    ok = p.wait("TV.state.parts && TV.state.parts.join() === '1'", 10)
    check("unchecking the first part leaves the second (parts=1 in the address)",
          ok and p.state().get("parts") == "1", p.state())
    p.idle()
    check_rows(p, ex2, 0, "parts: the second part alone")
    check_order(p, ex2, "incl", 0, True, "parts: the second part alone")
    check("a click on work selects it", p.click_row("work") and select_name(p, "work"))
    p.idle()
    check_callers(p, ex2, ex2.one("work"), 0, "parts: the second part alone")
    p.tab("flame")
    ok = p.wait("TV.flame.data() && +TV.flame.data().tree[1] === %d" % ex2.totals[0], 20)
    check("the flame graph is the second part's (root %d)" % ex2.totals[0], ok)
    shots(p, prefix, "parts", ["flame"])
    url2 = p.js("return location.href")
    main = p.d.current_window_handle
    p.d.switch_to.new_window("window")
    p.size(*SIZES[0])
    p.d.get(url2)
    ok = select_name(p, "work", 20) and p.wait("TV.state.parts && TV.state.parts.join() === '1'", 10)
    boxes = p.js("return Array.from(document.querySelectorAll('#v-parts-list input')).map(c => c.checked)")
    p.idle()
    check("the copied address keeps the part chosen (%s)" % boxes, ok and boxes == [False, True])
    check_rows(p, ex2, 0, "parts: the copied address")
    p.d.close()
    p.d.switch_to.window(main)
    for _ in range(3):  # the tab, the click on work, the part
        p.d.back()
    ok = p.wait("TV.state.parts === null", 10)
    p.idle()
    check("back: both parts again", ok and p.state().get("parts") is None, p.state())
    check_rows(p, ex, 0, "parts: both parts after back")
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def base(p, url, ex, profile, prefix):
    """a comparison: the small profile against its variant ($VIEW_PART_JSON) as the base"""
    exb = Expect(os.environ["VIEW_PART_JSON"])
    check("the page loads", load(p, url, "base"))
    check("the change column is shown", p.js("return document.body.classList.contains('cmp') && "
                                             "getComputedStyle(document.querySelector('#v-thead .c-delta')).display !== 'none'"))
    check_rows(p, ex, 0, "base: the profile's own costs")
    p.d.find_element(By.CSS_SELECTOR, "#v-thead [data-sort=change]").click()
    p.wait("TV.state.sort === 'change'")
    p.idle()
    rows = p.js("""return Array.from(document.querySelectorAll('#v-rows .vrow.fn')).map(r => [
        r.querySelector('.c-name').title.split('\\n')[0], r.querySelector('.c-delta').dataset.v,
        r.querySelector('.c-delta .p').textContent])""")
    bt = exb.totals[0]
    want, bad = [], []
    for name, d, pct in rows:
        now, was = ex.one(name), exb.one(name)
        dw = int(now["inclusive"][0]) - int(was["inclusive"][0]) if now and was else None
        want.append(dw)
        ptxt = ("+" if dw and dw > 0 else "") + "%.2f%%" % (100.0 * dw / bt) if dw is not None else None
        if dw is None or int(d) != dw or (dw and pct != ptxt):
            bad.append("%s: %s %s, expected %s %s" % (name, d, pct, dw, ptxt))
    check("base: each row's change is its inclusive cost less the base's, with its share of the "
          "base's total (%s)" % [r[1] for r in rows], rows and not bad, "\n".join(bad))
    check("base: sorted by the change, largest first", want == sorted(want, reverse=True), want)
    check("a click on main selects it", p.click_row("main") and select_name(p, "main"))
    m, mb = ex.one("main"), exb.one("main")
    d = int(m["inclusive"][0]) - int(mb["inclusive"][0])
    got = p.wait("(document.querySelector('#v-fn .c-delta')||{dataset:{}}).dataset.v", 10)
    check("main's header shows its change (%s, expected %d)" % (got, d), got == str(d))
    p.tab("flame")
    ok = p.wait("TV.flame.data() && document.querySelector('#p-flame g.fr[data-i=\"1\"]')", 20)
    data = p.js("return TV.flame.data()")
    check("the flame graph carries the base's total (%s, the base's JSON %d)" % (
        data.get("base_total") if data else None, bt), ok and data and int(data.get("base_total", -1)) == bt)
    fills = p.js("return Array.from(document.querySelectorAll('#p-flame g.fr')).filter(g => g.dataset.i !== '0')"
                 ".map(g => g.querySelector('rect').getAttribute('fill'))")
    check("the frames are coloured by the change (%d frames)" % len(fills),
          fills and all(f.startswith("rgb(") for f in fills), fills[:5])
    shots(p, prefix, "base", ["flame", "graph"])
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def complexity(p, url, ex, profile, prefix):
    """a profile with its aprof report: the complexity pane of isort (tally complexity's JSON of
    the report in $VIEW_COMPLEXITY_JSON)"""
    cx = json.load(open(os.environ["VIEW_COMPLEXITY_JSON"]))
    want = [r for r in cx["ranking"] if r["name"] == "isort"]
    check("the page loads", load(p, url, "complexity"))
    check("the Complexity tab is offered (meta.complexity)",
          p.js("return !document.querySelector('#v-tabs [data-tab=complexity]').hidden"))
    p.type_search("^isort$")
    p.wait("document.querySelectorAll('#v-rows .vrow.fn').length === 1")
    check("a click selects isort", p.click_row("isort") and select_name(p, "isort"))
    p.tab("complexity")
    got = p.wait("(document.querySelector('#c-body .cx-class')||{}).textContent", 20, "the complexity pane")
    check("isort's class of growth is tally complexity's (%s, page %s)" % (
        want[0]["class"] if want else None, got), want and got == want[0]["class"])
    n = p.js("return document.querySelectorAll('#c-body svg circle.pt').length")
    check("one dot per input size (%d, the report has %d)" % (n, want[0]["sizes"] if want else -1),
          want and n == want[0]["sizes"])
    check("the fitted curve is drawn", p.js("return !!document.querySelector('#c-body path.fit')"))
    check("the address keeps the tab", p.state().get("tab") == "complexity")
    p.type_search("")
    shots(p, prefix, "complexity", ["complexity"])
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def real(p, url, ex, profile, prefix):
    """A real program's profile; VIEW_REAL_LABEL names it in the checks and
    VIEW_REAL_FN is the function searched, clicked and followed (one name
    the profile has once: main, or an exported function of a stripped
    program)."""
    w = os.environ.get("VIEW_REAL_LABEL", "C++ program")
    fname = os.environ.get("VIEW_REAL_FN", "main")
    check("the page loads", load(p, url, w))
    check_rows(p, ex, 0, w)
    check_order(p, ex, "incl", 0, True, w)
    shown = [r["shown"] for r in p.rows()]
    long = [n for n in shown if len(n) > 60]
    check("the names are short enough for the table (%d over 60 characters)" % len(long), len(long) < 3, long)
    main = ex.one(fname)
    p.type_search("^%s$" % fname)
    p.wait("document.querySelectorAll('#v-rows .vrow.fn').length === 1")
    check("a search and a click select %s" % fname, p.click_row(fname) and select_name(p, fname))
    check_callers(p, ex, main, 0, w)
    check_source(p, ex, main, None, 0, w, None)
    check_graph_click(p, ex, main, w)
    p.d.back()
    check("back restores %s" % fname, select_name(p, fname))
    check_flame(p, ex, 0, w, fname)
    check_maps(p, ex, main, w)
    p.tab("graph")
    p.idle()
    check_url_copy(p, url, w, {"name": fname, "tab": "graph", "sort": "incl", "dir": "desc", "ev": 0,
                               "q": "^%s$" % fname})
    p.type_search("")
    p.wait("document.querySelectorAll('#v-rows .vrow.fn').length > 5")
    # ten clicks faster than the server answers: the last one wins everywhere
    p.tab("graph")
    p.idle()
    last = p.js("""var rows = Array.from(document.querySelectorAll('#v-rows .vrow.fn')).slice(0, 10);
        rows.forEach(r => r.click()); var l = rows[rows.length - 1];
        return [+l.dataset.id, l.querySelector('.c-name').title.split('\\n')[0]]""")
    ok = select_name(p, last[1], 20)
    p.idle(20)
    time.sleep(0.5)
    sel = p.js("var g = document.querySelector('#g-body svg g.node.sel'); return g ? g.id : null")
    rows_sel = [r["id"] for r in p.rows() if r["sel"]]
    check("ten quick clicks: the last function (%s) is the one shown in the header, the graph (%s) "
          "and the table" % (last[1], sel), ok and sel == "f%d" % last[0] and rows_sel == [last[0]] and
          p.state().get("fn") == str(last[0]))
    shots(p, prefix, w, TABS)
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def many(p, url, ex, profile, prefix):
    w = "114,000 functions"
    n = len(ex.funcs)
    check("the page loads", load(p, url, w, 60))
    total = p.wait("TV.table.total() > 0 && TV.table.total()", 30)
    check("the table counts every function (%s of %d)" % (total, n), total == n)
    want = sorted_values(ex, "inclusive", 0)
    t0 = time.time()
    # the page's frames while it scrolls (a note: a shared machine's timings are no verdict)
    p.js("window.frames_ = []; (function f(t) { frames_.push(t); if (frames_.length < 100000 && "
         "!window.stopFrames_) requestAnimationFrame(f); })(performance.now());")
    for k in range(40):  # a fast scroll down, as a wheel would
        p.js("document.getElementById('v-scroll').scrollTop += 3000")
        time.sleep(0.016)
    p.idle(30)
    gaps = p.js("window.stopFrames_ = true; var g = []; for (var i = 1; i < frames_.length; i++) "
                "g.push(frames_[i] - frames_[i - 1]); g.sort(function (a, b) { return a - b; }); return g;")
    note("%s: 40 scroll steps and their rows in %.2f s; %d frames, median %.1f ms, 95th %.1f ms, "
         "longest %.1f ms" % (w, time.time() - t0, len(gaps) + 1, gaps[len(gaps) // 2] if gaps else 0,
                              gaps[int(len(gaps) * 0.95)] if gaps else 0, gaps[-1] if gaps else 0))
    check_order(p, ex, "incl", 0, True, w + ", scrolled")
    for frac in (0.5, 1.0):
        t0 = time.time()
        p.js("var s = document.getElementById('v-scroll'); s.scrollTop = %f * s.scrollHeight" % frac)
        ok = p.wait("(function () { var s = document.getElementById('v-scroll'),"
                    " r = document.querySelectorAll('#v-rows .vrow'), last = r[r.length - 1];"
                    " return last && !document.querySelector('#v-rows .vrow.wait') &&"
                    " +last.dataset.i >= Math.min(%d, Math.floor((s.scrollTop + s.clientHeight) / 22)) - 1;"
                    " })()" % (n - 1), 30)
        note("%s: rows at %d%% came in %.2f s" % (w, frac * 100, time.time() - t0))
        rows = p.rows()
        check("%s: rows at %d%% of the table (%d..%d) follow the JSON's inclusive costs" % (
            w, frac * 100, rows[0]["i"] if rows else -1, rows[-1]["i"] if rows else -1),
            ok and rows and [int(r["incl"]) for r in rows] == want[rows[0]["i"]:rows[0]["i"] + len(rows)])
    check("%s: the last row is the last function" % w, p.rows()[-1]["i"] == n - 1)
    dom = p.js("return document.querySelectorAll('#v-rows .vrow').length")
    check("%s: only the rows in sight are in the page (%d)" % (w, dom), dom < 200)
    rx = "method1139[0-9]\\("
    p.type_search(rx)
    want_n = len([f for f in ex.funcs if re.search(rx, f["name"])])
    got = p.wait("TV.state.q && TV.table.total() >= 0 && TV.table.total()", 20)
    check("%s: the search %s finds %d functions (%s)" % (w, rx, want_n, got), got == want_n)
    p.type_search("")
    p.wait("TV.table.total() === %d" % n, 20)
    p.size(*SIZES[1])
    time.sleep(0.5)
    check("%s: screenshot" % w, p.shot(prefix + "-table-1024.png"))
    p.size(*SIZES[0])
    errs = p.errors()
    check("no console errors", not errs, "\n".join(errs))


def main():
    mode, url, jpath, profile, prefix = sys.argv[1:6]
    ex = Expect(jpath)
    PREFIX[0] = {"small": "small", "parts": "parts", "base": "base", "complexity": "complexity",
                 "real": os.environ.get("VIEW_REAL_LABEL", "C++ program"),
                 "many": "114,000 functions"}[mode]
    if REPORT:
        PREFIX[0] = "report of " + PREFIX[0]
    try:
        p = Page(*SIZES[0])
    except browser.Missing as e:
        browser.skip("the browser test of tally view", str(e))
        return 0
    global By
    from selenium.webdriver.common.by import By as by
    By = by
    try:
        if mode == "small":
            browser.check_console(p.b)
        {"small": small, "parts": parts, "base": base, "complexity": complexity, "real": real,
         "many": many}[mode](p, url, ex, profile, prefix)
    except Exception as e:  # a failure of the driver is a failure of the test, with its words
        check("the browser checks ran to their end", False, "%s: %s" % (type(e).__name__, e))
    finally:
        p.quit()
    return 1 if FAILED or browser.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
