"""Idle cost of two agents started side by side, REPEAT times: the CPU time of each agent's
process tree over WINDOW seconds once STARTUP seconds have passed, and memory at the window's
end (VmRSS, VmHWM, and PSS summed over the process tree from /proc/PID/smaps_rollup, so child
processes count what they really cost).

CPU time is each process's CPU-time clock (clock_gettime on the clock clock_getcpuclockid
names: nanoseconds, every thread, those that ended included) read at both ends of the window.
The earlier method took wait4's rusage of a long run minus a short one, so the start-up of two
separate runs (loading plug-ins, first samples: several times the idle minute's cost) sat inside
the difference, and one build's ratio read 0.6x in one run and 1.5x in the next. Summing the
live threads' /proc/PID/task/TID/schedstat instead would miss threads that come and go inside
the window: libdispatch's workers do (perf stat read 20.3 ms where the live threads showed 10.8)."""
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from proctree import cpu_ns, private_kib, pss_kib, tree  # noqa: E402


def thread_ids(pid):
    ids = set()
    for p in tree(pid):
        try:
            ids |= {(p, t) for t in os.listdir(f"/proc/{p}/task")}
        except OSError:
            pass
    return ids


def tree_cpu_ns(pid):
    """CPU time of every process of the tree so far, in nanoseconds (proctree.cpu_ns)."""
    return cpu_ns(tree(pid))


def swift_neighbours(pids):
    """Other processes mapping the Swift runtime. PSS divides its shared pages among them, so
    the agent's PSS reads lower while a compiler or another Swift program runs beside it."""
    others = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in pids:
            continue
        try:
            with open(f"/proc/{entry}/maps") as f:
                if "libswiftCore.so" in f.read():
                    others.append(int(entry))
        except OSError:
            pass
    return others


def memory(pid):
    status = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                status[key] = int(value.split()[0])
    status["Pss"] = pss_kib(tree(pid))
    status["Uss"] = private_kib(tree(pid))
    status["neighbours"] = len(swift_neighbours(set(tree(pid))))
    return status


def one_round(argvs, window, startup):
    """Both agents at once; per agent: CPU ns over the window, memory, threads created."""
    procs = [subprocess.Popen(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for a in argvs]
    time.sleep(startup)
    seen = [thread_ids(p.pid) for p in procs]
    start = [tree_cpu_ns(p.pid) for p in procs]
    created = [0 for _ in procs]
    end = time.time() + window
    while time.time() < end:
        for i, p in enumerate(procs):
            now = thread_ids(p.pid)
            created[i] += len(now - seen[i])
            seen[i] |= now
        time.sleep(0.05)
    cpu = [tree_cpu_ns(p.pid) - s for p, s in zip(procs, start)]
    mem = [memory(p.pid) for p in procs]
    for p in procs:
        os.kill(p.pid, signal.SIGTERM)
    for p in procs:
        p.wait()
    return cpu, mem, created


def main():
    window, startup = float(sys.argv[1]), float(sys.argv[2])
    repeat = int(os.environ.get("REPEAT", "3"))
    names = ["pathwatch (default config.json)", "collectd 5.12 (load, df, interface, netlink, csv)"]
    # Two other agents instead (bench/idle/builds.sh: two builds of pathwatch): "first|second".
    if os.environ.get("NAMES"):
        names = os.environ["NAMES"].split("|")
    argvs = [sys.argv[3].split("\x1f"), sys.argv[4].split("\x1f")]
    rounds = [one_round(argvs, window, startup) for _ in range(repeat)]
    for i, name in enumerate(names):
        made = [r[2][i] for r in rounds]
        print(f"{name}: threads created after start-up, per round of {window:.0f} s: {made} "
              f"({statistics.median(made) * 60 / window:.1f} a minute, median)")
    ratios = [r[0][0] / r[0][1] for r in rounds if r[0][1] > 0]
    for n, r in enumerate(rounds, 1):
        print(f"round {n}: {names[0].split(' ')[0]} {r[0][0] / 1e6:.1f} ms, {names[1].split(' ')[0]} {r[0][1] / 1e6:.1f} ms"
              + (f", ratio {r[0][0] / r[0][1]:.2f}" if r[0][1] > 0 else ""))
    print(f"| agent | CPU over {window:.0f} s idle (median of {repeat}) | CPU % of one core | PSS (process tree) | USS (process tree) | RSS | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for i, name in enumerate(names):
        cpu = statistics.median(r[0][i] for r in rounds) / 1e9
        mem = rounds[-1][1][i]
        print(f"| {name} | {cpu * 1000:.1f} ms | {cpu / window * 100:.3f} % | {mem['Pss'] / 1024:.1f} MiB | {mem['Uss'] / 1024:.1f} MiB | "
              f"{mem['VmRSS'] / 1024:.1f} MiB | {mem['VmHWM'] / 1024:.1f} MiB |")
    pm, cm = rounds[-1][1]
    if pm["neighbours"]:
        print(f"\nwarning: {pm['neighbours']} other processes mapped the Swift runtime at the last reading; "
              "the agent's PSS is divided with them and reads low: measure again on a quiet machine")
    spread = f"median {statistics.median(ratios):.2f}, rounds {min(ratios):.2f}–{max(ratios):.2f}" if ratios else "n/a"
    print(f"\nratios {names[0].split(' ')[0]}/{names[1].split(' ')[0]}: CPU {spread}; PSS {pm['Pss'] / cm['Pss']:.2f}, RSS {pm['VmRSS'] / cm['VmRSS']:.2f} (last round)")
    if os.environ.get("NAMES"):
        # Per round, in KiB: what moved between the two (memory is read at each round's end).
        for n, r in enumerate(rounds, 1):
            a, b = r[1]
            print(f"round {n} memory, second minus first: RSS {b['VmRSS'] - a['VmRSS']:+d} KiB, PSS {b['Pss'] - a['Pss']:+d} KiB, "
                  f"USS {b['Uss'] - a['Uss']:+d} KiB")


main()
