#!/usr/bin/env python3
"""Webhook storm benchmarks (see storm.sh).

rate: a backlog of change events queued while nothing listens, then delivered to the tests'
receiver answering 503 to every third request: delivered events per second with `max_batch` 1
(one event per request, as every release before batching sent) and with larger batches, in the
same run. With max_batch 1 a window of --window seconds is measured (the whole backlog would
take many minutes); the others drain the backlog.

soak: about ten changes a second for --minutes, one webhook sink (`pathwatch`, max_batch 100) to
a receiver failing one request in three and one (`slack`, defaults) to a Slack-shaped receiver
allowing one message a second (429 + Retry-After past that). Reports the largest backlog, every
change delivered exactly once and in order, the agent's RSS over the last five minutes, the lag
from change to Slack message, and any request sent before its Retry-After."""
import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, line_count, wait_for  # noqa: E402
from proctree import rss_kib  # noqa: E402


class Receiver:
    def __init__(self, script, *flags):
        self.port = free_port()
        self.process = subprocess.Popen(
            ["python3", script, "--port", str(self.port), *flags], stdout=subprocess.PIPE, text=True)
        self.process.stdout.readline()
        self.url = f"http://127.0.0.1:{self.port}/hook"

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=30) as r:
            return json.load(r)

    def delivered(self):
        """Events in the requests answered 2xx."""
        return sum(len(events_of(r)) for r in self.records() if r["status"] and 200 <= r["status"] < 300)

    def records(self):
        return self.get("/_received")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def webhook_entries(status_file):
    try:
        with open(status_file) as f:
            doc = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return [s for s in doc.get("sinks", []) if s["type"] == "webhook"]


def events_of(record):
    body = json.loads(record["body"])
    return body if isinstance(body, list) else [body]


def start_agent(args, case, sinks, checks, interval="100ms"):
    os.makedirs(case)
    state_file = os.path.join(case, "state")
    with open(state_file, "w") as f:
        f.write("ok fine\n" * checks)
    config = {
        "agent": {"name": "bench", "interval": interval, "plugin_dirs": [args.plugins], "state_dir": os.path.join(case, "state.d")},
        "probes": [{"id": "p", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": state_file}}],
        "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                  {"type": "file", "path": "status.json", "pretty": False}] + sinks,
    }
    config_path = os.path.join(case, "config.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    events_path = os.path.join(case, "events.jsonl")
    with open(events_path, "w") as out, open(os.path.join(case, "agent.log"), "w") as err:
        agent = subprocess.Popen([args.pathwatch, "run", "--config", config_path], stdout=out, stderr=err)
    status = os.path.join(case, "status.json")
    wait_for(lambda: webhook_entries(status), 30, "the agent's first status document")
    return agent, state_file, events_path, status


def write_states(state_file, states):
    with open(state_file + ".new", "w") as f:
        f.write("".join(f"{s} storm\n" for s in states))
    os.rename(state_file + ".new", state_file)


def printed_ids(events_path):
    with open(events_path) as f:
        return [json.loads(l)["id"] for l in f if l.strip()]


# MARK: - rate

def rate_case(args, max_batch):
    case = os.path.join(args.work, f"rate-{max_batch}")
    receiver = Receiver(args.receiver, "--fail-every", "3")
    receiver.stop()  # down while the backlog queues; the same port comes back below
    half = args.events // 2
    # The default first step (1 s): a failure after a success always waits 0.5-1 s. The cap only
    # keeps the refused connections while the backlog queues from growing the wait for the receiver.
    sink = {"type": "webhook", "url": receiver.url, "max_batch": max_batch, "retry": {"initial": "1s", "max": "2s"}}
    agent, state_file, events_path, status = start_agent(args, case, [sink], half)
    try:
        for n, state in ((half, "critical"), (2 * half, "ok")):
            write_states(state_file, [state] * half)
            wait_for(lambda: line_count(events_path) >= n, 120, f"{n} events")
        wait_for(lambda: webhook_entries(status)[0].get("queued") == args.events, 120, "the backlog on disk")
        receiver.process = subprocess.Popen(
            ["python3", args.receiver, "--port", str(receiver.port), "--fail-every", "3"], stdout=subprocess.PIPE, text=True)
        receiver.process.stdout.readline()
        wait_for(lambda: receiver.records(), 30, "the first request")
        up = time.time()
        deadline = up + args.window if max_batch == 1 else up + 600
        while time.time() < deadline and receiver.delivered() < args.events:
            time.sleep(0.2)
        records = receiver.records()
    finally:
        agent.send_signal(signal.SIGTERM)
        agent.wait()
        receiver.stop()
    accepted = [r for r in records if r["status"] and 200 <= r["status"] < 300]
    delivered = [e["id"] for r in accepted for e in events_of(r)]
    printed = printed_ids(events_path)
    if delivered != printed[:len(delivered)]:
        raise SystemExit(f"{case}: deliveries are not the events in order")
    first, last = records[0]["time"], accepted[-1]["time"]
    return {"max_batch": max_batch, "delivered": len(delivered), "events": args.events, "requests": len(records),
            "failed": sum(1 for r in records if r["status"] == 503), "seconds": last - first,
            "rate": len(delivered) / (last - first)}


def run_rate(args):
    rows = [rate_case(args, b) for b in (1, 10, 100)]
    base = rows[0]["rate"]
    table = ["| max_batch | events delivered | requests (503) | time | **delivered events/s** | vs max_batch 1 |", "|---|---|---|---|---|---|"]
    for r in rows:
        table.append(f"| {r['max_batch']} | {r['delivered']:,} of {r['events']:,} | {r['requests']:,} ({r['failed']:,}) | "
                     f"{r['seconds']:.1f} s | **{r['rate']:,.1f}** | {r['rate'] / base:,.0f}× |")
    print("\n".join(table))
    return "\n".join(table), rows


# MARK: - soak

def slack_counts(text):
    first = text.split("\n")[0]
    if " changes: " in first:
        return int(first.split(": ")[1].split(" ")[0])
    return 1


def run_soak(args):
    case = os.path.join(args.work, "soak")
    flaky = Receiver(args.receiver, "--fail-every", "3")
    slack = Receiver(args.receiver, "--min-gap", "1")
    sinks = [{"type": "webhook", "url": flaky.url, "max_batch": 100},
             {"type": "webhook", "url": slack.url, "format": "slack"}]
    checks = 50
    agent, state_file, events_path, status = start_agent(args, case, sinks, checks)
    states = ["ok"] * checks
    start = time.time()
    end = start + args.minutes * 60
    backlog, rss, written = [], [], 0
    next_write = start
    try:
        while time.time() < end:
            now = time.time()
            if now >= next_write:
                # One check flips every 100 ms: about ten changes a second.
                i = written % checks
                states[i] = "critical" if states[i] == "ok" else "ok"
                write_states(state_file, states)
                written += 1
                next_write += 0.1
            if not backlog or now - backlog[-1][0] >= 0.5:
                entries = webhook_entries(status) or []
                if len(entries) == 2:
                    backlog.append((now, entries[0]["queued"], entries[1]["queued"]))
            if not rss or now - rss[-1][0] >= 5:
                rss.append((now, rss_kib(agent.pid)))
            time.sleep(max(0, min(next_write - time.time(), 0.05)))
        printed = printed_ids(events_path)
        wait_for(lambda: sum(len(events_of(r)) for r in flaky.records() if r["status"] == 200) >= len(printed), 120, "the flaky receiver to catch up")
        wait_for(lambda: sum(slack_counts(json.loads(r["body"])["text"]) for r in slack.records() if r["status"] == 200) >= len(printed),
                 120, "the Slack receiver to catch up")
        flaky_records, slack_records = flaky.records(), slack.records()
    finally:
        agent.send_signal(signal.SIGTERM)
        agent.wait()
        flaky.stop()
        slack.stop()
    with open(events_path) as f:
        events = [json.loads(l) for l in f if l.strip()]
    printed = [e["id"] for e in events]
    delivered = [e["id"] for r in flaky_records if r["status"] == 200 for e in events_of(r)]
    # Lag to Slack: messages cover consecutive runs of changes, in order; change k is in the
    # first message whose running count reaches k.
    at = [time.mktime(time.strptime(e["at"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone + float("0." + e["at"][20:23]) for e in events]
    lags, covered = [], 0
    messages = [r for r in slack_records if r["status"] == 200]
    for r in messages:
        n = slack_counts(json.loads(r["body"])["text"])
        lags += [r["time"] - at[k] for k in range(covered, min(covered + n, len(at)))]
        covered += n
    lags.sort()
    duration = time.time() - start
    last5 = [kib for t, kib in rss if t >= end - 300]
    warm = [b for b in backlog if b[0] >= start + 30]
    rate = len(printed) / (args.minutes * 60)
    result = {
        "minutes": args.minutes, "changes": len(printed), "rate": rate,
        "once_in_order": delivered == printed, "delivered": len(delivered),
        "max_backlog": max(b[1] for b in warm), "max_backlog_slack": max(b[2] for b in warm),
        "two_seconds": 2 * rate,
        "rss_first": rss[0][1], "rss_last5_min": min(last5), "rss_last5_max": max(last5),
        "flaky_requests": len(flaky_records), "flaky_failed": sum(1 for r in flaky_records if r["status"] == 503),
        "slack_messages": len(messages), "slack_429": sum(1 for r in slack_records if r["status"] == 429),
        "slack_counted": covered, "early": sum(1 for r in slack_records if r.get("early")),
        "lag_p50": lags[len(lags) // 2], "lag_p99": lags[int(len(lags) * 0.99)], "lag_max": lags[-1],
    }
    print(json.dumps(result, indent=1))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["rate", "soak"])
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--receiver", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--window", type=float, default=30)
    parser.add_argument("--minutes", type=float, default=15)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.what == "rate":
        table, rows = run_rate(args)
        result = {"table": table, "rows": rows}
    else:
        result = run_soak(args)
    result["machine"] = f"{os.cpu_count()} vCPUs, Linux {platform.release()}"
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
