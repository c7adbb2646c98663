#!/usr/bin/env python3
"""The http sink's benchmarks (see run.sh), each beside a peer measured in the same run:

  metrics   `/metrics` of an agent reporting 1,000 checks (the tests' fixture probe), scraped
            N times over one kept-alive connection with curl (as Prometheus scrapes): time per
            scrape (curl's time_total and time to first byte), size, series, and CPU per scrape
            of the agent's process tree; beside node_exporter's own /metrics (default
            collectors, this host), scraped the same way.
  idle      PSS of the agent's process tree (bench/proctree.py) on a job like the shipped
            config.json, without the http sink, with it and no client, and with it scraped
            once a second; beside node_exporter idle. Median of ROUNDS runs of WINDOW seconds.
  latency   reads the JSON lines bench/linkstate/latency.py wrote with --summary-json and
            writes their table.

Each writes its markdown table to stdout and appends it, dated, to --results."""
import argparse
import datetime
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, wait_for  # noqa: E402
from proctree import private_kib, pss_kib, tree  # noqa: E402

NODE_EXPORTER = "prometheus-node-exporter"
TICK = os.sysconf("SC_CLK_TCK")



def get(url, timeout=5):
    result = subprocess.run(["curl", "-sS", "--noproxy", "*", "--max-time", str(timeout), url],
                            capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else ""


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / TICK


def percentile(values, p):
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def start_agent(args, name, config):
    path = os.path.join(args.work, f"{name}.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return subprocess.Popen([args.pathwatch, "run", "--config", path, "--log-level", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_node_exporter(port):
    return subprocess.Popen([NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def scrape_series(url, pid, count, rate=None):
    """`count` scrapes of `url` by one curl over one kept-alive connection (after 10 to warm up),
    back to back or `rate` a second: per-scrape seconds (total, first byte), sizes, statuses,
    and the CPU seconds of `pid`'s tree per scrape, less what the tree spends in a window as long
    without scrapes (the agent samples meanwhile)."""
    subprocess.run(["curl", "-s", "--noproxy", "*", f"{url}?warm=[1-10]"], stdout=subprocess.DEVNULL, check=True)
    pids = tree(pid)
    before = cpu_seconds(pids)
    started = time.monotonic()
    result = subprocess.run(
        ["curl", "-s", "--noproxy", "*", f"{url}?n=[1-{count}]"] + (["--rate", f"{rate}/s"] if rate else []) +
        ["-w", "%{stderr}%{http_code} %{time_total} %{time_starttransfer} %{size_download}\n"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(pids) - before
    quiet_before = cpu_seconds(pids)
    time.sleep(elapsed)
    quiet = cpu_seconds(pids) - quiet_before
    rows = [line.split() for line in result.stderr.splitlines() if line.strip()]
    return {
        "statuses": sorted({r[0] for r in rows}),
        "total": [float(r[1]) for r in rows],
        "first_byte": [float(r[2]) for r in rows],
        "bytes": [int(r[3]) for r in rows],
        "cpu_per_scrape": max(0.0, cpu - quiet) / max(1, len(rows)),
    }


def series_count(text):
    return sum(1 for line in text.splitlines() if line and not line.startswith("#"))


def metrics(args):
    """Fresh: the probe reports every 100 ms and the scrapes come 5 a second, so each one finds a
    new report and renders it. Cached: back to back, so nearly all are copies of one rendering."""
    port, peer_port = free_port(), free_port()
    agent = start_agent(args, "metrics", {
        "agent": {"name": "bench", "interval": "100ms", "plugin_dirs": [args.plugins], "state_dir": os.path.join(args.work, "state")},
        "probes": [{"id": "p", "plugin": "testprobe", "config": {"checks": args.checks, "counter": True}}],
        "sinks": [{"type": "http", "listen": f"127.0.0.1:{port}"}],
    })
    peer = start_node_exporter(peer_port)
    fresh_count = max(10, args.scrapes // 2)
    try:
        url, peer_url = f"http://127.0.0.1:{port}/metrics", f"http://127.0.0.1:{peer_port}/metrics"
        last = f'check="p/c{args.checks - 1}"'
        wait_for(lambda: last in get(url), 60, f"the agent's /metrics with {args.checks} checks")
        wait_for(lambda: "node_exporter_build_info" in get(peer_url), 30, "node_exporter")
        text, peer_text = get(url), get(peer_url)
        fresh = scrape_series(url, agent.pid, fresh_count, rate=5)
        cached = scrape_series(url, agent.pid, args.scrapes)
        theirs = scrape_series(peer_url, peer.pid, fresh_count, rate=5)
    finally:
        stop(agent)
        stop(peer)

    def row(name, m, text):
        return (f"| {name} | {len(m['total'])} | {', '.join(m['statuses'])} | {series_count(text):,} | "
                f"{statistics.median(m['bytes']):,.0f} | {percentile(m['total'], 50) * 1000:.2f} | "
                f"{percentile(m['total'], 90) * 1000:.2f} | {percentile(m['first_byte'], 50) * 1000:.2f} | "
                f"{m['cpu_per_scrape'] * 1000:.2f} |")
    p50 = lambda m: percentile(m["total"], 50)  # noqa: E731
    per_series = (p50(fresh) / series_count(text)) / (p50(theirs) / series_count(peer_text))
    cpu_ratio = fresh["cpu_per_scrape"] / theirs["cpu_per_scrape"] if theirs["cpu_per_scrape"] > 0 else float("nan")
    return [
        f"### `/metrics` at {args.checks:,} checks",
        "",
        "| server | scrapes | statuses | series | bytes | p50 (ms) | p90 (ms) | first byte p50 (ms) | CPU per scrape (ms) |",
        "|---|---|---|---|---|---|---|---|---|",
        row(f"pathwatch, fresh report each scrape (5/s, probe every 100 ms)", fresh, text),
        row(f"pathwatch, back to back (rendered once, copies after)", cached, text),
        row("node_exporter, default collectors, 5/s (peer)", theirs, peer_text),
        "",
        f"pathwatch fresh / node_exporter: p50 time {p50(fresh) / p50(theirs):.2f}×, CPU per scrape {cpu_ratio:.2f}×, "
        f"time per series {per_series:.2f}×, bytes {statistics.median(fresh['bytes']) / statistics.median(theirs['bytes']):.1f}×; "
        f"a fresh rendering takes {p50(fresh) / p50(cached):.0f}× as long as a copy.",
    ]


def idle(args):
    products = args.products
    base = {
        "agent": {"interval": "10s", "plugin_dirs": [products], "state_dir": os.path.join(args.work, "state")},
        "probes": [
            {"id": "link", "plugin": "linkstate", "isolation": "inline", "config": {"ignore": ["lo"]}},
            {"id": "disk", "plugin": "disk", "isolation": "inline",
             "config": {"mounts": "*", "warn_used_percent": 85, "crit_used_percent": 95}},
            {"id": "bw", "plugin": "bandwidth", "isolation": "inline", "interval": "5s",
             "config": {"interfaces": ["*"], "ignore": ["lo"]}},
            {"id": "load", "plugin": "loadavg", "isolation": "inline", "interval": "30s",
             "config": {"warn_per_cpu": 1.5, "crit_per_cpu": 3.0}},
        ],
        "sinks": [{"type": "stdout", "format": "text", "on": "change"},
                  {"type": "file", "path": os.path.join(args.work, "status.json"), "on": "every"}],
    }
    peer_name = "node_exporter, default collectors, scraped every 1 s (peer)"
    variants = ["http sink off", "http sink on, no client", "http sink on, scraped every 1 s", peer_name]
    samples = {v: [] for v in variants}
    private = {v: [] for v in variants}
    for _ in range(args.rounds):
        for variant in variants:
            port = free_port()
            if variant.startswith("node_exporter"):
                process = start_node_exporter(port)
            else:
                config = json.loads(json.dumps(base))
                if variant != "http sink off":
                    config["sinks"].append({"type": "http", "listen": f"127.0.0.1:{port}"})
                process = start_agent(args, "idle", config)
            try:
                end = time.time() + args.window
                while time.time() < end:
                    if variant.endswith("every 1 s") or variant == peer_name:
                        get(f"http://127.0.0.1:{port}/metrics")
                    time.sleep(1)
                pids = tree(process.pid)
                samples[variant].append(pss_kib(pids))
                private[variant].append(private_kib(pids))
            finally:
                stop(process)
    med = {v: statistics.median(s) / 1024 for v, s in samples.items()}
    uss = {v: statistics.median(s) / 1024 for v, s in private.items()}
    off, on, scraped = "http sink off", "http sink on, no client", "http sink on, scraped every 1 s"
    table = [
        f"### Idle memory of the process tree, job of the shipped config.json, {args.window:.0f} s, median of {args.rounds}",
        "",
        "| agent | PSS (MiB) | PSS runs (MiB) | private (MiB) |",
        "|---|---|---|---|",
    ]
    for variant in variants:
        runs = ", ".join(f"{s / 1024:.1f}" for s in samples[variant])
        table.append(f"| {variant} | {med[variant]:.1f} | {runs} | {uss[variant]:.1f} |")
    peer = med[peer_name]
    table += ["", f"http sink on: PSS +{med[on] - med[off]:.1f} MiB idle, +{med[scraped] - med[off]:.1f} MiB scraped "
                  f"(private +{uss[on] - uss[off]:.1f}, +{uss[scraped] - uss[off]:.1f} MiB); "
                  f"pathwatch with the sink / node_exporter: PSS {med[scraped] / peer:.2f}×, private {uss[scraped] / uss[peer_name]:.2f}× (scraped).",
              "",
              "Both figures move with what else maps the same libraries: a page another process maps is "
              "divided in PSS and is not private. With no other Swift process running, PSS is nearly RSS; "
              "a Swift process beside the agent halves its share of the Swift runtime. Compare rows of one run."]
    return table


def latency(args):
    rows = [json.loads(line) for line in open(args.summaries) if line.strip()]
    table = [
        "### Link change → stdout line, with the http sink idle and under load (kernel notice → line)",
        "",
        "| probes | http sink | changes | agent p50 (ms) | agent p99 (ms) | `ip monitor link` p50 (ms) | `ip monitor link` p99 (ms) | ratio p50, p99 | load served |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        load = r.get("load") or {}
        served = "—"
        if load:
            sse, scrapes = load.get("sse", {}), load.get("scrapes", {})
            served = (f"{sse.get('status_200', 0)} SSE clients (min {sse.get('min_changes', 0)} changes each), "
                      f"{scrapes.get('ok', 0)}/{scrapes.get('attempted', 0)} scrapes, slow client cut: "
                      f"{load.get('slow', {}).get('cut_off', 0)}")
        probes = f"linkstate ({r['isolation']})"
        if r.get("bulk_checks"):
            probes += f" + {r['bulk_checks']:,} checks every 1 s"
        table.append(f"| {probes} | {r['http']} | {r['changes']} | {r['agent_p50']:.2f} | {r['agent_p99']:.2f} | "
                     f"{r['peer_p50']:.2f} | {r['peer_p99']:.2f} | {r['agent_p50'] / r['peer_p50']:.1f}×, "
                     f"{r['agent_p99'] / r['peer_p99']:.1f}× | {served} |")
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["metrics", "idle", "latency"])
    parser.add_argument("--pathwatch")
    parser.add_argument("--products", help="folder with the release plug-ins")
    parser.add_argument("--plugins", help="folder with libtestprobe.so")
    parser.add_argument("--work", default="/tmp")
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--scrapes", type=int, default=200)
    parser.add_argument("--window", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--summaries", help="latency: the JSON lines latency.py wrote")
    parser.add_argument("--results")
    parser.add_argument("--command", default="")
    args = parser.parse_args()
    table = {"metrics": metrics, "idle": idle, "latency": latency}[args.part](args)
    print("\n".join(table))
    if args.results:
        run = os.environ.get("PW_BENCH_RUN", datetime.date.today().isoformat())
        header = (f"## {run}, release build, {os.cpu_count()} CPUs, "
                  f"Linux {platform.release()}: `{args.command}`")
        existing = open(args.results).read() if os.path.exists(args.results) else ""
        headers = [line for line in existing.splitlines() if line.startswith("## ")]
        # The parts of one run share its header.
        with open(args.results, "a") as f:
            f.write(("\n" if headers and headers[-1] == header else f"\n{header}\n\n") + "\n".join(table) + "\n")


if __name__ == "__main__":
    main()
