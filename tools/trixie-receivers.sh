#!/usr/bin/env bash
# VictoriaMetrics 1.112, an OTLP receiver, for the otlp encoder's tests, from Debian 13's
# package: downloaded with apt from this machine's own Debian archive (the URI its sources list
# for its own release, suite trixie, Debian's keyring) and unpacked under .build/receivers/, not
# installed. It is a Go program that needs nothing of Debian 13 but its package (libc6 2.34 or
# later). Run by `make test-deps`; does nothing when it is there.
#
# Not Prometheus 2.53: Debian 13's package disables its OTLP receiver (debian/patches/
# 0019-Disable-OTLP-Ingestion-endpoint.patch, "This depends on code not yet in Debian"), so
# `--enable-feature=otlp-write-receiver` is an unknown option there and /api/v1/otlp answers 404.
#   tools/trixie-receivers.sh   → .build/receivers/usr/bin/victoria-metrics
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/receivers
packages=(victoria-metrics=1.112.*)
stamp="$out/packages"
if [ -x "$out/usr/bin/victoria-metrics" ] && [ -f "$stamp" ] \
    && [ "$(cat "$stamp")" = "${packages[*]}" ]; then
    exit 0
fi

# The archive this machine installs its own release from: a deb822 stanza or a one-line entry
# whose suites name its codename (the main archive; the security archive names codename-security).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
uri=$({ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } | awk -v c="$codename" '
    /^[[:space:]]*$/ { u = "" }
    /^URIs:/ { u = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c && u != "") { print u; exit } }
    /^deb[[:space:]]/ { sub(/\[[^]]*\][[:space:]]*/, ""); if ($3 == c) { print $2; exit } }')
if [ -z "$uri" ]; then
    echo "trixie-receivers: no Debian archive for '$codename' in /etc/apt/sources.list(.d): cannot fetch Debian 13's victoria-metrics" >&2
    exit 1
fi

apt_dir=.build/trixie-apt
rm -rf "$apt_dir" "$out"
mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$out"
cat > "$apt_dir/sources/trixie.sources" <<SOURCES
Types: deb
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_options=(
    -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$PWD/$apt_dir/sources"
    -o "Dir::State::Lists=$PWD/$apt_dir/lists" -o "Dir::Cache=$PWD/$apt_dir/cache"
    -o "Dir::State::status=/dev/null" -o "APT::Sandbox::User=$(id -un)"
)
echo "fetching ${packages[*]} from $uri trixie (unpacked under $out)"
apt-get -qq "${apt_options[@]}" update
(cd "$apt_dir/debs" && apt-get -qq "${apt_options[@]}" download "${packages[@]}")
for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$out"; done
echo "${packages[*]}" > "$stamp"
echo "unpacked: $(dpkg-deb -f "$apt_dir"/debs/victoria-metrics_*.deb Package Version | paste -sd ' ')"
rm -rf "$apt_dir"
