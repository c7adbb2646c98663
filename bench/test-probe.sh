# Sourced by the benchmarks that drive the agent with the tests' fixture probe
# (Tests/Fixtures/plugins/test_probe.c: one check per line of a state file, or as many as its
# config asks for, so one rewrite makes thousands of changes): builds the agent in release mode,
# makes a fresh $work folder the agent's children can read (removed on exit), and builds the
# probe into $work/plugins.
# Usage: source bench/test-probe.sh NAME   (NAME names the folder: /tmp/pathwatch-bench-NAME.*)
bench_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
(cd "$bench_root" && make --no-print-directory release >/dev/null)
work=$(mktemp -d "/tmp/pathwatch-bench-$1.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/plugins"
cc -shared -fPIC -O2 -I "$bench_root/SDK/Sources/CPathwatchProbe/include" "$bench_root/Tests/Fixtures/plugins/test_probe.c" \
    -o "$work/plugins/libtestprobe.so" $(pkg-config --cflags --libs json-c) -lm
