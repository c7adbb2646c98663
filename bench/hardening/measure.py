#!/usr/bin/env python3
"""Reproduces the three failures the hardening work fixed, against the build products folder
given (so the same script measures an old build and a new one), and prints what was lost:

  reload   change events every 300 ms while SIGHUP arrives every 70 ms, the webhook sink's
           settings alternating: events printed on stdout vs events the receiver got
  diskfull state_dir on a 1 MiB tmpfs, the receiver down until the disk is full and a few
           more changes happened, then up: events printed vs received
  nofile   prlimit --nofile=64:64, 300 loopback targets: checks critical, false change events

Run as root (unshare, mount, prlimit). Traffic stays on 127.0.0.1."""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECEIVER = os.path.join(ROOT, "Tests/Fixtures/webhook/receiver.py")
ENDPOINTS = os.path.join(ROOT, "Plugins/Reachability/Tests/Fixtures/endpoint_server.py")
HEADER = os.path.join(ROOT, "SDK/Sources/CPathwatchProbe/include")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from loopback import free_port  # noqa: E402


class Lines:
    """Collects a process's stdout lines on a thread."""

    def __init__(self, process):
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for raw in stream:
            self.lines.append(raw.decode("utf-8", "replace"))

    def events(self):
        out = []
        for line in list(self.lines):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if doc.get("type") == "change":
                out.append(doc["id"])
        return out


def receiver(port, log, start=True):
    p = subprocess.Popen(["python3", RECEIVER, "--host", "127.0.0.1", "--port", str(port), "--log", log],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.readline()
    return p


def received(log):
    seen, out = set(), []
    if not os.path.exists(log):
        return out
    for line in open(log):
        try:
            record = json.loads(line)
            body = json.loads(record["body"])
        except (ValueError, KeyError):
            continue
        if 200 <= (record.get("status") or 0) < 300 and body.get("id") not in seen:
            seen.add(body.get("id"))
            out.append(body.get("id"))
    return out


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def settle(out, log, agent, rx, seconds):
    """Waits (at most `seconds`) for the receiver to hold every printed event, stops both, and
    returns the printed events and those that never arrived."""
    printed = out.events()
    deadline = time.time() + seconds
    while time.time() < deadline and len(received(log)) < len(printed):
        time.sleep(0.2)
    got = set(received(log))
    stop(agent)
    stop(rx)
    return printed, [e for e in printed if e not in got]


def setup(products, work):
    plugins = os.path.join(work, "plugins")
    os.makedirs(plugins)
    os.chmod(plugins, 0o755)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "json-c"], capture_output=True, text=True).stdout.split()
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-I", HEADER, os.path.join(ROOT, "Tests/Fixtures/plugins/test_probe.c"),
                    "-o", os.path.join(plugins, "libtestprobe.so")] + flags + ["-lm"], check=True)
    shutil.copy(os.path.join(products, "libpathwatch_reachability.so"), plugins)
    return plugins


def config(work, plugins, state_file, checks_state_dir, webhook, probes_extra=""):
    return json.dumps({
        "agent": {"name": "bench", "plugin_dirs": [plugins], "interval": "100ms", "state_dir": checks_state_dir},
        "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": state_file}}],
        "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                  {"type": "file", "path": os.path.join(work, "status.json"), "pretty": False}, webhook]})


def reload_storm(binary, plugins, work, seconds):
    port = free_port()
    log = os.path.join(work, "reload.jsonl")
    rx = receiver(port, log)
    state = os.path.join(work, "reload-state")
    write_atomically(state, "ok fine\n")
    hook = lambda t: {"type": "webhook", "url": f"http://127.0.0.1:{port}/hook", "timeout": t,
                      "retry": {"initial": "100ms", "max": "500ms"}}
    path = os.path.join(work, "reload.json")
    write_atomically(path, config(work, plugins, state, os.path.join(work, "q-reload"), hook("5s")))
    agent = subprocess.Popen([binary, "run", "--config", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = Lines(agent)
    time.sleep(1)
    start, flips, reloads, next_flip = time.time(), 0, 0, time.time()
    while time.time() - start < seconds:
        if time.time() >= next_flip:
            flips += 1
            write_atomically(state, ("critical broken\n" if flips % 2 else "ok fine\n"))
            next_flip += 0.3
        reloads += 1
        write_atomically(path, config(work, plugins, state, os.path.join(work, "q-reload"), hook("5s" if reloads % 2 else "7s")))
        agent.send_signal(signal.SIGHUP)
        time.sleep(0.07)
    time.sleep(1)
    printed, missing = settle(out, log, agent, rx, 30)
    return f"reload storm ({seconds} s, {reloads} SIGHUPs): {len(printed)} events printed, {len(missing)} never reached the receiver"


def disk_full(binary, plugins, work):
    port = free_port()
    log = os.path.join(work, "disk.jsonl")
    state = os.path.join(work, "disk-state")
    checks, padding = 40, "x" * 1500
    lines = lambda s: f"{s} {padding}\n" * checks
    write_atomically(state, lines("ok"))
    queues = os.path.join(work, "q-disk")
    os.makedirs(queues)
    path = os.path.join(work, "disk.json")
    write_atomically(path, config(work, plugins, state, queues, {
        "type": "webhook", "url": f"http://127.0.0.1:{port}/hook", "retry": {"initial": "100ms", "max": "300ms"}}))
    script = f"mount -t tmpfs -o size=1m pathwatch-bench {queues} && exec {binary} run --config {path}"
    agent = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = Lines(agent)
    errors = []
    threading.Thread(target=lambda: [errors.append(l.decode("utf-8", "replace")) for l in agent.stderr], daemon=True).start()
    time.sleep(1)
    flips, full_at = 0, None
    while flips < 40:
        flips += 1
        write_atomically(state, lines("critical" if flips % 2 else "ok"))
        deadline = time.time() + 10
        while time.time() < deadline and len(out.events()) < flips * checks:
            time.sleep(0.05)
        if full_at is None and any("No space left" in e or "state disk is full" in e for e in errors):
            full_at = flips
        if full_at is not None and flips >= full_at + 3:
            break
    rx = receiver(port, log)
    printed, missing = settle(out, log, agent, rx, 60)
    return f"full state disk (1 MiB tmpfs, full after {full_at} rounds of {checks} events): {len(printed)} events printed, {len(missing)} never arrived"


def nofile(binary, plugins, work):
    server = subprocess.Popen(["python3", ENDPOINTS], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    port = int(server.stdout.readline().split()[1])
    hook_port = free_port()
    log = os.path.join(work, "nofile.jsonl")
    rx = receiver(hook_port, log)
    targets = [{"name": f"t{i}", "url": f"http://127.0.0.1:{port}/ok", "timeout": "2s"} for i in range(300)]
    path = os.path.join(work, "nofile.json")
    write_atomically(path, json.dumps({
        "agent": {"plugin_dirs": [plugins], "state_dir": os.path.join(work, "q-nofile")},
        "probes": [{"id": "api", "plugin": "reachability", "interval": "3s", "config": {"targets": targets}}],
        "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                  {"type": "webhook", "url": f"http://127.0.0.1:{hook_port}/hook"}]}))
    limit = ["prlimit", "--nofile=64:64", "--"]
    once = subprocess.run(limit + [binary, "once", "--config", path], capture_output=True, text=True)
    states = {}
    try:
        for check in json.loads(once.stdout)["checks"]:
            states[check["state"]] = states.get(check["state"], 0) + 1
    except (ValueError, KeyError):
        states = {"unparsable": 1}
    agent = subprocess.Popen(limit + [binary, "run", "--config", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = Lines(agent)
    time.sleep(15)
    stop(agent)
    time.sleep(0.5)
    events = len(out.events())
    hooked = len(received(log))
    stop(rx)
    stop(server)
    return (f"out of descriptors (ulimit 64, 300 targets): once: {states.get('critical', 0)} critical, "
            f"{states.get('unknown', 0)} unknown, {states.get('ok', 0)} ok; run for 15 s: {events} change events printed, {hooked} delivered by webhook")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", required=True, help="a build products folder: pathwatch and the plug-ins")
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    products = os.path.abspath(args.products)
    binary = os.path.join(products, "pathwatch")
    work = tempfile.mkdtemp(prefix="pathwatch-hardening-")
    try:
        plugins = setup(products, work)
        print(f"== {binary}")
        print(reload_storm(binary, plugins, work, args.seconds))
        print(disk_full(binary, plugins, work))
        print(nofile(binary, plugins, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
