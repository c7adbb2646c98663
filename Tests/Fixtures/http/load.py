#!/usr/bin/env python3
"""Load on the live agent's http sink, for HTTPSinkLoadTests and bench/http (loopback only, or
inside a namespace the caller made). Runs for --seconds, then prints one JSON summary line.

At once, on threads of their own:
  --sse N           N clients on GET /events, each parsing the stream (event names, ids, data)
  --scrape-rate R   GET /metrics R times a second, a new connection each time (as a fleet of
                    scrapers would arrive)
  --health-rate R   GET /healthz R times a second (no token: /healthz never needs one)
  --slow N          N clients that send a request head one byte a second and never finish it
                    (slowloris); each records when the agent closed its connection, and gives up
                    --slow-deadline seconds after it connected (it may outlive --seconds)
  --stuck N         N clients on GET /events with a small receive buffer that never read; at the
                    end each drains what is buffered to learn whether the agent dropped it
  --toggle FILE     rewrite the test probe's state file every --toggle-period seconds, between
                    --toggle-checks lines of "critical" and of "ok", so change events flow

--summary FILE also writes the summary there (a long line is easier to take from a file than
from a pipe). --token T adds "Authorization: Bearer T" to every request but /healthz. The summary's counts
are all a caller asserts on; no timing in it is an assertion (bench/http reads the timings).
"""
import argparse
import json
import os
import select
import socket
import threading
import time
from urllib.parse import urlsplit

lock = threading.Lock()
stop = threading.Event()
slow_stop = threading.Event()


def connect(host, port, rcvbuf=None):
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(10)
    sock.connect((host, port))
    return sock


def request_head(path, host, token, extra=""):
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}{extra}\r\n".encode()


def read_head(sock):
    """Reads a response head; returns (status, headers with lower-case names, what arrived
    after the head)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the response head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, rest


def read_response(sock):
    """Reads one HTTP/1.1 response (Content-Length or close-delimited) and returns
    (status, headers, body)."""
    status, headers, body = read_head(sock)
    if "content-length" in headers:
        length = int(headers["content-length"])
        while len(body) < length:
            chunk = sock.recv(max(65536, length - len(body)))
            if not chunk:
                raise ConnectionError("closed in the body")
            body += chunk
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(sock, body)
    else:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    return status, headers, body


def dechunk(sock, buffered):
    out = b""
    data = buffered
    while True:
        while b"\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed in a chunk size")
            data += chunk
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        while len(data) < size + 2:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed in a chunk")
            data += chunk
        out += data[:size]
        data = data[size + 2:]
        if size == 0:
            return out


class SSEClient(threading.Thread):
    def __init__(self, host, port, token):
        super().__init__(daemon=True)
        self.host, self.port, self.token = host, port, token
        self.status = None
        self.content_type = None
        self.events = []  # (name, id, data length)
        self.first_status_ok = False
        self.error = None
        self.closed_by_agent = False

    def run(self):
        try:
            sock = connect(self.host, self.port)
            sock.sendall(request_head("/events", self.host, self.token, "Accept: text/event-stream\r\n"))
            self.status, headers, data = read_head(sock)
            if "content-type" in headers:
                self.content_type = headers["content-type"]
            chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            if self.status != 200:
                return
            sock.settimeout(0.5)
            raw = data
            text = ""
            event = {"event": "message", "id": None, "data": []}
            while not stop.is_set():
                if chunked:
                    # Chunk framing is stripped by a tiny decoder over what has arrived.
                    decoded, raw = take_chunks(raw)
                    text += decoded
                else:
                    text += raw.decode("utf-8", "replace")
                    raw = b""
                while "\n" in text:
                    line, _, text = text.partition("\n")
                    line = line.rstrip("\r")
                    if line == "":
                        if event["data"] or event["event"] != "message":
                            self.record(event)
                        event = {"event": "message", "id": None, "data": []}
                    elif line.startswith(":"):
                        continue
                    else:
                        field, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if field == "event":
                            event["event"] = value
                        elif field == "id":
                            event["id"] = value
                        elif field == "data":
                            event["data"].append(value)
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    self.closed_by_agent = True
                    return
                raw += chunk
            sock.close()
        except Exception as error:  # recorded for the summary
            self.error = f"{type(error).__name__}: {error}"

    def record(self, event):
        data = "\n".join(event["data"])
        if not self.events and event["event"] == "status":
            try:
                self.first_status_ok = json.loads(data).get("schema") == 1
            except ValueError:
                self.first_status_ok = False
        change_to = None
        if event["event"] == "change":
            try:
                change_to = json.loads(data).get("to")
            except ValueError:
                change_to = "unparsable"
        with lock:
            self.events.append((event["event"], event["id"], len(data), change_to))


def take_chunks(raw):
    out = b""
    while True:
        end = raw.find(b"\r\n")
        if end < 0:
            break
        size = int(raw[:end].split(b";")[0] or b"0", 16)
        if len(raw) < end + 2 + size + 2:
            break
        out += raw[end + 2:end + 2 + size]
        raw = raw[end + 2 + size + 2:]
    return out.decode("utf-8", "replace"), raw


class Pacer(threading.Thread):
    """Runs `once` `rate` times a second on its own thread until stopped."""

    def __init__(self, rate, once):
        super().__init__(daemon=True)
        self.rate, self.once = rate, once

    def run(self):
        period = 1.0 / self.rate
        next_at = time.monotonic()
        while not stop.is_set():
            self.once()
            next_at += period
            delay = next_at - time.monotonic()
            if delay > 0:
                stop.wait(delay)
            else:
                next_at = time.monotonic()


class Getter:
    def __init__(self, host, port, path, token, needle):
        self.host, self.port, self.path, self.token, self.needle = host, port, path, token, needle
        self.attempted = self.ok = self.missing = 0
        self.statuses = {}
        self.errors = []
        self.durations = []
        self.sizes = []

    def once(self):
        self.attempted += 1
        started = time.monotonic()
        try:
            sock = connect(self.host, self.port)
            sock.sendall(request_head(self.path, self.host, self.token, "Connection: close\r\n"))
            status, _, body = read_response(sock)
            sock.close()
        except Exception as error:
            if len(self.errors) < 5:
                self.errors.append(f"{type(error).__name__}: {error}")
            self.statuses["error"] = self.statuses.get("error", 0) + 1
            return
        self.durations.append(time.monotonic() - started)
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1
        if status == 200:
            self.ok += 1
            self.sizes.append(len(body))
            if self.needle and self.needle not in body:
                self.missing += 1

    def summary(self):
        ordered = sorted(self.durations)
        return {"attempted": self.attempted, "ok": self.ok, "missing_needle": self.missing, "statuses": self.statuses,
                "errors": self.errors, "max_bytes": max(self.sizes, default=0),
                "p50_ms": round(ordered[len(ordered) // 2] * 1000, 2) if ordered else None}


class SlowClient(threading.Thread):
    """Sends a request head one byte a second, never finishing it."""

    def __init__(self, host, port):
        super().__init__(daemon=True)
        self.host, self.port = host, port
        self.sent = 0
        self.cut_after = None
        self.answer = b""
        self.error = None

    def run(self):
        try:
            sock = connect(self.host, self.port)
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"
            return
        started = time.monotonic()
        head = f"GET /healthz HTTP/1.1\r\nHost: {self.host}\r\nX-Slow: ".encode()
        while not slow_stop.is_set():
            byte = head[self.sent:self.sent + 1] if self.sent < len(head) else b"a"
            try:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    chunk = sock.recv(4096)
                    self.answer += chunk
                    if not chunk:
                        break
                sock.send(byte)
                self.sent += 1
            except OSError:
                break
            slow_stop.wait(1.0)
        else:
            sock.close()
            return
        self.cut_after = round(time.monotonic() - started, 1)
        sock.close()


class StuckClient:
    """Opens /events with a small receive buffer and reads nothing until `drain`."""

    def __init__(self, host, port, token):
        self.sock = connect(host, port, rcvbuf=4096)
        self.sock.sendall(request_head("/events", host, token))

    def drain(self):
        """True when the agent closed (or reset) the connection: EOF reached while draining
        what the kernel buffered, within a few seconds of reading."""
        self.sock.settimeout(2)
        total = 0
        try:
            while True:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    return True, total
                total += len(chunk)
        except ConnectionResetError:
            return True, total
        except socket.timeout:
            return False, total


class Toggler(threading.Thread):
    def __init__(self, path, checks, period):
        super().__init__(daemon=True)
        self.path, self.checks, self.period = path, checks, period
        self.count = 0

    def write(self, state):
        temporary = self.path + ".tmp"
        with open(temporary, "w") as f:
            f.write(f"{state} load toggle\n" * self.checks)
        os.replace(temporary, self.path)

    def run(self):
        states = ["critical", "ok"]
        while not stop.wait(self.period):
            self.write(states[self.count % 2])
            self.count += 1
        self.write("ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="http://127.0.0.1:PORT")
    parser.add_argument("--token")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--sse", type=int, default=0)
    parser.add_argument("--scrape-rate", type=float, default=0)
    parser.add_argument("--health-rate", type=float, default=0)
    parser.add_argument("--slow", type=int, default=0)
    parser.add_argument("--slow-deadline", type=float, default=30)
    parser.add_argument("--stuck", type=int, default=0)
    parser.add_argument("--toggle")
    parser.add_argument("--toggle-checks", type=int, default=1)
    parser.add_argument("--toggle-period", type=float, default=1.0)
    parser.add_argument("--summary")
    args = parser.parse_args()
    parts = urlsplit(args.url)
    host, port = parts.hostname, parts.port

    stuck = [StuckClient(host, port, args.token) for _ in range(args.stuck)]
    sse = [SSEClient(host, port, args.token) for _ in range(args.sse)]
    slow = [SlowClient(host, port) for _ in range(args.slow)]
    scraper = Getter(host, port, "/metrics", args.token, b"pathwatch_build_info")
    health = Getter(host, port, "/healthz", None, None)
    threads = list(sse)
    if args.scrape_rate > 0:
        threads.append(Pacer(args.scrape_rate, scraper.once))
    if args.health_rate > 0:
        threads.append(Pacer(args.health_rate, health.once))
    toggler = Toggler(args.toggle, args.toggle_checks, args.toggle_period) if args.toggle else None
    if toggler:
        threads.append(toggler)
    print("started", flush=True)
    started = time.monotonic()
    for t in threads + slow:
        t.start()
    try:
        stop.wait(args.seconds)
    except KeyboardInterrupt:
        pass
    stop.set()
    for t in threads:
        t.join(15)
    for t in slow:
        t.join(max(0.0, started + args.slow_deadline - time.monotonic()))
    slow_stop.set()
    for t in slow:
        t.join(5)
    # The stuck clients are drained after the others stopped, so the agent had the whole run
    # to notice they never read.
    drained = [c.drain() for c in stuck]

    def count(client, name):
        return sum(1 for e in client.events if e[0] == name)

    summary = {
        "sse": {
            "clients": len(sse),
            "status_200": sum(1 for c in sse if c.status == 200),
            "statuses": {str(k): sum(1 for c in sse if c.status == k) for k in {c.status for c in sse}},
            "event_stream": sum(1 for c in sse if (c.content_type or "").startswith("text/event-stream")),
            "first_is_status": sum(1 for c in sse if c.events and c.events[0][0] == "status" and c.first_status_ok),
            "second_is_history": sum(1 for c in sse if len(c.events) > 1 and c.events[1][0] == "history"),
            "with_change_to_critical": sum(1 for c in sse if any(e[3] == "critical" for e in c.events)),
            "with_change_to_ok": sum(1 for c in sse if any(e[3] == "ok" for e in c.events)),
            "changes_with_id": sum(1 for c in sse if all(e[1] for e in c.events if e[0] == "change")),
            "min_changes": min((count(c, "change") for c in sse), default=0),
            "max_changes": max((count(c, "change") for c in sse), default=0),
            "min_status_events": min((count(c, "status") for c in sse), default=0),
            "closed_by_agent": sum(1 for c in sse if c.closed_by_agent),
            "errors": [c.error for c in sse if c.error][:5],
            "change_ids": [[e[1] for e in c.events if e[0] == "change"] for c in sse],
        },
        "scrapes": scraper.summary(),
        "health": health.summary(),
        "slow": {"clients": len(slow), "cut_off": sum(1 for c in slow if c.cut_after is not None),
                 "cut_after_s": [c.cut_after for c in slow], "bytes_sent": [c.sent for c in slow],
                 "answers": [c.answer.decode("latin-1")[:80] for c in slow], "errors": [c.error for c in slow if c.error]},
        "stuck": {"clients": len(stuck), "dropped": sum(1 for d, _ in drained if d), "drained_bytes": [b for _, b in drained]},
        "toggles": toggler.count if toggler else 0,
    }
    if args.summary:
        with open(args.summary + ".tmp", "w") as f:
            json.dump(summary, f)
        os.replace(args.summary + ".tmp", args.summary)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
