#!/usr/bin/env bash
# remote_write queue capacity beside Prometheus's write-ahead log (release build): for the shipped
# config.json (its probes at their own intervals, the agent named kiosk-17) and for 500 series
# every 10 s, an agent whose remote_write receiver never answers, so every report stays queued,
# and Prometheus in agent mode scraping the same /metrics every 10 s with its remote write down;
# the bytes a sample each keeps, the bytes a series an hour, and the hours 64 MiB holds. Both
# scenarios run at once. Prints the figures.
# Usage: bench/remote_write/size.sh [seconds]   (default 300; rounded to the slowest probe's interval)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && make --no-print-directory release >/dev/null)
work=$(mktemp -d "/tmp/pathwatch-bench-rw-size.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$here/size.py" --pathwatch "$root/.build/release/pathwatch" --work "$work" --root "$root" --window "${1:-300}"
