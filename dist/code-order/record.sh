#!/usr/bin/env bash
# Records which functions of the agent and its bundled plug-ins run in a day's work, and writes
# them to dist/code-order/hot.order, the order the release link places code in (Makefile,
# RELEASE_FLAGS). The code an agent runs then shares pages at the front of the executable instead
# of being spread over all of it: each page the agent touches is mapped with its neighbours
# (fault-around), so scattered code keeps nearly the whole executable resident.
#
# The day's work: `pathwatch run` on the shipped config.json under valgrind's callgrind, in a
# private network namespace with a veth pair to watch: start, every probe's interval, the status
# page, /metrics, /status and /events read, the link taken down and up three times, a reload
# (SIGHUP), a stop (SIGTERM); then `pathwatch once --format json`.
#
# Usage: make code-order   (root; builds the release products first, installs valgrind if missing)
#        PRODUCTS=dir OUT=file bash dist/code-order/record.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PRODUCTS=${PRODUCTS:-.build/release}
OUT=${OUT:-dist/code-order/hot.order}
PORT=8470

if [ "${1:-}" = --inside ]; then
    work=$2
    ip link set lo up
    ip link add vA type veth peer name vB
    ip addr add 10.250.0.1/30 dev vA
    ip link set vB up
    ip link set vA up
    ip route add default via 10.250.0.2 dev vA
    grind=(valgrind --tool=callgrind --demangle=no)
    "${grind[@]}" --callgrind-out-file="$work/callgrind.run" "$work/products/pathwatch" run --config "$work/config.json" >"$work/run.out" 2>"$work/run.err" &
    agent=$!
    for _ in $(seq 120); do
        curl -sf -o /dev/null "http://127.0.0.1:$PORT/status" && break
        kill -0 "$agent" 2>/dev/null || { cat "$work/run.err" >&2; exit 1; }
        sleep 0.5
    done
    read_endpoints() {
        for path in / /metrics /status; do curl -sf -o /dev/null "http://127.0.0.1:$PORT$path"; done
        curl -s -N -m 3 -o /dev/null "http://127.0.0.1:$PORT/events" || true
    }
    read_endpoints
    for _ in 1 2 3; do
        ip link set vA down; sleep 2
        ip link set vA up; ip route replace default via 10.250.0.2 dev vA; sleep 2
    done
    kill -HUP "$agent"; sleep 5
    read_endpoints
    sleep 12
    kill -TERM "$agent"
    wait "$agent" || { echo "record.sh: the agent under callgrind exited with $?" >&2; cat "$work/run.err" >&2; exit 1; }
    "${grind[@]}" --callgrind-out-file="$work/callgrind.once" "$work/products/pathwatch" once --config "$work/config.json" --format json >/dev/null 2>"$work/once.err"
    grep -q 'vA' "$work/run.out" || { echo "record.sh: the agent never reported vA" >&2; exit 1; }
    exit 0
fi

[ "$(id -u)" = 0 ] || { echo "record.sh: needs root (a private network namespace)" >&2; exit 1; }
for tool in valgrind objcopy unshare ip curl; do
    command -v "$tool" >/dev/null || { echo "record.sh: $tool is missing (make code-order installs it)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/products" "$work/state"
# valgrind 3.19 cannot read the DWARF 5 debug information the toolchain writes; copies without it
# keep their symbol tables, which is all the recording needs.
for product in "$PRODUCTS"/pathwatch "$PRODUCTS"/libpathwatch_*.so; do
    objcopy --strip-debug "$product" "$work/products/$(basename "$product")"
done
sed -e "s|\"\./\.build/release\"|\"$work/products\"|" -e "s|\"\./\.pathwatch\"|\"$work/state\"|" \
    -e "s|\"\./status\.json\"|\"$work/status.json\"|" config.json >"$work/config.json"
grep -q "127.0.0.1:$PORT" "$work/config.json" || { echo "record.sh: config.json has no http sink on port $PORT" >&2; exit 1; }
unshare --net bash "$0" --inside "$work"
python3 dist/code-order/hot_symbols.py "$work"/callgrind.run "$work"/callgrind.once >"$work/hot.order"
mv "$work/hot.order" "$OUT"
echo "record.sh: $(wc -l <"$OUT") functions in $OUT"
