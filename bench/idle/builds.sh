#!/usr/bin/env bash
# Idle cost of two builds of the agent side by side, started together, on the shipped
# config.json (each with its own port, state and status file): what a change costs an idle
# agent with the feature off. Each FOLDER holds a release build's `pathwatch` and its plug-ins;
# both are copied into one fresh folder first, so that both executables are wholly in the page
# cache, as a just-installed one is. Then measure.py's rounds (CPU over the window, PSS, USS,
# RSS and peak RSS of each process tree) and one more start of both for breakdown.py (RSS and
# PSS by mapping: which part of the process a difference is in).
# Usage: [REPEAT=n] bash bench/idle/builds.sh BEFORE-FOLDER AFTER-FOLDER [seconds]
# e.g.   bash bench/idle/builds.sh /tmp/before .build/release 20
set -euo pipefail
cd "$(dirname "$0")/../.."
BEFORE=$1
AFTER=$2
WINDOW=${3:-20}
work=$(mktemp -d /tmp/pathwatch-bench-builds.XXXXXX)
trap 'rm -rf "$work"' EXIT
args=()
for side in before after; do
    from=$BEFORE; port=18471
    [ "$side" = after ] && { from=$AFTER; port=18472; }
    mkdir -p "$work/$side"
    cp "$from/pathwatch" "$from"/libpathwatch_*.so "$work/$side/"
    sed -e "s|\"\./\.build/release\"|\"$work/$side\"|" -e "s|\"\./\.pathwatch\"|\"$work/$side/state\"|" \
        -e "s|\"\./status\.json\"|\"$work/$side/status.json\"|" -e "s|127\.0\.0\.1:8470|127.0.0.1:$port|" \
        config.json > "$work/$side.json"
    grep -q "127.0.0.1:$port" "$work/$side.json" || { echo "config.json's http sink was not found to rewrite" >&2; exit 1; }
    args+=("$work/$side/pathwatch"$'\x1f'"run"$'\x1f'"--config"$'\x1f'"$work/$side.json"$'\x1f'"--log-level"$'\x1f'"warning")
done
echo "before: $BEFORE/pathwatch ($(stat -c %s "$BEFORE/pathwatch") bytes); after: $AFTER/pathwatch ($(stat -c %s "$AFTER/pathwatch") bytes)"
NAMES="before (${BEFORE})|after (${AFTER})" python3 bench/idle/measure.py "$WINDOW" 5 "${args[0]}" "${args[1]}"
echo
python3 bench/idle/breakdown.py "$WINDOW" before "${args[0]}" after "${args[1]}"
