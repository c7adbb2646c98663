#!/usr/bin/env bash
# Reachability benchmark: one probe with 1,000 targets against a local nginx on 127.0.0.1,
# beside `curl --parallel --parallel-max 64` fetching the same 1,000 URLs in the same run.
#
# Measures
#   - the sampling round itself: round.c (built here against the plug-in ABI header alone) loads
#     the plug-in, creates the probe once, then times each sample() call, as the agent calls it;
#     the first round and the median of the following ones (easy handles reused);
#   - `pathwatch once` end to end: process start to exit, so it adds the agent's start-up, config
#     validation of 1,000 targets and the 1,000-check status document to the round; and the
#     agent's peak RSS (/usr/bin/time's maximum resident set size);
#   - `curl --parallel --parallel-max 64` over the same URLs: process start to exit.
# Two server modes:
#   fresh       nginx closes every connection (keepalive_timeout 0): every request, for both
#               clients, pays for its own TCP connect. This is what the probe does by default
#               (fresh_connection: true).
#   keep-alive  nginx keeps connections; curl reuses them, and the probe runs with
#               fresh_connection: false so it may reuse them too.
# Usage: bench/reachability/run.sh [rounds]   (default 5; prints a markdown table)
set -euo pipefail

rounds=${1:-5}
targets=1000
parallel=64
root=$(cd "$(dirname "$0")/../.." && pwd)

source "$root/bench/need.sh"
need nginx nginx-light
need curl curl
need python3 python3
need cc gcc
[ -x /usr/bin/time ] || need /usr/bin/time time

(cd "$root" && make --no-print-directory release >/dev/null)
bin="$root/.build/release"

work=$(mktemp -d /tmp/pathwatch-bench-reach.XXXXXX)
source "$root/bench/nginx.sh"
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/plugins"
cp "$bin/libpathwatch_reachability.so" "$work/plugins/"
cc -O2 -Wall -Werror -I "$root/SDK/Sources/CPathwatchProbe/include" "$(dirname "$0")/round.c" -o "$work/round" -ldl

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# The same 1,000 URLs for both clients.
python3 - "$port" "$targets" "$work" <<'PY'
import json, sys
port, count, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
urls = [f"http://127.0.0.1:{port}/target/{i}" for i in range(count)]
with open(f"{work}/curl.conf", "w") as f:
    for url in urls:
        f.write(f'url = "{url}"\noutput = "/dev/null"\n')
for fresh in (True, False):
    config = {"agent": {"plugin_dirs": [f"{work}/plugins"], "interval": "30s"},
              "probes": [{"id": "bench", "plugin": "reachability", "timeout": "30s",
                          "config": {"max_concurrency": 64, "targets": [
                              {"name": f"t{i}", "url": url, "fresh_connection": fresh} for i, url in enumerate(urls)]}}]}
    mode = 'fresh' if fresh else 'reuse'
    with open(f"{work}/agent-{mode}.json", "w") as f:
        json.dump(config, f)
    with open(f"{work}/probe-{mode}.json", "w") as f:
        json.dump(config["probes"][0]["config"], f)
PY

now_ns() { date +%s%N; }

run_agent() {  # run_agent <config> -> "wall_ms rss_kib ok_count"
    local t0 t1
    t0=$(now_ns)
    /usr/bin/time -f "%M" -o "$work/rss" "$bin/pathwatch" once --config "$1" > "$work/doc.json" 2> "$work/agent.err" || true
    t1=$(now_ns)
    local ok
    ok=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["state"]=="ok" for c in d["checks"]))' "$work/doc.json")
    echo "$(( (t1 - t0) / 1000000 )) $(tail -1 "$work/rss") $ok"
}

run_curl() {  # -> "wall_ms ok_count"
    local t0 t1
    t0=$(now_ns)
    curl -s --no-progress-meter --parallel --parallel-max "$parallel" -K "$work/curl.conf" -w '%{http_code}\n' > "$work/curl.out" || true
    t1=$(now_ns)
    echo "$(( (t1 - t0) / 1000000 )) $(grep -c '^200$' "$work/curl.out")"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| server mode | what | wall time: median of $rounds (min) | peak RSS | checks ok |"
echo "|---|---|---|---|---|"
for mode in fresh keep-alive; do
    if [ "$mode" = fresh ]; then start_nginx 2 0; variant=fresh; else start_nginx 2 75s; variant=reuse; fi
    config="$work/agent-$variant.json"
    run_agent "$config" >/dev/null; run_curl >/dev/null   # warm-up: page cache, nginx workers
    : > "$work/agent.times"; : > "$work/curl.times"; : > "$work/agent.rss"
    for _ in $(seq "$rounds"); do
        read -r wall rss ok < <(run_agent "$config")
        [ "$ok" = "$targets" ] || { echo "agent: only $ok of $targets ok" >&2; cat "$work/agent.err" >&2; exit 1; }
        echo "$wall" >> "$work/agent.times"; echo "$rss" >> "$work/agent.rss"
        read -r wall ok < <(run_curl)
        [ "$ok" = "$targets" ] || { echo "curl: only $ok of $targets answered 200" >&2; exit 1; }
        echo "$wall" >> "$work/curl.times"
    done
    # The sampling round, through the plug-in ABI: round 1, then $rounds more on the same instance.
    "$work/round" "$work/plugins/libpathwatch_reachability.so" "$work/probe-$variant.json" $(( rounds + 1 )) > "$work/rounds.out"
    if awk -v n="$targets" '$1 == "round" && $5 != n { bad = 1 } END { exit !bad }' "$work/rounds.out"; then
        echo "round: not every target ok" >&2; cat "$work/rounds.out" >&2; exit 1
    fi
    first_round=$(awk '$1 == "round" && $2 == 1 { print $3 }' "$work/rounds.out")
    round_median=$(awk '$1 == "round" && $2 > 1 { print $3 }' "$work/rounds.out" | median)
    round_min=$(awk '$1 == "round" && $2 > 1 { print $3 }' "$work/rounds.out" | sort -n | head -1)
    round_rss=$(awk '$1 == "peak_rss_kib" { print $2 }' "$work/rounds.out")
    create_ms=$(awk '$1 == "create" { print $2 }' "$work/rounds.out")
    agent_median=$(median < "$work/agent.times"); agent_min=$(sort -n "$work/agent.times" | head -1)
    curl_median=$(median < "$work/curl.times"); curl_min=$(sort -n "$work/curl.times" | head -1)
    rss_max=$(sort -n "$work/agent.rss" | tail -1)
    ratio() { awk -v a="$1" -v c="$2" 'BEGIN { printf "%.2f", a / c }'; }
    echo "| $mode | sampling round, 1 probe × $targets targets, max_concurrency 64 (first round: $first_round ms; create: $create_ms ms) | $round_median ms ($round_min ms) | $(( round_rss / 1024 )) MiB (harness) | $targets/$targets |"
    echo "| $mode | \`pathwatch once\` end to end, same probe | $agent_median ms ($agent_min ms) | $(( rss_max / 1024 )) MiB | $targets/$targets |"
    echo "| $mode | \`curl --parallel --parallel-max $parallel\`, same $targets URLs | $curl_median ms ($curl_min ms) | | $targets/$targets |"
    echo "| $mode | ratio: sampling round / curl | **$(ratio "$round_median" "$curl_median")×** | | |"
    echo "| $mode | ratio: \`pathwatch once\` / curl | $(ratio "$agent_median" "$curl_median")× | | |"
done

# Memory per target: the harness's PSS with one probe instance alive after 3 sampling rounds, at
# 100, 1,000 and 5,000 targets (keep-alive server); the slope is what one more target costs.
echo
echo "| targets | harness PSS after 3 rounds | round (median) |"
echo "|---|---|---|"
for count in 100 1000 5000; do
    python3 - "$port" "$count" "$work" <<'PY'
import json, sys
port, count, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
targets = [{"name": f"t{i}", "url": f"http://127.0.0.1:{port}/target/{i}", "fresh_connection": False} for i in range(count)]
json.dump({"max_concurrency": 64, "targets": targets}, open(f"{work}/probe-{count}.json", "w"))
PY
    "$work/round" "$work/plugins/libpathwatch_reachability.so" "$work/probe-$count.json" 3 > "$work/mem-$count.out"
    pss=$(awk '$1 == "pss_kib" { print $2 }' "$work/mem-$count.out")
    echo "$count $pss" >> "$work/mem.points"
    echo "| $count | $(( pss / 1024 )) MiB ($pss KiB) | $(awk '$1 == "round" && $2 > 1 { print $3 }' "$work/mem-$count.out" | median) ms |"
done
awk 'NR == 1 { n0 = $1; p0 = $2 } { n1 = $1; p1 = $2 } END { printf "\nmemory per target (%d to %d targets): %.2f KiB\n", n0, n1, (p1 - p0) / (n1 - n0) }' "$work/mem.points"

