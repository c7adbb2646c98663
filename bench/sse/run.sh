#!/usr/bin/env bash
# A change event on /events versus the stdout sink's line for it (release build, test probe).
# Usage: bash bench/sse/run.sh [changes] [clients]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/bench/test-probe.sh" sse
python3 "$root/bench/sse/measure.py" "$root/.build/release/pathwatch" "$work/plugins" "$work" "${1:-200}" "${2:-1}"
