#!/usr/bin/env python3
"""The fleet's return (see fleet.sh). Phase one: every agent reports every 100 ms with its
receiver down until its queue holds the backlog asked for (an hour of reports at 10 s comes to
360), then stops; its queue stays. Phase two: every agent starts again at a 10 s interval, the
receiver still down, so they all fail within the same second; then Prometheus starts at the URL,
scraping itself every second. Its own counter of write requests, read at that resolution, is
the timeline the agents' retries make: a synchronized wave shows as a peak far above the mean.

Every queued report is checked in Prometheus by its own timestamp
(`pathwatch_probe_success{probe="link"}` is in each of that probe's reports)."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, wait_for  # noqa: E402
from queue_records import records  # noqa: E402

PROMETHEUS = "/usr/bin/prometheus"


def config(args, index, port, interval):
    name = f"fleet-{index:02d}"
    home = os.path.join(args.work, name)
    os.makedirs(home, exist_ok=True)
    path = os.path.join(home, "config.json")
    with open(path, "w") as f:
        json.dump({
            "agent": {"name": name, "interval": interval, "plugin_dirs": [args.plugins],
                      "state_dir": os.path.join(home, "queues")},
            "probes": [{"id": "link", "plugin": "linkstate"}],
            "sinks": [{"type": "remote_write", "url": f"http://127.0.0.1:{port}/api/v1/write"}],
        }, f)
    return name, path


def queue_folder(args, name):
    base = os.path.join(args.work, name, "queues")
    found = [os.path.join(base, d) for d in os.listdir(base) if d.startswith("remote_write")] if os.path.isdir(base) else []
    return found[0] if found else None


def queued_stamps(args, name):
    folder = queue_folder(args, name)
    return [r[0] for r in records(folder)] if folder else []


def start(args, path):
    return subprocess.Popen([args.pathwatch, "run", "--config", path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(processes):
    for p in processes:
        p.send_signal(signal.SIGTERM)
    for p in processes:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def query(port, expression, at=None):
    params = {"query": expression}
    if at is not None:
        params["time"] = f"{at:.3f}"
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.load(reply)["data"]["result"]


def usage(pid):
    """CPU seconds and RSS (KiB) of process `pid`."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return (int(fields[11]) + int(fields[12])) / ticks, rss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--reports", type=int, default=360)
    args = parser.parse_args()
    port = free_port()

    # Phase one: the backlogs.
    names, paths = zip(*(config(args, i, port, "100ms") for i in range(args.agents)))
    agents = [start(args, p) for p in paths]
    wait_for(lambda: all(len(queued_stamps(args, n)) >= args.reports for n in names), 600, "the backlogs")
    stop(agents)
    backlog = {n: queued_stamps(args, n) for n in names}
    print(f"backlog: {args.agents} agents, {min(map(len, backlog.values()))}-{max(map(len, backlog.values()))} reports each")

    # Phase two: all start again and fail together, then the receiver comes up.
    for i in range(args.agents):
        config(args, i, port, "10s")
    agents = [start(args, p) for p in paths]
    time.sleep(5)
    home = os.path.join(args.work, "prometheus")
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, "prometheus.yml"), "w") as f:
        f.write("global: {scrape_interval: 1s}\n"
                f"scrape_configs: [{{job_name: self, static_configs: [{{targets: ['127.0.0.1:{port}']}}]}}]\n")
    prometheus = subprocess.Popen(
        [PROMETHEUS, f"--config.file={home}/prometheus.yml", f"--storage.tsdb.path={home}/data",
         f"--web.listen-address=127.0.0.1:{port}", "--web.enable-remote-write-receiver"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    returned = time.time()
    cpu_start, _ = usage(prometheus.pid)
    peak_rss = 0
    missing = {n: set(s) for n, s in backlog.items()}

    def landed(name):
        result = query(port, f'pathwatch_probe_success{{probe="link",instance="{name}"}}[2h]')
        stored = {round(float(t) * 1000) for series in result for t, _ in series["values"]}
        missing[name] -= stored
        return not missing[name]

    try:
        deadline = time.time() + 900
        while time.time() < deadline:
            time.sleep(1)
            _, rss = usage(prometheus.pid)
            peak_rss = max(peak_rss, rss)
            try:
                pending = [n for n in names if missing[n]]
                if all(landed(n) for n in pending):
                    break
            except OSError:
                continue  # not answering yet
        done = time.time()
        cpu_end, _ = usage(prometheus.pid)
        time.sleep(2)  # one more self-scrape after the last request
        window = f"{int(done - returned) + 2}s"
        rates = query(port, f'sum(increase(prometheus_http_requests_total{{handler="/api/v1/write"}}[{window}:1s]))')
        series = query(port, f'sum(rate(prometheus_http_requests_total{{handler="/api/v1/write"}}[2s]))[{window}:1s]')
        per_second = [float(v) for s in series for _, v in s["values"]]
        total = float(rates[0]["value"][1]) if rates else 0
        lost = sum(len(m) for m in missing.values())
        print(f"return: every backlog in after {done - returned:.1f} s; {lost} queued reports not in Prometheus")
        if per_second:
            mean = sum(per_second) / len(per_second)
            print(f"write requests: {total:.0f} in all; per second peak {max(per_second):.1f}, mean {mean:.1f} "
                  f"(peak/mean {max(per_second) / mean:.2f})")
        print(f"prometheus over the return: {cpu_end - cpu_start:.2f} s CPU, peak RSS {peak_rss / 1024:.1f} MiB")
    finally:
        stop(agents)
        prometheus.kill()
        prometheus.wait()


if __name__ == "__main__":
    main()
