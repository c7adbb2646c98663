#!/usr/bin/env bash
# A change storm (release build): N fixture probes sharing one child all change at once, STORMS
# times, alternating critical and ok; the CPU each storm costs the agent and its tree.
# Usage: bash bench/scaling/storm.sh [N, default 1000] [STORMS, default 4]
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/test-probe.sh storm
python3 bench/scaling/storm.py "$PWD/.build/release/pathwatch" "$work/plugins" "$work" "${1:-1000}" "${2:-4}"
