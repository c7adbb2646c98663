#!/usr/bin/env bash
# DNS benchmark: one sample of the dns probe asking 1,000 names of a local dnsmasq, beside
# adnshost (adns, one process resolving them all asynchronously) and dig (64 processes in
# parallel, xargs -P) asking the same names of the same resolver in the same run.
#
# Everything runs in a private network namespace (unshare -n) where dnsmasq answers on
# 127.0.0.1:53 from a hosts file of 1,000 names; no packet leaves it.
#
# Measures, per tool, the median of the runs:
#   - wall time and CPU time (user + system) of the whole process, from /usr/bin/time;
#   - for the probe also the sample() call alone (bench/reachability/round.c loads the plug-in
#     through the ABI and times each call as the agent makes it), and its peak RSS with 1,000
#     names against 1 name: the memory per name;
#   - the answers each got (all 1,000, or the run is void).
# Usage: bench/dns/run.sh [runs] [names]   (default 5 runs, 1000 names; prints a markdown table)
#   PRODUCTS=.build/debug bench/dns/run.sh   measures an existing build instead of `make release`
set -euo pipefail

runs=${1:-5}
names=${2:-1000}
root=$(cd "$(dirname "$0")/../.." && pwd)

source "$root/bench/need.sh"
need dnsmasq dnsmasq-base
need dig bind9-dnsutils
need adnshost adns-tools
need cc gcc
need unshare util-linux
[ -x /usr/bin/time ] || need /usr/bin/time time
[ "$(id -u)" = 0 ] || { echo "run as root (a private network namespace)" >&2; exit 1; }

if [ -z "${PRODUCTS:-}" ]; then
    (cd "$root" && make --no-print-directory release >/dev/null)
    PRODUCTS="$root/.build/release"
fi

work=$(mktemp -d /tmp/pathwatch-bench-dns.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cc -O2 -Wall -Werror -I "$root/SDK/Sources/CPathwatchProbe/include" "$root/bench/reachability/round.c" -o "$work/round" -ldl

# The zone: n0.bench.test … n999.bench.test, each its own address.
for ((i = 0; i < names; i++)); do echo "10.$((i / 65536 % 256)).$((i / 256 % 256)).$((i % 256)) n$i.bench.test"; done >"$work/hosts"
awk '{print $2}' "$work/hosts" >"$work/names"
config() {  # config <count> → the probe's config object for the first <count> names
    head -n "$1" "$work/names" | awk 'BEGIN { printf "{\"resolvers\": [\"127.0.0.1\"], \"timeout\": \"10s\", \"tries\": 1, \"warn_latency\": \"5s\", \"crit_latency\": \"9s\", \"queries\": [" }
        { printf "%s{\"name\": \"%s\"}", (NR > 1 ? ", " : ""), $1 } END { print "]}" }'
}
config "$names" >"$work/config.json"
config 1 >"$work/config1.json"

export work PRODUCTS names runs
unshare -n bash -euo pipefail <<'INSIDE'
ip link set lo up
dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts --addn-hosts="$work/hosts" \
    --listen-address=127.0.0.1 --bind-interfaces --port=53 --local=/bench.test/ --user=nobody --pid-file= \
    --log-facility=/dev/null --dns-forward-max=1000 &
dnsmasq_pid=$!
trap 'kill $dnsmasq_pid' EXIT
for _ in $(seq 50); do dig @127.0.0.1 +short n0.bench.test | grep -q . && break; sleep 0.1; done

timed() {  # timed <out> <cmd…>: wall, user+sys CPU (s) and max RSS (KiB) of the command, into <out>
    local out=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$out"
    awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

: >"$work/probe" ; : >"$work/adns" ; : >"$work/dig"
for ((r = 0; r < runs; r++)); do
    read -r wall cpu rss < <(timed "$work/out" "$work/round" "$PRODUCTS/libpathwatch_dns.so" "$work/config.json" 1)
    read -r _ _ sample observations ok < <(grep '^round 1 ' "$work/out")
    [ "$ok" = $((names + 1)) ] || { echo "probe: $ok of $observations checks ok" >&2; exit 1; }
    read -r _ _ rss1 < <(timed "$work/out1" "$work/round" "$PRODUCTS/libpathwatch_dns.so" "$work/config1.json" 1)
    echo "$wall $cpu $rss $sample $rss1" >>"$work/probe"

    read -r wall cpu rss < <(timed "$work/out" adnshost --config "nameserver 127.0.0.1" --asynch --type a --pipe <"$work/names")
    answered=$(grep -c ' A [0-9]' "$work/out" || true)
    [ "$answered" = "$names" ] || { echo "adnshost: $answered of $names answered" >&2; exit 1; }
    echo "$wall $cpu $rss" >>"$work/adns"

    read -r wall cpu rss < <(timed "$work/out" bash -c "xargs -P 64 -n 16 dig @127.0.0.1 +noedns +tries=1 +time=5 +short A <'$work/names'")
    answered=$(grep -c . "$work/out" || true)
    [ "$answered" = "$names" ] || { echo "dig: $answered of $names answered" >&2; exit 1; }
    echo "$wall $cpu $rss" >>"$work/dig"
done

col() { awk -v c="$2" '{ print $c }' "$1" | median; }
per_name=$(awk '{ print ($3 - $5) / '"$((names - 1))"' }' "$work/probe" | median)
printf '| %s names, %s runs (median) | wall (s) | CPU user+sys (s) | peak RSS (KiB) |\n|---|---|---|---|\n' "$names" "$runs"
printf '| dns probe: sample() alone | %s | | |\n' "$(awk -v ms="$(col "$work/probe" 4)" 'BEGIN { printf "%.3f", ms / 1000 }')"
printf '| dns probe: process (load, create, sample) | %s | %s | %s (1 name: %s; **%.2f KiB per name**) |\n' \
    "$(col "$work/probe" 1)" "$(col "$work/probe" 2)" "$(col "$work/probe" 3)" "$(col "$work/probe" 5)" "$per_name"
printf '| adnshost --asynch (one process) | %s | %s | %s |\n' "$(col "$work/adns" 1)" "$(col "$work/adns" 2)" "$(col "$work/adns" 3)"
printf '| dig, xargs -P 64 -n 16 | %s | %s | %s (largest process) |\n' "$(col "$work/dig" 1)" "$(col "$work/dig" 2)" "$(col "$work/dig" 3)"
INSIDE
