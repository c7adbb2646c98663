"""CPU per command run of two agents running the same N commands every INTERVAL seconds, side
by side: pathwatch's exec plug-in, and NRPE's daemon driven by check_nrpe from a loop here (the
Nagios server's side, whose own CPU is not counted, as the monitoring server's is not).

CPU is utime+stime+cutime+cstime of every process of each agent's tree, from /proc/PID/stat, at
both ends of a window: a command is reaped by its parent, so its time is in the parent's
cutime/cstime by the window's end (both agents reap every command; a reap after the end counts
in the next window, once per side). The window starts half an interval after both start, and is
a whole number of intervals, so each agent runs exactly WINDOW/INTERVAL rounds of N commands in
it: the figure is (tree CPU over the window) / (rounds × N)."""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from proctree import tree  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid, reaped=True):
    """Seconds of CPU of the tree so far: its live processes and (`reaped`) the children they
    reaped. Without them, between rounds, it is the agent's own processes alone (pathwatch: the
    agent and its plug-in child; nrpe: the listening daemon, whose per-connection children are
    reaped with the commands and so cannot be told apart from them)."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15 if reaped else 13])  # utime stime [cutime cstime]
        except (OSError, IndexError):
            pass
    return total / TICK


def drive_nrpe(port, names, interval, parallel, stop, log):
    """check_nrpe for every name, `parallel` at once, every `interval` s from now, until `stop`."""
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        argv = ["xargs", "-P", str(parallel), "-I{}", "/usr/lib/nagios/plugins/check_nrpe",
                "-H", "127.0.0.1", "-p", str(port), "-t", "9", "-c", "{}"]
        r = subprocess.run(argv, input="\n".join(names) + "\n", capture_output=True, text=True)
        log.append((time.monotonic() - start, r.stdout.count("\n")))
        k += 1
        stop.wait(max(0, start + k * interval - time.monotonic()))


def main():
    pathwatch_cmd, nrpe_cmd, port, commands, interval, window = sys.argv[1:7]
    port, commands, interval, window = int(port), int(commands), float(interval), float(window)
    names = [f"c{i}" for i in range(commands)]
    agent = subprocess.Popen(pathwatch_cmd.split("\x1f"), stdout=subprocess.DEVNULL)
    nrpe = subprocess.Popen(nrpe_cmd.split("\x1f"), stdout=subprocess.DEVNULL)
    time.sleep(0.3)  # nrpe binds its port; pathwatch's first sample starts at once
    stop, log = threading.Event(), []
    driver = threading.Thread(target=drive_nrpe, args=(port, names, interval, 4, stop, log))
    driver.start()
    # Half an interval in: both agents are between rounds.
    time.sleep(interval / 2)
    a0, n0, o0 = tree_cpu(agent.pid), tree_cpu(nrpe.pid), tree_cpu(agent.pid, reaped=False)
    time.sleep(window)
    a1, n1, o1 = tree_cpu(agent.pid), tree_cpu(nrpe.pid), tree_cpu(agent.pid, reaped=False)
    stop.set()
    driver.join()
    agent.terminate(); nrpe.terminate()
    agent.wait(); nrpe.wait()
    rounds = round(window / interval)
    answered = [n for _, n in log]
    runs = rounds * commands
    pw, nr = (a1 - a0) / runs * 1000, (n1 - n0) / runs * 1000
    print(f"window {window:.0f} s, {rounds} rounds of {commands} commands each side; "
          f"check_nrpe answers per round: {answered}")
    print(f"pathwatch exec: {a1 - a0:.2f} s CPU, {pw:.3f} ms per command run")
    print(f"  of which the agent and its plug-in child: {o1 - o0:.2f} s, {(o1 - o0) / runs * 1000:.3f} ms per run")
    print(f"nrpe:           {n1 - n0:.2f} s CPU, {nr:.3f} ms per command run")
    print(f"ratio pathwatch/nrpe: {pw / nr:.2f}x")


main()
