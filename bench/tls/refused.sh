#!/usr/bin/env bash
# A flood of requests the server refuses and ends the connection on (`ab -m POST`, a new TLS
# connection each, CONCURRENCY at a time), against the http sink with `tls` and then against
# node_exporter with an equivalent --web.config.file, one after the other in the same run:
# VmRSS (and its anonymous part) before, its peak during (VmHWM), and 3 s and 60 s after. What it
# guards: the sink closes such a connection when the client hangs up or after a linger of two
# seconds, and the linger's timer once held every closed connection until it fired.
# Usage: bash bench/tls/refused.sh [requests] [concurrency]
# PATHWATCH (default .build/release/pathwatch) and PLUGINS (default .build/release) name the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
REQUESTS=${1:-20000}
CONCURRENCY=${2:-20}
PATHWATCH=${PATHWATCH:-.build/release/pathwatch}
PLUGINS=${PLUGINS:-$PWD/.build/release}
NAME=refused source bench/tls/servers.sh
sleep 2

refuse() { # name pid url
    local name=$1 pid=$2 url=$3
    echo "$name before: $(rss "$pid")"
    # The kernel's peak (VmHWM), reset here so that it is this flood's (proc(5): clear_refs 5).
    echo 5 >"/proc/$pid/clear_refs"
    ab -q -n "$REQUESTS" -c "$CONCURRENCY" -m POST "$url" >"$work/ab.out" 2>&1 || true
    echo "$name: $(sed -nE 's/^Complete requests: +([0-9]+)/\1/p' "$work/ab.out") requests answered, $(sed -nE 's/^Requests per second: +([0-9.]+).*/\1/p' "$work/ab.out")/s; most RSS during $(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status") MiB"
    sleep 3
    echo "$name 3 s after: $(rss "$pid")"
    sleep 57
    echo "$name 60 s after: $(rss "$pid")"
}
refuse pathwatch "$pw" https://127.0.0.1:18470/
refuse node_exporter "$ne" https://127.0.0.1:19100/metrics
