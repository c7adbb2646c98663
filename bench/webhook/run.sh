#!/usr/bin/env bash
# Webhook sink benchmark: a 10,000-event backlog, queued on disk while the receiver is down,
# then drained to a local receiver on 127.0.0.1. Reports the drain rate (events per second,
# first to last request at the receiver), the queue's disk use (peak and with the full backlog,
# allocated blocks in the sink's state folder) and the agent's peak RSS; appends the table to
# bench/webhook/RESULTS.md.
#
# Receivers: the tests' Python receiver (records every request, so the order is checked too)
# and nginx answering `return 204` (to show the sink's own rate, not Python's); each unsigned
# and signed (Standard Webhooks HMAC per attempt).
# Usage: bench/webhook/run.sh [events]   (default 10000; even)
set -euo pipefail
events=${1:-10000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
invocation="bench/webhook/run.sh${1:+ $1}"

source "$root/bench/need.sh"
need nginx nginx-light
need python3 python3
need cc gcc
need pkg-config pkg-config

source "$root/bench/test-probe.sh" webhook

exec python3 "$here/measure.py" --pathwatch "$root/.build/release/pathwatch" --plugins "$work/plugins" \
    --receiver "$root/Tests/Fixtures/webhook/receiver.py" --work "$work" --events "$events" \
    --results "$here/RESULTS.md" --command "$invocation"
