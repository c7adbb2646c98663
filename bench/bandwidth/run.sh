#!/usr/bin/env bash
# CPU time of one sample of the bandwidth plug-in with 2 and with 1,000 interfaces, for each
# counter source. Needs root (it creates a network namespace with veth pairs, removed on exit).
#
#   bench/bandwidth/run.sh [ITERATIONS]      (default 200 timed samples per case)
#   PRODUCTS=.build/release bench/bandwidth/run.sh   measures an existing release build of the
#       plug-in (e.g. `swift build` with the Makefile's RELEASE_FLAGS and
#       `--product pathwatch_bandwidth`) instead of running `make release`
#
# The plug-in is built in release mode and driven through its C ABI by sample_cost.c (see
# there for what is timed and how). Interfaces live in a private namespace, so the figures do
# not depend on the host's own interfaces.
set -euo pipefail

iterations=${1:-200}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
namespace="pwbench-bw-$$"

cleanup() {
    ip netns del "$namespace" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cd "$root"
if [ -z "${PRODUCTS:-}" ]; then
    make --no-print-directory release >&2
    PRODUCTS="$root/.build/release"
fi
plugin="$PRODUCTS/libpathwatch_bandwidth.so"
[ -f "$plugin" ] || { echo "no $plugin" >&2; exit 1; }
cc -O2 -Wall -Wextra -I SDK/Sources/CPathwatchProbe/include bench/bandwidth/sample_cost.c -o "$work/sample_cost" -ldl
cc -O2 -Wall -Wextra bench/bandwidth/peer_getifaddrs.c -o "$work/peer_getifaddrs"

ip netns add "$namespace"
ip -n "$namespace" link set lo up

# Brings the namespace to `count` interfaces besides lo (count/2 veth pairs, all up).
grow_to() {
    local pairs=$(( $1 / 2 )) have
    have=$(ip -n "$namespace" -o link show type veth | wc -l)
    : > "$work/batch"
    for (( i = have / 2; i < pairs; i++ )); do
        echo "link add name bwa$i up type veth peer name bwb$i" >> "$work/batch"
        echo "link set bwb$i up" >> "$work/batch"
    done
    ip -n "$namespace" -batch "$work/batch"
}

echo "| interfaces | source | observations/sample | CPU median (µs) | CPU p90 (µs) | CPU mean (µs) | getrusage mean (µs) | wall median (µs) | CPU of a sample re-reading all link speeds (µs) |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for count in 2 1000; do
    grow_to "$count"
    for source in netlink procfs; do
        read -r observations median p90 mean wall rusage refresh < <(
            ip netns exec "$namespace" "$work/sample_cost" "$plugin" "{\"source\": \"$source\"}" "$iterations")
        echo "| $count | $source | $observations | $median | $p90 | $mean | $rusage | $wall | $refresh |"
    done
    # The peer in the same namespace and run: collectd's interface plug-in's read (getifaddrs).
    read -r seen peer < <(ip netns exec "$namespace" "$work/peer_getifaddrs" "$iterations")
    echo "| $count | peer: getifaddrs (collectd's interface read) | $seen | $peer | | | | | |"
done
