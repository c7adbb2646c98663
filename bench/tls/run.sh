#!/usr/bin/env bash
# The http sink with TLS beside node_exporter with an equivalent --web.config.file (the same
# certificate and key, TLS 1.2 minimum, no client certificates, no basic auth), in the same run:
# new handshakes a second and resumed ones (`openssl s_time`, one client, SECONDS each), and
# the CPU each server spent on them, read from /proc before and after; then N scrapes of
# /metrics over fresh TLS connections (curl), each server's CPU per scrape.
# Usage: bash bench/tls/run.sh [seconds] [scrapes]
# PATHWATCH (default .build/release/pathwatch) and PLUGINS (default .build/release) name the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-10}
SCRAPES=${2:-200}
PATHWATCH=${PATHWATCH:-.build/release/pathwatch}
PLUGINS=${PLUGINS:-$PWD/.build/release}
NAME=tls source bench/tls/servers.sh

cpu_ms() { awk '{ printf "%.0f", ($14 + $15) * 1000 / '"$(getconf CLK_TCK)"' }' "/proc/$1/stat"; }

measure() { # name pid port path
    local name=$1 pid=$2 port=$3 path=$4 before after out
    for mode in new reuse; do
        before=$(cpu_ms "$pid")
        out=$(openssl s_time -connect "127.0.0.1:$port" -"$mode" -time "$SECONDS_EACH" 2>/dev/null | grep "connections/user sec" | head -1)
        after=$(cpu_ms "$pid")
        conns=$(sed -E 's/^([0-9]+) connections.*/\1/' <<<"$out")
        echo "$name $mode: $conns handshakes in ${SECONDS_EACH} s ($((conns / SECONDS_EACH))/s; s_time: $out); server CPU $((after - before)) ms, $(awk -v c="$((after - before))" -v n="$conns" 'BEGIN { printf "%.3f", n ? c / n : 0 }') ms per connection"
    done
    before=$(cpu_ms "$pid")
    start=$(date +%s%N)
    for _ in $(seq "$SCRAPES"); do curl -sfk -o /dev/null "https://127.0.0.1:$port$path"; done
    end=$(date +%s%N)
    after=$(cpu_ms "$pid")
    series=$(curl -sfk "https://127.0.0.1:$port$path" | grep -vc '^#')
    echo "$name scrape over a new TLS connection: $(( (end - start) / SCRAPES / 1000 )) µs each (curl's whole run), server CPU $(awk -v c="$((after - before))" -v n="$SCRAPES" 'BEGIN { printf "%.2f", c / n }') ms per scrape, $series series"
}
measure pathwatch "$pw" 18470 /metrics
measure node_exporter "$ne" 19100 /metrics
echo "pathwatch RSS: $(awk '/VmRSS/ {print $2, $3}' /proc/$pw/status); node_exporter RSS: $(awk '/VmRSS/ {print $2, $3}' /proc/$ne/status)"
