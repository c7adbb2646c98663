"""What the benchmarks that drive the agent with many fixture probes share (storm.py,
freshness.py): the configuration (the probes in one plug-in child, the shipped configuration's
sinks, the file sink's document at WORK/status.json), starting the agent, and waiting until
that document has what the benchmark needs."""
import json, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from loopback import free_port  # noqa: E402


def write_config(work, name, fixture_dir, interval, probes, stdout_format):
    """Writes WORK/config.json; returns its path and the file sink's document's path."""
    status = os.path.join(work, "status.json")
    doc = {"agent": {"name": name, "plugin_dirs": [fixture_dir], "interval": f"{interval}s", "isolation": "process",
                     "state_dir": os.path.join(work, "state-dir")},
           "probes": probes,
           "sinks": [{"type": "stdout", "format": stdout_format, "on": "change"},
                     {"type": "http", "listen": f"127.0.0.1:{free_port()}"},
                     {"type": "file", "path": status, "on": "every"}]}
    config = os.path.join(work, "config.json")
    with open(config, "w") as f:
        json.dump(doc, f)
    return config, status


def start(pathwatch, config, stdout=subprocess.DEVNULL):
    return subprocess.Popen([pathwatch, "run", "--config", config, "--log-level", "warning"],
                            stdout=stdout, stderr=subprocess.DEVNULL)


def wait_until(agent, ready, timeout=300):
    """Polls `ready` every 200 ms; ends the benchmark if the agent exits or `timeout` s pass."""
    deadline = time.monotonic() + timeout
    while not ready():
        if agent.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the agent never reported every probe")
        time.sleep(0.2)
