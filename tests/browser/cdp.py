# SPDX-License-Identifier: GPL-2.0-or-later
"""A small Chrome DevTools Protocol client for the browser tests: starts
headless Chromium, speaks the protocol over a websocket (RFC 6455, written
here with the standard library only) and offers what the tests need:
navigate, evaluate, click, type, screenshot, and the console errors seen."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    def __init__(self, url, timeout=30):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        if not m:
            raise ValueError("bad websocket url " + url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key))
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise IOError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise IOError("websocket handshake refused: %r" % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise IOError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text, opcode=1):
        data = text.encode() if isinstance(text, str) else text
        head = bytes([0x80 | opcode])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 9:
                self.send(data, 10)
                continue
            if opcode == 8:
                raise IOError("websocket closed by the browser")
            message += data
            if b0 & 0x80:
                return message.decode("utf-8", "replace")


class Browser:
    """Headless Chromium with one page."""

    def __init__(self, width=1400, height=1000):
        exe = find_chromium()
        if not exe:
            raise FileNotFoundError("chromium")
        self.profile = tempfile.mkdtemp(prefix="tally-chromium.")
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-dev-shm-usage",
             "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stderr.readline().decode("utf-8", "replace")
            if not line and self.proc.poll() is not None:
                break
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        if not port:
            self.close()
            raise IOError("chromium did not start its DevTools server")
        # keep draining stderr so Chromium never blocks on a full pipe
        import threading
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        url = None
        for _ in range(100):
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                if pages:
                    url = pages[0]["webSocketDebuggerUrl"]
                    break
            except OSError:
                pass
            time.sleep(0.1)
        if not url:
            self.close()
            raise IOError("no page target in chromium")
        self.ws = WebSocket(url)
        self.next_id = 0
        self.events = []
        self.errors = []
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(m)

    def _note(self, msg):
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: %s %s" % (
                d.get("text", ""), d.get("exception", {}).get("description", "")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            self.errors.append("log: %s %s" % (e.get("text", ""), e.get("url", "")))
        self.events.append(msg)

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise IOError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self._note(msg)

    def wait_event(self, method, timeout=30):
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        self.ws.sock.settimeout(timeout)
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = json.loads(self.ws.recv())
            self._note(msg)
            if msg.get("method") == method:
                self.events.remove(msg)
                return msg
        raise TimeoutError(method)

    def navigate(self, url, timeout=30):
        self.events = [m for m in self.events if m.get("method") != "Page.loadEventFired"]
        t0 = time.time()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout)
        return time.time() - t0

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate %r: %s" % (expr[:80], r["exceptionDetails"]))
        return r.get("result", {}).get("value")

    def click_at(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)

    def click(self, selector_js):
        """Click the middle of the element a JS expression returns (scrolled into view)."""
        rect = self.eval("(function(){var e=%s; if(!e) return null; e.scrollIntoView("
                         "{block:'center'}); var r=e.getBoundingClientRect();"
                         "return [r.left+r.width/2, r.top+r.height/2];})()" % selector_js)
        if not rect:
            return False
        self.click_at(rect[0], rect[1])
        return True

    def type_text(self, text):
        self.call("Input.insertText", text=text)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            if getattr(self, "ws", None):
                self.call("Browser.close")
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


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
