#!/usr/bin/env bash
# Disk probe cost per mount beside df -B1, at about 5, 105 and 505 mounts (tmpfs file systems in a
# private mount namespace; nothing outside it changes). Root needed.
# Usage: bash bench/disk/run.sh [runs per point, default 20]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-20}
make --no-print-directory release >/dev/null
base=$(wc -l < /proc/self/mountinfo)
first=$(( base > 5 ? base : 5 ))
unshare --mount --propagation private \
    python3 bench/disk/measure.py ./.build/release/pathwatch ./.build/release "$first,$((first + 100)),$((first + 500))" "$RUNS"
