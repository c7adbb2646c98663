#!/usr/bin/env bash
# Makes (once) a pristine Debian 12 root for the package test: debootstrap's minbase with apt's
# lists, plus what the test runs inside it besides the package: a C compiler and pkg-config (the
# out-of-tree plug-in walkthrough), systemd (systemd-analyze) and man-db. No Swift toolchain.
# The root is cached at $1 (inside .build, never committed); a half-made one is made again.
#   usage: bookworm-root.sh FOLDER
set -euo pipefail
root=$1
[ -e "$root/.complete" ] && exit 0
rm -rf --one-file-system "$root"
mkdir -p "$(dirname "$root")"

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
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq --no-install-recommends \
        gcc libc6-dev pkg-config systemd man-db >/dev/null
    chroot "$1" apt-get clean
' _ "$root"
touch "$root/.complete"
