#!/usr/bin/env bash
# Regular-expression benchmark: the reachability probe's `expect_body` on hostile patterns and
# 1 MiB bodies, beside `grep -E` searching the same bytes for the same pattern in the same run.
#
# Each case is a pattern with a 1 MiB body on which a backtracking matcher tries an exponential
# number of ways (glibc's regexec, POSIX, does not finish any of them; PCRE2, which the probe used
# before RE2, gave up on all but the first at its match limit):
#   plain         (a|aa)*b     on "a" × 1 MiB, and (.*,){10}x on "a," × 512 Ki: the byte the
#                              pattern requires is absent (no match)
#   alternation   (a|aa)*b     on "a" × (1 MiB − 2) + "cb": backtracking from the first starting
#                              places explodes before it reaches the final "b" (a match)
#   groups        (.*,){10}x   on "x" + "a," × (1 MiB / 2 − 1) (no match)
#   per-position  (a|aa)*b     on ("a" × 20 + "c") repeated to 1 MiB, then "b": every starting
#                              place cost just under PCRE2's own match limit (a match)
# The probe matches with RE2 (Plugins/Reachability/README.md "Regular expressions"): one pass over
# the body, every way through the pattern at once, so each case is answered, match or no match.
# The bodies are served by the reachability tests' fixture server on 127.0.0.1 (`/repeat`), and
# fetched once with curl for grep, so both search the same bytes.
#
# Measures
#   - the probe: round.c (bench/reachability) loads the release plug-in through its ABI, creates
#     the probe with one target, and times sample() calls (transfer and search; the transfer of
#     1 MiB on loopback is a few ms): the median of the rounds; the check's message from
#     `pathwatch once` (what an operator sees);
#   - grep -E (LC_ALL=C, so byte-wise as the probe): wall time of `grep -E -c` on the body under
#     `timeout`; a run that does not finish is reported as "> N s (killed)". grep searches with
#     a DFA (no backtracking), as RE2 does, so both answer these in milliseconds where a
#     backtracking matcher has to give up at a limit or never finishes.
# Usage: bench/regex/run.sh [rounds] [grep timeout seconds]   (default 5 and 60; prints a table)
#   PRODUCTS=.build/debug bench/regex/run.sh   measures an existing build instead of `make release`
set -euo pipefail

rounds=${1:-5}
limit=${2:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)

source "$root/bench/need.sh"
need curl curl
need python3 python3
need cc gcc
[ -x /usr/bin/time ] || need /usr/bin/time time

if [ -z "${PRODUCTS:-}" ]; then
    (cd "$root" && make --no-print-directory release >/dev/null)
    PRODUCTS="$root/.build/release"
fi

work=$(mktemp -d /tmp/pathwatch-bench-regex.XXXXXX)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -Wall -Werror -I "$root/SDK/Sources/CPathwatchProbe/include" "$root/bench/reachability/round.c" -o "$work/round" -ldl
mkdir "$work/plugins"
cp "$PRODUCTS/libpathwatch_reachability.so" "$work/plugins/"

python3 "$root/Plugins/Reachability/Tests/Fixtures/endpoint_server.py" >"$work/port" &
server=$!
for _ in $(seq 100); do grep -q '^PORT ' "$work/port" && break; sleep 0.1; done
port=$(sed -n 's/^PORT //p' "$work/port")
[ -n "$port" ] || { echo "the fixture server did not start" >&2; exit 1; }

mib=$((1 << 20))
segments=$((mib / 21))
cases=(
    "plain;(a|aa)*b;unit=a&count=$mib"
    "plain;(.*,){10}x;unit=a,&count=$((mib / 2))"
    "alternation;(a|aa)*b;unit=a&count=$((mib - 2))&tail=cb"
    "groups;(.*,){10}x;head=x&unit=a,&count=$((mib / 2 - 1))"
    "per-position;(a|aa)*b;unit=aaaaaaaaaaaaaaaaaaaac&count=$segments&tail=b"
)
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "| case | pattern | body | probe sample: median of $rounds (min) | probe's message | grep -E, same body |"
echo "|---|---|---|---|---|---|"
for entry in "${cases[@]}"; do
    IFS=';' read -r name pattern query <<<"$entry"
    url="http://127.0.0.1:$port/repeat?$query"
    curl -sS -o "$work/body" "$url"
    bytes=$(stat -c %s "$work/body")

    escaped=$(printf '%s' "$pattern" | sed 's/\\/\\\\/g; s/"/\\"/g')
    printf '{"targets": [{"name": "%s", "url": "%s", "expect_body": "/%s/"}]}' "$name" "$url" "$escaped" >"$work/probe.json"
    "$work/round" "$work/plugins/libpathwatch_reachability.so" "$work/probe.json" "$rounds" >"$work/rounds"
    sample=$(awk '/^round / { print $3 }' "$work/rounds" | median)
    fastest=$(awk '/^round / { print $3 }' "$work/rounds" | sort -n | head -1)
    printf '{"agent": {"plugin_dirs": ["%s"]}, "probes": [{"id": "bench", "plugin": "reachability", "config": %s}]}' \
        "$work/plugins" "$(cat "$work/probe.json")" >"$work/agent.json"
    # `once` exits 2: the check is critical, which is the point.
    "$PRODUCTS/pathwatch" once --config "$work/agent.json" --format json >"$work/once.json" || true
    # Without the 100 bytes of body a "not found" message shows.
    message=$(python3 -c 'import json, re, sys; print(re.sub(r": \".*\"…? \(HTTP", " (HTTP", json.load(sys.stdin)["checks"][0]["message"]))' <"$work/once.json")

    status=0
    LC_ALL=C /usr/bin/time -f "%e" -o "$work/grep-time" timeout "$limit" grep -E -c -- "$pattern" "$work/body" >/dev/null 2>&1 || status=$?
    if [ "$status" = 124 ]; then
        grep_figure="> $limit s (killed)"
    else
        answer=$([ "$status" = 0 ] && echo "match" || echo "no match")
        # time(1) writes "Command exited with non-zero status 1" first when nothing matched.
        # Its resolution is 10 ms.
        grep_figure="$(tail -n 1 "$work/grep-time" | awk '{ if ($1 < 0.01) print "< 10 ms"; else printf "%.0f ms\n", $1 * 1000 }'), $answer"
    fi
    echo "| $name | \`$(printf '%s' "$pattern" | sed 's/|/\\|/g')\` | $bytes bytes | $sample ms ($fastest ms) | $(printf '%s' "$message" | sed 's/|/\\|/g') | $grep_figure |"
done
