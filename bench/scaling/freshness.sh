#!/usr/bin/env bash
# How current the paced documents are (release build): N fixture probes sharing one child, on one
# grid, each reporting its sample's deadline; for each document the file sink writes, the age of
# its oldest and newest sample when it appears.
# Usage: bash bench/scaling/freshness.sh [N, default 1000] [WINDOW seconds, default 60]
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/test-probe.sh freshness
python3 bench/scaling/freshness.py "$PWD/.build/release/pathwatch" "$work/plugins" "$work" "${1:-1000}" "${2:-60}"
