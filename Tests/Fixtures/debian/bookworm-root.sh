#!/usr/bin/env bash
# Makes (once) a pristine Debian 12 root for the package and system tests: debootstrap's minbase
# with apt's lists, plus what the tests run inside it besides the package: a C compiler and
# pkg-config (the out-of-tree plug-in walkthrough), systemd (systemd-analyze, and the init the
# system tests boot with systemd-nspawn), dbus (systemctl's and systemd-analyze's bus), man-db,
# what an operator checks a booted host with: iproute2 (ip), curl, iputils-ping, and the
# package's own dependencies that minbase lacks (libjson-c5, libc-ares2, procps), so that
# installing it needs no download. No Swift toolchain. The root is cached at $1 (inside .build,
# never committed); a half-made one, or one made with another package list, is made again.
#   usage: bookworm-root.sh FOLDER
set -euo pipefail
root=$1
packages="gcc libc6-dev pkg-config systemd dbus man-db iproute2 curl iputils-ping libjson-c5 libc-ares2 procps"
# One maker at a time: the package and system tests may ask for the root at the same moment.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
[ -e "$root/.complete" ] && [ "$(cat "$root/.complete")" = "$packages" ] && exit 0
rm -rf --one-file-system "$root"

# The mirror this machine's apt already uses for bookworm (deb822 .sources or one-line .list).
mirror=$(
    { cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } | awk '
        /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") print uri }'
    { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } | awk '
        $1 == "deb" { for (i = 2; i <= NF; i++) if ($i == "bookworm") { u = $2; if (u ~ /^\[/) u = $3; print u } }'
)
mirror=$(echo "$mirror" | grep -v -- '-security' | head -n 1)
[ -n "$mirror" ] || { echo "no bookworm mirror in /etc/apt/sources.list(.d)" >&2; exit 1; }

debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -20 "$root.log" >&2; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
unshare -m bash -euo pipefail -c '
    mount -t proc proc "$1/proc"
    chroot "$1" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq --no-install-recommends $2 >/dev/null
    chroot "$1" apt-get clean
' _ "$root" "$packages"
echo "$packages" > "$root/.complete"
