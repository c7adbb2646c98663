#!/usr/bin/env python3
"""Disk probe cost per mount beside df, in one run. Runs inside a private mount namespace (see
run.sh): mounts tmpfs file systems until the host has about N mounts, then times R runs of
`pathwatch once` with only the disk probe (mounts "*") and R runs of `df -B1`, CPU time from
wait4's rusage. The cost per mount is the slope between the smallest and the largest N, so the
agent's fixed start-up (runtime, plug-in load) and df's cancel out.

With --instructions, each program runs once a point under callgrind (children traced: the
agent's plug-in child counts) and the figure is instructions, which other work on the machine
does not move: a change smaller than the CPU figure's noise shows here."""
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


def instructions_of(argv, work):
    """Instructions of one run of argv and every process it starts, counted by callgrind."""
    out = os.path.join(work, "callgrind")
    shutil.rmtree(out, ignore_errors=True)
    os.mkdir(out)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                        f"--callgrind-out-file={out}/cg.%p", *argv],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode not in (0, 1, 2):
        raise SystemExit(f"{argv[0]} under callgrind failed: {p.returncode}")
    total = 0
    for name in os.listdir(out):
        with open(os.path.join(out, name)) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total += int(line.split()[1])
                    break
    return total


def mount_count():
    with open("/proc/self/mountinfo") as f:
        return sum(1 for _ in f)


def main():
    args = sys.argv[1:]
    counting = args[0] == "--instructions"
    if counting:
        args = args[1:]
    binary, plugins = os.path.abspath(args[0]), os.path.abspath(args[1])
    sizes = [int(x) for x in args[2].split(",")]
    runs = int(args[3]) if not counting else 1
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
            if counting:
                agent = instructions_of([binary, "once", "--config", config], work)
                df = instructions_of(["df", "-B1"], work)
                print(f"{mount_count():5d} mounts: pathwatch once {agent:,} instructions, df -B1 {df:,}", flush=True)
            else:
                agent = cpu_of([binary, "once", "--config", config], runs)
                df = cpu_of(["df", "-B1"], runs)
                print(f"{mount_count():5d} mounts: pathwatch once {agent * 1e3:8.2f} ms CPU, df -B1 {df * 1e3:8.2f} ms CPU",
                      flush=True)
            rows.append((mount_count(), agent, df))
    finally:
        # The mounts end with run.sh's private mount namespace; their folders and the
        # configuration are on the host's /tmp and are removed here.
        for i in range(made):
            subprocess.run(["umount", os.path.join(work, f"m{i}")], check=False)
        shutil.rmtree(work, ignore_errors=True)
    (n0, a0, d0), (n1, a1, d1) = rows[0], rows[-1]
    per_agent = (a1 - a0) / (n1 - n0)
    per_df = (d1 - d0) / (n1 - n0)
    if counting:
        print(f"per mount ({n0} to {n1} mounts): pathwatch {per_agent / 1e3:.1f}k instructions, "
              f"df {per_df / 1e3:.1f}k, ratio {per_agent / per_df:.2f}x")
    else:
        print(f"per mount ({n0} to {n1} mounts): pathwatch {per_agent * 1e6:.1f} µs, df {per_df * 1e6:.1f} µs, "
              f"ratio {per_agent / per_df:.2f}x")


if __name__ == "__main__":
    main()
