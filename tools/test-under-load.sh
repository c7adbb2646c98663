#!/usr/bin/env bash
# Runs `make test` with every core kept busy beside it, ROUNDS times in a row (default 1), and
# prints each round's time and result. The load is LOOPS busy loops per core (default 2) at the
# same priority as the suite, so the suite gets about a third of the machine: what a shared CI
# runner or a developer's build beside it does. A test that passes only on a quiet machine
# fails here.
#   [LOOPS=2] tools/test-under-load.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
hogs=()
stop_hogs() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null; }
trap stop_hogs EXIT
for _ in $(seq $(( $(nproc) * ${LOOPS:-2} ))); do
    ( while :; do :; done ) &
    hogs+=($!)
done
echo "load: ${#hogs[@]} busy loops (${LOOPS:-2} per core) beside make test, $rounds round(s)"
failed=0
mkdir -p .build/test-under-load
for round in $(seq "$rounds"); do
    start=$(date +%s)
    make test > ".build/test-under-load/round-$round.log" 2>&1
    status=$?
    end=$(date +%s)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "round $round: exit $status in $((end - start)) s (load average at the end: $load); log .build/test-under-load/round-$round.log"
    [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
