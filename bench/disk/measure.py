#!/usr/bin/env python3
"""Disk probe cost per mount beside df, in one run. Runs inside a private mount namespace (see
run.sh): mounts tmpfs file systems until the host has about N mounts, then times R runs of
`pathwatch once` with only the disk probe (mounts "*") and R runs of `df -B1`, CPU time from
wait4's rusage. The cost per mount is the slope between the smallest and the largest N, so the
agent's fixed start-up (runtime, plug-in load) and df's cancel out."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def cpu_of(argv, runs):
    """Mean user+system CPU seconds of one run of argv."""
    total = 0.0
    for _ in range(runs):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1, 2):
            raise SystemExit(f"{argv[0]} failed: {status}")
        total += usage.ru_utime + usage.ru_stime
    return total / runs


def mount_count():
    with open("/proc/self/mountinfo") as f:
        return sum(1 for _ in f)


def main():
    binary, plugins = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sizes = [int(x) for x in sys.argv[3].split(",")]
    runs = int(sys.argv[4])
    work = tempfile.mkdtemp(prefix="pathwatch-disk-bench-")
    config = os.path.join(work, "disk.json")
    with open(config, "w") as f:
        json.dump({"agent": {"plugin_dirs": [plugins]},
                   "probes": [{"id": "disk", "plugin": "disk", "timeout": "30s", "config": {"mounts": "*"}}],
                   "sinks": []}, f)
    made = 0
    try:
        base = mount_count()
        rows = []
        for n in sizes:
            while base + made < n:
                point = os.path.join(work, f"m{made}")
                os.mkdir(point)
                subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", f"pwbench{made}", point], check=True)
                made += 1
            agent = cpu_of([binary, "once", "--config", config], runs)
            df = cpu_of(["df", "-B1"], runs)
            rows.append((mount_count(), agent, df))
            print(f"{mount_count():5d} mounts: pathwatch once {agent * 1e3:8.2f} ms CPU, df -B1 {df * 1e3:8.2f} ms CPU", flush=True)
    finally:
        # The mounts end with run.sh's private mount namespace; their folders and the
        # configuration are on the host's /tmp and are removed here.
        for i in range(made):
            subprocess.run(["umount", os.path.join(work, f"m{i}")], check=False)
        shutil.rmtree(work, ignore_errors=True)
    (n0, a0, d0), (n1, a1, d1) = rows[0], rows[-1]
    per_agent = (a1 - a0) / (n1 - n0)
    per_df = (d1 - d0) / (n1 - n0)
    print(f"per mount ({n0} to {n1} mounts): pathwatch {per_agent * 1e6:.1f} µs, df {per_df * 1e6:.1f} µs, "
          f"ratio {per_agent / per_df:.2f}x")


if __name__ == "__main__":
    main()
