#!/usr/bin/env python3
"""Drives the remote_write benchmark (see run.sh). Every figure comes from one run beside its
peer: the agent's CPU is its CPU-time clock at both ends of a window (bench/idle/measure.py
says why), memory is VmRSS."""
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
from proctree import rss_kib  # noqa: E402


def cpu_ns(pid):
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


class Prometheus:
    def __init__(self, work, name, port, scrape=None):
        home = os.path.join(work, name)
        os.makedirs(home, exist_ok=True)
        config = "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        if scrape:
            config += f"scrape_configs:\n  - job_name: pathwatch\n    static_configs:\n      - targets: ['{scrape}']\n"
        with open(os.path.join(home, "prometheus.yml"), "w") as f:
            f.write(config)
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={home}/prometheus.yml", f"--storage.tsdb.path={home}/data",
             f"--web.listen-address=127.0.0.1:{port}", "--web.enable-remote-write-receiver"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=home)

        def ready():
            try:
                return get(self.base + "/-/ready") is not None
            except OSError:
                return False
        wait_for(ready, 60, "prometheus")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


class Agent:
    def __init__(self, args, name, checks, interval, sinks):
        folder = os.path.join(args.work, name)
        os.makedirs(folder, exist_ok=True)
        self.http = free_port()
        config = {
            "agent": {"name": name, "plugin_dirs": [args.plugins], "interval": interval, "state_dir": "queues"},
            "probes": [{"id": "api", "plugin": "testprobe", "config": {"checks": checks, "counter": True}}],
            "sinks": [{"type": "http", "listen": f"127.0.0.1:{self.http}"}] + sinks,
        }
        path = os.path.join(folder, "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.proc = subprocess.Popen([args.pathwatch, "run", "--config", path], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

        def up():
            try:
                return get(f"http://127.0.0.1:{self.http}/healthz") is not None
            except OSError:
                return False
        wait_for(up, 30, "the agent")

    def sink(self):
        doc = json.loads(get(f"http://127.0.0.1:{self.http}/status"))
        return next((s for s in doc.get("sinks", []) if s["type"] == "remote_write"), None)

    def series(self):
        return sum(1 for line in get(f"http://127.0.0.1:{self.http}/metrics").splitlines() if line and line[0] != "#")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def drain(args):
    """360 reports of ~200 series queued while nothing listens, then Prometheus comes up."""
    port = free_port()
    sink = {"type": "remote_write", "url": f"http://127.0.0.1:{port}/api/v1/write",
            "retry": {"initial": "100ms", "max": "100ms"}}
    agent = Agent(args, "drain", 40, "100ms", [sink])
    wait_for(lambda: (agent.sink() or {}).get("queued", 0) >= 360, 120, "360 queued reports")
    queued, series = agent.sink()["queued"], agent.series() + 1  # /metrics, and pathwatch_up
    prometheus = Prometheus(args.work, "drain-prometheus", port)
    start = time.monotonic()
    cpu0 = cpu_ns(agent.proc.pid)
    wait_for(lambda: agent.sink()["queued"] == 0, 300, "the backlog to drain")
    seconds = time.monotonic() - start
    cpu = (cpu_ns(agent.proc.pid) - cpu0) / 1e9
    count = json.loads(get(prometheus.base + "/api/v1/query?" + urllib.parse.urlencode(
        {"query": 'count_over_time(pathwatch_up{instance="drain"}[10m])'})))["data"]["result"]
    agent.stop()
    prometheus.stop()
    print(f"drain: {queued} reports of {series} series ({queued * series} samples) queued; drained in {seconds:.2f} s "
          f"(agent CPU {cpu:.2f} s, new reports arriving meanwhile) to Prometheus; pathwatch_up samples stored: "
          f"{count[0]['value'][1] if count else 0}")


def cpu_window(args, name, sinks, scrape):
    """The agent's CPU over the window with ~1,000 series reported every second."""
    agent = Agent(args, name, 200, "1s", sinks)
    prometheus = Prometheus(args.work, name + "-prometheus", args.prom_port, f"127.0.0.1:{agent.http}" if scrape else None)
    time.sleep(5)  # start-up, and Prometheus's first scrapes, outside the window
    cpu0, prom0 = cpu_ns(agent.proc.pid), cpu_ns(prometheus.proc.pid)
    time.sleep(args.window)  # the measured window
    cpu, prom = (cpu_ns(agent.proc.pid) - cpu0) / 1e9, (cpu_ns(prometheus.proc.pid) - prom0) / 1e9
    series, rss = agent.series(), rss_kib(agent.proc.pid)
    agent.stop()
    prometheus.stop()
    return cpu, prom, series, rss


def idle(args, root):
    """The shipped config.json (its probes at their intervals), with a remote_write sink and
    without: CPU over the window after 5 s, and VmRSS at its end."""
    with open(os.path.join(root, "config.json")) as f:
        shipped = json.load(f)
    shipped["agent"]["plugin_dirs"] = [os.path.join(root, ".build/release")]
    prometheus = Prometheus(args.work, "idle-prometheus", free_port())
    figures = {}
    for name, extra in [("without", []), ("with", [{"type": "remote_write", "url": prometheus.base + "/api/v1/write"}])]:
        folder = os.path.join(args.work, "idle-" + name)
        os.makedirs(folder, exist_ok=True)
        config = json.loads(json.dumps(shipped))
        config["agent"]["state_dir"] = os.path.join(folder, "state")
        config["sinks"] = [{"type": "http", "listen": f"127.0.0.1:{free_port()}"},
                           {"type": "file", "path": os.path.join(folder, "status.json"), "on": "every"}] + extra
        path = os.path.join(folder, "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        proc = subprocess.Popen([args.pathwatch, "run", "--config", path, "--log-level", "warning"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(5)  # start-up, outside the window
        cpu0 = cpu_ns(proc.pid)
        time.sleep(args.window)  # the measured window
        figures[name] = ((cpu_ns(proc.pid) - cpu0) / 1e6, rss_kib(proc.pid) / 1024)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    prometheus.stop()
    print(f"idle, shipped config.json, {args.window:.0f} s: without the sink {figures['without'][0]:.1f} ms CPU, "
          f"RSS {figures['without'][1]:.1f} MiB; with it {figures['with'][0]:.1f} ms CPU, RSS {figures['with'][1]:.1f} MiB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--window", type=float, default=30)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    args.prom_port = free_port()
    idle(args, args.root)
    drain(args)
    base_cpu, _, series, base_rss = cpu_window(args, "alone", [], False)
    scrape_cpu, scrape_prom, _, scrape_rss = cpu_window(args, "scraped", [], True)
    push = {"type": "remote_write", "url": f"http://127.0.0.1:{args.prom_port}/api/v1/write"}
    push_cpu, push_prom, _, push_rss = cpu_window(args, "pushing", [push], False)
    reports = args.window  # one report a second
    per = lambda extra: extra / reports / (series / 1000) * 1000  # ms per 1,000 series per report
    print(f"{series} series, a report a second, {args.window:.0f} s windows: agent CPU alone {base_cpu * 1000:.0f} ms, "
          f"scraped every second {scrape_cpu * 1000:.0f} ms, pushing every report {push_cpu * 1000:.0f} ms")
    print(f"CPU per 1,000 series: push {per(push_cpu - base_cpu):.2f} ms, scrape {per(scrape_cpu - base_cpu):.2f} ms "
          f"({(push_cpu - base_cpu) / max(scrape_cpu - base_cpu, 1e-9):.2f}x); Prometheus's own CPU: receiving the push "
          f"{push_prom * 1000:.0f} ms, scraping {scrape_prom * 1000:.0f} ms")
    print(f"RSS: without the sink {base_rss / 1024:.1f} MiB, with it {push_rss / 1024:.1f} MiB, scraped {scrape_rss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
