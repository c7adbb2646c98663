#!/usr/bin/env python3
"""Where a link change's time goes inside the agent, from the kernel's own tracepoints.

Runs a command (normally latency.py) and, once the agent's `pw-probe-link` thread exists, traces
that thread alone through tracefs: when it is woken and when it gets a CPU (sched_waking,
sched_switch), and the syscalls that mark the path's phases (poll, recvmsg, getrandom, write).
For every change line the thread writes to stdout it reports:

  wake     sched_waking → the thread on a CPU (an idle vCPU's wake-up, a busy CPU's queue)
  entry    poll returns → the plug-in's first recvmsg (runner, C ABI, the plug-in's entry)
  handling recvmsg → getrandom (parse, reports, emits, check book, up to the change's id)
  render   getrandom → write(1) (the event, its JSON line, stdout's poll)
  total    poll returns → write(1)

Root only (tracefs). The tracepoints cost a few µs per syscall, so the totals run a little above
latency.py's untraced figures; read the phases' shares, not their sum against `ip monitor`.

Usage: python3 bench/linkstate/phases.py [--keep FILE] -- python3 bench/linkstate/latency.py --products DIR ...
(--keep writes the raw trace to FILE as well.)
"""
import os
import re
import subprocess
import sys
import time

from latency import percentile

TRACEFS = "/sys/kernel/tracing"
THREAD = "pw-probe-link"
SYSCALLS = ("poll", "recvmsg", "getrandom", "write")
# A tracepoint's line: "<comm>-<tid> [cpu] flags seconds: name: fields" for sched events;
# "sys_NAME(arguments)" on a syscall's entry and "sys_NAME -> result" on its exit.
LINE = re.compile(r"^\s*.+?-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+)(: | -> |\()(.*)$")


def write(path, text):
    with open(os.path.join(TRACEFS, path), "w") as f:
        f.write(text)


def find_thread(deadline):
    while time.monotonic() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                for tid in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{tid}/comm") as f:
                        if f.read().strip() == THREAD:
                            return int(tid)
            except OSError:
                continue
        time.sleep(0.05)
    return None


def events(tid):
    """(tracepoint, filter) pairs: the thread's wake-ups and switches, its marking syscalls."""
    pairs = [("sched/sched_waking", f"pid == {tid}"),
             ("sched/sched_switch", f"prev_pid == {tid} || next_pid == {tid}")]
    for name in SYSCALLS:
        pairs += [(f"syscalls/sys_enter_{name}", f"common_pid == {tid}"),
                  (f"syscalls/sys_exit_{name}", f"common_pid == {tid}")]
    return pairs


def phases(trace, tid):
    """One row per change line: the phases in µs, and whether the thread was preempted."""
    rows = []
    change = None
    for raw in trace.splitlines():
        match = LINE.match(raw)
        if not match:
            continue
        pid, stamp, name, separator, rest = match.groups()
        pid, stamp = int(pid), float(stamp) * 1e6
        kind = {" -> ": f"{name}_exit", "(": f"{name}_enter"}.get(separator, name)
        if kind == "sched_waking":
            change = {"waking": stamp, "preempted": False}
        elif change is None:
            continue
        elif kind == "sched_switch":
            # The filter passes only this thread's switches: in, or out (preempted when runnable).
            if f"next_pid={tid} " in rest:
                change.setdefault("running", stamp)
            elif "prev_state=R" in rest and "poll" in change:
                change["preempted"] = True
        elif pid != tid:
            continue
        elif kind == "sys_poll_exit":
            change.setdefault("poll", stamp)
        elif kind == "sys_recvmsg_enter" and "poll" in change:
            change.setdefault("recvmsg", stamp)
        elif kind == "sys_getrandom_enter" and "recvmsg" in change:
            change.setdefault("getrandom", stamp)
        elif kind == "sys_write_enter" and rest.startswith("fd: 1,") and "getrandom" in change:
            if "running" in change:
                rows.append({
                    "wake": change["running"] - change["waking"],
                    "entry": change["recvmsg"] - change["poll"],
                    "handling": change["getrandom"] - change["recvmsg"],
                    "render": stamp - change["getrandom"],
                    "total": stamp - change["poll"],
                    "preempted": change["preempted"],
                })
            change = None
    return rows


def main():
    if "--" not in sys.argv:
        print(next(line for line in __doc__.splitlines() if line.startswith("Usage:")), file=sys.stderr)
        return 64
    command = sys.argv[sys.argv.index("--") + 1:]
    options = sys.argv[1:sys.argv.index("--")]
    keep = options[options.index("--keep") + 1] if "--keep" in options else None
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
    write("tracing_on", "0")
    write("trace", "")
    write("buffer_size_kb", "16384")
    child = subprocess.Popen(command)
    tid = find_thread(time.monotonic() + 30)
    if tid is None:
        child.wait()
        print(f"no {THREAD} thread appeared", file=sys.stderr)
        return 1
    pairs = events(tid)
    try:
        for event, condition in pairs:
            write(f"events/{event}/filter", condition)
            write(f"events/{event}/enable", "1")
        write("tracing_on", "1")
        status = child.wait()
    finally:
        write("tracing_on", "0")
        for event, _ in pairs:
            write(f"events/{event}/enable", "0")
            write(f"events/{event}/filter", "0")
    with open(os.path.join(TRACEFS, "trace")) as f:
        trace = f.read()
    if keep:
        with open(keep, "w") as f:
            f.write(trace)
    rows = phases(trace, tid)
    write("trace", "")
    if not rows:
        print("no change line was traced", file=sys.stderr)
        return 1
    print(f"agent's path, {len(rows)} change lines (µs; tracepoints on):")
    for name in ("wake", "entry", "handling", "render", "total"):
        values = [row[name] for row in rows]
        print(f"  {name:9s} " + "  ".join(f"p{p} {percentile(values, p):7.1f}" for p in (10, 50, 90)))
    print(f"  preempted between poll and write: {sum(row['preempted'] for row in rows)} of {len(rows)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
