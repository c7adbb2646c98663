#!/usr/bin/env bash
# Idle cost of `pathwatch run` on the default config.json over a window (default 60 s), beside
# collectd (Debian's package, the reference agent) doing the same job, started together.
# CPU is each process tree's time on a CPU over the window after 5 s of start-up, from each
# process's CPU-time clock (nanoseconds, threads that ended included; /proc's 10 ms ticks are too
# coarse for an idle agent); memory is PSS summed over the process tree, VmRSS and VmHWM (peak) at the end of the
# window; threads created after start-up are counted. REPEAT rounds (default 3): the median and
# the range of the per-round ratios (see measure.py).
# Usage: [REPEAT=n] bash bench/idle/run.sh [seconds] [interval-seconds]
# With an interval, both agents run the same job at that interval instead of the default
# configuration's (pathwatch: every probe; collectd: its global Interval).
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-60}
INTERVAL=${2:-}
source bench/collectd-job.sh
CONFIG=config.json
if [ -n "$INTERVAL" ]; then
    CONFIG="$work/pathwatch.json"
    sed -E -e "s|\"interval\": \"[0-9]+s\"|\"interval\": \"${INTERVAL}s\"|g" \
        -e "s|\"\./\.build/release\"|\"$PWD/.build/release\"|" -e "s|\"\./\.pathwatch\"|\"$work/state\"|" \
        -e "s|\"\./status\.json\"|\"$work/status.json\"|" config.json > "$CONFIG"
    sed -i "s/^Interval .*/Interval $INTERVAL/" "$work/collectd.conf"
fi
python3 bench/idle/measure.py "$WINDOW" 5 \
    "./.build/release/pathwatch"$'\x1f'"run"$'\x1f'"--config"$'\x1f'"$CONFIG"$'\x1f'"--log-level"$'\x1f'"warning" \
    "collectd"$'\x1f'"-f"$'\x1f'"-C"$'\x1f'"$work/collectd.conf"
