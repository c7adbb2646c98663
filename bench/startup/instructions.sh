#!/usr/bin/env bash
# Start-up in instructions: `pathwatch once` on the default config.json beside `collectd -T` on
# the same job, each run once under callgrind (children traced). Instructions do not move with
# the machine's other work, so this separates changes smaller than run.sh's timing noise.
# Usage: PRODUCTS=DIR bash bench/startup/instructions.sh
#   DIR holds `pathwatch` and the plug-ins (default: .build/release after `make release`).
#   valgrind 3.19 cannot read the Swift compiler's debug information, so stripped copies run
#   (`strip --strip-debug`, symbols kept).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/need.sh
need valgrind valgrind
need strip binutils
source bench/collectd-job.sh
PRODUCTS=${PRODUCTS:-./.build/release}
for f in "$PRODUCTS"/pathwatch "$PRODUCTS"/libpathwatch_*.so; do
    strip --strip-debug -o "$work/$(basename "$f")" "$f"
done
sed "s#\"./.build/release\"#\"$work\"#" config.json > "$work/config.json"
count() {  # count <name> <argv…>: total instructions of the program and everything it starts
    local out="$work/callgrind-$1"; shift
    mkdir -p "$out"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" "$@" >/dev/null 2>&1 || true
    cat "$out"/cg.* | awk '/^summary:/ { total += $2 } END { print total }'
}
agent=$(count pathwatch "$work/pathwatch" once --config "$work/config.json")
peer=$(count collectd collectd -T -C "$work/collectd.conf")
echo "pathwatch once: $agent instructions; collectd -T: $peer; ratio $(python3 -c "print(f'{$agent / $peer:.2f}x')")"
