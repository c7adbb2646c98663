#!/usr/bin/env bash
# Where 1,000 probes' time goes beside one probe's 1,000 checks (release build, perf): each part's
# µs a check a minute for both rows, and the difference (bench/scaling/breakdown.py says how).
# Usage: bash bench/scaling/breakdown.sh [window-seconds, default 90]
#   PRODUCTS=DIR for a build already made (DIR holds `pathwatch` and the plug-ins).
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-90}
source bench/need.sh
need perf linux-perf
source bench/test-probe.sh breakdown
products=${PRODUCTS:-$PWD/.build/release}
python3 bench/scaling/breakdown.py "$products/pathwatch" "$products" "$work/plugins" "$WINDOW"
