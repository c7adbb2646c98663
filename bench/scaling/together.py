#!/usr/bin/env python3
"""Two release builds running 1,000 `loadavg` probes each at the same time (measure.py's row
`probes:1000`: one shared child, interval 10 s, the shipped sinks), so a shared machine's load
falls on both alike instead of on whichever took its turn at a busy moment. After 45 s, CPU over
WINDOW seconds (each process's CPU-time clock) of each agent, of its children (the plug-in
child), and of its whole tree; ROUNDS rounds, then the medians. For a change to one side only
(the plug-in or the agent), the side that did not change is the measure of the noise.
Usage: together.py BEFORE-FOLDER AFTER-FOLDER [WINDOW, default 60] [ROUNDS, default 3]
  each FOLDER holds a release build's `pathwatch` and its plug-ins.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from proctree import cpu_ns, tree  # noqa: E402
from loopback import free_port  # noqa: E402

folders = [os.path.abspath(f) for f in sys.argv[1:3]]
window = int(sys.argv[3]) if len(sys.argv) > 3 else 60
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3


def start(folder, work):
    port = free_port()
    probes = [{"id": f"load{i}", "plugin": "loadavg", "config": {"warn_per_cpu": 1000, "crit_per_cpu": 2000}}
              for i in range(1000)]
    doc = {"agent": {"interval": "10s", "plugin_dirs": [folder], "isolation": "process", "state_dir": f"{work}/state"},
           "probes": probes,
           "sinks": [{"type": "stdout", "format": "text", "on": "change"},
                     {"type": "http", "listen": f"127.0.0.1:{port}"},
                     {"type": "file", "path": f"{work}/status.json", "on": "every"}]}
    with open(f"{work}/config.json", "w") as f:
        json.dump(doc, f)
    return subprocess.Popen([f"{folder}/pathwatch", "run", "--config", f"{work}/config.json", "--log-level", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


results = {f: [] for f in folders}
for r in range(rounds):
    with tempfile.TemporaryDirectory() as w0, tempfile.TemporaryDirectory() as w1:
        for w in (w0, w1):
            os.chmod(w, 0o755)
        agents = [start(f, w) for f, w in zip(folders, (w0, w1))]
        try:
            time.sleep(45)
            agent0 = [cpu_ns([a.pid]) for a in agents]
            tree0 = [cpu_ns(tree(a.pid)) for a in agents]
            time.sleep(window)
            agent1 = [cpu_ns([a.pid]) for a in agents]
            tree1 = [cpu_ns(tree(a.pid)) for a in agents]
        finally:
            for a in agents:
                a.terminate()
                a.wait()
        for i, f in enumerate(folders):
            agent = (agent1[i] - agent0[i]) / 1e9 / window * 100
            whole = (tree1[i] - tree0[i]) / 1e9 / window * 100
            results[f].append((agent, whole - agent, whole))
            print(f"round {r + 1}, {f}: agent {agent:.3f} %, children {whole - agent:.3f} %, tree {whole:.3f} % "
                  f"({whole / 100 * 60e6 / 1000:.0f} µs a check a minute)", flush=True)
for f in folders:
    agent, children, whole = (statistics.median(x[k] for x in results[f]) for k in range(3))
    print(f"{f}: medians agent {agent:.3f} %, children {children:.3f} %, tree {whole:.3f} % "
          f"({whole / 100 * 60e6 / 1000:.0f} µs a check a minute)")
