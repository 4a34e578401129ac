# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive `tally report` pages in headless Chromium through Selenium
(tests/browser/browser.py; tests/browser/report.sh writes the inputs). Prints TAP lines ("ok - ..." / "not ok - ...").

  report_test.py small PAGE SHOT   the small profile of report.sh, checked
                                    against values worked out by hand
  report_test.py aprof PAGE SHOT   a page made from an aprof report
  report_test.py load PAGE SHOT MAXSEC   any page: loads within MAXSEC seconds
                                    without console errors, a row click works
"""
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

check = browser.check


def row_names(b):
    return b.eval("Array.prototype.map.call(document.querySelectorAll('#t-functions tbody tr'),"
                  "function(tr){return tr.cells[0].textContent;})")


def rows_when(b, want, timeout=3.0):
    """The table's rows once they are `want`, or as they are after `timeout` seconds: typed
    text reaches the page's input handler a moment after the call that types it returns."""
    end = time.time() + timeout
    names = row_names(b)
    while names != want and time.time() < end:
        time.sleep(0.02)
        names = row_names(b)
    return names


def call_rows(b, which):
    return b.eval("Array.prototype.map.call(document.querySelectorAll('#%s tbody tr'),"
                  "function(tr){return [tr.cells[0].textContent, tr.cells[1].textContent,"
                  " tr.cells[2].textContent];})" % which)


def row_js(name):
    return ("Array.prototype.find.call(document.querySelectorAll('#t-functions tbody tr'),"
            "function(tr){return tr.cells[0].textContent===%r;})" % name)


def screenshot(b, shot):
    b.screenshot(shot)
    with open(shot, "rb") as f:
        head = f.read(8)
    size = os.path.getsize(shot)
    check("screenshot is a PNG (%d bytes)" % size, head == b"\x89PNG\r\n\x1a\n" and size > 5000)


def small(b, page, shot):
    secs = b.navigate("file://" + page)
    # load times are a note, not a verdict: speed is measured by make bench
    # (a navigation that never ends fails by its timeout)
    print("# page loaded in %.3f s" % secs)
    check("the header shows the command",
          b.eval("document.getElementById('t-title').textContent") == "./small 4")
    totals = b.eval("document.getElementById('t-totals').textContent")
    check("the header shows the totals (Ir 98, Dr 9)",
          totals == "Ir 98Dr 9", repr(totals))
    names = row_names(b)
    # default order: inclusive Ir, largest first: main 96, work 80, helper 36,
    # then the two uncalled 1-Ir functions in the order of the profile
    check("five rows, by inclusive Ir", names == [
        "main", "work", "helper", "evil</script><b>x</b>", "q\"uote's & <amp>"], names)
    check("names are text, not markup",
          b.eval("document.querySelectorAll('#t-functions b').length") == 0)
    cells = b.eval("Array.prototype.map.call(" + row_js("work") + ".cells,"
                   "function(c){return c.textContent;})")
    # work: self Ir 50 (51.02% of 98), incl Ir 80 (81.63%), self Dr 5 (55.56% of 9),
    # incl Dr 8 (88.89%), called once
    check("work's row: self, inclusive and calls by hand", cells == [
        "work", "src.c", "5051.02%", "8081.63%", "555.56%", "888.89%", "1"], cells)

    check("click on helper's row", b.click(row_js("helper")))
    check("helper is selected",
          b.eval("document.getElementById('t-sel-name').textContent") == "helper")
    callers = call_rows(b, "t-callers")
    # work calls helper 4x (30 Ir = 30.61%), main 1x (6 Ir = 6.12%)
    check("helper's callers: work 4x then main 1x, with costs",
          callers == [["work", "4", "3030.61%"], ["main", "1", "66.12%"]], callers)
    check("helper has no callees",
          "none" in b.eval("document.getElementById('t-callees').textContent"))
    src = b.eval("Array.prototype.map.call(document.querySelectorAll('#t-source tr'),"
                 "function(tr){return tr.textContent;})")
    check("helper's annotated source: line 3 costs 36 Ir", any(
        r.startswith("33636.73%") and "return x * 2;" in r for r in src), src)
    check("the source shows context lines", any(r.startswith("1") and "int helper" in r
                                                for r in src), src)

    check("click on the caller 'work' (walk the graph)", b.click(
        "document.querySelector('#t-callers a[data-i]')"))
    check("work is selected",
          b.eval("document.getElementById('t-sel-name').textContent") == "work")
    callees = call_rows(b, "t-callees")
    check("work's callees: helper 4x", callees == [["helper", "4", "3030.61%"]], callees)
    callers = call_rows(b, "t-callers")
    check("work's callers: main 1x (80 Ir)", callers == [["main", "1", "8081.63%"]], callers)

    b.run("document.getElementById('t-search').focus()")
    b.type_text("ma")
    names = rows_when(b, ["main"])
    check("search 'ma' keeps main", names == ["main"], names)
    b.eval("(function(){var s=document.getElementById('t-search'); s.value='';"
           "s.dispatchEvent(new Event('input'));})()")
    b.run("document.getElementById('t-search').focus()")
    b.type_text("^(WORK|helper)$")
    names = rows_when(b, ["work", "helper"])
    check("regex search, case-insensitive", names == ["work", "helper"], names)
    b.eval("(function(){var s=document.getElementById('t-search'); s.value='';"
           "s.dispatchEvent(new Event('input'));})()")
    check("clearing the search shows every row", len(row_names(b)) == 5)

    check("click the 'Self Ir' header",
          b.click("document.querySelector('#t-functions th[data-k=s][data-e=\"0\"]')"))
    names = row_names(b)
    check("sorted by self Ir: work 50, helper 36, main 10", names[:3] == [
        "work", "helper", "main"], names)
    b.click("document.querySelector('#t-functions th[data-k=s][data-e=\"0\"]')")
    names = row_names(b)
    check("a second click sorts ascending", names[-3:] == ["main", "helper", "work"], names)

    check("the event selector switches to Dr", b.eval(
        "(function(){var s=document.getElementById('t-event'); s.value='1';"
        "s.dispatchEvent(new Event('change')); return s.value;})()") == "1")

    check("the flame graph is inline SVG",
          b.eval("!!document.querySelector('#flame svg')"))
    check("click on a frame of the flame graph (its own script runs in the page)",
          b.click("document.querySelector('#flame g.frame rect')"))
    has_cg = b.eval("!!document.querySelector('#callgraph svg')")
    if shutil.which("dot"):
        check("the call graph is inline SVG", has_cg)
        helper_id = b.eval("tallyReport.data.funcs.filter(function(f){"
                           "return f.n==='helper';})[0].id")
        check("click on helper in the call graph",
              b.click("document.getElementById('graph-f%d')" % helper_id))
        check("the call graph selects helper",
              b.eval("document.getElementById('t-sel-name').textContent") == "helper")
        callgraph_checks(b)
    else:
        print("ok - the call graph # SKIP dot is not installed")
    flame_checks(b)
    screenshot(b, shot)
    check("no console errors", not b.errors, "\n".join(b.errors))


def callgraph_checks(b):
    """The flame graph's styles stay in it; zoom."""
    # every label keeps the colour dot gave it (fill attribute or fontcolor)
    # (a probe element with only dot's attributes, outside every SVG, says
    # what the attributes alone give)
    bad = b.eval("""(function(){
      var out = [];
      var box = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      document.body.appendChild(box);
      document.querySelectorAll('#callgraph g.node text').forEach(function (t) {
        var probe = document.createElementNS('http://www.w3.org/2000/svg', 'text');
        probe.setAttribute('fill', t.getAttribute('fill') || 'black');
        probe.setAttribute('font-size', t.getAttribute('font-size') || '14');
        box.appendChild(probe);
        var w = getComputedStyle(probe), got = getComputedStyle(t);
        if (w.fill !== got.fill || w.fontSize !== got.fontSize)
          out.push(t.textContent + ': ' + got.fill + ' ' + got.fontSize + ', not ' + w.fill +
                   ' ' + w.fontSize);
        probe.remove();
      });
      box.remove();
      return out; })()""")
    n = b.eval("document.querySelectorAll('#callgraph g.node text').length")
    check("the %d call-graph labels keep dot's colours and sizes (no style of the flame graph leaks)" % n,
          n > 0 and bad == [], bad)
    # the labels fit their boxes: a label's width is at most its node's shape's
    over = b.eval("""(function(){
      var out = [];
      document.querySelectorAll('#callgraph g.node').forEach(function (g) {
        var shape = g.querySelector('polygon, ellipse, path');
        if (!shape) return;
        var bw = shape.getBBox().width;
        g.querySelectorAll('text').forEach(function (t) {
          var tw = t.getBBox().width;
          if (tw > bw + 1) out.push(t.textContent + ' ' + tw.toFixed(1) + ' > ' + bw.toFixed(1));
        });
      });
      return out; })()""")
    check("every call-graph label fits its node", over == [], over)
    # zoom: 1:1, then + (x1.25), then - back; the SVG's width follows
    w1 = b.eval("(document.getElementById('graph-one').click(),"
                "document.querySelector('#callgraph svg').getBoundingClientRect().width)")
    w2 = b.eval("(document.getElementById('graph-in').click(),"
                "document.querySelector('#callgraph svg').getBoundingClientRect().width)")
    w3 = b.eval("(document.getElementById('graph-out').click(),"
                "document.querySelector('#callgraph svg').getBoundingClientRect().width)")
    check("zoom in scales the call graph by 1.25 (%.1f -> %.1f px) and out back (%.1f)" % (w1, w2, w3),
          abs(w2 - 1.25 * w1) < 1 and abs(w3 - w1) < 1)
    scale = b.eval("document.getElementById('graph-scale').textContent")
    check("the zoom level is shown (%s)" % scale, scale == "100%")


def flame_checks(b):
    """Ctrl-F belongs to the browser outside the flame graph; frames select rows;
    permalinks open the function's panel."""
    b.run("window.prompt = function () { window.asked = (window.asked || 0) + 1; return null; }")
    ctrl_f = ("(function(){ var e = new KeyboardEvent('keydown', {key: 'f', ctrlKey: true,"
              " bubbles: true, cancelable: true}); (document.activeElement || document.body)"
              ".dispatchEvent(e); return e.defaultPrevented; })()")
    b.run("document.activeElement && document.activeElement.blur(); document.body.focus()")
    check("Ctrl-F outside the flame graph is left to the browser", b.eval(ctrl_f) is False)
    b.run("document.getElementById('tally-flame').focus()")
    check("Ctrl-F with the flame graph focused opens its search",
          b.eval(ctrl_f) is True and b.eval("window.asked") == 1)
    b.run("document.getElementById('tally-flame').blur()")
    check("click on the frame 'work' of the flame graph", b.click(
        "document.querySelector('#flame g.frame[data-name=\"work\"] rect')"))
    check("the flame frame selects work in the table and the panel",
          b.eval("document.getElementById('t-sel-name').textContent") == "work" and
          b.eval("document.querySelector('#t-functions tr.selected').cells[0].textContent") == "work")


def permalink(b, page):
    helper = b.eval("tallyReport.data.funcs.filter(function(f){return f.n==='helper';})[0].id")
    b.navigate("about:blank")
    b.navigate("file://" + page + "#f%d" % helper)
    check("the permalink #f%d selects helper" % helper,
          b.eval("document.getElementById('t-sel-name').textContent") == "helper")
    top = b.eval("document.getElementById('t-details').getBoundingClientRect().top")
    check("the permalink shows the function's panel (its top at %.0f px)" % top, -2 <= top < 300, top)
    check("no element of the page has the permalink's id (the call graph's nodes are graph-f<N>)",
          b.eval("document.getElementById('f%d') === null" % helper))


def load(b, page, shot, maxsec):
    # the time is a note (over maxsec, a loud one), not a verdict: a shared
    # test machine's timings move by more than that; make bench measures
    # speed. A page that never loads fails by the navigation's timeout.
    secs = b.navigate("file://" + page, timeout=120)
    print("# page %s loaded in %.3f s%s" % (os.path.basename(os.path.dirname(page)), secs,
                                           " (NOTE: over %g s)" % maxsec if secs >= maxsec else ""))
    n = len(row_names(b))
    check("the table has rows (%d)" % n, n > 0)
    check("click on the first row", b.click(
        "document.querySelector('#t-functions tbody tr td')"))
    check("a function is selected",
          bool(b.eval("(document.getElementById('t-sel-name')||{}).textContent")))
    screenshot(b, shot)
    check("no console errors", not b.errors, "\n".join(b.errors))


def aprof(b, page, shot):
    secs = b.navigate("file://" + page)
    check("the aprof page loads (%.2f s)" % secs, secs < 2.0)
    text = b.eval("(document.getElementById('complexity')||{}).textContent||''")
    check("the complexity ranking is shown", "isort" in text, text[:500])
    check("the plots are framed in the page",
          b.eval("!!document.querySelector('#complexity-section iframe')"))
    check("an empty function table", len(row_names(b)) == 0)
    check("no console errors", not b.errors, "\n".join(b.errors))


def main():
    mode, page, shot = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    try:
        b = browser.Browser()
    except browser.Missing as e:
        browser.skip("the browser test of tally report", str(e))
        return 0
    try:
        browser.check_console(b)
        if mode == "small":
            small(b, page, shot)
            permalink(b, page)
        elif mode == "aprof":
            aprof(b, page, shot)
        else:
            load(b, page, shot, float(sys.argv[4]))
    finally:
        b.close()
    return 1 if browser.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
