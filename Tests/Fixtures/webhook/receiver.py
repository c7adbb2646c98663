#!/usr/bin/env python3
"""A webhook receiver for Pathwatch's tests and benchmark, on one address it is given.

It answers every POST according to its mode, and records every request (headers, body, the
status it answered, the client's port) as one JSON line in --log, written and flushed before
the response is sent, so a record survives the receiver (and the sender) being killed.

Modes (--mode, or changed at run time with POST /_control {"mode": ...}):
  ok            200
  fail          500
  retry-after   429 with "Retry-After: <retry_after>" (seconds; default 1)
  unavailable   503 with "Retry-After: <HTTP date retry_after seconds ahead>"
  reject        400 with a two-line body ("bad payload: <id>" then "second line")
  echo-auth     401 whose body echoes the request's Authorization header, as careless servers
                do (the agent must redact what it logs of the body)
  hang          never answers (the connection stays open until the sender gives up)

Two behaviours of flaky and rate-limited receivers, with --fail-every and --min-gap (or in
POST /_control as "fail_every" and "min_gap"), on top of the mode:
  fail_every N  every Nth request (counting all of them) is answered 503 without Retry-After
  min_gap S     like Slack's incoming webhooks: a request less than S seconds after the last
                accepted one is answered 429 with "Retry-After: <whole seconds until allowed>";
                a request that arrives before a Retry-After it was given ran out is recorded
                with "early": true (the sender ignored it)

POST /_control also takes "script": a list of answers for the next requests, in order, each
{"status": N} (with "retry_after" sent as Retry-After if given) or {"mode": M, "retry_after": ...},
before the mode applies again; "reject_ids": webhook-ids always
answered 400; "delay_ms": a pause before every answer; "gather": N, each request waits (up to
half a second) until N requests are in flight together, so requests a sender sends side by side
are seen side by side however busy the machine. Each record has "in_flight": the most requests
in flight together while it was.

With --tls-cert and --tls-key it serves HTTPS; with --tls-client-ca it also demands a client
certificate signed by that CA (mutual TLS) and records the certificate's common name.

With --secret, each request's Standard Webhooks signature is checked with the `standardwebhooks`
package (an implementation independent of Pathwatch's) and the record says "verified".

GET /_received returns every record so far as a JSON array; GET /_count the number of requests
answered 2xx (cheap enough to poll).
"""
import argparse
import base64
import email.utils
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
state = {"mode": "ok", "retry_after": "1", "script": [], "reject_ids": set(), "delay_ms": 0, "fail_every": 0, "min_gap": 0.0,
         "requests": 0, "last_accepted": None, "not_before": None, "gather": 0, "in_flight": 0}
flight = threading.Condition(lock)
# One list a request in flight, holding the most in flight together since it arrived.
watching = []
records = []
accepted = [0]
log_file = None
verifier = None


def paced_answer(now):
    """fail_every and min_gap: (status, headers, body, early), or None to answer by the mode.
    Called under the lock."""
    state["requests"] += 1
    early = state["not_before"] is not None and now < state["not_before"]
    if state["fail_every"] and state["requests"] % state["fail_every"] == 0:
        return 503, {}, "unavailable\n", early
    gap = state["min_gap"]
    if gap and state["last_accepted"] is not None and now < state["last_accepted"] + gap:
        wait = max(1, int(-(-(state["last_accepted"] + gap - now) // 1)))
        state["not_before"] = now + wait
        return 429, {"Retry-After": str(wait)}, "rate limited\n", early
    return None, {}, "", early


def next_answer(webhook_id, authorization="", now=None):
    """The status (and extra headers, and body) for the next request."""
    with lock:
        if webhook_id in state["reject_ids"]:
            return 400, {}, f"bad payload: {webhook_id}\nsecond line\n"
        if now is not None and (state["fail_every"] or state["min_gap"]):
            status, headers, body, early = paced_answer(now)
            if early:
                headers = dict(headers, **{"X-Early": "1"})
            if status is not None:
                return status, headers, body
            if state["min_gap"]:
                state["last_accepted"] = now
            if early:
                return 200, headers, "ok\n"
        step = state["script"].pop(0) if state["script"] else {}
        mode = step.get("mode", state["mode"])
        retry_after = step.get("retry_after", state["retry_after"])
        delay = state["delay_ms"]
    if delay:
        time.sleep(delay / 1000)
    if "status" in step:
        headers = {"Retry-After": str(step["retry_after"])} if "retry_after" in step else {}
        return step["status"], headers, "scripted\n"
    if mode == "ok":
        return 200, {}, "ok\n"
    if mode == "fail":
        return 500, {}, "internal error\n"
    if mode == "retry-after":
        return 429, {"Retry-After": str(retry_after)}, "slow down\n"
    if mode == "unavailable":
        when = email.utils.formatdate(time.time() + float(retry_after), usegmt=True)
        return 503, {"Retry-After": when}, "unavailable\n"
    if mode == "reject":
        return 400, {}, f"bad payload: {webhook_id}\nsecond line\n"
    if mode == "hang":
        return None, {}, ""
    if mode == "echo-auth":
        return 401, {}, f"denied for Authorization: {authorization}\n"
    return 500, {}, f"unknown mode {mode}\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY the second waits for the
    # client's delayed ACK (40 ms), which would make the receiver, not the sender, the bottleneck.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, status, headers, body):
        # A 204 or 304 has no content (RFC 9110 §15.3.5): bytes after its headers would be read
        # by libcurl as the start of the next answer on the connection when they arrive with them.
        data = b"" if status in (204, 304) else body.encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain" if not body.startswith(("[", "{")) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_received":
            with lock:
                body = json.dumps(records)
            self.reply(200, {}, body)
        elif self.path == "/_count":
            with lock:
                body = json.dumps({"accepted": accepted[0]})
            self.reply(200, {}, body)
        else:
            self.reply(404, {}, "not found\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.path == "/_control":
            change = json.loads(raw)
            with lock:
                for key in ("mode", "retry_after", "script", "delay_ms", "fail_every", "min_gap", "gather"):
                    if key in change:
                        state[key] = change[key]
                if "reject_ids" in change:
                    state["reject_ids"] = set(change["reject_ids"])
            self.reply(200, {}, "{}")
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        in_flight = self.gather()
        now = time.time()
        status, extra, body = next_answer(headers.get("webhook-id"), headers.get("authorization", ""), now)
        early = extra.pop("X-Early", None) is not None
        record = {
            "time": now,
            "early": early,
            "path": self.path,
            "headers": headers,
            "body": raw.decode("utf-8", "replace"),
            "body_base64": base64.b64encode(raw).decode(),
            "status": status,
            "client_port": self.client_address[1],
            "in_flight": in_flight[0],
        }
        if isinstance(self.connection, ssl.SSLSocket):
            peer = self.connection.getpeercert() or {}
            names = [value for rdn in peer.get("subject", ()) for key, value in rdn if key == "commonName"]
            record["client_cert_cn"] = names[0] if names else None
        if verifier is not None:
            try:
                verifier.verify(raw, headers)
                record["verified"] = True
            except Exception as error:  # the package raises its own error types
                record["verified"] = False
                record["verify_error"] = str(error)
        with lock:
            records.append(record)
            if status is not None and 200 <= status < 300:
                accepted[0] += 1
            if log_file is not None:
                log_file.write(json.dumps(record) + "\n")
                log_file.flush()
        if status is None:
            # Hang: keep the connection open without answering until the sender gives up.
            while True:
                time.sleep(3600)
        try:
            self.reply(status, extra, body)
        finally:
            with flight:
                state["in_flight"] -= 1
                watching[:] = [seen for seen in watching if seen is not in_flight]

    def gather(self):
        """Counts this request in flight, waits for "gather" of them, and returns a one-element list
        holding the most in flight together since it arrived (updated while it is)."""
        with flight:
            state["in_flight"] += 1
            seen = [state["in_flight"]]
            watching.append(seen)
            for other in watching:
                other[0] = max(other[0], state["in_flight"])
            flight.notify_all()
            deadline = time.time() + 0.5
            while state["gather"] and state["in_flight"] < state["gather"] and time.time() < deadline:
                flight.wait(deadline - time.time())
            return seen


def main():
    global log_file, verifier
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log")
    parser.add_argument("--mode", default="ok")
    parser.add_argument("--retry-after", default="1")
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--fail-every", type=int, default=0)
    parser.add_argument("--min-gap", type=float, default=0.0)
    parser.add_argument("--secret")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--tls-client-ca")
    args = parser.parse_args()
    state["mode"] = args.mode
    state["retry_after"] = args.retry_after
    state["delay_ms"] = args.delay_ms
    state["fail_every"] = args.fail_every
    state["min_gap"] = args.min_gap
    if args.secret:
        try:
            from standardwebhooks.webhooks import Webhook
        except ImportError:
            print("missing: the standardwebhooks package (python3 -m pip install standardwebhooks)", flush=True)
            sys.exit(3)
        verifier = Webhook(args.secret)
    if args.log:
        log_file = open(args.log, "a", encoding="utf-8")
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        if args.tls_client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.tls_client_ca)
        # A failed handshake raises an OSError in accept, which the server ignores.
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
