#!/usr/bin/env python3
"""What sharing one child per plug-in file saves, with many isolated probes of one plug-in.

Two configurations of COUNT isolated probes of one plug-in, measured in one run with one binary:
  - shared:   every probe the same `max_memory`, so all share one child (the agent's default);
  - separate: each probe a `max_memory` of its own (16 MiB + i KiB), so each has a child of its
              own, as every isolated probe had before children were shared.
For each: the wall time of `pathwatch once` (start-up: discovery, children, one sample of each
probe, the document), and, under `pathwatch run` once every probe has reported, PSS and RSS
summed over the agent and its plug-in children (found by PPid in /proc/PID/status: children
started from a thread that has ended since are the agent's all the same). Median of ROUNDS.
Usage: shared.py PATHWATCH PLUGIN_DIR COUNT ROUNDS plugin:config_json
"""
import json, os, subprocess, sys, tempfile, time

pathwatch, plugin_dir, count, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
plugin, config = sys.argv[5].split(":", 1)


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                ppid = next(int(l.split()[1]) for l in f if l.startswith("PPid:"))
        except (OSError, StopIteration):
            continue
        if ppid == pid:
            found.append(int(entry))
    return found


def rollup(pids, field):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                total += sum(int(l.split()[1]) for l in f if l.startswith(field + ":"))
        except OSError:
            pass
    return total


def write_config(work, separate):
    probes = []
    for i in range(count):
        probe = {"id": f"p{i}", "plugin": plugin, "interval": "1h", "config": json.loads(config)}
        if separate:
            probe["max_memory"] = f"{16384 + i}KiB"
        probes.append(probe)
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump({"agent": {"plugin_dirs": [plugin_dir], "isolation": "process"}, "probes": probes,
                   "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}, f)
    return path


def once_seconds(path):
    start = time.monotonic()
    subprocess.run([pathwatch, "once", "--config", path, "--format", "json"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def run_memory(path):
    agent = subprocess.Popen([pathwatch, "run", "--config", path, "--log-level", "warning"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # Every probe has reported once a document holds every probe's last_sample_at.
    for line in agent.stdout:
        doc = json.loads(line)
        if all(p.get("last_sample_at") for p in doc.get("probes", [])) and len(doc.get("probes", [])) == count:
            break
    pids = [agent.pid] + children(agent.pid)
    result = (len(pids) - 1, rollup(pids, "Pss"), rollup(pids, "Rss"))
    agent.terminate()
    agent.wait()
    return result


def median(values):
    return sorted(values)[len(values) // 2]


print(f"{count} isolated probes of {plugin}; median of {rounds}")
print("| children | `once` (s) | tree PSS (MiB) | tree RSS (MiB) |")
print("|---|---|---|---|")
rows = {}
with tempfile.TemporaryDirectory() as work:
    for name, separate in (("separate", True), ("shared", False)):
        path = write_config(work, separate)
        once = median([once_seconds(path) for _ in range(rounds)])
        runs = [run_memory(path) for _ in range(rounds)]
        procs, pss, rss = median([r[0] for r in runs]), median([r[1] for r in runs]), median([r[2] for r in runs])
        rows[name] = (once, pss, rss)
        print(f"| {procs} ({name}) | {once:.2f} | {pss / 1024:.1f} | {rss / 1024:.1f} |", flush=True)
s, h = rows["separate"], rows["shared"]
print(f"\nshared / separate: once {h[0] / s[0]:.2f}, PSS {h[1] / s[1]:.3f}, RSS {h[2] / s[2]:.3f}")
