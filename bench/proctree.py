"""What the benchmarks read of a process tree: the process and its descendants, and their PSS
summed from /proc/PID/smaps_rollup (shared pages divided among the processes that map them,
so children count what they really cost)."""
import os
import time


def tree(pid):
    """The process and its descendants. Children are listed per thread: the agent starts its
    plug-in children from worker threads."""
    pids, i = [pid], 0
    while i < len(pids):
        try:
            for task in os.listdir(f"/proc/{pids[i]}/task"):
                with open(f"/proc/{pids[i]}/task/{task}/children") as f:
                    pids += [int(c) for c in f.read().split()]
        except OSError:
            pass
        i += 1
    return pids


def summed(pids, file, *fields):
    """The numbers after `fields` ("Pss", "Threads", ...) in /proc/PID/FILE, summed over `pids`
    (each in the file's own unit: KiB for memory); processes that have ended count nothing."""
    prefixes = tuple(f"{field}:" for field in fields)
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/{file}") as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith(prefixes))
        except OSError:
            pass
    return total


def pss_kib(pids):
    """Summed PSS of `pids`, in KiB."""
    return summed(pids, "smaps_rollup", "Pss")


def private_kib(pids):
    """Summed private memory (USS: Private_Clean + Private_Dirty) of `pids`, in KiB: what the
    tree holds that no other process shares, whatever else runs on the machine."""
    return summed(pids, "smaps_rollup", "Private_Clean", "Private_Dirty")


def rss_kib(pid):
    """VmRSS of one process, in KiB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_ticks(pids):
    """utime + stime of `pids`, summed, in clock ticks (SC_CLK_TCK a second); processes that
    have ended count nothing."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total


def cpu_ns(pids):
    """CPU time of `pids` so far, summed, in nanoseconds: each process's CPU-time clock (every
    thread, those that ended included), whose id is what glibc's clock_getcpuclockid computes
    (MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED): ~pid << 3 | 2). Clock ticks (cpu_ticks) are
    10 ms: a row that costs a few of them a minute reads as their count, not its cost."""
    total = 0
    for p in pids:
        try:
            total += time.clock_gettime_ns(((~p) << 3) | 2)
        except OSError:
            pass
    return total

