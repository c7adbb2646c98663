#!/usr/bin/env bash
# The floor under `once`'s start-up row: what any Swift program costs before it does any work,
# in instructions (callgrind), beside `collectd -T` on the agent's job in the same run. Two
# throwaway programs built with the agent's release flags (Makefile RELEASE_FLAGS): one that
# prints a line, and one that starts one task that hops once through a Dispatch queue (the
# least the agent's structure needs: async work, threads of its own) and prints a line.
# Usage: bash bench/startup/swift-floor.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
source bench/need.sh
need valgrind valgrind
need strip binutils
PRODUCTS=none source bench/collectd-job.sh
mkdir -p "$work/floor/Sources/prints" "$work/floor/Sources/hops"
cat > "$work/floor/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "floor", targets: [.executableTarget(name: "prints"), .executableTarget(name: "hops")])
SWIFT
echo 'print("ok")' > "$work/floor/Sources/prints/main.swift"
cat > "$work/floor/Sources/hops/main.swift" <<'SWIFT'
import Dispatch
let queue = DispatchQueue(label: "one")
let done = DispatchSemaphore(value: 0)
Task.detached {
    let one = await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in queue.async { c.resume(returning: 1) } }
    print("ok", one)
    done.signal()
}
done.wait()
SWIFT
flags=$(echo 'flags: ; @echo $(RELEASE_FLAGS)' | make --no-print-directory -s -f "$root/Makefile" -f - flags)
(cd "$work/floor" && swift build $flags >/dev/null)
count() {  # count <name> <argv…>: total instructions of the program and everything it starts
    local out="$work/callgrind-$1"; shift
    mkdir -p "$out"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" "$@" >/dev/null 2>&1 || true
    cat "$out"/cg.* | awk '/^summary:/ { total += $2 } END { print total }'
}
peer=$(count collectd collectd -T -C "$work/collectd.conf")
for program in prints hops; do
    strip --strip-debug -o "$work/$program" "$work/floor/.build/release/$program"
    n=$(count "$program" "$work/$program")
    echo "$program: $n instructions, $(python3 -c "print(f'{$n / $peer:.2f}')")× collectd -T ($peer)"
done
