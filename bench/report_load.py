# SPDX-License-Identifier: GPL-2.0-or-later
"""How long a page of tally report takes to be usable in headless Chromium
(bench/views.sh): from the navigation to the first rows of the table and a
selected function, twice. Prints "# page loaded in S s" and "# again: S s",
and a "not ok" line when the page does not come up or logs a console error.

    report_load.py PAGE.html SHOT.png
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "browser"))
import browser  # noqa: E402

READY = ("!!(document.querySelector('#v-rows .vrow.fn') && document.getElementById('v-fname') && "
         "document.getElementById('v-fname').textContent)")


def usable(b, url):
    t0 = time.time()
    b.navigate(url, timeout=120)
    while not b.eval(READY):
        if time.time() - t0 > 120:
            return None
        time.sleep(0.02)
    return time.time() - t0


def main():
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    b = browser.Browser(1400, 900)
    try:
        first = usable(b, "file://" + page)
        if first is None:
            print("not ok - the page shows its table and a function within 120 s")
            return 1
        print("# page loaded in %.3f s" % first)
        again = usable(b, "file://" + page + "?again")
        print("# again: %.3f s" % again if again is not None else "# again: never")
        b.screenshot(shot)
        if b.errors:
            print("not ok - no console errors: " + "; ".join(b.errors)[:500])
            return 1
        return 0
    finally:
        b.close()


sys.exit(main())
