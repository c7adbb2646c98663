#!/usr/bin/env bash
# remote_write sink benchmark, release build, against Debian's Prometheus (remote-write receiver
# on) on 127.0.0.1: the time to drain a one-hour backlog (360 reports of about 200 series, taken
# ten times faster than the real 10 s so the backlog builds in 36 s, while nothing listens);
# the agent's CPU to push about 1,000 series a second against its CPU to serve the same series to
# Prometheus's scrape every second; RSS with the sink configured and without (at ~1,000 series,
# and idle on the shipped config.json). Prints the figures.
# Usage: bench/remote_write/run.sh [seconds per CPU window]   (default 30)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
command -v prometheus >/dev/null || { echo "missing prometheus: apt-get install -y prometheus" >&2; exit 1; }
source "$root/bench/test-probe.sh" remote_write
exec python3 "$here/measure.py" --pathwatch "$root/.build/release/pathwatch" --plugins "$work/plugins" --work "$work" \
    --window "${1:-30}" --root "$root"
