#!/usr/bin/env bash
# Start-up: `pathwatch once` on the default config.json beside `collectd -T` (test mode: one read
# cycle) on the same job (bench/idle/collectd.conf), in one run, release build.
# Usage: bash bench/startup/run.sh [runs, default 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-30}
source bench/collectd-job.sh
python3 bench/startup/measure.py "$RUNS" \
    "./.build/release/pathwatch"$'\x1f'"once"$'\x1f'"--config"$'\x1f'"config.json" \
    "collectd"$'\x1f'"-T"$'\x1f'"-C"$'\x1f'"$work/collectd.conf"
