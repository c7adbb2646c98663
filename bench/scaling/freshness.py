#!/usr/bin/env python3
"""How current a whole-state document is: N probes of the tests' fixture plug-in (one shared
child, interval 2 s, timeout 1 s) each report their sample's deadline (CLOCK_MONOTONIC, `deadline`),
so each sample's start is that deadline less the timeout; the file sink writes a document on every
report, paced. Probes of one interval sample together on a grid. For each document written over
WINDOW seconds, read as soon as it appears (the file polled every 5 ms): the age of its oldest
sample and of its newest, on the same clock.
Usage: freshness.py PATHWATCH FIXTURE_DIR WORK N WINDOW
"""
import json, os, statistics, sys, time

from fixture_agent import start, wait_until, write_config  # noqa: E402

pathwatch, fixture_dir, work, n, window = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
interval, timeout = 2, 1
probes = [{"id": f"p{i}", "plugin": "testprobe", "timeout": f"{timeout}s", "config": {"checks": 0, "deadline": True}}
          for i in range(n)]
config, status = write_config(work, "fresh", fixture_dir, interval, probes, "text")


def sample_starts():
    """Each probe's last sample start in the document on disk now (monotonic ns), or None while
    it has not every probe's."""
    try:
        with open(status) as f:
            checks = json.load(f).get("checks", [])
    except (OSError, ValueError):
        return None
    found = {c["probe"]: int(c["message"]) - timeout * 10**9 for c in checks
             if c["id"].endswith("/deadline") and c.get("message", "").isdigit()}
    return found if len(found) == n else None


def ms(ns):
    return ns / 1e6


agent = start(pathwatch, config)
try:
    wait_until(agent, lambda: sample_starts() is not None)
    # Ten ticks: every probe on the grid, and the file's writes caught up with its documents
    # (each write may come a tenth of an interval earlier than the spacing).
    time.sleep(10 * interval)
    oldest, newest, last_mtime = [], [], os.stat(status).st_mtime_ns
    end = time.monotonic() + window
    while time.monotonic() < end:
        time.sleep(0.005)
        try:
            mtime = os.stat(status).st_mtime_ns
        except OSError:
            continue
        if mtime == last_mtime:
            continue
        last_mtime = mtime
        seen = time.monotonic_ns()
        starts = sample_starts()
        if starts is None:
            continue
        oldest.append(seen - min(starts.values()))
        newest.append(seen - max(starts.values()))
    print(f"{n} probes, interval {interval} s, {len(oldest)} documents in {window} s")
    for name, ages in (("oldest", oldest), ("newest", newest)):
        print(f"age of a document's {name} sample when it was read: median {ms(statistics.median(ages)):.0f} ms, "
              f"least {ms(min(ages)):.0f} ms, most {ms(max(ages)):.0f} ms")
finally:
    agent.terminate()
    agent.wait(timeout=30)
