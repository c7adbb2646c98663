#!/usr/bin/env bash
# 10,000 endpoints every 60 s beside blackbox_exporter (release build), in one run: one nginx on
# 127.0.0.1 answers every path with 200 and closes the connection (keepalive_timeout 0: every
# request, from either client, makes its own TCP connect, as the probe's fresh_connection and
# a blackbox probe both do); the agent runs one `reachability` probe over
# http://127.0.0.1:PORT/e/<i> for i < N, in process isolation, with the shipped configuration's
# sinks; blackbox_exporter is scraped for the same N URLs at the same interval by a Prometheus of
# its own. measure.py waits until every endpoint has been checked by both, then measures CPU (of a
# core) per interval over ROUNDS intervals, and tree RSS/PSS, for each.
# Usage: bash bench/endpoints/run.sh [endpoints, default 10000] [rounds, default 3] [interval s, default 60]
# Root installs what is missing (nginx-light, prometheus, prometheus-blackbox-exporter).
#   PRODUCTS=DIR bash bench/endpoints/run.sh …   measures an existing release build instead of
#       running `make release`: DIR holds `pathwatch` and is the plug-in folder
#       (libpathwatch_reachability.so)
set -euo pipefail
cd "$(dirname "$0")/../.."
ENDPOINTS=${1:-10000}
ROUNDS=${2:-3}
INTERVAL=${3:-60}

source bench/need.sh
need nginx nginx-light
need prometheus prometheus
need prometheus-blackbox-exporter prometheus-blackbox-exporter
need python3 python3
need curl curl

if [ -z "${PRODUCTS:-}" ]; then
    make --no-print-directory release >/dev/null
    PRODUCTS="$PWD/.build/release"
fi
PRODUCTS=$(cd "$PRODUCTS" && pwd)
for f in pathwatch libpathwatch_reachability.so; do
    [ -e "$PRODUCTS/$f" ] || { echo "no $PRODUCTS/$f" >&2; exit 1; }
done

work=$(mktemp -d /tmp/pathwatch-bench-endpoints.XXXXXX)
source bench/nginx.sh
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_nginx 1 0

python3 bench/endpoints/measure.py --pathwatch "$PRODUCTS/pathwatch" --plugins "$PRODUCTS" \
    --work "$work" --server "127.0.0.1:$port" --endpoints "$ENDPOINTS" --rounds "$ROUNDS" --interval "$INTERVAL"
