#!/usr/bin/env bash
# Link-change latency benchmark for the linkstate probe (needs root: it creates a namespace).
#   bench/linkstate/run.sh [--toggles N] [--products DIR] [--isolation inline|process|both]
# Builds the release products unless --products names a folder that has them, runs the
# measurement, prints p50/p99, and appends a row to bench/linkstate/RESULTS.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
invocation="bench/linkstate/run.sh${*:+ $*}"
root="$(cd "$here/../.." && pwd)"
toggles=150
products=""
isolation=both
while [ $# -gt 0 ]; do
    case "$1" in
        --toggles) toggles="$2"; shift 2 ;;
        --products) products="$2"; shift 2 ;;
        --isolation) isolation="$2"; shift 2 ;;
        *) echo "usage: $0 [--toggles N] [--products DIR] [--isolation inline|process|both]" >&2; exit 64 ;;
    esac
done
if [ -z "$products" ]; then
    (cd "$root" && make --no-print-directory release)
    products="$root/.build/release"
fi
products="$(cd "$products" && pwd)"
exec python3 "$here/latency.py" --products "$products" --toggles "$toggles" --isolation "$isolation" \
    --results "$here/RESULTS.md" --command "$invocation"
