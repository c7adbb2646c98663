#!/usr/bin/env bash
# CPU per command run of the exec plug-in against NRPE, in the same run: N commands (half
# Debian's check_dummy, half check_tcp to a local listener) every 10 s, in pathwatch (one exec
# probe, max_parallel 4, in its plug-in child) and in NRPE's daemon in the foreground on
# 127.0.0.1 with the same commands, asked by check_nrpe from a loop, 4 at a time. Each agent's
# whole process tree (the commands included) over a window of whole intervals; see measure.py.
# Usage: bash bench/exec/run.sh [window-seconds, a multiple of 10] [commands]
#   PRODUCTS=DIR bash bench/exec/run.sh …   measures an existing release build instead of running
#       `make release`: DIR holds the agent's `pathwatch` executable and is the plug-in folder
#       (libpathwatch_exec.so, e.g. built with the Makefile's RELEASE_FLAGS and
#       `--product pathwatch_exec`, beside the other bundled plug-ins)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
WINDOW=${1:-60}
N=${2:-100}

source "$root/bench/need.sh"
need /usr/lib/nagios/plugins/check_dummy monitoring-plugins-basic
need /usr/lib/nagios/plugins/check_tcp monitoring-plugins-standard
need /usr/sbin/nrpe nagios-nrpe-server
need /usr/lib/nagios/plugins/check_nrpe nagios-nrpe-plugin
need /usr/bin/python3 python3
if [ -z "${PRODUCTS:-}" ]; then
    make -s release >/dev/null
    PRODUCTS="$root/.build/release"
fi
PRODUCTS=$(cd "$PRODUCTS" && pwd)
for f in pathwatch libpathwatch_exec.so; do
    [ -e "$PRODUCTS/$f" ] || { echo "no $PRODUCTS/$f" >&2; exit 1; }
done

work=$(mktemp -d /tmp/pathwatch-bench-exec.XXXXXX)
chmod 755 "$work"
listener=""
cleanup() { [ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The port check_tcp connects to: accepts and closes, as a service would.
port_file="$work/tcp.port"
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.close()' "$port_file" &
listener=$!
while [ ! -s "$port_file" ]; do sleep 0.05; done
tcp_port=$(cat "$port_file")
nrpe_port=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from loopback import free_port; print(free_port())')

# The same commands for both: c0, c2, … check_dummy; c1, c3, … check_tcp.
command_line() {
    if [ $(($1 % 2)) = 0 ]; then echo "/usr/lib/nagios/plugins/check_dummy 0 fine"
    else echo "/usr/lib/nagios/plugins/check_tcp -H 127.0.0.1 -p $tcp_port"; fi
}
{
    echo "server_address=127.0.0.1"; echo "server_port=$nrpe_port"; echo "allowed_hosts=127.0.0.1"
    echo "nrpe_user=nagios"; echo "nrpe_group=nagios"; echo "pid_file=$work/nrpe.pid"
    echo "dont_blame_nrpe=0"; echo "command_timeout=9"; echo "connection_timeout=60"
    for i in $(seq 0 $((N - 1))); do echo "command[c$i]=$(command_line $i)"; done
} > "$work/nrpe.cfg"
{
    echo '{"agent": {"name": "bench-exec", "plugin_dirs": ["'"$PRODUCTS"'"], "state_dir": "'"$work"'/state"},'
    echo ' "probes": [{"id": "nagios", "plugin": "exec", "interval": "10s", "timeout": "9s", "config": {"commands": ['
    for i in $(seq 0 $((N - 1))); do
        sep=","; [ $i = $((N - 1)) ] && sep=""
        args=$(command_line $i | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read().split()))')
        echo "   {\"name\": \"c$i\", \"command\": $args}$sep"
    done
    echo ' ]}}],'
    echo ' "sinks": [{"type": "stdout", "format": "json", "on": "change"}]}'
} > "$work/pathwatch.json"

python3 bench/exec/measure.py \
    "$PRODUCTS/pathwatch"$'\x1f'"run"$'\x1f'"--config"$'\x1f'"$work/pathwatch.json"$'\x1f'"--log-level"$'\x1f'"warning" \
    "/usr/sbin/nrpe"$'\x1f'"-c"$'\x1f'"$work/nrpe.cfg"$'\x1f'"-f" \
    "$nrpe_port" "$N" 10 "$WINDOW"
