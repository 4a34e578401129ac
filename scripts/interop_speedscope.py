# SPDX-License-Identifier: GPL-2.0-or-later
"""interop_speedscope.py SPEEDSCOPE_DIR OUT_DIR FILE...: each FILE opened
in speedscope (its release directory, npm package speedscope) in headless
Chromium, served from 127.0.0.1, and a screenshot OUT_DIR/FILE.speedscope.png
taken once it has drawn (scripts/interop.sh; tests/browser/browser.py drives
Chromium through Selenium, so run it with Debian's /usr/bin/python3)."""
import functools
import http.server
import os
import shutil
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "browser"))
import browser  # noqa: E402


def main(app, out, files):
    root = os.path.join(out, "speedscope-site")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(app, root)
    for f in files:
        shutil.copy(f, os.path.join(root, os.path.basename(f)))
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    b = browser.Browser(1400, 900)
    try:
        for f in files:
            name = os.path.basename(f)
            url = "http://127.0.0.1:%d/index.html#profileURL=%s&title=%s" % (
                port, urllib.parse.quote("/" + name), urllib.parse.quote(name))
            b.navigate("about:blank")
            b.navigate(url)
            time.sleep(4)
            png = os.path.join(out, name + ".speedscope.png")
            b.screenshot(png)
            seen = b.take_errors()
            errors = "; ".join(seen) if seen else "no console errors"
            print("speedscope %s: %s (%s)" % (name, png, errors))
    finally:
        b.close()
        server.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
