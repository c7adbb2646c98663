"""Helpers the benchmark drivers share: a free loopback port, and waiting for a condition."""
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
