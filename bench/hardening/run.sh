#!/usr/bin/env bash
# The hardening figures (reload storm, full state disk, out of descriptors), for this build and,
# given a second products folder (an older build), for that one too: bash bench/hardening/run.sh [OLD_PRODUCTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
make --no-print-directory release >/dev/null
python3 bench/hardening/measure.py --products .build/release
if [ $# -gt 0 ]; then python3 bench/hardening/measure.py --products "$1"; fi
