#!/usr/bin/env python3
"""Where 1,000 probes' time goes, beside one probe's 1,000 checks: each row's agent and plug-in
child recorded together with `perf record -g` for WINDOW seconds once every probe has reported
(measure.py's configurations), each sample put in one part by its stack, and each part given as
µs a check a minute (as measure.py's rows are). What one probe's 1,000 checks cost in a part is
what 1,000 probes could cost there at best; the difference is the part's price of a thousand
calls and reports instead of one.

  plug-in's own sample      the plug-in's code and the system calls it makes (the child);
  observation checks        what every observation passes before it leaves the child;
  result record             the record the answer is written as;
  serving, lanes, socket    taking calls, the hop to an instance's lane, the writes, the
                            scheduler's switches between the child's threads;
  timers                    each probe's tick and give-up timers (the agent's timer thread);
  sending calls             the lane job that sends a call, and the agent's lanes otherwise;
  reader, mailbox           reading answers and handing each to its probe;
  decode result record      reading a record into observations;
  pipeline per report       the hop onto the pipeline and the runner's delivery;
  check book, statuses      each report's checks and probe status;
  documents                 whole-state documents (the file sink, the http sink's snapshot).

Usage: breakdown.py PATHWATCH PLUGIN_DIR FIXTURE_DIR WINDOW
"""
import collections, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from loopback import free_port  # noqa: E402
from proctree import tree  # noqa: E402

pathwatch, plugin_dir, fixture_dir, window = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
FREQUENCY = 20_000
ROWS = ["probes:1000", "checks:1000"]
PARTS = ["plug-in's own sample", "observation checks", "result record", "serving, lanes, socket",
         "timers", "sending calls", "reader, mailbox", "decode result record", "pipeline per report",
         "check book, statuses", "documents"]

# measure.py's configuration of a row, and its wait for every probe's first report.
sys.argv = [sys.argv[0], pathwatch, plugin_dir, fixture_dir, "0", "0"]
import measure  # noqa: E402


def deepest_own(frames):
    """The frame nearest the leaf that is Pathwatch's Swift code, or a plug-in's."""
    for f in frames:
        if "Pathwatch" in f or f.startswith(("loadavg_", "tp_")):
            return f
    return ""


def has(frames, *keys):
    return any(k in f for f in frames for k in keys)


def child_part(frames):
    own = deepest_own(frames)
    # A plug-in's C code carries no frame pointers: its samples end in the runner that called it.
    if own.startswith(("loadavg_", "tp_")) or "ProbeInstanceC3run" in own:
        return "plug-in's own sample"
    if "PathwatchProbeRules" in own or "ObservationCollector" in own:
        return "observation checks"
    if "ResultRecordWriter" in own or "RecordCursor" in own:
        return "result record"
    return "serving, lanes, socket"


def agent_part(comm, frames):
    if comm == "pw-sink-file" or comm.startswith("NIO") or has(
            frames, "publishHeld", "StatusDocumentWriter", "LiveHub", "MetricHistory", "deliverQueued"):
        return "documents"
    if has(frames, "CheckBook", "ProbeStatusTable"):
        return "check book, statuses"
    if has(frames, "PipelineExecutor", "ProbeRunnerC7deliver"):
        return "pipeline per report"
    if has(frames, "RecordReader", "ResultFrames"):
        return "decode result record"
    if comm == "pw-timers" or has(frames, "TimerThread"):
        return "timers"
    if comm.startswith("pw-child-"):
        return "reader, mailbox"
    return "sending calls"


def parts(data, agent_pid):
    script = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,comm,ip,sym"],
                            capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for block in script.split("\n\n"):
        lines = [line for line in block.split("\n") if line.strip()]
        head = re.match(r"\s*(\S.*?)\s+(\d+)/(\d+)", lines[0]) if lines else None
        if not head:
            continue
        frames = [line.strip().split(" ", 1)[-1] for line in lines[1:]]
        if int(head.group(2)) == agent_pid:
            counts["agent", agent_part(head.group(1), frames)] += 1
        else:
            counts["child", child_part(frames)] += 1
    return counts


def record(row):
    with tempfile.TemporaryDirectory(prefix="pathwatch-breakdown.") as work:
        os.chmod(work, 0o755)
        port = free_port()
        path, count = measure.config(work, row, port)
        agent = subprocess.Popen([pathwatch, "run", "--config", path, "--log-level", "warning"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300
            while not measure.all_reported(port, count):
                if agent.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{row}: the agent never reported every probe")
                time.sleep(0.5)
            time.sleep(10)
            data = os.path.join(work, "perf.data")
            pids = ",".join(str(p) for p in tree(agent.pid))
            subprocess.run(["perf", "record", "-q", "-F", str(FREQUENCY), "-g", "-o", data, "-p", pids,
                            "--", "sleep", str(window)], check=True, stderr=subprocess.DEVNULL)
            return parts(data, agent.pid)
        finally:
            agent.terminate()
            agent.wait()


def per_check(samples):
    """µs a check a minute: samples at FREQUENCY over the window, for 1,000 checks."""
    return samples / FREQUENCY / window * 60e6 / 1000


results = {row: record(row) for row in ROWS}
print(f"| part | {ROWS[0]} | {ROWS[1]} | difference |")
print("|---|---|---|---|")
totals = [0.0, 0.0]
for side in ("child", "agent"):
    for part in PARTS:
        many, one = (per_check(results[row][side, part]) for row in ROWS)
        if many == 0 and one == 0:
            continue
        totals = [totals[0] + many, totals[1] + one]
        print(f"| {side}: {part} | {many:.1f} | {one:.1f} | {many - one:+.1f} |")
print(f"| tree | {totals[0]:.1f} | {totals[1]:.1f} | {totals[0] - totals[1]:+.1f} |")
print(f"per check, {ROWS[0]} costs {totals[0] / totals[1]:.1f} times {ROWS[1]} "
      f"(µs a check a minute, perf's samples at {FREQUENCY} Hz over {window} s; perf's own cost included)")
