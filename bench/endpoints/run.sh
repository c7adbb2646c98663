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
set -euo pipefail
cd "$(dirname "$0")/../.."
ENDPOINTS=${1:-10000}
ROUNDS=${2:-3}
INTERVAL=${3:-60}

need() {  # need <command> <debian package>
    command -v "$1" >/dev/null 2>&1 && return
    if [ "$(id -u)" != 0 ]; then echo "missing $1: run sudo apt-get install -y $2" >&2; exit 1; fi
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}
need nginx nginx-light
need prometheus prometheus
need prometheus-blackbox-exporter prometheus-blackbox-exporter
need python3 python3

make --no-print-directory release >/dev/null

work=$(mktemp -d /tmp/pathwatch-bench-endpoints.XXXXXX)
nginx_pid=""
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/nginx/logs"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_timeout 0;
    client_body_temp_path $work/nginx/body;
    server {
        listen 127.0.0.1:$port backlog=4096;
        location / { return 200 "ok\n"; }
    }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/logs/error.log" &
nginx_pid=$!
for _ in $(seq 100); do
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "http://127.0.0.1:$port/e/0" 2>/dev/null && break
    sleep 0.05
done

python3 bench/endpoints/measure.py --pathwatch "$PWD/.build/release/pathwatch" --plugins "$PWD/.build/release" \
    --work "$work" --server "127.0.0.1:$port" --endpoints "$ENDPOINTS" --rounds "$ROUNDS" --interval "$INTERVAL"
