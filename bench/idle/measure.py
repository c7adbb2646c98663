"""Idle cost of an agent: CPU time (user + system, all threads, microsecond precision from
wait4's rusage) and memory (VmRSS, VmHWM, and PSS summed over the agent's whole process tree
from /proc/PID/smaps_rollup, so child processes count what they really cost) of a run of WINDOW
seconds, minus a run of STARTUP seconds, so start-up (loading plug-ins, first samples) is not
counted as idle."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from proctree import pss_kib, tree  # noqa: E402


def thread_ids(pid):
    try:
        return set(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return set()


def one_run(argv, seconds):
    """CPU, memory, and the threads created after the first STARTUP seconds (task ids seen
    appearing, polled every 50 ms: a thread that lives less than that can be missed)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    startup_end = time.time() + min(seconds, STARTUP)
    seen = set()
    while time.time() < startup_end:
        seen |= thread_ids(proc.pid)
        time.sleep(0.05)
    created = 0
    end = time.time() + max(0.0, seconds - STARTUP)
    while time.time() < end:
        now = thread_ids(proc.pid)
        created += len(now - seen)
        seen |= now
        time.sleep(0.05)
    status = {}
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                status[key] = int(value.split()[0])
    status["Pss"] = pss_kib(tree(proc.pid))
    status["threads_created"] = created
    os.kill(proc.pid, signal.SIGTERM)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime, status


STARTUP = 5.0


def main():
    global STARTUP
    window, startup = float(sys.argv[1]), float(sys.argv[2])
    STARTUP = startup
    agents = [("pathwatch (default config.json)", sys.argv[3].split("\x1f")),
              ("collectd 5.12 (load, df, interface, netlink, csv)", sys.argv[4].split("\x1f"))]
    rows = []
    for name, argv in agents:
        short, _ = one_run(argv, startup)
        long, mem = one_run(argv, startup + window)
        rows.append((name, max(0.0, long - short), mem))
        print(f"{name}: {mem['threads_created']} threads created in {window:.0f} s after start-up "
              f"({mem['threads_created'] * 60 / window:.1f} a minute)")
    print(f"| agent | CPU over {window:.0f} s idle | CPU % of one core | PSS (process tree) | RSS | peak RSS |")
    print("|---|---|---|---|---|---|")
    for name, cpu, mem in rows:
        print(f"| {name} | {cpu * 1000:.1f} ms | {cpu / window * 100:.3f} % | {mem['Pss'] / 1024:.1f} MiB | "
              f"{mem['VmRSS'] / 1024:.1f} MiB | {mem['VmHWM'] / 1024:.1f} MiB |")
    (_, pc, pm), (_, cc, cm) = rows
    ratio = f"{pc / cc:.2f}" if cc > 0 else "n/a (collectd below measurement)"
    print(f"\nratios pathwatch/collectd: CPU {ratio}, PSS {pm['Pss'] / cm['Pss']:.2f}, RSS {pm['VmRSS'] / cm['VmRSS']:.2f}")


main()
