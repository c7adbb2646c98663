#!/usr/bin/env bash
# Disk probe instructions per mount beside df -B1 (callgrind, the agent and its plug-in child),
# at about 22 and 522 mounts in a private mount namespace. Instructions do not move with the
# machine's other work, so this separates changes smaller than run.sh's CPU noise. Root needed.
# Usage: PRODUCTS=DIR bash bench/disk/instructions.sh
#   DIR holds `pathwatch` and `libpathwatch_disk.so` (default: .build/release after
#   `make release`). valgrind 3.19 cannot read the Swift compiler's debug information, so both
#   are copied with `strip --strip-debug` (symbols kept) and the copies run.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PRODUCTS:-}" ]; then
    make --no-print-directory release >/dev/null
    PRODUCTS=./.build/release
fi
source bench/need.sh
need valgrind valgrind
need strip binutils
stripped=$(mktemp -d /tmp/pathwatch-disk-instructions.XXXXXX)
trap 'rm -rf "$stripped"' EXIT
for f in pathwatch libpathwatch_disk.so; do
    [ -e "$PRODUCTS/$f" ] || { echo "no $PRODUCTS/$f" >&2; exit 1; }
    strip --strip-debug -o "$stripped/$f" "$PRODUCTS/$f"
done
base=$(wc -l < /proc/self/mountinfo)
first=$(( base > 22 ? base : 22 ))
unshare --mount --propagation private \
    python3 bench/disk/measure.py --instructions "$stripped/pathwatch" "$stripped" "$first,$((first + 500))"
