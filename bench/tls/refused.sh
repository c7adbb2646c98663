#!/usr/bin/env bash
# A flood of requests the server refuses and ends the connection on (`ab -m POST`, a new TLS
# connection each, CONCURRENCY at a time), against the http sink with `tls` and then against
# node_exporter with an equivalent --web.config.file, one after the other in the same run:
# VmRSS (and its anonymous part) before, the most seen during, and 3 s and 60 s after. What it
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
    local name=$1 pid=$2 url=$3 most=0 now client
    echo "$name before: $(rss "$pid")"
    ab -q -n "$REQUESTS" -c "$CONCURRENCY" -m POST "$url" >"$work/ab.out" 2>&1 &
    client=$!
    while kill -0 "$client" 2>/dev/null; do
        now=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
        if [ "$now" -gt "$most" ]; then most=$now; fi
        sleep 0.2
    done
    wait "$client" || true
    echo "$name: $(sed -nE 's/^Complete requests: +([0-9]+)/\1/p' "$work/ab.out") requests answered, $(sed -nE 's/^Requests per second: +([0-9.]+).*/\1/p' "$work/ab.out")/s; most RSS during $(awk -v k="$most" 'BEGIN { printf "%.1f", k / 1024 }') MiB"
    sleep 3
    echo "$name 3 s after: $(rss "$pid")"
    sleep 57
    echo "$name 60 s after: $(rss "$pid")"
}
refuse pathwatch "$pw" https://127.0.0.1:18470/
refuse node_exporter "$ne" https://127.0.0.1:19100/metrics
