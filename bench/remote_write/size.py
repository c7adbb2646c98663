#!/usr/bin/env python3
"""Measures what the remote_write queue holds (see size.sh) beside Prometheus's own write-ahead
log, in one run: for the shipped config.json (its probes at their own intervals) and for 500
series every 10 s (an exec probe printing Prometheus text), an agent whose remote_write receiver
never answers, so every report stays queued, and Prometheus in agent mode scraping that agent's
/metrics every 10 s with its remote write pointed at a receiver that is down too.

Pathwatch's figure: the queue's records stamped within the window (a whole number of the
slowest probe's intervals), plus each sample's share of a segment's preamble (the labels of
every series, restated once per 4 MiB segment at the default max_bytes). Prometheus's: its WAL
folder's growth over the same window divided by the samples it appended
(prometheus_agent_samples_appended_total), with its default WAL compression."""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, wait_for  # noqa: E402
from queue_records import preamble_bytes, records  # noqa: E402

MAX_BYTES = 64 << 20  # the sink's default max_bytes
SEGMENT = 4 << 20  # its segments at that bound
# The README's example name: `instance` is a label of every series, so its length counts.
NAME = "kiosk-17"
# A mix an exporter prints: growing counters, 0/1 flags, latencies to the microsecond, byte counts.
GENERATOR = r"""#!/bin/sh
exec awk -v n=%d -v t="$(date +%%s)" 'BEGIN { srand(); for (i = 0; i < n; i++) { k = i %% 4;
  if (k == 0) printf "bench_requests_%%d %%d\n", i, (t * (i + 1)) %% 100000000;
  else if (k == 1) printf "bench_up_%%d %%d\n", i, (rand() < 0.02) ? 0 : 1;
  else if (k == 2) printf "bench_latency_seconds_%%d %%.6f\n", i, 0.005 + rand() * 0.05;
  else printf "bench_free_bytes_%%d %%d\n", i, int(1e9 + rand() * 1e6) } }'
"""


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def folder_name(url):
    """The queue's folder, as RemoteWritePush.folderName(url:) names it (FNV-1a 64 of the URL)."""
    h = 0xcbf29ce484222325
    for byte in url.encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"remote_write-{h:016x}"


def milliseconds(text):
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def seconds(interval):
    return float(interval.rstrip("s"))


class PrometheusAgent:
    """Prometheus in agent mode scraping `target` every 10 s, remote write to a closed port."""

    def __init__(self, work, target):
        self.home = os.path.join(work, "prometheus-agent")
        os.makedirs(self.home, exist_ok=True)
        with open(os.path.join(self.home, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 10s\n  scrape_timeout: 5s\n"
                    f"scrape_configs:\n  - job_name: pathwatch\n    static_configs:\n      - targets: ['{target}']\n"
                    f"remote_write:\n  - url: http://127.0.0.1:{free_port()}/api/v1/write\n")
        self.base = f"http://127.0.0.1:{free_port()}"
        self.proc = subprocess.Popen(
            ["prometheus", "--enable-feature=agent", f"--config.file={self.home}/prometheus.yml",
             f"--storage.agent.path={self.home}/data", f"--web.listen-address={self.base[7:]}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.samples() is not None, 60, "prometheus agent")

    def samples(self):
        try:
            text = get(self.base + "/metrics")
        except OSError:
            return None
        m = re.search(r"^prometheus_agent_samples_appended_total(?:\{[^}]*\})? (\S+)$", text, re.M)
        return int(float(m.group(1))) if m else None

    def wal_bytes(self):
        wal = os.path.join(self.home, "data", "wal")
        total = 0
        for root, _, files in os.walk(wal):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        return total

    def reading(self):
        """(WAL bytes, samples appended) at one instant: read again when a scrape came between."""
        while True:
            before = self.wal_bytes()
            samples = self.samples()
            if self.wal_bytes() == before:
                return before, samples

    def stop(self):
        # Measured already; a clean stop would wait out the remote write's flush deadline.
        self.proc.kill()
        self.proc.wait(timeout=30)


def measure(work, root, pathwatch, config, window_wanted):
    """One scenario: (figures, prometheus figures) over a window of whole slowest intervals."""
    os.makedirs(work, exist_ok=True)
    http, url = free_port(), f"http://127.0.0.1:{free_port()}/api/v1/write"
    config["agent"].update({"name": NAME, "plugin_dirs": [os.path.join(root, ".build/release")],
                            "state_dir": os.path.join(work, "state")})
    for sink in config["sinks"]:
        if sink["type"] == "http":
            sink["listen"] = f"127.0.0.1:{http}"
        if sink["type"] == "file":
            sink["path"] = os.path.join(work, "status.json")
    config["sinks"].append({"type": "remote_write", "url": url})
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    agent = subprocess.Popen([pathwatch, "run", "--config", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{http}"
    default = config["agent"]["interval"]
    slowest = max(config["probes"], key=lambda p: seconds(p.get("interval", default)))

    def report_of_slowest():
        try:
            probes = json.loads(get(base + "/status")).get("probes", [])
        except OSError:
            return None
        stamp = next((p.get("last_sample_at") for p in probes if p["id"] == slowest["id"]), None)
        return milliseconds(stamp) if stamp else None

    try:
        period = seconds(slowest.get("interval", default))
        window = max(1, round(window_wanted / period)) * period
        wait_for(lambda: report_of_slowest() is not None, 60, "the agent's first report")
        prometheus = PrometheusAgent(work, f"127.0.0.1:{http}")
        try:
            first = report_of_slowest()
            # The slowest probe's second report starts the window: start-up is behind it.
            wait_for(lambda: (report_of_slowest() or 0) > first, period * 3, "the slowest probe's second report")
            wait_for(lambda: (prometheus.samples() or 0) > 0, 30, "prometheus's first scrape")
            start = report_of_slowest() - 500  # a report stamped a little before it is inside
            wal_start = prometheus.reading()
            end = start + int(window * 1000)
            while time.time() * 1000 < end + 2000:
                time.sleep(1)
            wal_end = prometheus.reading()
        finally:
            prometheus.stop()
        series = sum(1 for line in get(base + "/metrics").splitlines() if line and line[0] != "#") + 1  # pathwatch_up
        queued = records(os.path.join(work, "state", folder_name(url)))
    finally:
        agent.send_signal(signal.SIGKILL)  # nothing to drain: the queue is what was measured
        agent.wait(timeout=30)
    inside = [r for r in queued if start <= r[0] < end]
    record_bytes, samples = sum(r[1] for r in inside), sum(r[2] for r in inside)
    preamble = preamble_bytes(queued)
    per_sample = record_bytes / samples * (1 + preamble / SEGMENT)
    prom_bytes, prom_samples = wal_end[0] - wal_start[0], wal_end[1] - wal_start[1]
    return {
        "window": window, "reports": len(inside), "samples": samples, "series": series, "bytes": record_bytes,
        "preamble": preamble, "per_sample": per_sample,
        "per_series_hour": per_sample * samples / series * 3600 / window,
        "prom_bytes": prom_bytes, "prom_samples": prom_samples,
        "prom_per_sample": prom_bytes / prom_samples if prom_samples else float("nan"),
    }


def report(title, m):
    hours_500 = MAX_BYTES / (m["per_series_hour"] * 500)
    print(f"{title}, {m['window']:.0f} s: {m['reports']} reports queued, {m['samples']} samples of {m['series']} series, "
          f"{m['bytes']} bytes, a segment's preamble {m['preamble']} bytes: {m['per_sample']:.2f} bytes a sample, "
          f"{m['per_series_hour']:,.0f} bytes a series an hour; 64 MiB holds {hours_500:.1f} hours of 500 such series")
    print(f"  Prometheus agent mode scraping the same /metrics every 10 s: WAL {m['prom_bytes']} bytes for "
          f"{m['prom_samples']} samples, {m['prom_per_sample']:.2f} bytes a sample; "
          f"pathwatch/Prometheus {m['per_sample'] / m['prom_per_sample']:.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--window", type=float, default=300)
    args = parser.parse_args()
    with open(os.path.join(args.root, "config.json")) as f:
        shipped = json.load(f)
    generator = os.path.join(args.work, "five-hundred.sh")
    # 470 printed metrics, the exec probe's own and its check's, and the agent's: about 500.
    with open(generator, "w") as f:
        f.write(GENERATOR % 470)
    os.chmod(generator, 0o755)
    five_hundred = {
        "agent": {"interval": "10s"},
        "probes": [{"id": "gen", "plugin": "exec", "isolation": "inline", "interval": "10s",
                    "config": {"commands": [{"name": "metrics", "command": [generator], "format": "prometheus"}]}}],
        "sinks": [{"type": "http", "listen": "127.0.0.1:0"}],
    }
    results = {}

    def run(key, config):
        results[key] = measure(os.path.join(args.work, key), args.root, args.pathwatch, config, args.window)

    threads = [threading.Thread(target=run, args=("shipped", shipped)),
               threading.Thread(target=run, args=("500", five_hundred))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if set(results) != {"shipped", "500"}:
        raise SystemExit("a scenario failed")
    report(f"shipped config.json as {NAME}", results["shipped"])
    report("500 series every 10 s (an exec probe printing 470 metrics)", results["500"])


if __name__ == "__main__":
    main()
