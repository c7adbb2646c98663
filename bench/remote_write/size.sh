#!/usr/bin/env bash
# remote_write queue capacity at the shipped defaults, release build: the shipped config.json (its
# probes at their own intervals, the agent named kiosk-17) with a remote_write sink whose receiver
# never answers, so every report stays queued; the bytes the queue takes a series an hour, and the
# hours its default max_bytes (64 MiB) holds. Prints the figures.
# Usage: bench/remote_write/size.sh [seconds]   (default 300; rounded to the slowest probe's interval)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && make --no-print-directory release >/dev/null)
work=$(mktemp -d "/tmp/pathwatch-bench-rw-size.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$here/size.py" --pathwatch "$root/.build/release/pathwatch" --work "$work" --root "$root" --window "${1:-300}"
