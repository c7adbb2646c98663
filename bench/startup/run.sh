#!/usr/bin/env bash
# Start-up: `pathwatch once` on the default config.json beside `collectd -T` (test mode: one read
# cycle) on the same job (bench/idle/collectd.conf), in one run, release build.
# Usage: bash bench/startup/run.sh [runs, default 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-30}
command -v collectd >/dev/null || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq collectd-core >/dev/null; }
make --no-print-directory release >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|@STATE@|$work/collectd|g" bench/idle/collectd.conf > "$work/collectd.conf"
mkdir -p "$work/collectd"
python3 bench/startup/measure.py "$RUNS" \
    "./.build/release/pathwatch"$'\x1f'"once"$'\x1f'"--config"$'\x1f'"config.json" \
    "collectd"$'\x1f'"-T"$'\x1f'"-C"$'\x1f'"$work/collectd.conf"
