#!/usr/bin/env bash
# Many isolated probes of one plug-in: one child shared by all of them against a child each
# (each probe given a max_memory of its own), `once` start-up and whole-tree PSS/RSS.
# Release build; the median of ROUNDS runs.
# Usage: bash bench/isolation/shared.sh [probes, default 200] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT=${1:-200}
ROUNDS=${2:-3}
make --no-print-directory release >/dev/null
python3 bench/isolation/shared.py ./.build/release/pathwatch "$PWD/.build/release" "$COUNT" "$ROUNDS" \
    'loadavg:{"warn_per_cpu": 1.5, "crit_per_cpu": 3.0}'
