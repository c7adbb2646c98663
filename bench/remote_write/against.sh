#!/usr/bin/env bash
# run.sh's remote_write figures (the drain of an hour's backlog, the CPU to push 1,000 series a
# report) for an earlier tree and for this one, in one run, one after the other: what a change to
# the queue or the encoder costs. OLD_ROOT is a checkout of the earlier commit, built:
#   git worktree add --detach /tmp/pathwatch-old COMMIT && make -C /tmp/pathwatch-old release
# Usage: bench/remote_write/against.sh OLD_ROOT [seconds per CPU window]   (default 30)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
old="$(cd "${1:?usage: against.sh OLD_ROOT [seconds]}" && pwd)"
[ -x "$old/.build/release/pathwatch" ] || { echo "no release build in $old (make -C $old release)" >&2; exit 1; }
command -v prometheus >/dev/null || { echo "missing prometheus: apt-get install -y prometheus" >&2; exit 1; }
source "$root/bench/test-probe.sh" remote_write
for run in old new; do
    tree=$([ "$run" = old ] && echo "$old" || echo "$root")
    echo "== $run: $(git -C "$tree" log -1 --format='%h %s' | cut -c1-80)"
    mkdir -p "$work/$run"
    python3 "$here/measure.py" --pathwatch "$tree/.build/release/pathwatch" --plugins "$work/plugins" \
        --work "$work/$run" --window "${2:-30}" --root "$tree"
done
