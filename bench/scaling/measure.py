#!/usr/bin/env python3
"""The scaling curve: what the agent costs as the estate grows, one row per shape.

  probes N   N `loadavg` probes in process isolation (one shared child), interval 10 s,
             thresholds no load reaches (no events);
  checks N   one probe (the tests' fixture probe, process isolation) reporting N checks, 10 s;

each with the shipped configuration's sinks (stdout on change, the http sink on a loopback port,
the file sink on every report). Once every probe has reported, CPU (each process's CPU-time
clock, in nanoseconds, of the agent and of its whole process tree) over WINDOW seconds, the
tree's PSS and RSS at the end, and the agent's and the tree's threads (the most seen, sampled
each second). ROUNDS rounds each: the median, and the range.
Usage: measure.py PATHWATCH PLUGIN_DIR FIXTURE_DIR WINDOW ROUNDS ROW [ROW ...]
  ROW: probes:N or checks:N
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from proctree import cpu_ns, summed, tree  # noqa: E402
from loopback import free_port  # noqa: E402

pathwatch, plugin_dir, fixture_dir = sys.argv[1], sys.argv[2], sys.argv[3]
window, rounds, rows = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]


def config(work, row, port):
    kind, n = row.split(":")
    n = int(n)
    if kind == "probes":
        # Thresholds no load reaches: the curve is the cost of reporting, not of a thousand
        # checks crossing a threshold together on a busy machine (each crossing is an event).
        probes = [{"id": f"load{i}", "plugin": "loadavg", "config": {"warn_per_cpu": 1000, "crit_per_cpu": 2000}}
                  for i in range(n)]
        dirs = [plugin_dir]
    else:
        probes = [{"id": "many", "plugin": "testprobe", "config": {"checks": n}}]
        dirs = [plugin_dir, fixture_dir]
    doc = {"agent": {"interval": "10s", "plugin_dirs": dirs, "isolation": "process", "state_dir": f"{work}/state"},
           "probes": probes,
           "sinks": [{"type": "stdout", "format": "text", "on": "change"},
                     {"type": "http", "listen": f"127.0.0.1:{port}"},
                     {"type": "file", "path": f"{work}/status.json", "on": "every"}]}
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path, len(probes)


def all_reported(port, count):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=5) as r:
            doc = json.load(r)
    except (OSError, ValueError):
        return False
    probes = doc.get("probes", [])
    return len(probes) == count and all(p.get("last_sample_at") for p in probes)


def one_round(row):
    with tempfile.TemporaryDirectory(prefix="pathwatch-scaling.") as work:
        os.chmod(work, 0o755)
        port = free_port()
        path, count = config(work, row, port)
        agent = subprocess.Popen([pathwatch, "run", "--config", path, "--log-level", "warning"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300
            while not all_reported(port, count):
                if agent.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{row}: the agent never reported every probe")
                time.sleep(0.5)
            # Past the start-up's burst: one more interval before the window.
            time.sleep(10)
            pids = tree(agent.pid)
            agent0, tree0 = cpu_ns([agent.pid]), cpu_ns(pids)
            threads_agent = threads_tree = 0
            for _ in range(window):
                time.sleep(1)
                pids = tree(agent.pid)
                threads_agent = max(threads_agent, summed([agent.pid], "status", "Threads"))
                threads_tree = max(threads_tree, summed(pids, "status", "Threads"))
            pids = tree(agent.pid)
            agent_cpu = (cpu_ns([agent.pid]) - agent0) / 1e9 / window * 100
            tree_cpu = (cpu_ns(pids) - tree0) / 1e9 / window * 100
            return {"agent_cpu": agent_cpu, "tree_cpu": tree_cpu, "pss": summed(pids, "smaps_rollup", "Pss") / 1024,
                    "rss": summed(pids, "smaps_rollup", "Rss") / 1024, "threads_agent": threads_agent, "threads_tree": threads_tree,
                    "checks": count if row.startswith("probes") else int(row.split(":")[1])}
        finally:
            agent.terminate()
            agent.wait()


def span(values, fmt):
    m = statistics.median(values)
    return f"{fmt.format(m)} ({fmt.format(min(values))}–{fmt.format(max(values))})" if len(values) > 1 else fmt.format(m)


if __name__ == "__main__":
    print(f"| row | agent CPU % | tree CPU % | CPU per check, µs/min | tree PSS MiB | tree RSS MiB | threads agent / tree |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        results = [one_round(row) for _ in range(rounds)]
        per_check = [r["tree_cpu"] / 100 * 60e6 / r["checks"] for r in results]
        print(f"| {row} | {span([r['agent_cpu'] for r in results], '{:.3f}')} | {span([r['tree_cpu'] for r in results], '{:.3f}')} "
              f"| {span(per_check, '{:.0f}')} | {span([r['pss'] for r in results], '{:.1f}')} "
              f"| {span([r['rss'] for r in results], '{:.1f}')} "
              f"| {max(r['threads_agent'] for r in results)} / {max(r['threads_tree'] for r in results)} |", flush=True)
