#!/usr/bin/env python3
"""N endpoints every interval: the agent (one `reachability` probe, process isolation, the shipped
configuration's sinks) beside blackbox_exporter scraped for the same URLs by a Prometheus of its
own, all three started together and measured in the same window.

Once both have checked every endpoint (every check `ok` on the agent's /status; `probe_success`
1 for every target in Prometheus), one more interval passes, then CPU (utime+stime from /proc, of
a core) is read at every interval's end for ROUNDS intervals, and memory (RSS and PSS summed over
each process tree, from smaps_rollup) every 5 s: the most seen and the last. Nothing is asked of
the agent (its progress is read from its file sink) or of Prometheus inside the window; the agent's rounds are counted from its file sink's
writes (its `on: every` document), blackbox's probes from Prometheus afterwards.
Usage: measure.py --pathwatch BIN --plugins DIR --work DIR --server HOST:PORT --endpoints N
                  --rounds R --interval S
"""
import argparse, json, os, subprocess, sys, time, urllib.parse, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from proctree import cpu_ticks, summed, tree  # noqa: E402
from loopback import free_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def get_json(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def write_configs(a, ports):
    urls = [f"http://{a.server}/e/{i}" for i in range(a.endpoints)]
    agent = {"agent": {"interval": f"{a.interval}s", "plugin_dirs": [a.plugins], "isolation": "process",
                       "state_dir": f"{a.work}/state"},
             # A probe lists at most 1,000 targets (ConfigBounds): ten probes of 1,000, one child.
             "probes": [{"id": f"web{p}", "plugin": "reachability",
                         "config": {"targets": [{"name": f"e{i}", "url": urls[i]} for i in range(start, min(a.endpoints, start + 1000))]}}
                        for p, start in enumerate(range(0, a.endpoints, 1000))],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"},
                       {"type": "http", "listen": f"127.0.0.1:{ports['agent']}"},
                       {"type": "file", "path": f"{a.work}/status.json", "on": "every"}]}
    with open(f"{a.work}/agent.json", "w") as f:
        json.dump(agent, f)
    # The blackbox module closest to the probe's defaults: GET, 2xx, 5 s, IPv4 literal.
    with open(f"{a.work}/blackbox.yml", "w") as f:
        f.write("modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n"
                "    http:\n      preferred_ip_protocol: ip4\n")
    targets = ", ".join(json.dumps(u) for u in urls)
    with open(f"{a.work}/prometheus.yml", "w") as f:
        f.write(f"""global:
  scrape_interval: {a.interval}s
  scrape_timeout: 10s
scrape_configs:
  - job_name: blackbox
    metrics_path: /probe
    params: {{module: [http_2xx]}}
    static_configs:
      - targets: [{targets}]
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: 127.0.0.1:{ports['blackbox']}
""")


def agent_ok(work):
    """Checks `ok` in the file sink's document: read from disk, so the agent is asked nothing
    (a /status request would leave its rendered document cached in the http sink)."""
    try:
        with open(f"{work}/status.json") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return 0
    return sum(c.get("state") == "ok" for c in doc.get("checks", []))


def prom_query(port, query):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    try:
        result = get_json(url)["data"]["result"]
    except (OSError, ValueError, KeyError):
        return 0
    return float(result[0]["value"][1]) if result else 0


def mib(kib):
    return kib / 1024


def main():
    p = argparse.ArgumentParser()
    for name in ("pathwatch", "plugins", "work", "server"):
        p.add_argument(f"--{name}", required=True)
    p.add_argument("--endpoints", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--interval", type=int, default=60)
    a = p.parse_args()
    ports = {"agent": free_port(), "blackbox": free_port(), "prometheus": free_port()}
    write_configs(a, ports)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = {
        "agent": subprocess.Popen([a.pathwatch, "run", "--config", f"{a.work}/agent.json", "--log-level", "warning"], **quiet),
        "blackbox": subprocess.Popen(["prometheus-blackbox-exporter", f"--config.file={a.work}/blackbox.yml",
                                      f"--web.listen-address=127.0.0.1:{ports['blackbox']}", "--log.level=warn"], **quiet),
        "prometheus": subprocess.Popen(["prometheus", f"--config.file={a.work}/prometheus.yml",
                                        f"--storage.tsdb.path={a.work}/tsdb", f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
                                        "--log.level=warn"], **quiet)}
    try:
        deadline = time.monotonic() + 4 * a.interval + 120
        agent_done = blackbox_done = False
        while not (agent_done and blackbox_done):
            for name, proc in procs.items():
                if proc.poll() is not None:
                    raise SystemExit(f"{name} exited with {proc.returncode}")
            if time.monotonic() > deadline:
                raise SystemExit(f"not every endpoint checked in time: agent {agent_done}, blackbox {blackbox_done}")
            time.sleep(2)
            agent_done = agent_done or agent_ok(a.work) == a.endpoints
            blackbox_done = blackbox_done or prom_query(ports["prometheus"], "count(probe_success == 1)") == a.endpoints
        # One more interval: past the start-up's burst and every first scrape.
        time.sleep(a.interval)

        trees = {"agent": lambda: [procs["agent"].pid], "agent tree": lambda: tree(procs["agent"].pid),
                 "blackbox": lambda: tree(procs["blackbox"].pid), "prometheus": lambda: tree(procs["prometheus"].pid)}
        start = time.monotonic()
        marks = [{k: cpu_ticks(f()) for k, f in trees.items()}]
        peak = {k: {"rss": 0, "pss": 0} for k in trees}
        status = f"{a.work}/status.json"
        writes, last_mtime = 0, os.stat(status).st_mtime_ns
        next_sample = start
        for r in range(1, a.rounds + 1):
            end = start + r * a.interval
            while (now := time.monotonic()) < end:
                time.sleep(min(1.0, end - now))
                mtime = os.stat(status).st_mtime_ns
                if mtime != last_mtime:
                    writes, last_mtime = writes + 1, mtime
                if now >= next_sample:
                    next_sample += 5
                    for k, f in trees.items():
                        pids = f()
                        peak[k]["rss"] = max(peak[k]["rss"], summed(pids, "smaps_rollup", "Rss"))
                        peak[k]["pss"] = max(peak[k]["pss"], summed(pids, "smaps_rollup", "Pss"))
            marks.append({k: cpu_ticks(f()) for k, f in trees.items()})
        last = {k: {"rss": summed(f(), "smaps_rollup", "Rss"), "pss": summed(f(), "smaps_rollup", "Pss")} for k, f in trees.items()}
        for k in trees:
            for m in ("rss", "pss"):
                peak[k][m] = max(peak[k][m], last[k][m])
        window = a.rounds * a.interval
        checked_ok = agent_ok(a.work)
        blackbox_probes = prom_query(ports["prometheus"], f"sum(count_over_time(probe_success[{window}s]))")
        blackbox_ok = prom_query(ports["prometheus"], "count(probe_success == 1)")
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            proc.wait()

    def cpu(k, i=None):
        """% of a core over the whole window, or over interval i."""
        if i is None:
            return (marks[-1][k] - marks[0][k]) / TICK / window * 100
        return (marks[i + 1][k] - marks[i][k]) / TICK / a.interval * 100

    rows = [("pathwatch agent", "agent"), ("pathwatch tree (agent + plug-in child)", "agent tree"),
            ("blackbox_exporter", "blackbox"), ("its Prometheus", "prometheus")]
    print(f"{a.endpoints} endpoints every {a.interval} s, {a.rounds} intervals ({window} s); "
          f"agent: {writes} rounds written, {checked_ok} of {a.endpoints} ok at the end; "
          f"blackbox: {blackbox_probes:.0f} probes in the window ({blackbox_probes / a.endpoints:.2f} per endpoint), "
          f"{blackbox_ok:.0f} of {a.endpoints} ok at the end")
    print()
    print("| process | CPU, % of a core | per interval | RSS, end (most) | PSS, end (most) | per endpoint (RSS, end) |")
    print("|---|---|---|---|---|---|")
    for label, k in rows:
        per = ", ".join(f"{cpu(k, i):.2f}" for i in range(a.rounds))
        print(f"| {label} | {cpu(k):.2f} | {per} | {mib(last[k]['rss']):.1f} MiB ({mib(peak[k]['rss']):.1f}) "
              f"| {mib(last[k]['pss']):.1f} MiB ({mib(peak[k]['pss']):.1f}) | {last[k]['rss'] / a.endpoints:.2f} KiB |")
    both = {m: last["blackbox"][m] + last["prometheus"][m] for m in ("rss", "pss")}
    print(f"| blackbox + Prometheus | {cpu('blackbox') + cpu('prometheus'):.2f} | | {mib(both['rss']):.1f} MiB | {mib(both['pss']):.1f} MiB | |")
    print()
    tree_cpu, tree_rss = cpu("agent tree"), last["agent tree"]["rss"]
    print(f"ratios, pathwatch tree / blackbox: CPU {tree_cpu / cpu('blackbox'):.3f}×, RSS {tree_rss / last['blackbox']['rss']:.2f}×; "
          f"/ blackbox + Prometheus: CPU {tree_cpu / (cpu('blackbox') + cpu('prometheus')):.3f}×, RSS {tree_rss / both['rss']:.2f}×")


if __name__ == "__main__":
    main()
