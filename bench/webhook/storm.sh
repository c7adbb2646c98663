#!/usr/bin/env bash
# Webhook storm benchmarks (release build), see storm.py:
#   bench/webhook/storm.sh rate [events]    delivered events/s against a receiver failing one
#                                           request in three, max_batch 1 against 10 and 100
#   bench/webhook/storm.sh soak [minutes]   the 15-minute soak: ten changes a second to a flaky
#                                           receiver and a Slack-shaped one
# Prints the figures (a table for rate, JSON for soak); bench/webhook/RESULTS.md records them.
set -euo pipefail
what=${1:?usage: storm.sh rate [events] | soak [minutes]}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/bench/test-probe.sh" webhook-storm
case "$what" in
rate) extra=(--events "${2:-3000}") ;;
soak) extra=(--minutes "${2:-15}") ;;
*) echo "unknown benchmark $what" >&2; exit 2 ;;
esac
python3 "$here/storm.py" "$what" --pathwatch "$root/.build/release/pathwatch" --plugins "$work/plugins" \
    --receiver "$root/Tests/Fixtures/webhook/receiver.py" --work "$work" "${extra[@]}"
