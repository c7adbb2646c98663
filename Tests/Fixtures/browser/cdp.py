#!/usr/bin/env python3
"""Drives Debian's headless Chromium over the DevTools protocol, for the status page tests.

Chromium is started with --remote-debugging-pipe: it reads protocol messages from fd 3 and
writes its answers to fd 4, each a JSON object ended by a NUL byte. The driver opens one tab,
and records while it runs what the page does that a test must see: console errors, uncaught
exceptions, Content-Security-Policy violations (from the browser's log and from a
`securitypolicyviolation` listener added before any page script runs) and every request the
page makes.

    cdp.py serve [--chromium PATH] [--width W] [--height H]
        Reads one JSON command per line on stdin and answers each with one JSON line on stdout:
          {"cmd": "open", "url": U}                 navigate and wait for the load event
          {"cmd": "eval", "expr": E}                evaluate E in the page, answer its value
          {"cmd": "wait", "expr": E, "timeout": S}  poll E until it is truthy (or time out)
          {"cmd": "screenshot", "path": P, "dark": false, "full": true}
          {"cmd": "report"}                         what was recorded so far
          {"cmd": "quit"}
        Answers are {"ok": true, "value": ...} or {"ok": false, "error": "...", "value": ...}.
    cdp.py screenshot URL PATH [--wait EXPR] [--dark]
        One page, one PNG.

Python 3 standard library only.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# Before any page script: CSP violations into a list the driver reads back.
VIOLATION_LISTENER = """
(() => {
  const seen = [];
  Object.defineProperty(window, "__pathwatchViolations", { value: seen });
  document.addEventListener("securitypolicyviolation", (e) => {
    seen.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample,
                source: e.sourceFile, line: e.lineNumber });
  }, true);
})();
"""


class ProtocolError(Exception):
    pass


class Chromium:
    """One headless Chromium and one tab, attached with a flat session."""

    def __init__(self, binary, width, height):
        self.profile = tempfile.mkdtemp(prefix="pathwatch-chromium.")
        self.log_path = os.path.join(self.profile, "chromium.log")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def place_pipes():  # in the child: the two ends Chromium expects, as fds 3 and 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        argv = [
            binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
            "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--disable-dev-shm-usage",
            "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
            "--metrics-recording-only", "--mute-audio", "--hide-scrollbars",
            "--window-size=%d,%d" % (width, height),
        ] + os.environ.get("PATHWATCH_CHROMIUM_FLAGS", "").split() + ["about:blank"]
        # PATHWATCH_CHROMIUM_FLAGS: a test's own flags (the https test's trusted key hash).
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            pass_fds=(3, 4), preexec_fn=place_pipes, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)

        self.lock = threading.Condition()
        self.next_id = 0
        self.answers = {}
        self.closed = False
        self.console_errors = []
        self.exceptions = []
        self.requests = []
        self.loads = 0
        self.navigations = 0
        threading.Thread(target=self._read, daemon=True).start()

        self.call("Browser.getVersion", timeout=60)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", session=True)
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": VIOLATION_LISTENER}, session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    # -- the pipe -------------------------------------------------------------------------------
    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self.from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self.lock:
                    self.closed = True
                    self.lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self.lock:
                    if "id" in message:
                        self.answers[message["id"]] = message
                    else:
                        self._record(message)
                    self.lock.notify_all()

    def _record(self, message):
        method, params = message.get("method"), message.get("params", {})
        if message.get("sessionId") != getattr(self, "session", None):
            return
        if method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                self.console_errors.append("%s: %s (%s)" % (entry.get("source"), entry.get("text"), entry.get("url", "")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])]
            self.console_errors.append("console.%s: %s" % (params.get("type"), " ".join(texts)))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            description = details.get("exception", {}).get("description") or details.get("text")
            self.exceptions.append(str(description))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Page.loadEventFired":
            self.loads += 1
        elif method == "Page.frameNavigated" and not params.get("frame", {}).get("parentId"):
            self.navigations += 1

    def call(self, method, params=None, session=False, timeout=30):
        with self.lock:
            self.next_id += 1
            ident = self.next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.to_browser, data):]
        deadline = time.monotonic() + timeout
        with self.lock:
            while ident not in self.answers:
                if self.closed:
                    raise ProtocolError("Chromium closed its pipe (log: %s)" % self.log_path)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ProtocolError("no answer to %s in %ss" % (method, timeout))
                self.lock.wait(remaining)
            answer = self.answers.pop(ident)
        if "error" in answer:
            raise ProtocolError("%s: %s" % (method, answer["error"].get("message")))
        return answer.get("result", {})

    # -- what the commands do -------------------------------------------------------------------
    def open(self, url, timeout=60):
        with self.lock:
            loads = self.loads
        result = self.call("Page.navigate", {"url": url}, session=True, timeout=timeout)
        if result.get("errorText"):
            raise ProtocolError("navigation to %s failed: %s" % (url, result["errorText"]))
        deadline = time.monotonic() + timeout
        with self.lock:
            while self.loads == loads:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    raise ProtocolError("no load event for %s" % url)
                self.lock.wait(remaining)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise ProtocolError("evaluation threw: %s" % (
                details.get("exception", {}).get("description") or details.get("text")))
        return result.get("result", {}).get("value")

    def wait(self, expression, timeout):
        probe = "(() => { const v = (%s); return { ok: !!v, v: v === undefined ? null : v }; })()" % expression
        deadline = time.monotonic() + timeout
        while True:
            answer = self.evaluate(probe)
            if answer["ok"]:
                return answer["v"]
            if time.monotonic() > deadline:
                raise ProtocolError("timed out after %ss waiting for %s; last value %s" % (
                    timeout, expression, json.dumps(answer["v"])))
            time.sleep(0.1)

    def screenshot(self, path, dark=False, full=True):
        scheme = "dark" if dark else "light"
        self.call("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]}, session=True)
        params = {"format": "png"}
        if full:
            size = self.evaluate(
                "({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})")
            params.update({"captureBeyondViewport": True,
                           "clip": {"x": 0, "y": 0, "width": size["w"], "height": size["h"], "scale": 1}})
        data = self.call("Page.captureScreenshot", params, session=True, timeout=60)["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))
        return {"path": path, "bytes": os.path.getsize(path)}

    def report(self):
        violations = self.evaluate("window.__pathwatchViolations || []")
        with self.lock:
            return {"console_errors": list(self.console_errors), "exceptions": list(self.exceptions),
                    "csp_violations": violations, "requests": list(self.requests),
                    "navigations": self.navigations}

    def close(self):
        try:
            if self.process.poll() is None and not self.closed:
                self.call("Browser.close", timeout=10)
        except (ProtocolError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for fd in (self.to_browser, self.from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def serve(browser):
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        name = command.get("cmd")
        try:
            if name == "open":
                browser.open(command["url"], command.get("timeout", 60))
                value = None
            elif name == "eval":
                value = browser.evaluate(command["expr"])
            elif name == "wait":
                value = browser.wait(command["expr"], command.get("timeout", 60))
            elif name == "screenshot":
                value = browser.screenshot(command["path"], command.get("dark", False), command.get("full", True))
            elif name == "report":
                value = browser.report()
            elif name == "quit":
                print(json.dumps({"ok": True, "value": None}), flush=True)
                return
            else:
                raise ProtocolError("unknown command %r" % name)
            answer = {"ok": True, "value": value}
        except (ProtocolError, KeyError, OSError) as error:
            value = getattr(error, "value", None)
            answer = {"ok": False, "error": str(error), "value": value}
        print(json.dumps(answer), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["serve", "screenshot"])
    parser.add_argument("url", nargs="?")
    parser.add_argument("path", nargs="?")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--wait", help="for screenshot: a JS expression to wait for first")
    parser.add_argument("--dark", action="store_true")
    args = parser.parse_args()
    # A stop from the test (SIGTERM) still closes Chromium and removes its profile. The test
    # process that started us may have left SIGTERM blocked in the mask we (and Chromium) inherit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    browser = Chromium(args.chromium, args.width, args.height)
    try:
        if args.mode == "serve":
            print(json.dumps({"ok": True, "value": "ready"}), flush=True)
            serve(browser)
        else:
            if not args.url or not args.path:
                parser.error("screenshot needs URL and PATH")
            browser.open(args.url)
            if args.wait:
                browser.wait(args.wait, 60)
            print(json.dumps(browser.screenshot(args.path, args.dark)))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
