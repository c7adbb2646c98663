#!/usr/bin/env python3
"""An HTTP(S) server on 127.0.0.1 with the endpoints the reachability tests need.

Binds port 0 and prints "PORT <n>" once listening, then serves until killed:
  /ok               200 "ok"
  /status/<code>    that status, body "status <code>"
  /slow/<ms>        waits <ms> milliseconds, then 200 "ok"
  /peak             200 "peak <n>": the most /slow requests ever in progress at once
  /hang             never answers (holds the connection for 10 minutes)
  /bearer           200 when "Authorization: Bearer <BEARER_TOKEN env>" is sent, else 401
  /redirect         302 to /ok
  /echo (POST)      200 "<content-type>|<body>"
  /respond?body=B&type=T&header=Name:Value&first_byte_ms=N
                    200 with body B (Content-Type T, each header given), after waiting N ms
                    before the first byte
  /big/<bytes>      200 with a body of that many bytes ({"status":"UP","pad":"xxx…), sent in
                    64 KiB chunks; a client that stops reading ends it quietly
  /repeat?head=H&unit=U&count=N&tail=T
                    200 with the body H + U repeated N times + T (each part optional)
  /headers/<count>  200 "ok" after <count> extra response headers (X-Filler-<i>: <i>)
Options: --cert FILE --key FILE to serve HTTPS; --client-ca FILE to require client certificates
signed by that CA; --host ADDRESS to listen on another loopback address than 127.0.0.1.
"""
import argparse
import http.server
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse


class Concurrency:
    lock = threading.Lock()
    current = 0
    peak = 0

    @classmethod
    def enter(cls):
        with cls.lock:
            cls.current += 1
            cls.peak = max(cls.peak, cls.current)

    @classmethod
    def leave(cls):
        with cls.lock:
            cls.current -= 1


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # quiet: tests read stdout for the port line only

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = self.path
        if path == "/ok":
            self.reply(200, b"ok")
        elif path.startswith("/status/"):
            code = int(path[len("/status/"):])
            self.reply(code, b"status %d" % code)
        elif path.startswith("/slow/"):
            Concurrency.enter()
            try:
                time.sleep(int(path[len("/slow/"):]) / 1000)
            finally:
                Concurrency.leave()
            self.reply(200, b"ok")
        elif path == "/peak":
            self.reply(200, b"peak %d" % Concurrency.peak)
        elif path == "/hang":
            time.sleep(600)
        elif path == "/bearer":
            expected = "Bearer " + os.environ.get("BEARER_TOKEN", "")
            if self.headers.get("Authorization") == expected and expected != "Bearer ":
                self.reply(200, b"authorized")
            else:
                self.reply(401, b"unauthorized")
        elif path.startswith("/respond?"):
            query = urllib.parse.parse_qs(path[len("/respond?"):], keep_blank_values=True)
            time.sleep(int(query.get("first_byte_ms", ["0"])[0]) / 1000)
            headers = [tuple(h.split(":", 1)) for h in query.get("header", [])]
            if "type" in query:
                headers.append(("Content-Type", query["type"][0]))
            self.reply(200, query.get("body", [""])[0].encode(), headers)
        elif path.startswith("/big/"):
            self.big(int(path[len("/big/"):]))
        elif path.startswith("/repeat?"):
            query = urllib.parse.parse_qs(path[len("/repeat?"):], keep_blank_values=True)
            part = lambda name: query.get(name, [""])[0].encode()
            body = part("head") + part("unit") * int(query.get("count", ["0"])[0]) + part("tail")
            self.reply(200, body)
        elif path.startswith("/headers/"):
            count = int(path[len("/headers/"):])
            self.reply(200, b"ok", [("X-Filler-%d" % i, str(i)) for i in range(count)])
        elif path == "/redirect":
            self.reply(302, b"", [("Location", "/ok")])
        else:
            self.reply(404, b"not found")

    def big(self, size):
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        head = b'{"status":"UP","pad":"'
        chunk = b"x" * 65536
        try:
            self.wfile.write(head[:size])
            sent = min(len(head), size)
            while sent < size:
                part = chunk[: size - sent]
                self.wfile.write(part)
                sent += len(part)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/echo":
            kind = self.headers.get("Content-Type", "").encode()
            self.reply(200, kind + b"|" + body)
        else:
            self.reply(404, b"not found")


def exit_with_parent():
    # A test that crashes must not leave servers behind: leave when the parent is gone.
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    # The parent may have left SIGTERM ignored or blocked (both survive exec): stop on it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--client-ca")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    # A deep accept backlog: tests open hundreds of connections at once, and the default of 5
    # would turn the excess into SYN retries and timeouts that have nothing to do with the agent.
    http.server.ThreadingHTTPServer.request_queue_size = 1024
    server = http.server.ThreadingHTTPServer((args.host, 0), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.client_ca)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=exit_with_parent, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
