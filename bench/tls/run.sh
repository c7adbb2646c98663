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
work=$(mktemp -d /tmp/pathwatch-bench-tls.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -subj /CN=bench -days 2 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
sed -e "s|\"\./\.build/release\"|\"$PLUGINS\"|" -e "s|\"\./\.pathwatch\"|\"$work/state\"|" -e "s|\"\./status\.json\"|\"$work/status.json\"|" \
    -e "s|{ \"type\": \"http\", \"listen\": \"127.0.0.1:8470\" }|{ \"type\": \"http\", \"listen\": \"127.0.0.1:18470\", \"tls\": {\"cert_file\": \"$work/cert.pem\", \"key_file\": \"$work/key.pem\"} }|" \
    config.json > "$work/pathwatch.json"
grep -q '"tls"' "$work/pathwatch.json" || { echo "config.json's http sink was not found to rewrite" >&2; exit 1; }
cat > "$work/web.yml" <<YML
tls_server_config:
  cert_file: $work/cert.pem
  key_file: $work/key.pem
  min_version: TLS12
YML
"$PATHWATCH" run --config "$work/pathwatch.json" --log-level warning >/dev/null 2>"$work/pathwatch.err" & pids+=($!); pw=$!
prometheus-node-exporter --web.listen-address=127.0.0.1:19100 --web.config.file="$work/web.yml" >/dev/null 2>"$work/ne.err" & pids+=($!); ne=$!
for url in https://127.0.0.1:18470/healthz https://127.0.0.1:19100/metrics; do
    for _ in $(seq 100); do curl -sfk -o /dev/null "$url" && break; sleep 0.1; done
done

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
