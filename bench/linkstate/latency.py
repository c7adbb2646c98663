#!/usr/bin/env python3
"""Measures how fast a link change reaches the agent's stdout sink.

In a private network namespace, toggles a veth end administratively down and up, and for each
toggle measures the time from the `ip link set` command returning to the matching change event
line (check link/vA, to critical or ok) being read from `pathwatch run`'s stdout. The probe
requires vA, so an administratively-down vA is critical and every toggle is one change event.

The kernel announces the change while it is still handling the `ip` request, so the event often
arrives before `ip` has exited. To see the agent's own latency, a netlink listener in the same
namespace records when it receives each link notification (netlink sockets carry no kernel
timestamps), and the time from that notification to the event line is reported too.

With --ip-monitor, `ip monitor link` runs in the namespace beside the agent as the peer: its
lines are timed from the same kernel notices. With --http idle|load the agent also serves an
http sink on the namespace's loopback, with no client or under the load of
Tests/Fixtures/http/load.py (run inside the namespace for the whole measurement); --pause spaces
the toggles so the measurement lasts as long as the load should.

Prints a summary and, with --results, appends a markdown table row; with --summary-json, appends
one JSON line per measurement (bench/http/measure.py latency turns those into its table).
"""
import argparse
import re
import signal
import ctypes
import datetime
import json
import os
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

CLONE_NEWNET = 0x40000000
RTMGRP_LINK = 1
RTM_NEWLINK = 16
IFF_UP = 1


def percentile(values, p):
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


class KernelListener(threading.Thread):
    """Records when each RTM_NEWLINK arrives (monotonic seconds), with the link's index and
    whether it is administratively up. This thread wakes on the same notification as the agent,
    so the agent's latency measured from here is, if anything, understated by this thread's
    own wake-up time."""

    def __init__(self, namespace):
        super().__init__(daemon=True)
        # The socket belongs to the namespace of the thread that creates it: enter, open, leave.
        libc = ctypes.CDLL(None, use_errno=True)
        original = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
        try:
            if libc.setns(target, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns into the benchmark namespace")
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
            if libc.setns(original, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
        finally:
            os.close(original)
            os.close(target)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, RTMGRP_LINK))
        self.notifications = []
        self.lock = threading.Lock()

    def run(self):
        while True:
            data = self.sock.recv(65536)
            stamp = time.monotonic()
            offset = 0
            while offset + 32 <= len(data):
                length, kind = struct.unpack_from("IH", data, offset)
                if kind == RTM_NEWLINK:
                    _, _, _, index, flags = struct.unpack_from("BBHiI", data, offset + 16)
                    with self.lock:
                        self.notifications.append((stamp, index, bool(flags & IFF_UP)))
                if length < 16:
                    break
                offset += (length + 3) & ~3

    def first_after(self, since, index, up, timeout=1.0):
        """The first matching notification received since `since`; waits for this thread to
        record it, since the agent's line may be read first."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                for stamp, i, is_up in self.notifications:
                    if stamp >= since and i == index and is_up == up:
                        return stamp
            if time.monotonic() > deadline:
                return None
            time.sleep(0.0005)


class EventReader(threading.Thread):
    """Timestamps each stdout line of the agent as it arrives."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.events = []
        self.condition = threading.Condition()

    def run(self):
        for raw in self.stream:
            now = time.monotonic()
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            with self.condition:
                self.events.append((now, event))
                self.condition.notify_all()

    def wait_for(self, start_index, check, to_state, timeout=5.0):
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for index in range(start_index, len(self.events)):
                    at, event = self.events[index]
                    if event.get("check") == check and event.get("to") == to_state:
                        return at, index + 1
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {check} → {to_state} event within {timeout}s")
                self.condition.wait(left)


class MonitorReader(threading.Thread):
    """Timestamps each line `ip monitor link` prints about `name`, with whether the link is
    administratively up (UP among its flags): the peer, woken by the same notifications."""

    def __init__(self, stream, name):
        super().__init__(daemon=True)
        self.stream = stream
        self.pattern = re.compile(rf"^(?:Deleted )?\d+: {re.escape(name)}[@:].*<([^>]*)>")
        self.lines = []
        self.lock = threading.Lock()

    def run(self):
        for raw in self.stream:
            now = time.monotonic()
            match = self.pattern.match(raw)
            if match:
                with self.lock:
                    self.lines.append((now, "UP" in match.group(1).split(",")))

    def first_after(self, since, up, timeout=1.0):
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                for stamp, is_up in self.lines:
                    if stamp >= since and is_up == up:
                        return stamp
            if time.monotonic() > deadline:
                return None
            time.sleep(0.0005)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True, help="folder with pathwatch and libpathwatch_linkstate.so")
    parser.add_argument("--toggles", type=int, default=150, help="down/up cycles (each is two measured changes)")
    parser.add_argument("--results", help="markdown file to append the result row to")
    parser.add_argument("--command", default="", help="the command line to record with the result")
    parser.add_argument("--isolation", default="both", choices=["inline", "process", "both"],
                        help="where the plug-in runs: in the agent, in its child, or both one after the other")
    parser.add_argument("--http", default="off",
                        help="comma-separated: off (no http sink), idle (the sink, no client), load (the sink under load)")
    parser.add_argument("--ip-monitor", action="store_true", help="time `ip monitor link` beside the agent (the peer)")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between toggles")
    parser.add_argument("--load-script", help="Tests/Fixtures/http/load.py (for --http load)")
    parser.add_argument("--load-arguments", default="--sse 50 --scrape-rate 20 --health-rate 2 --slow 1",
                        help="what the load script runs (its --url and --seconds are added)")
    parser.add_argument("--summary-json", help="file to append one JSON line per measurement to")
    parser.add_argument("--bulk-checks", type=int, default=0,
                        help="also run the tests' fixture probe (libtestprobe.so in --bulk-plugins) with this many checks")
    parser.add_argument("--bulk-plugins", help="folder with libtestprobe.so (for --bulk-checks)")
    args = parser.parse_args()
    for isolation in (["inline", "process"] if args.isolation == "both" else [args.isolation]):
        for http in args.http.split(","):
            print(f"isolation {isolation}, http sink {http}:")
            report(args, isolation, http, *measure(args, isolation, http))
    return 0



def measure(args, isolation, http="off"):
    ns = f"pwbench{os.getpid()}"
    workdir = tempfile.mkdtemp(prefix="pathwatch-bench-")
    config = os.path.join(workdir, "config.json")
    sinks = [{"type": "stdout", "format": "json", "on": "change"}]
    http_port = 18080  # inside the namespace: nothing else listens there
    if http != "off":
        sinks.append({"type": "http", "listen": f"127.0.0.1:{http_port}"})
    probes = [{"id": "link", "plugin": "linkstate", "config": {"require": ["vA"], "ignore": ["lo", "vB"]}}]
    plugin_dirs = [args.products]
    if args.bulk_checks:
        # A document of that many checks, reported every second (so rendered anew as often).
        probes.append({"id": "bulk", "plugin": "testprobe", "interval": "1s", "config": {"checks": args.bulk_checks}})
        plugin_dirs.append(args.bulk_plugins)
    with open(config, "w") as f:
        json.dump({
            "agent": {"name": "bench", "interval": "60s", "plugin_dirs": plugin_dirs, "isolation": isolation,
                      "state_dir": os.path.join(workdir, "state")},
            "probes": probes,
            "sinks": sinks,
        }, f)

    agent = monitor = load = None
    load_summary = None
    since_peer = []
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "link", "add", "vA", "type", "veth", "peer", "name", "vB")
        sh("ip", "-n", ns, "link", "set", "vB", "up")
        sh("ip", "-n", ns, "link", "set", "vA", "up")
        index = json.loads(subprocess.run(["ip", "-n", ns, "-j", "link", "show", "vA"], check=True,
                                          capture_output=True, text=True).stdout)[0]["ifindex"]
        listener = KernelListener(ns)
        listener.start()
        agent = subprocess.Popen(
            ["ip", "netns", "exec", ns, os.path.join(args.products, "pathwatch"), "run", "--config", config],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        reader = EventReader(agent.stdout)
        reader.start()
        if args.ip_monitor:
            monitor = subprocess.Popen(["ip", "-n", ns, "monitor", "link"], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True, bufsize=1)
            peer = MonitorReader(monitor.stdout, "vA")
            peer.start()
        if http == "load":
            url = f"http://127.0.0.1:{http_port}"
            ready = time.monotonic() + 15
            while subprocess.run(["ip", "netns", "exec", ns, "curl", "-sf", "--noproxy", "*", "--max-time", "1",
                                  f"{url}/healthz"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
                if time.monotonic() > ready:
                    raise RuntimeError("the http sink did not answer /healthz")
                time.sleep(0.1)
            load = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, args.load_script, "--url", url,
                                     "--seconds", "100000"] + args.load_arguments.split(),
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            if load.stdout.readline().strip() != "started":
                raise RuntimeError("the load script did not start")
            time.sleep(2)  # every client connected
        # The agent is ready once it reports a change: take vA down once and back up.
        cursor = 0
        deadline = time.monotonic() + 15
        while True:
            sh("ip", "-n", ns, "link", "set", "vA", "down")
            try:
                _, cursor = reader.wait_for(cursor, "link/vA", "critical", timeout=1)
                break
            except TimeoutError:
                sh("ip", "-n", ns, "link", "set", "vA", "up")
                if time.monotonic() > deadline:
                    raise
        sh("ip", "-n", ns, "link", "set", "vA", "up")
        _, cursor = reader.wait_for(cursor, "link/vA", "ok")

        since_return = {"down": [], "up": []}
        since_start = {"down": [], "up": []}
        since_kernel = []
        for _ in range(args.toggles):
            for direction, state in (("down", "critical"), ("up", "ok")):
                started = time.monotonic()
                sh("ip", "-n", ns, "link", "set", "vA", direction)
                returned = time.monotonic()
                seen, cursor = reader.wait_for(cursor, "link/vA", state)
                since_return[direction].append((seen - returned) * 1000)
                since_start[direction].append((seen - started) * 1000)
                notice = listener.first_after(started, index, direction == "up")
                if notice is None:
                    raise RuntimeError(f"the listener saw no notification for {direction}")
                since_kernel.append((seen - notice) * 1000)
                if monitor:
                    line = peer.first_after(started, direction == "up")
                    if line is None:
                        raise RuntimeError(f"ip monitor printed no line for {direction}")
                    since_peer.append((line - notice) * 1000)
                if args.pause:
                    time.sleep(args.pause)
        if load:
            load.send_signal(signal.SIGINT)
            out, _ = load.communicate(timeout=60)
            load_summary = json.loads(out.strip().splitlines()[-1])
            load_summary["sse"].pop("change_ids", None)
            load = None
    finally:
        for process in (load, monitor):
            if process:
                process.kill()
                process.wait()
        if agent:
            agent.terminate()
            try:
                agent.wait(5)
            except subprocess.TimeoutExpired:
                agent.kill()
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(workdir, ignore_errors=True)

    return since_return, since_start, since_kernel, since_peer, load_summary


def report(args, isolation, http, since_return, since_start, since_kernel, since_peer=(), load_summary=None):
    everything = since_return["down"] + since_return["up"]
    issued = since_start["down"] + since_start["up"]
    def line(name, values):
        return (f"{name:28s} n={len(values):4d}  p50={percentile(values, 50):6.2f} ms  "
                f"p99={percentile(values, 99):6.2f} ms  max={max(values):6.2f} ms  mean={statistics.mean(values):6.2f} ms")
    print(line("down, from ip returning", since_return["down"]))
    print(line("up, from ip returning", since_return["up"]))
    print(line("all, from ip returning", everything))
    print(line("all, from ip starting", issued))
    if since_kernel:
        print(line("all, from kernel notice", since_kernel))
    if since_peer:
        print(line("ip monitor, from kernel notice", since_peer))
    if load_summary:
        print("load:", json.dumps(load_summary))
    if args.summary_json:
        with open(args.summary_json, "a") as f:
            f.write(json.dumps({
                "isolation": isolation, "http": http, "changes": len(since_kernel), "bulk_checks": args.bulk_checks,
                "agent_p50": percentile(since_kernel, 50), "agent_p99": percentile(since_kernel, 99),
                "peer_p50": percentile(since_peer, 50) if since_peer else None,
                "peer_p99": percentile(since_peer, 99) if since_peer else None,
                "load": load_summary}) + "\n")
    if args.results:
        new = not os.path.exists(args.results) or os.path.getsize(args.results) == 0
        with open(args.results, "a") as f:
            if new:
                f.write("# linkstate: link change to stdout event\n\n"
                        "Time from `ip link set vA down|up` returning to the agent's `link/vA` change event line "
                        "being read from its stdout sink, in a private network namespace. Negative values mean the "
                        "event line arrived before the `ip` process had exited.\n\n"
                        "The kernel→line columns time the same event lines from the moment a netlink listener in the "
                        "namespace received the kernel's link notification: the agent's own latency from the kernel "
                        "to its stdout sink, independent of how long `ip` takes to exit.\n\n"
                        "| date | build | changes | p50 (ms) | p99 (ms) | max (ms) | kernel→line p50 (ms) | kernel→line p99 (ms) | command |\n"
                        "|---|---|---|---|---|---|---|---|---|\n")
            build = os.path.basename(os.path.normpath(args.products)) + f", {isolation}"
            if http != "off":
                build += f", http sink {http}"
            f.write(f"| {datetime.date.today().isoformat()} | {build} | {len(everything)} | "
                    f"{percentile(everything, 50):.2f} | {percentile(everything, 99):.2f} | {max(everything):.2f} | "
                    f"{percentile(since_kernel, 50):.2f} | {percentile(since_kernel, 99):.2f} | `{args.command}` |\n")



if __name__ == "__main__":
    sys.exit(main())
