#!/usr/bin/env python3
"""`pathwatch once` start-up beside `collectd -T` (collectd's test mode: read the configuration,
load and initialise the plug-ins, run one read cycle, exit) on the same job, in one run.
Each is run RUNS times; reported: median wall time and median CPU (user + system, wait4)."""
import os
import statistics
import subprocess
import sys
import time


def measure(argv, runs):
    walls, cpus = [], []
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1, 2):
            raise SystemExit(f"{argv[0]} exited {code}")
    return statistics.median(walls), statistics.median(cpus)


def main():
    runs = int(sys.argv[1])
    agents = [("`pathwatch once` (default config.json)", sys.argv[2].split("\x1f")),
              ("`collectd -T` (same job)", sys.argv[3].split("\x1f"))]
    rows = [(name, *measure(argv, runs)) for name, argv in agents]
    print(f"| what | wall time (median of {runs}) | CPU (median) |")
    print("|---|---|---|")
    for name, wall, cpu in rows:
        print(f"| {name} | {wall * 1e3:.1f} ms | {cpu * 1e3:.1f} ms |")
    (_, pw, pc), (_, cw, cc) = rows
    print(f"\nratios pathwatch/collectd: wall {pw / cw:.2f}x, CPU {pc / cc:.2f}x")


main()
