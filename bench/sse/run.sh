#!/usr/bin/env bash
# A change event on /events versus the stdout sink's line for it (release build, test probe).
# Usage: bash bench/sse/run.sh [changes] [clients]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
(cd "$root" && make --no-print-directory release >/dev/null)
work=$(mktemp -d /tmp/pathwatch-bench-sse.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/plugins"
cc -shared -fPIC -O2 -I "$root/SDK/Sources/CPathwatchProbe/include" "$root/Tests/Fixtures/plugins/test_probe.c" \
    -o "$work/plugins/libtestprobe.so" $(pkg-config --cflags --libs json-c) -lm
python3 "$root/bench/sse/measure.py" "$root/.build/release/pathwatch" "$work/plugins" "$work" "${1:-200}" "${2:-1}"
