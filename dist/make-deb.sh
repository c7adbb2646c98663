#!/usr/bin/env bash
# Builds pathwatch_<version>_<arch>.deb with Debian's own tools: install.sh into a staging root
# (PREFIX=/usr, binaries stripped to their dynamic symbols as Debian policy asks), dependencies
# computed by dpkg-shlibdeps from what the ELF files really link, dpkg-deb to pack it. Prints the
# package's path. lintian accepts it (docs/operating.md lists the warnings it leaves, and why).
#
#   PRODUCTS MANPAGE VERSION   as for install.sh
#   OUT                        folder the package is written to
#   MAINTAINER                 "Name <address>" for the Maintainer field and the changelog
set -euo pipefail
: "${PRODUCTS:?}" "${MANPAGE:?}" "${VERSION:?}" "${OUT:?}"
MAINTAINER=${MAINTAINER:-Pathwatch maintainers <maintainers@pathwatch.invalid>}
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
work=$(mktemp -d "${TMPDIR:-/tmp}/pathwatch-deb.XXXXXX")
partial=
trap 'rm -rf "$work"; [ -z "$partial" ] || rm -f "$partial"' EXIT
# dpkg-shlibdeps expects a source tree: debian/control, and the package's files in debian/<name>.
root=$work/debian/pathwatch
mkdir -p "$root"
DESTDIR=$root PREFIX=/usr SYSCONFDIR=/etc LOCALSTATEDIR=/var UNITDIR=/lib/systemd/system \
    ZSHCOMPDIR=/usr/share/zsh/vendor-completions FISHCOMPDIR=/usr/share/fish/vendor_completions.d \
    MANDIR=/usr/share/man PRODUCTS=$PRODUCTS MANPAGE=$MANPAGE VERSION=$VERSION SYMBOLS=dynamic "$here/install.sh" >/dev/null

printf 'Source: pathwatch\n\nPackage: pathwatch\nArchitecture: any\n' > "$work/debian/control"
# The Swift runtime in /usr/lib/pathwatch is the package's own (-l): what remains are the
# distribution's libraries (libc, libstdc++, libgcc, json-c, c-ares, RE2) with their versions.
shlibs=$(cd "$work" && dpkg-shlibdeps -O -l"$root/usr/lib/pathwatch" -e"$root/usr/bin/pathwatch" -e"$root/usr/lib/pathwatch/pathwatch-cli" \
    $(find "$root/usr/lib/pathwatch" -name '*.so' -printf ' -e%p') 2>"$work/shlibdeps.log" \
    | sed -n 's/^shlibs:Depends=//p') || { cat "$work/shlibdeps.log" >&2; exit 1; }
# Not found by dpkg-shlibdeps: libsystemd0, libcurl4, libsnappy1v5, zlib1g and libcrypt1 are opened
# with dlopen (sd_notify; HTTP for webhook sinks and the reachability probe, loaded on first use:
# CURLOPT_PROTOCOLS_STR needs 7.85; Snappy for remote_write sinks; zlib's gzip for otlp sinks; libcrypt's crypt_rn and
# crypt_checksalt, 4.3 and later, for the http sink's basic-auth users). The unit's ExecReload is
# `pathwatch reload` itself. Snappy is a dependency, not a recommendation: a host installed without
# recommendations would otherwise take a remote_write fragment and fail only once the service
# starts, while apt reported success. It takes 89 kB installed.
depends="$shlibs, libcurl4 (>= 7.85.0), libsnappy1v5, zlib1g, libsystemd0, libcrypt1 (>= 1:4.3.0)"

install -d "$root/DEBIAN" "$root/usr/share/doc/pathwatch"
# The documents, at their paths in the repository, so the README's relative links resolve
# (doc-files.sh lists them: the READMEs, docs/, the benchmark results and what they link to).
"$here/doc-files.sh" | while read -r file; do
    install -D -m 0644 "$here/../$file" "$root/usr/share/doc/pathwatch/$file"
done
# The copyright file (machine-readable, DEP-5) and the Debian changelog, which Debian policy asks
# of every package (12.5, 12.7); compressed without a name or a time stamp, so rebuilds are equal.
install -m 0644 "$here/deb/copyright" "$root/usr/share/doc/pathwatch/copyright"
VERSION=$VERSION MAINTAINER=$MAINTAINER "$here/deb/changelog.sh" | gzip -9n > "$root/usr/share/doc/pathwatch/changelog.gz"
chmod 0644 "$root/usr/share/doc/pathwatch/changelog.gz"
for script in postinst prerm postrm; do install -m 0755 "$here/deb/$script" "$root/DEBIAN/$script"; done
find "$root/etc" -type f -printf '/etc/%P\n' > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: pathwatch
Version: $VERSION
Architecture: $arch
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Description: host monitoring agent with probe plug-ins
 Pathwatch answers, continuously, whether a host is online, over which link
 and at what cost, whether it reaches the services it depends on, and whether
 it is running out of disk or bandwidth, and tells its sinks (stdout, a status
 file, webhooks) the moment an answer changes. Probes are plug-ins: shared
 libraries against one C header, which this package installs with its
 pkg-config file for plug-in authors.
CONTROL
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum > DEBIAN/md5sums)
mkdir -p "$OUT"
deb=$OUT/pathwatch_${VERSION}_${arch}.deb
# Written under a hidden temporary name in the same folder, then renamed over the package's name:
# whoever copies or installs pathwatch_….deb meanwhile sees the previous package or none, never
# one dpkg-deb is still writing (a copy taken half-way had no data.tar). A failed build leaves
# no partial file (the trap removes it).
partial=$OUT/.pathwatch_${VERSION}_${arch}.deb.partial.$$
dpkg-deb --root-owner-group -Zxz --build "$root" "$partial" >/dev/null
mv -f "$partial" "$deb"
partial=
echo "$deb"
