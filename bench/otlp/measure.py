#!/usr/bin/env python3
"""Drives the otlp benchmark (see run.sh). Every figure comes from one run beside its peer, the
remote_write sink pushing the same series to the same receiver: the agent's CPU is its
CPU-time clock at both ends of a window (bench/idle/measure.py says why), memory is VmRSS."""
import argparse
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, wait_for  # noqa: E402
from proctree import rss_kib  # noqa: E402


def cpu_ns(pid):
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


class VictoriaMetrics:
    def __init__(self, binary, work):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [binary, f"-storageDataPath={work}/vm", f"-httpListenAddr=127.0.0.1:{self.port}", "-loggerLevel=ERROR"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready():
            try:
                return get(self.base + "/health") is not None
            except OSError:
                return False
        wait_for(ready, 60, "victoria-metrics")

    def rows(self, kind):
        """Samples the receiver took through `kind` (promremotewrite, opentelemetry) so far."""
        for line in get(self.base + "/metrics").splitlines():
            if line.startswith(f'vm_rows_inserted_total{{type="{kind}"}}'):
                return int(float(line.split()[-1]))
        return 0

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


class CountingProxy:
    """Forwards each POST to the receiver as it came, counting its body's bytes (what the sink
    put on the wire, compressed) and requests."""

    def __init__(self, target):
        self.bytes = 0
        self.requests = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                proxy.bytes += len(body)
                proxy.requests += 1
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                request = urllib.request.Request(target + self.path, data=body, headers=headers, method="POST")
                try:
                    with urllib.request.urlopen(request, timeout=10) as r:
                        status, answer = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, answer = e.code, e.read()
                self.send_response(status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def agent(args, name, sinks, pathwatch=None, config=None):
    folder = os.path.join(args.work, name)
    os.makedirs(folder, exist_ok=True)
    if config is None:
        config = {
            "agent": {"name": name, "plugin_dirs": [args.plugins], "interval": "1s", "state_dir": "queues"},
            "probes": [{"id": "api", "plugin": "testprobe", "config": {"checks": 200, "counter": True}}],
            "sinks": [{"type": "file", "path": "status.json", "on": "every"}] + sinks,
        }
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return subprocess.Popen([pathwatch or args.pathwatch, "run", "--config", path, "--log-level", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder)


def window(args, name, sinks, vm=None, kind=None, proxy=None):
    """The agent's CPU over the window, and what went on the wire meanwhile."""
    proc = agent(args, name, sinks)
    time.sleep(5)  # start-up, outside the window
    cpu0 = cpu_ns(proc.pid)
    rows0 = vm.rows(kind) if vm else 0
    bytes0 = proxy.bytes if proxy else 0
    time.sleep(args.window)  # the measured window
    cpu = (cpu_ns(proc.pid) - cpu0) / 1e9
    rows = (vm.rows(kind) - rows0) if vm else 0
    sent = (proxy.bytes - bytes0) if proxy else 0
    rss = rss_kib(proc.pid)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return cpu, rows, sent, rss


def idle(args, binary, name):
    """The shipped config.json, its probes at their intervals, no otlp sink: CPU over the
    window after 5 s, and VmRSS at its end."""
    with open(os.path.join(args.root, "config.json")) as f:
        config = json.load(f)
    config["agent"]["plugin_dirs"] = [os.path.join(os.path.dirname(binary))]
    config["agent"]["state_dir"] = "state"
    config["sinks"] = [{"type": "http", "listen": f"127.0.0.1:{free_port()}"},
                       {"type": "file", "path": "status.json", "on": "every"}]
    proc = agent(args, name, [], pathwatch=binary, config=config)
    time.sleep(5)  # start-up, outside the window
    cpu0 = cpu_ns(proc.pid)
    time.sleep(args.window)  # the measured window
    figures = ((cpu_ns(proc.pid) - cpu0) / 1e6, rss_kib(proc.pid) / 1024)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return figures


def main():
    parser = argparse.ArgumentParser()
    for name in ("--pathwatch", "--plugins", "--work", "--root", "--victoria-metrics"):
        parser.add_argument(name, required=True)
    parser.add_argument("--window", type=float, default=30)
    parser.add_argument("--before")
    args = parser.parse_args()
    vm = VictoriaMetrics(args.victoria_metrics, args.work)
    proxy = CountingProxy(vm.base)
    base_cpu, _, _, base_rss = window(args, "alone", [])
    rw_cpu, rw_rows, rw_bytes, rw_rss = window(
        args, "remote-write", [{"type": "remote_write", "url": proxy.base + "/api/v1/write"}], vm, "promremotewrite",
        proxy)
    otlp_cpu, otlp_rows, otlp_bytes, otlp_rss = window(
        args, "otlp", [{"type": "otlp", "url": proxy.base + "/opentelemetry/v1/metrics"}], vm, "opentelemetry", proxy)
    vm.stop()
    reports = args.window  # one report a second
    per = lambda extra, rows: extra / reports / (rows / reports / 1000) * 1000  # ms per 1,000 samples a report
    print(f"{args.window:.0f} s windows, a report a second: agent CPU alone {base_cpu * 1000:.0f} ms; "
          f"remote_write {rw_cpu * 1000:.0f} ms for {rw_rows} samples; otlp {otlp_cpu * 1000:.0f} ms for {otlp_rows}")
    rw_per, otlp_per = per(rw_cpu - base_cpu, rw_rows), per(otlp_cpu - base_cpu, otlp_rows)
    print(f"CPU per 1,000 samples a report: remote_write {rw_per:.2f} ms, otlp {otlp_per:.2f} ms "
          f"(otlp {otlp_per / max(rw_per, 1e-9):.2f}x)")
    rw_b, otlp_b = rw_bytes / max(rw_rows, 1), otlp_bytes / max(otlp_rows, 1)
    print(f"bytes a sample on the wire: remote_write {rw_b:.2f} (snappy), otlp {otlp_b:.2f} (gzip) "
          f"(otlp {otlp_b / max(rw_b, 1e-9):.2f}x)")
    print(f"RSS: alone {base_rss / 1024:.1f} MiB, remote_write {rw_rss / 1024:.1f} MiB, otlp {otlp_rss / 1024:.1f} MiB")
    if args.before:
        before = idle(args, os.path.join(args.before, ".build/release/pathwatch"), "idle-before")
        now = idle(args, args.pathwatch, "idle-now")
        print(f"idle, shipped config.json (no otlp sink), {args.window:.0f} s: before {before[0]:.1f} ms CPU, "
              f"RSS {before[1]:.1f} MiB; this build {now[0]:.1f} ms CPU, RSS {now[1]:.1f} MiB")


if __name__ == "__main__":
    main()
