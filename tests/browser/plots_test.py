# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure the pictures of `tally complexity --plot` in headless Chromium
through Selenium (tests/browser/browser.py; tests/browser/plots.sh writes
them). Prints TAP lines.

  plots_test.py DIR SHOTS NAMES.json

For every SVG of DIR, with the text as the browser lays it out (its own
font metrics, not tally's estimate): every text lies within the picture;
the title and subtitle lines end above the plot area; each legend entry
lies within the legend's box; every line of the title carries the whole
routine name (one of NAMES.json) as its tooltip. Screenshots of the cost
plots go to SHOTS.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

check = browser.check


MEASURE = r"""(function() {
  var svg = document.documentElement;
  var W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
  var out = {W: W, H: H, outside: [], header: [], legend: [], titles: [], shown: []};
  /* as laid out on the screen (after transforms, such as the rotated y caption), in the
     picture's units (it is drawn 1:1 from the top left) */
  var o = svg.getBoundingClientRect();
  function box(e) {
    var b = e.getBoundingClientRect();
    return [b.left - o.left, b.top - o.top, b.right - o.left, b.bottom - o.top];
  }
  var a = box(svg.querySelector('rect[stroke="#444444"]'));
  var area = {y: a[1]};
  svg.querySelectorAll('text').forEach(function(t) {
    var b = box(t);
    if (b[0] < -0.5 || b[2] > W + 0.5 || b[1] < -0.5 || b[3] > H + 0.5)
      out.outside.push(t.textContent + ' [' + b.map(Math.round) + ']');
  });
  svg.querySelectorAll('text.title, text.subtitle').forEach(function(t) {
    var b = box(t);
    if (b[3] > area.y + 0.5) out.header.push(t.textContent + ' ends at ' + Math.round(b[3]) +
                                             ', the plot starts at ' + Math.round(area.y));
  });
  var lg = svg.querySelector('g.legend rect');
  if (lg) {
    var r = box(lg);
    svg.querySelectorAll('g.legend text').forEach(function(t) {
      var b = box(t);
      if (b[2] > r[2] + 0.5) out.legend.push(t.textContent + ' ends at ' + Math.round(b[2]) +
                                             ', the box at ' + Math.round(r[2]));
    });
  }
  svg.querySelectorAll('text.title').forEach(function(t) {
    var tip = t.querySelector('title');
    out.titles.push(tip ? tip.textContent : null);
    out.shown.push(t.lastChild.textContent);
  });
  return out;
})()"""


def main():
    pdir, shots, names = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
    try:
        b = browser.Browser(width=760, height=520)
    except browser.Missing as e:
        browser.skip("the browser test of the plots", str(e))
        return 0
    try:
        browser.check_console(b)
        files = sorted(glob.glob(os.path.join(pdir, "*.svg")))
        check("%d pictures to measure" % len(files), len(files) >= 4)
        for f in files:
            base = os.path.basename(f)
            b.navigate("file://" + os.path.abspath(f))
            m = b.eval(MEASURE)
            check("%s: every text within the %dx%d picture" % (base, m["W"], m["H"]),
                  not m["outside"], "\n".join(m["outside"]))
            check("%s: the title and subtitle end above the plot" % base, not m["header"],
                  "\n".join(m["header"]))
            check("%s: each legend entry within the legend's box" % base, not m["legend"],
                  "\n".join(m["legend"]))
            tips = set(m["titles"])
            check("%s: %d title line(s), each with the whole name as its tooltip" % (
                base, len(m["titles"])), 1 <= len(m["titles"]) <= 3 and len(tips) == 1 and
                tips.pop() in names, m)
            if not base.endswith("-freq.svg"):
                b.screenshot(os.path.join(shots, "complexity-" + base[:40] + ".png"))
        check("no console errors", not b.errors, "\n".join(b.errors))
    finally:
        b.close()
    return 1 if browser.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
