#!/usr/bin/env bash
# The scaling curve (release build): 1 → 10 → 100 → 1,000 loadavg probes sharing one child, and
# 100 → 10,000 checks from one probe, each with the shipped sinks, interval 10 s.
# Usage: bash bench/scaling/run.sh [window-seconds, default 60] [rounds, default 3] [ROW ...]
#   ROW: probes:N or checks:N (default: the whole curve)
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-60}
ROUNDS=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(probes:1 probes:10 probes:100 probes:1000 checks:100 checks:1000 checks:10000)
source bench/test-probe.sh scaling
python3 bench/scaling/measure.py "$PWD/.build/release/pathwatch" "$PWD/.build/release" "$work/plugins" \
    "$WINDOW" "$ROUNDS" "${ROWS[@]}"
