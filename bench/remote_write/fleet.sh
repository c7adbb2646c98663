#!/usr/bin/env bash
# A fleet that returns at once (release build): AGENTS agents (default 50, each its own
# `instance`) queue a backlog while their remote_write receiver is down, are restarted, fail
# together once more, and then one Prometheus (Debian's) comes up at their URL. Prints the
# receiver's write requests a second (peak against mean over the return), Prometheus's CPU and
# peak RSS over it, the time until every backlog is in, and whether every queued sample landed.
# Usage: bench/remote_write/fleet.sh [agents] [reports-per-agent]   (defaults 50 and 360: an hour at 10 s)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && make --no-print-directory release >/dev/null)
work=$(mktemp -d "/tmp/pathwatch-bench-rw-fleet.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$here/fleet.py" --pathwatch "$root/.build/release/pathwatch" --plugins "$root/.build/release" \
    --work "$work" --agents "${1:-50}" --reports "${2:-360}"
