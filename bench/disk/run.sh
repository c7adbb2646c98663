#!/usr/bin/env bash
# Disk probe cost per mount beside df -B1, at about 5, 105 and 505 mounts (tmpfs file systems in a
# private mount namespace; nothing outside it changes). Root needed.
# Usage: bash bench/disk/run.sh [runs per point, default 20]
#   PRODUCTS=DIR bash bench/disk/run.sh …   measures an existing release build instead of running
#       `make release`: DIR holds the agent's `pathwatch` executable and is the plug-in folder
#       (libpathwatch_disk.so, e.g. built with the Makefile's RELEASE_FLAGS and
#       `--product pathwatch_disk`)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-20}
if [ -z "${PRODUCTS:-}" ]; then
    make --no-print-directory release >/dev/null
    PRODUCTS=./.build/release
fi
PRODUCTS=$(cd "$PRODUCTS" && pwd)
for f in pathwatch libpathwatch_disk.so; do
    [ -e "$PRODUCTS/$f" ] || { echo "no $PRODUCTS/$f" >&2; exit 1; }
done
base=$(wc -l < /proc/self/mountinfo)
first=$(( base > 5 ? base : 5 ))
unshare --mount --propagation private \
    python3 bench/disk/measure.py "$PRODUCTS/pathwatch" "$PRODUCTS" "$first,$((first + 100)),$((first + 500))" "$RUNS"
