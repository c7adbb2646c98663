#!/usr/bin/env python3
"""Remote write's per-report work in instructions (see instructions.sh): the agent, a stripped
copy, runs under callgrind for a window, pushing 200 checks' series (~1,000) every second to a
receiver on 127.0.0.1 that answers 204; then each part's instructions, inclusive, per report."""
import argparse
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port  # noqa: E402

# (what it is, the demangled function, a function whose cost under it is left out or None)
PARTS = [
    ("intake: a report made into its queue record", "ReportEncoder.records(for:)", None),
    ("  of it, numbering its series", "ReportSeries.numberedSeries<A>(of:probes:withAgentSeries:book:)", None),
    ("delivery: a request's entries (definitions learned left out)", "SeriesTable.keyedEntries(of:in:unknown:)",
     "specialized SegmentSeries.learn(_:_:)"),
    ("pipeline: the reporting probe's checks listed for the sink (a sink taking every report)",
     "CheckBook.records(ofProbe:)", None),
]


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def inclusive(annotated, name):
    """The inclusive cost of `name` in callgrind_annotate's --tree=calling output, and the cost of
    each function it calls, by name, with the number of calls."""
    own, callees = 0, {}
    lines = annotated.splitlines()
    for index, line in enumerate(lines):
        if line.endswith("]") and f"*  ???:{name} [" in line:
            own = int(line.split()[0].replace(",", ""))
            for callee in lines[index + 1:]:
                match = re.match(r"\s*([\d,]+) \(.*\)\s+>\s+\S*?:(.*) \(([\d,]+)x\)", callee)
                if not match:
                    break
                callees[match.group(2)] = (int(match.group(1).replace(",", "")), int(match.group(3).replace(",", "")))
            break
    return own, callees


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--window", type=float, default=60)
    args = parser.parse_args()
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = {
        "agent": {"name": "instructions", "plugin_dirs": [args.plugins], "interval": "1s", "state_dir": "queues"},
        "probes": [{"id": "api", "plugin": "testprobe", "config": {"checks": 200, "counter": True}}],
        "sinks": [{"type": "remote_write", "url": f"http://127.0.0.1:{port}/api/v1/write"}],
    }
    with open(os.path.join(args.work, "config.json"), "w") as f:
        json.dump(config, f)
    out = os.path.join(args.work, "callgrind.out")
    agent = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--trace-children=no",
                              args.pathwatch, "run", "--config", "config.json"], cwd=args.work,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(args.window)
    agent.terminate()
    agent.wait(timeout=120)
    server.shutdown()
    annotated = subprocess.run(
        f"callgrind_annotate --inclusive=yes --tree=calling {out} | swift demangle --simplified",
        shell=True, check=True, capture_output=True, text=True).stdout
    total = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", annotated).group(1).replace(",", ""))
    # Each report is made into a record once: the calls of `records(for:)`, from whatever called it.
    reports = max((int(n.replace(",", "")) for n in re.findall(r">\s+\S*?:ReportEncoder\.records\(for:\) \(([\d,]+)x\)",
                                                             annotated)), default=0)
    print(f"{reports} reports in {args.window:.0f} s under callgrind; the whole agent {total:,} instructions "
          f"(start-up and the first series' definitions among them)")
    for label, name, less in PARTS:
        cost, callees = inclusive(annotated, name)
        if less:
            cost -= callees.get(less, (0, 0))[0]
        print(f"{label}: {cost / max(reports, 1):,.0f} instructions a report")


if __name__ == "__main__":
    main()
