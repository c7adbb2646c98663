#!/usr/bin/env python3
"""The far side of the link for the connectivity tests: a check URL, an endpoint and a webhook
receiver on one address, answering as the internet or as a captive portal would.

Prints "PORT <n>" once listening (--port 0 picks a free one). The mode is read from --mode-file
on every request, so a test switches it by rewriting that file:
  full       GET /generate_204 -> 204; GET /online -> 200 "online"; GET /api -> 200 "ok"
  redirect   every GET -> 302 to http://login.portal.invalid/login (a portal's redirect)
  html       every GET -> 200 text/html login page (a portal that answers in place)
  hang       every GET waits 60 s before answering
POST /hook is answered 200 in every mode and appended to --hook-log as one JSON line
{"at": <unix time>, "body": <text>}, written and flushed before the answer.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOGIN_PAGE = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Room number</form></body></html>"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode_file = None
    hook_log = None
    hook_lock = threading.Lock()

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def mode(self):
        try:
            with open(self.mode_file) as f:
                return f.read().strip() or "full"
        except OSError:
            return "full"

    def do_GET(self):
        mode = self.mode()
        if mode == "hang":
            time.sleep(60)
            mode = "full"
        if mode == "redirect":
            return self.reply(302, b"", [("Location", "http://login.portal.invalid/login?from=generate_204")])
        if mode == "html":
            return self.reply(200, LOGIN_PAGE, [("Content-Type", "text/html")])
        if self.path == "/generate_204":
            return self.reply(204)
        if self.path == "/online":
            return self.reply(200, b"online", [("Content-Type", "text/plain")])
        if self.path == "/api":
            return self.reply(200, b"ok", [("Content-Type", "text/plain")])
        return self.reply(404, b"not found")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/hook" and self.hook_log:
            line = json.dumps({"at": time.time(), "body": body.decode("utf-8", "replace")})
            with self.hook_lock, open(self.hook_log, "a") as f:
                f.write(line + "\n")
                f.flush()
        self.reply(200, b"ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode-file", required=True)
    parser.add_argument("--hook-log")
    args = parser.parse_args()
    Handler.mode_file = args.mode_file
    Handler.hook_log = args.hook_log
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
