"""How long after the stdout sink prints a change event its /events frame reaches a streaming
client: the agent runs the test probe (one check flipped between ok and critical), a stdout sink
printing change events as JSON and the http sink; one reader timestamps stdout lines, another the
SSE frames, both on this host's monotonic clock, and the delay is per event id.

Usage: measure.py PATHWATCH PLUGINS_DIR WORK_DIR [CHANGES] [CLIENTS]"""
import json, os, socket, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import free_port  # noqa: E402

pathwatch, plugins, work = sys.argv[1:4]
changes = int(sys.argv[4]) if len(sys.argv) > 4 else 200
clients = int(sys.argv[5]) if len(sys.argv) > 5 else 1

port = free_port()
states = os.path.join(work, "states")
with open(states, "w") as f:
    f.write("ok fine\n")
config = os.path.join(work, "sse.json")
with open(config, "w") as f:
    json.dump({"agent": {"name": "sse-bench", "interval": "100ms", "plugin_dirs": [plugins], "state_dir": os.path.join(work, "state")},
               "probes": [{"id": "t", "plugin": "testprobe", "isolation": "inline", "config": {"state_file": states}}],
               "sinks": [{"type": "stdout", "format": "json", "on": "change"}, {"type": "http", "listen": f"127.0.0.1:{port}"}]}, f)

agent = subprocess.Popen([pathwatch, "run", "--config", config, "--log-level", "warning"], stdout=subprocess.PIPE, text=True, bufsize=1)
printed, streamed = {}, [dict() for _ in range(clients)]

def read_stdout():
    for line in agent.stdout:
        now = time.monotonic()
        try:
            printed.setdefault(json.loads(line)["id"], now)
        except (ValueError, KeyError):
            pass

def read_stream(seen):
    for _ in range(100):
        try:
            sock = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            time.sleep(0.1)
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    buffered = b""
    while True:
        data = sock.recv(65536)
        if not data:
            return
        now = time.monotonic()
        buffered += data
        *lines, buffered = buffered.split(b"\n")
        for line in lines:
            if line.startswith(b"id: "):
                seen.setdefault(line[4:].strip().decode(), now)

threading.Thread(target=read_stdout, daemon=True).start()
for seen in streamed:
    threading.Thread(target=read_stream, args=(seen,), daemon=True).start()
time.sleep(2)
for i in range(changes):
    with open(states + ".tmp", "w") as f:
        f.write("critical down\n" if i % 2 == 0 else "ok fine\n")
    os.replace(states + ".tmp", states)
    time.sleep(0.25)
time.sleep(1)
agent.terminate()
agent.wait(timeout=10)

delays = [(seen[i] - printed[i]) * 1000 for seen in streamed for i in printed if i in seen]
missing = sum(1 for seen in streamed for i in printed if i not in seen)
delays.sort()
def pct(p):
    return delays[min(len(delays) - 1, int(round(p / 100 * (len(delays) - 1))))]
print(f"| /events frame after the stdout line, {len(printed)} changes, {clients} stream(s) | "
      f"p50 {pct(50):.2f} ms, p99 {pct(99):.2f} ms, max {delays[-1]:.2f} ms; {missing} missing |")
