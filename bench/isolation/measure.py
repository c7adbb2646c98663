#!/usr/bin/env python3
"""What one process-isolated probe costs, beside the same probe inline, in one run.

For each plug-in and isolation: runs `pathwatch run` with that one probe sampled every 100 ms
and a stdout sink printing every document, lets it settle, then over WINDOW seconds reads
  - PSS of the agent's whole process tree (the agent and its plug-in children) from
    /proc/PID/smaps_rollup, summed;
  - CPU (every thread's run time, from schedstat) of the tree over the window, divided by the
    samples taken in it (documents printed). A thread or process that exits inside the window
    takes its time with it; none does here.
Usage: measure.py PATHWATCH PLUGIN_DIR WINDOW ROUNDS plugin:config_json ...
"""
import json, os, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from proctree import pss_kib, tree  # noqa: E402

pathwatch, plugin_dir, window, rounds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
probes = [a.split(":", 1) for a in sys.argv[5:]]

def cpu_seconds(pids):
    """CPU time of every thread of the processes, in seconds, from schedstat (nanoseconds;
    /proc/PID/stat counts 10 ms ticks, too coarse for one sample)."""
    total = 0
    for p in pids:
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e9

def measure(plugin, config, isolation):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "config.json")
        with open(path, "w") as f:
            json.dump({"agent": {"plugin_dirs": [plugin_dir], "interval": "100ms", "isolation": isolation},
                       "probes": [{"id": "p", "plugin": plugin, "config": json.loads(config)}],
                       "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}, f)
        agent = subprocess.Popen([pathwatch, "run", "--config", path, "--log-level", "warning"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        documents = [0]
        def count():
            for _ in agent.stdout:
                documents[0] += 1
        reader = threading.Thread(target=count, daemon=True)
        reader.start()
        time.sleep(3)
        pids = tree(agent.pid)
        pss = pss_kib(pids)
        agent_pss = pss_kib([agent.pid])
        cpu0, docs0 = cpu_seconds(pids), documents[0]
        time.sleep(window)
        cpu1, docs1 = cpu_seconds(tree(agent.pid)), documents[0]
        agent.terminate()
        agent.wait()
        samples = max(docs1 - docs0, 1)
        return pss, agent_pss, len(pids), (cpu1 - cpu0) / samples * 1e6, samples

print(f"| plug-in | isolation | processes | tree PSS (MiB) | agent PSS (MiB) | CPU per sample (µs) | samples |")
print(f"|---|---|---|---|---|---|---|")
for plugin, config in probes:
    for isolation in ("inline", "process"):
        runs = sorted((measure(plugin, config, isolation) for _ in range(rounds)), key=lambda r: r[0])
        pss, agent_pss, procs, cpu, samples = runs[len(runs) // 2]
        print(f"| {plugin} | {isolation} | {procs} | {pss / 1024:.1f} | {agent_pss / 1024:.1f} | {cpu:.0f} | {samples} |", flush=True)
