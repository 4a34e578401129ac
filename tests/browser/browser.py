# SPDX-License-Identifier: GPL-2.0-or-later
"""What the browser tests share: headless Chromium driven through Selenium
(Debian's python3-selenium with chromium-driver; run with /usr/bin/python3),
the console errors it logged, screenshots, and the TAP lines of a check.

    b = browser.Browser(width, height)   # raises browser.Missing without the driver
    secs = b.navigate("file://" + page)  # waits for the load event
    b.eval("document.title")             # the value of a JS expression
    b.run("window.x = 1; go()")          # JS statements, no value
    b.click("document.querySelector('tr')")  # a real mouse click on that element
    b.type_text("ma")                    # keys into the focused element
    b.screenshot(path)                   # a PNG of the window's page area
    b.errors                             # every console error seen, as text
    b.close()
"""
import importlib.util
import os
import sys
import shutil
import time

CHROMEDRIVER = "/usr/bin/chromedriver"


class Missing(Exception):
    """A piece the browser tests need is not installed; the message names it."""


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def missing():
    """What is missing to run a browser test (a sentence), or None when all is there."""
    try:
        have = importlib.util.find_spec("selenium.webdriver") is not None
    except ImportError:
        have = False
    if not have:
        return "the python module selenium (Debian's python3-selenium, for /usr/bin/python3)"
    if not os.access(CHROMEDRIVER, os.X_OK):
        return CHROMEDRIVER + " (Debian's chromium-driver)"
    if not find_chromium():
        return "chromium"
    return None


class Browser:
    """Headless Chromium with one page, a window of width x height pixels."""

    def __init__(self, width=1400, height=1000):
        why = missing()
        if why:
            raise Missing(why)
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = find_chromium()
        for arg in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                    "--window-size=%d,%d" % (width, height)):
            options.add_argument(arg)
        if os.geteuid() == 0:
            # Chromium refuses to start its sandbox as root
            options.add_argument("--no-sandbox")
        # the browser's console (errors, uncaught exceptions, failed loads) for get_log
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self._errors = []

    def _drain(self):
        # get_log hands over each entry once, so the errors are kept here
        for e in self.driver.get_log("browser"):
            if e.get("level") == "SEVERE":
                self._errors.append("%s: %s" % (e.get("source", "console"), e.get("message", "")))

    @property
    def errors(self):
        """Every console error of every page so far, oldest first."""
        self._drain()
        return list(self._errors)

    def take_errors(self):
        """The console errors seen since the last call, then forgets them."""
        out = self.errors
        self._errors = []
        return out

    def navigate(self, url, timeout=30):
        """Opens url, waits for its load event (at most timeout seconds, else
        selenium's TimeoutException) and says how long that took in seconds."""
        self.driver.set_page_load_timeout(timeout)
        t0 = time.time()
        self.driver.get(url)
        return time.time() - t0

    def eval(self, expr):
        """The value of a JS expression in the page (numbers, strings, lists, dicts)."""
        return self.driver.execute_script("return (" + expr + ");")

    def run(self, script):
        """Runs JS statements in the page."""
        self.driver.execute_script(script)

    def click(self, element_js):
        """A real mouse click on the middle of the element a JS expression gives
        (scrolled into view first); False when there is no such element."""
        from selenium.webdriver.common.action_chains import ActionChains

        el = self.driver.execute_script(
            "var e = (" + element_js + "); if (e) e.scrollIntoView({block: 'center'});"
            " return e || null;")
        if el is None:
            return False
        ActionChains(self.driver).move_to_element(el).click().perform()
        return True

    def type_text(self, text):
        """Types text, key by key, into the element that has the focus."""
        self.driver.switch_to.active_element.send_keys(text)

    def screenshot(self, path):
        if not self.driver.save_screenshot(path):
            raise IOError("no screenshot written to " + path)

    def close(self):
        self.driver.quit()


def check_console(b):
    """One check that the console errors reach b.errors, so that a test's
    "no console errors" can fail: a console.error on a blank page must be seen."""
    b.navigate("about:blank")
    b.run("console.error('tally-browser-probe')")
    seen = b.take_errors()
    check("the browser's console errors are seen (a probe console.error)",
          any("tally-browser-probe" in e for e in seen), "\n".join(seen) or "nothing logged")


# TAP lines shared by the page tests: check() prints one, failed() counts
# the "not ok" ones.
_failures = 0


def check(name, cond, detail=""):
    global _failures
    if cond:
        print("ok - " + name)
    else:
        _failures += 1
        print("not ok - " + name)
        for line in str(detail).splitlines()[:30]:
            print("# " + line)


def failed():
    return _failures


def skip(what, why):
    """The TAP line and the loud note of a browser test that cannot run."""
    print("ok - SKIP: %s is not installed (sh scripts/install-deps.sh) # SKIP" % why)
    print("# SKIP SKIP SKIP: %s did not run: %s is missing" % (what, why), file=sys.stderr)
