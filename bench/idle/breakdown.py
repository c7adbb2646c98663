"""Where two idle agents' resident memory is, side by side: both started together, and after
STARTUP seconds each one's /proc/PID/smaps summed by mapping (the executable, each shared
library, the heap, other anonymous memory), RSS and PSS in KiB, and the second minus the first.
What bench/idle/builds.sh prints after its rounds, to say what a difference is made of.
Usage: python3 bench/idle/breakdown.py STARTUP NAME1 ARGV1 NAME2 ARGV2 (argv fields split by \\x1f)"""
import collections
import os
import signal
import subprocess
import sys
import time


def by_mapping(pid, executable):
    """RSS and PSS (KiB) by mapping name; the executable's by segment (code, read-only data,
    relocated read-only data, data), where a build's growth shows."""
    totals = collections.defaultdict(lambda: [0, 0])
    name = None
    segments = {}
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):
                path = fields[5] if len(fields) > 5 else "[anonymous]"
                name = os.path.basename(path) if path.startswith("/") else path
                if name.startswith("[anon:") or name.startswith("[stack:"):
                    name = "[anonymous]"
                if path == executable:
                    # r--p (headers, rodata), r-xp (code), r--p after the code (relro), rw-p (data)
                    perms = fields[1]
                    n = segments[perms] = segments.get(perms, 0) + 1
                    name = f"(the executable) {perms}" + (f" #{n}" if n > 1 else "")
            elif fields[0] == "Rss:":
                totals[name][0] += int(fields[1])
            elif fields[0] == "Pss:":
                totals[name][1] += int(fields[1])
    return totals


def main():
    startup = float(sys.argv[1])
    names = [sys.argv[2], sys.argv[4]]
    argvs = [sys.argv[3].split("\x1f"), sys.argv[5].split("\x1f")]
    procs = [subprocess.Popen(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for a in argvs]
    time.sleep(startup)
    maps = [by_mapping(p.pid, os.path.realpath(a[0])) for p, a in zip(procs, argvs)]
    for p in procs:
        os.kill(p.pid, signal.SIGTERM)
    for p in procs:
        p.wait()
    keys = sorted(set(maps[0]) | set(maps[1]), key=lambda k: -(maps[0][k][0] + maps[1][k][0]))
    print(f"| mapping | {names[0]} RSS | PSS | {names[1]} RSS | PSS | RSS difference |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        a, b = maps[0][k], maps[1][k]
        if a[0] == 0 and b[0] == 0:
            continue
        print(f"| {k} | {a[0]} KiB | {a[1]} KiB | {b[0]} KiB | {b[1]} KiB | {b[0] - a[0]:+d} KiB |")
    total = [sum(v[0] for v in m.values()) for m in maps]
    print(f"| total | {total[0]} KiB | {sum(v[1] for v in maps[0].values())} KiB | {total[1]} KiB | "
          f"{sum(v[1] for v in maps[1].values())} KiB | {total[1] - total[0]:+d} KiB |")


main()
