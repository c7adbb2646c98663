#!/usr/bin/env bash
# Idle cost of `pathwatch run` on the default config.json over a window (default 60 s), beside
# collectd (Debian's package, the reference agent) doing the same job in the same run.
# CPU is user+system time from /proc/PID/stat over the window; memory is VmRSS at the end and
# VmHWM (peak). Usage: bash bench/idle/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
WINDOW=${1:-60}
command -v collectd >/dev/null || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq collectd-core >/dev/null; }
[ -x .build/release/pathwatch ] || swift build -c release >/dev/null
work=$(mktemp -d)
trap 'kill $pw_pid $cd_pid 2>/dev/null || true; rm -rf "$work"' EXIT
sed "s|@STATE@|$work/collectd|g" bench/idle/collectd.conf > "$work/collectd.conf"
mkdir -p "$work/collectd"
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
mem() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

./.build/release/pathwatch run --config config.json --log-level warning >/dev/null 2>"$work/pathwatch.err" &
pw_pid=$!
collectd -f -C "$work/collectd.conf" 2>"$work/collectd.err" &
cd_pid=$!
sleep 5 # start-up is not idle: let both load plug-ins and take first samples
pw0=$(cpu_ticks $pw_pid); cd0=$(cpu_ticks $cd_pid)
sleep "$WINDOW"
pw1=$(cpu_ticks $pw_pid); cd1=$(cpu_ticks $cd_pid)
pw_rss=$(mem $pw_pid VmRSS); pw_hwm=$(mem $pw_pid VmHWM)
cd_rss=$(mem $cd_pid VmRSS); cd_hwm=$(mem $cd_pid VmHWM)
awk -v w="$WINDOW" -v t="$ticks" -v p=$((pw1 - pw0)) -v c=$((cd1 - cd0)) \
    -v pr="$pw_rss" -v ph="$pw_hwm" -v cr="$cd_rss" -v ch="$cd_hwm" 'BEGIN {
  pcpu = p / t / w * 100; ccpu = c / t / w * 100
  printf "| agent | CPU over %d s | CPU %% of one core | RSS | peak RSS |\n|---|---|---|---|---|\n", w
  printf "| pathwatch (default config.json) | %.2f s | %.3f %% | %.1f MiB | %.1f MiB |\n", p / t, pcpu, pr / 1024, ph / 1024
  printf "| collectd 5.12 (load, df, interface, netlink, csv) | %.2f s | %.3f %% | %.1f MiB | %.1f MiB |\n", c / t, ccpu, cr / 1024, ch / 1024
  if (c > 0) printf "\nCPU ratio pathwatch/collectd: %.2f; RSS ratio: %.2f\n", p / c, pr / cr
  else printf "\ncollectd used no measurable CPU (< 1 tick); RSS ratio: %.2f\n", pr / cr
}'
