"""Idle cost of an agent: CPU time (user + system, all threads, microsecond precision from
wait4's rusage) and memory (VmRSS, VmHWM) of a run of WINDOW seconds, minus a run of STARTUP
seconds, so start-up (loading plug-ins, first samples) is not counted as idle."""
import os
import signal
import subprocess
import sys
import time


def one_run(argv, seconds):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(seconds)
    status = {}
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                status[key] = int(value.split()[0])
    os.kill(proc.pid, signal.SIGTERM)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime, status


def main():
    window, startup = float(sys.argv[1]), float(sys.argv[2])
    agents = [("pathwatch (default config.json)", sys.argv[3].split("\x1f")),
              ("collectd 5.12 (load, df, interface, netlink, csv)", sys.argv[4].split("\x1f"))]
    rows = []
    for name, argv in agents:
        short, _ = one_run(argv, startup)
        long, mem = one_run(argv, startup + window)
        rows.append((name, max(0.0, long - short), mem))
    print(f"| agent | CPU over {window:.0f} s idle | CPU % of one core | RSS | peak RSS |")
    print("|---|---|---|---|---|")
    for name, cpu, mem in rows:
        print(f"| {name} | {cpu * 1000:.1f} ms | {cpu / window * 100:.3f} % | {mem['VmRSS'] / 1024:.1f} MiB | {mem['VmHWM'] / 1024:.1f} MiB |")
    (_, pc, pm), (_, cc, cm) = rows
    ratio = f"{pc / cc:.2f}" if cc > 0 else "n/a (collectd below measurement)"
    print(f"\nratios pathwatch/collectd: CPU {ratio}, RSS {pm['VmRSS'] / cm['VmRSS']:.2f}")


main()
