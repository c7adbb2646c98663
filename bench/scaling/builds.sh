#!/usr/bin/env bash
# Two release builds of the agent side by side on the rows a change to the core must not make
# worse: 1,000 probes and one probe's 1,000 checks (measure.py), and how current the paced
# document is at 1,000 probes (freshness.py). The builds take turns, round by round, so load on
# the machine falls on both alike. Each FOLDER holds a release build's `pathwatch` and its
# plug-ins (a `swift build -c release` products folder).
# Usage: bash bench/scaling/builds.sh BEFORE-FOLDER AFTER-FOLDER [window seconds, default 60] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
BEFORE=$(cd "$1" && pwd)
AFTER=$(cd "$2" && pwd)
WINDOW=${3:-60}
ROUNDS=${4:-3}
source bench/test-probe.sh scaling-builds
for round in $(seq "$ROUNDS"); do
    for side in before after; do
        folder=$BEFORE
        [ "$side" = after ] && folder=$AFTER
        echo "== round $round, $side: $folder"
        python3 bench/scaling/measure.py "$folder/pathwatch" "$folder" "$work/plugins" "$WINDOW" 1 \
            probes:1000 checks:1000
        python3 bench/scaling/freshness.py "$folder/pathwatch" "$work/plugins" "$work" 1000 "$WINDOW"
    done
done
