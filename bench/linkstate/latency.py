#!/usr/bin/env python3
"""Measures how fast a link change reaches the agent's stdout sink.

In a private network namespace, toggles a veth end administratively down and up, and for each
toggle measures the time from the `ip link set` command returning to the matching change event
line (check link/vA, to critical or ok) being read from `pathwatch run`'s stdout. The probe
requires vA, so an administratively-down vA is critical and every toggle is one change event.
Prints a summary and, with --results, appends a markdown table row.
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def percentile(values, p):
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True, help="folder with pathwatch and libpathwatch_linkstate.so")
    parser.add_argument("--toggles", type=int, default=150, help="down/up cycles (each is two measured changes)")
    parser.add_argument("--results", help="markdown file to append the result row to")
    parser.add_argument("--command", default="", help="the command line to record with the result")
    args = parser.parse_args()

    ns = f"pwbench{os.getpid()}"
    workdir = tempfile.mkdtemp(prefix="pathwatch-bench-")
    config = os.path.join(workdir, "config.json")
    with open(config, "w") as f:
        json.dump({
            "agent": {"name": "bench", "interval": "60s", "plugin_dirs": [args.products],
                      "state_dir": os.path.join(workdir, "state")},
            "probes": [{"id": "link", "plugin": "linkstate",
                        "config": {"require": ["vA"], "ignore": ["lo", "vB"]}}],
            "sinks": [{"type": "stdout", "format": "json", "on": "change"}],
        }, f)

    agent = None
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "link", "add", "vA", "type", "veth", "peer", "name", "vB")
        sh("ip", "-n", ns, "link", "set", "vB", "up")
        sh("ip", "-n", ns, "link", "set", "vA", "up")
        agent = subprocess.Popen(
            ["ip", "netns", "exec", ns, os.path.join(args.products, "pathwatch"), "run", "--config", config],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        reader = EventReader(agent.stdout)
        reader.start()
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
        for _ in range(args.toggles):
            for direction, state in (("down", "critical"), ("up", "ok")):
                started = time.monotonic()
                sh("ip", "-n", ns, "link", "set", "vA", direction)
                returned = time.monotonic()
                seen, cursor = reader.wait_for(cursor, "link/vA", state)
                since_return[direction].append((seen - returned) * 1000)
                since_start[direction].append((seen - started) * 1000)
    finally:
        if agent:
            agent.terminate()
            try:
                agent.wait(5)
            except subprocess.TimeoutExpired:
                agent.kill()
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)

    everything = since_return["down"] + since_return["up"]
    issued = since_start["down"] + since_start["up"]
    def line(name, values):
        return (f"{name:28s} n={len(values):4d}  p50={percentile(values, 50):6.2f} ms  "
                f"p99={percentile(values, 99):6.2f} ms  max={max(values):6.2f} ms  mean={statistics.mean(values):6.2f} ms")
    print(line("down, from ip returning", since_return["down"]))
    print(line("up, from ip returning", since_return["up"]))
    print(line("all, from ip returning", everything))
    print(line("all, from ip starting", issued))
    if args.results:
        new = not os.path.exists(args.results) or os.path.getsize(args.results) == 0
        with open(args.results, "a") as f:
            if new:
                f.write("# linkstate: link change to stdout event\n\n"
                        "Time from `ip link set vA down|up` returning to the agent's `link/vA` change event line "
                        "being read from its stdout sink, in a private network namespace. Negative values mean the "
                        "event line arrived before the `ip` process had exited.\n\n"
                        "| date | build | changes | p50 (ms) | p99 (ms) | max (ms) | p99 from `ip` start (ms) | command |\n"
                        "|---|---|---|---|---|---|---|---|\n")
            build = os.path.basename(os.path.normpath(args.products))
            f.write(f"| {datetime.date.today().isoformat()} | {build} | {len(everything)} | "
                    f"{percentile(everything, 50):.2f} | {percentile(everything, 99):.2f} | {max(everything):.2f} | "
                    f"{percentile(issued, 99):.2f} | `{args.command}` |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
