# Sourced by the benchmarks that set collectd beside the agent on the same job: installs
# collectd when missing (as root), builds the agent in release mode unless PRODUCTS names a build
# already made, and writes collectd's configuration (bench/idle/collectd.conf) into a fresh $work
# folder removed on exit.
command -v collectd >/dev/null || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq collectd-core >/dev/null; }
[ -n "${PRODUCTS:-}" ] || make --no-print-directory release >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|@STATE@|$work/collectd|g" bench/idle/collectd.conf > "$work/collectd.conf"
mkdir -p "$work/collectd"
