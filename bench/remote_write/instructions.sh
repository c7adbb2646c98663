#!/usr/bin/env bash
# Remote write's per-report work in instructions: the agent pushing ~1,000 series every second
# to a receiver that answers 204, under callgrind for a window; the intake (a report made into
# its queue record, numbering its series), the delivery (a request's entries) and the pipeline
# (the reporting probe's checks listed for a sink taking every report), per report.
# Instructions do not move with the machine's other work, so this separates changes smaller
# than measure.py's CPU windows can (their runs of one build spread by a quarter).
# Usage: PRODUCTS=DIR bash bench/remote_write/instructions.sh [seconds]   (default 60)
#   DIR holds `pathwatch` (default: .build/release after `make release`). valgrind 3.19 cannot
#   read the Swift compiler's debug information, so a stripped copy runs (`strip --strip-debug`,
#   symbols kept).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/bench/need.sh"
need valgrind valgrind
need strip binutils
if [ -z "${PRODUCTS:-}" ]; then
    (cd "$root" && make --no-print-directory release >/dev/null)
    PRODUCTS="$root/.build/release"
fi
work=$(mktemp -d /tmp/pathwatch-bench-remote-write-instructions.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/plugins"
# The tests' fixture probe (as bench/test-probe.sh builds it), reporting 200 checks.
cc -shared -fPIC -O2 -I "$root/SDK/Sources/CPathwatchProbe/include" "$root/Tests/Fixtures/plugins/test_probe.c" \
    -o "$work/plugins/libtestprobe.so" $(pkg-config --cflags --libs json-c) -lm
strip --strip-debug -o "$work/pathwatch" "$PRODUCTS/pathwatch"
python3 "$here/instructions.py" --pathwatch "$work/pathwatch" --plugins "$work/plugins" --work "$work" --window "${1:-60}"
