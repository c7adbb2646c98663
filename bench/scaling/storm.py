#!/usr/bin/env python3
"""A change storm: N probes of the tests' fixture plug-in (one shared child, interval 5 s) read one
state file, and one rewrite of it turns every probe's check from ok to critical, or back. The
shipped configuration's sinks: stdout on change (json, to a file, to count the events), the http
sink, the file sink on every report. For each storm: how long until all N events were printed,
and the CPU the agent and its whole tree took meanwhile (each process's CPU-time clock).
Usage: storm.py PATHWATCH FIXTURE_DIR WORK N STORMS
"""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from proctree import cpu_ns, tree  # noqa: E402
from fixture_agent import start, wait_until, write_config  # noqa: E402

pathwatch, fixture_dir, work, n, storms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
interval = 5

state = os.path.join(work, "state")
with open(state, "w") as f:
    f.write("ok storm\n")
probes = [{"id": f"p{i}", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": state}} for i in range(n)]
config, status = write_config(work, "storm", fixture_dir, interval, probes, "json")
events_path = os.path.join(work, "events.jsonl")


def events():
    with open(events_path) as f:
        return sum(1 for line in f if '"type":"change"' in line)


def every_check_in_document():
    try:
        with open(status) as f:
            return len(json.load(f).get("checks", [])) == n
    except (OSError, ValueError):
        return False


with open(events_path, "w") as out:
    agent = start(pathwatch, config, stdout=out)
try:
    wait_until(agent, every_check_in_document)
    time.sleep(2 * interval)
    print("| storm | to | seconds until the last event | agent CPU, s | tree CPU, s |")
    print("|---|---|---|---|---|")
    for storm in range(storms):
        to = "critical" if storm % 2 == 0 else "ok"
        pids = tree(agent.pid)
        agent0, tree0, t0 = cpu_ns([agent.pid]), cpu_ns(pids), time.monotonic()
        with open(state, "w") as f:
            f.write(f"{to} storm\n")
        while events() < n * (storm + 1):
            if agent.poll() is not None or time.monotonic() - t0 > 300:
                raise SystemExit(f"storm {storm + 1}: {events() - n * storm} of {n} events")
            time.sleep(0.05)
        took = time.monotonic() - t0
        print(f"| {storm + 1} | {to} | {took:.1f} | {(cpu_ns([agent.pid]) - agent0) / 1e9:.2f} "
              f"| {(cpu_ns(tree(agent.pid)) - tree0) / 1e9:.2f} |", flush=True)
        time.sleep(2 * interval)
finally:
    agent.terminate()
    agent.wait()
