#!/usr/bin/env bash
# A flood of TLS handshakes that hang up without a request (`openssl s_time -new`, one client,
# ROUNDS rounds of SECONDS each) against the http sink with `tls`, then against node_exporter
# with an equivalent --web.config.file, one after the other in the same run: VmRSS (and its
# anonymous part, RssAnon) of each server before the flood and after every round, and the
# handshakes each round made. What it guards: swift-nio-ssl's close_notify timer and BoringSSL's
# session cache once grew the agent past 100 MiB under such a flood (bench/RESULTS.md).
# Usage: bash bench/tls/flood.sh [rounds] [seconds]
# PATHWATCH (default .build/release/pathwatch) and PLUGINS (default .build/release) name the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-15}
SECONDS_EACH=${2:-8}
PATHWATCH=${PATHWATCH:-.build/release/pathwatch}
PLUGINS=${PLUGINS:-$PWD/.build/release}
NAME=flood source bench/tls/servers.sh
sleep 2

flood() { # name pid port
    local name=$1 pid=$2 port=$3 total=0 n
    echo "$name before the flood: $(rss "$pid")"
    for round in $(seq "$ROUNDS"); do
        n=$(openssl s_time -connect "127.0.0.1:$port" -new -time "$SECONDS_EACH" 2>/dev/null \
            | sed -nE 's/^([0-9]+) connections in [0-9.]+s.*/\1/p' | head -1)
        total=$((total + ${n:-0}))
        echo "$name round $round: ${n:-0} handshakes ($total in all), RSS $(rss "$pid")"
    done
    sleep 2
    echo "$name 2 s after the flood: $(rss "$pid"); still serving: $(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/metrics")"
    sleep 58
    echo "$name 60 s after the flood: $(rss "$pid")"
}
flood pathwatch "$pw" 18470
flood node_exporter "$ne" 19100
