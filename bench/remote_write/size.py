#!/usr/bin/env python3
"""Measures what the remote_write queue holds at the shipped defaults (see size.sh): the shipped
config.json, its probes at their own intervals, with a remote_write sink whose receiver never
answers, so every report stays queued. The queue's records stamped within the window (a whole
number of the slowest probe's intervals, so every probe reports a whole number of times) give
the bytes a series takes an hour, and from it the hours max_bytes holds."""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port, wait_for  # noqa: E402

MAX_BYTES = 64 << 20  # the sink's default max_bytes
# The README's example name: `instance` is a label of every series, so its length counts.
NAME = "kiosk-17"


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def folder_name(url):
    """The queue's folder, as RemoteWriteSink.folderName(url:) names it (FNV-1a 64 of the URL)."""
    h = 0xcbf29ce484222325
    for byte in url.encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"remote_write-{h:016x}"


def records(folder):
    """(stamp ms, frame bytes, series) of each record in the queue's segments (QueueRecord.swift)."""
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".seg"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        offset = 0
        while offset + 20 <= len(data):
            length = int.from_bytes(data[offset:offset + 4], "little")
            if offset + 8 + length > len(data):
                break  # a record being written
            id_length = int.from_bytes(data[offset + 18:offset + 20], "little")
            stamp, series = data[offset + 20:offset + 20 + id_length].decode().split(".")
            found.append((int(stamp), 8 + length, int(series)))
            offset += 8 + length
    return found


def milliseconds(text):
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pathwatch", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--window", type=float, default=300)
    args = parser.parse_args()
    with open(os.path.join(args.root, "config.json")) as f:
        config = json.load(f)
    http, url = free_port(), f"http://127.0.0.1:{free_port()}/api/v1/write"
    config["agent"].update({"name": NAME, "plugin_dirs": [os.path.join(args.root, ".build/release")],
                            "state_dir": os.path.join(args.work, "state")})
    for sink in config["sinks"]:
        if sink["type"] == "http":
            sink["listen"] = f"127.0.0.1:{http}"
        if sink["type"] == "file":
            sink["path"] = os.path.join(args.work, "status.json")
    config["sinks"].append({"type": "remote_write", "url": url})
    path = os.path.join(args.work, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    agent = subprocess.Popen([args.pathwatch, "run", "--config", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{http}"
    slowest = max(config["probes"], key=lambda p: float(p.get("interval", config["agent"]["interval"]).rstrip("s")))

    def report_of_slowest():
        try:
            probes = json.loads(get(base + "/status")).get("probes", [])
        except OSError:
            return None
        stamp = next((p.get("last_sample_at") for p in probes if p["id"] == slowest["id"]), None)
        return milliseconds(stamp) if stamp else None

    period = float(slowest.get("interval", config["agent"]["interval"]).rstrip("s"))
    window = max(1, round(args.window / period)) * period
    wait_for(lambda: report_of_slowest() is not None, 60, "the agent's first report")
    first = report_of_slowest()
    # The slowest probe's second report starts the window: start-up is behind it.
    wait_for(lambda: (report_of_slowest() or 0) > first, period * 3, "the slowest probe's second report")
    start = report_of_slowest() - 500  # a report stamped a little before it is inside
    end = start + int(window * 1000)
    while time.time() * 1000 < end + 2000:
        time.sleep(1)
    series = sum(1 for line in get(base + "/metrics").splitlines() if line and line[0] != "#") + 1  # and pathwatch_up
    inside = [r for r in records(os.path.join(args.work, "state", folder_name(url))) if start <= r[0] < end]
    agent.send_signal(signal.SIGKILL)  # nothing to drain: the queue is what was measured
    agent.wait(timeout=30)
    total, samples = sum(r[1] for r in inside), sum(r[2] for r in inside)
    per_hour = total / series * 3600 / window
    print(f"shipped config.json as {NAME}, {window:.0f} s: {len(inside)} reports queued, {samples} samples of {series} series, "
          f"{total} bytes; {total / samples:.0f} bytes a sample, {samples / series * 3600 / window:.0f} samples a series an hour")
    print(f"{per_hour:,.0f} bytes a series an hour; 64 MiB holds {MAX_BYTES / (per_hour * series):.1f} hours of these "
          f"{series} series, {MAX_BYTES / (per_hour * 500):.2f} hours of 500")


if __name__ == "__main__":
    main()
