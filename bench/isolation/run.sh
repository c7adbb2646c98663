#!/usr/bin/env bash
# What one process-isolated probe costs beside the same probe inline: PSS of the agent's
# process tree (with the plug-in's child and without), and CPU per sample, for a C plug-in
# (loadavg) and a Swift one (disk). Release build; the median of ROUNDS runs per row.
# Usage: bash bench/isolation/run.sh [window seconds, default 10] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-10}
ROUNDS=${2:-3}
make --no-print-directory release >/dev/null
python3 bench/isolation/measure.py ./.build/release/pathwatch "$PWD/.build/release" "$WINDOW" "$ROUNDS" \
    'loadavg:{"warn_per_cpu": 1.5, "crit_per_cpu": 3.0}' \
    'disk:{"mounts": ["/"]}'
