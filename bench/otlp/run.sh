#!/usr/bin/env bash
# otlp sink benchmark, release build, against VictoriaMetrics 1.112 from Debian 13 (make
# test-deps unpacks it under .build/receivers) on 127.0.0.1, which takes both remote write and
# OTLP: the same ~1,000 series reported every second, pushed by a remote_write sink and by an
# otlp sink (protobuf, gzip) in turn; the agent's CPU a report for each (less the same agent
# alone), and the bytes a sample on the wire (request bodies as sent, counted by a forwarding
# proxy; samples as the receiver counted them). With OLD_ROOT (a checkout of an earlier commit
# after `make release`), also idle CPU and RSS on the shipped config.json, which has no otlp
# sink, for that build and this one, one after the other.
# Usage: bench/otlp/run.sh [seconds per window] [OLD_ROOT]   (default 30)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
vm="$root/.build/receivers/usr/bin/victoria-metrics"
[ -x "$vm" ] || { echo "missing $vm: run make test-deps" >&2; exit 1; }
source "$root/bench/test-probe.sh" otlp
exec python3 "$here/measure.py" --pathwatch "$root/.build/release/pathwatch" --plugins "$work/plugins" --work "$work" \
    --window "${1:-30}" --root "$root" --victoria-metrics "$vm" ${2:+--before "$2"}
