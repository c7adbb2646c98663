"""Helpers the benchmark drivers share: a free loopback port, waiting for a condition, and
counting the lines a receiver or a sink has written."""
import socket
import time


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout, what):
    """Polls `condition` every 20 ms; ends the benchmark, naming `what`, after `timeout` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {what}")


def line_count(path):
    """Lines in the file at `path` so far (0 while it does not exist)."""
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0
