#!/usr/bin/env bash
# The shipped configuration's probes in process isolation against the same probes inline: both
# agents started together, idle CPU over a window (bench/idle/measure.py); the ratios it prints
# are process over inline. Release build.
# Usage: bash bench/scaling/isolation-idle.sh [window seconds, default 60]
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-60}
make --no-print-directory release >/dev/null
work=$(mktemp -d /tmp/pathwatch-bench-isolation-idle.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$PWD" <<'PY'
import json, sys
work, root = sys.argv[1], sys.argv[2]
base = json.load(open(f"{root}/config.json"))
for name, port in (("inline", 18471), ("process", 18472)):
    doc = json.loads(json.dumps(base))
    doc["agent"]["plugin_dirs"] = [f"{root}/.build/release"]
    doc["agent"]["state_dir"] = f"{work}/{name}-state"
    for probe in doc["probes"]:
        probe["isolation"] = name
    for sink in doc["sinks"]:
        if sink["type"] == "http":
            sink["listen"] = f"127.0.0.1:{port}"
        if sink["type"] == "file":
            sink["path"] = f"{work}/{name}-status.json"
    json.dump(doc, open(f"{work}/{name}.json", "w"))
PY
sep=$'\x1f'
NAMES="process (the shipped probes isolated)|inline (the same probes)" python3 bench/idle/measure.py "$WINDOW" 10 \
    "./.build/release/pathwatch${sep}run${sep}--config${sep}$work/process.json${sep}--log-level${sep}warning" \
    "./.build/release/pathwatch${sep}run${sep}--config${sep}$work/inline.json${sep}--log-level${sep}warning"
