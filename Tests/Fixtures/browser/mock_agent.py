#!/usr/bin/env python3
"""A stand-in for the agent's http sink, for fast DOM tests of the status page.

Serves the page the way the sink does (GET / with the Content-Security-Policy whose hashes it
computes itself from the page's inline style and script), and an /events stream whose content
the test sets and pushes through /control/*:

    POST /control/state    {"status": <document>, "history": [...], "plot": {...}}   what a new stream starts with
    POST /control/push     {"event": "change", "id": "...", "data": {...}} to every open stream
    POST /control/drop     closes every open stream
    POST /control/hold     new /events requests wait, unanswered, until /control/release
    POST /control/release

    mock_agent.py --port P --page DIR [--wrong-style-hash]

DIR holds page.html, style.css and script.js. With --wrong-style-hash the policy names a hash
of something else, so the browser must refuse the style: a check that the tests see violations.
Prints "listening" once it accepts connections. Python 3 standard library only.
"""
import argparse
import base64
import hashlib
import json
import os
import queue
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def digest(text):
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


class Hub:
    def __init__(self):
        self.lock = threading.Lock()
        self.streams = set()
        self.state = {"status": None, "history": []}
        self.released = threading.Event()
        self.released.set()

    def open(self):
        stream = queue.Queue()
        with self.lock:
            self.streams.add(stream)
            state = dict(self.state)
        return stream, state

    def close(self, stream):
        with self.lock:
            self.streams.discard(stream)

    def broadcast(self, item):
        with self.lock:
            if item and item.get("event") == "status":
                self.state["status"] = item.get("data")
            streams = list(self.streams)
        for stream in streams:
            stream.put(item)


def frame(event, data, ident=None):
    lines = []
    if ident is not None:
        lines.append("id: %s" % ident)
    lines.append("event: %s" % event)
    lines.append("data: %s" % json.dumps(data, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


def handler_class(hub, page, policy):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body, content_type, extra=()):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/":
                self.reply(200, page, "text/html; charset=utf-8", [("Content-Security-Policy", policy)])
            elif self.path == "/healthz":
                self.reply(200, b"ok\n", "text/plain")
            elif self.path == "/events":
                self.events()
            else:
                self.reply(404, b"not found\n", "text/plain")

        def events(self):
            hub.released.wait()
            stream, state = hub.open()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(b"retry: 500\n\n")  # the sink says 2000; tests need not wait that long
                if state["status"] is not None:
                    self.wfile.write(frame("status", state["status"]))
                self.wfile.write(frame("history", state["history"]))
                if state.get("plot") is not None:
                    self.wfile.write(frame("plot", state["plot"]))
                self.wfile.flush()
                while True:
                    item = stream.get()
                    if item is None:
                        break
                    self.wfile.write(frame(item["event"], item["data"], item.get("id")))
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                hub.close(stream)
                self.close_connection = True

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"null")
            if self.path == "/control/state":
                with hub.lock:
                    hub.state = {"status": body.get("status"), "history": body.get("history", []), "plot": body.get("plot")}
            elif self.path == "/control/push":
                hub.broadcast(body)
            elif self.path == "/control/drop":
                hub.broadcast(None)
            elif self.path == "/control/hold":
                hub.released.clear()
            elif self.path == "/control/release":
                hub.released.set()
            else:
                self.reply(404, b"not found\n", "text/plain")
                return
            self.reply(200, b"done\n", "text/plain")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--page", required=True)
    parser.add_argument("--wrong-style-hash", action="store_true")
    args = parser.parse_args()
    read = lambda name: open(os.path.join(args.page, name), encoding="utf-8").read()
    page, style, script = read("page.html"), read("style.css"), read("script.js")
    style_hash = digest(style + ("/* not this */" if args.wrong_style_hash else ""))
    policy = ("default-src 'none'; script-src 'sha256-%s'; style-src 'sha256-%s'; connect-src 'self'; "
              "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'") % (digest(script), style_hash)
    server = ThreadingHTTPServer((args.host, args.port), handler_class(Hub(), page.encode(), policy))
    server.daemon_threads = True
    # Stop at once on SIGTERM, open streams or not; the test process that started us may have
    # left SIGTERM blocked in the mask we inherited.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
