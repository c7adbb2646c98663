#!/usr/bin/env bash
# The http sink's benchmarks (needs root for the latency part: it creates a namespace), release
# build, each beside a peer measured in the same run; appends the tables to bench/http/RESULTS.md.
#   1. /metrics at 1,000 checks: time and CPU per scrape, size — beside node_exporter's /metrics.
#   2. idle PSS of the process tree, shipped-config job, http sink off / on / scraped every 1 s —
#      beside node_exporter scraped every 1 s.
#   3. link change → stdout line (bench/linkstate/latency.py), http sink off, idle, and under load
#      (50 SSE clients, /metrics 20 times a second, a slowloris client: Tests/Fixtures/http/load.py,
#      inside the namespace) for about 60 s — beside `ip monitor link` timed from the same notices;
#      then again with 1,000 more checks reported every second, sink off and under load.
# Usage: bash bench/http/run.sh [scrapes, default 200] [idle window s, default 20] [rounds, default 3] [toggles, default 150]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
invocation="bench/http/run.sh${*:+ $*}"
scrapes=${1:-200}
window=${2:-20}
rounds=${3:-3}
toggles=${4:-150}

source "$root/bench/need.sh"
need prometheus-node-exporter prometheus-node-exporter
need curl curl
need python3 python3
need cc gcc
need pkg-config pkg-config

products="$root/.build/release"
source "$root/bench/test-probe.sh" http

# The parts of one run share one heading in RESULTS.md.
export PW_BENCH_RUN="$(date -u '+%Y-%m-%d %H:%M UTC')"
measure() { python3 "$here/measure.py" "$@" --results "$here/RESULTS.md" --command "$invocation"; }
measure metrics --pathwatch "$products/pathwatch" --plugins "$work/plugins" --work "$work" --scrapes "$scrapes"
measure idle --pathwatch "$products/pathwatch" --products "$products" --work "$work" --window "$window" --rounds "$rounds"
# 150 toggles 0.2 s apart: about 60 s of load per row.
python3 "$root/bench/linkstate/latency.py" --products "$products" --toggles "$toggles" --isolation inline \
    --http off,idle,load --ip-monitor --pause 0.2 --load-script "$root/Tests/Fixtures/http/load.py" \
    --summary-json "$work/latency.jsonl"
# The same beside 1,000 checks reported every second: each report is a document to render anew.
python3 "$root/bench/linkstate/latency.py" --products "$products" --toggles "$toggles" --isolation inline \
    --http off,load --ip-monitor --pause 0.2 --load-script "$root/Tests/Fixtures/http/load.py" \
    --bulk-checks 1000 --bulk-plugins "$work/plugins" --summary-json "$work/latency.jsonl"
measure latency --summaries "$work/latency.jsonl"
