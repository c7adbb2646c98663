#!/usr/bin/env bash
# Installs built products into the layout of contract §9 under $DESTDIR$PREFIX; `make install` and
# `make deb` both come here. The binary and the plug-ins find the Swift runtime libraries copied
# beside them through $ORIGIN-relative run paths, so nothing depends on the toolchain afterwards.
#
#   PRODUCTS   folder with the release build: pathwatch, pathwatch-cli and libpathwatch_*.so (required)
#   MANPAGE    the generated pathwatch.1 (required)
#   VERSION    the package version (required)
#   SYMBOLS    what the installed ELF files keep: `table` (the default: the symbol table, for
#              backtraces and profilers) or `dynamic` (the dynamic symbols alone, as Debian policy
#              10.1 asks of a package's binaries; make-deb.sh)
#   DESTDIR PREFIX SYSCONFDIR LOCALSTATEDIR UNITDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR MANDIR
set -euo pipefail
: "${PRODUCTS:?}" "${MANPAGE:?}" "${VERSION:?}"
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
LOCALSTATEDIR=${LOCALSTATEDIR:-/var}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
BASHCOMPDIR=${BASHCOMPDIR:-$PREFIX/share/bash-completion/completions}
ZSHCOMPDIR=${ZSHCOMPDIR:-$PREFIX/share/zsh/site-functions}
FISHCOMPDIR=${FISHCOMPDIR:-$PREFIX/share/fish/vendor_completions.d}
MANDIR=${MANDIR:-$PREFIX/share/man}
SYMBOLS=${SYMBOLS:-table}
here=$(cd "$(dirname "$0")" && pwd)

bindir=$PREFIX/bin
libdir=$PREFIX/lib/pathwatch
plugindir=$libdir/plugins
statedir=$LOCALSTATEDIR/lib/pathwatch
# Plug-ins an administrator builds (out of tree) go here, apart from the packaged ones.
localplugindir=/usr/local/lib/pathwatch/plugins
d() { echo "$DESTDIR$1"; }

install -d "$(d "$bindir")" "$(d "$plugindir")" "$(d "$PREFIX/include/pathwatch")" "$(d "$PREFIX/lib/pkgconfig")" \
    "$(d "$MANDIR/man1")" "$(d "$BASHCOMPDIR")" "$(d "$ZSHCOMPDIR")" "$(d "$FISHCOMPDIR")" "$(d "$UNITDIR")" \
    "$(d "$SYSCONFDIR/pathwatch/conf.d")"
install -d -m 0750 "$(d "$statedir")"

# The agent and its plug-ins, run paths pointing into lib/pathwatch instead of the toolchain.
# Release builds carry DWARF (20 MB of the agent's 28); with SYMBOLS=table the symbol table stays
# for backtraces, less the assembler's local labels (.L…), which release links keep only to lay
# out code (Makefile). With SYMBOLS=dynamic, as dh_strip does: executables keep their dynamic
# symbols alone, shared libraries what other objects link against (--strip-unneeded). Stripped
# before patchelf rewrites the run path, never after.
case $SYMBOLS in
    table) strip_program=(strip --strip-debug --discard-locals); strip_library=("${strip_program[@]}") ;;
    dynamic) strip_program=(strip --remove-section=.comment --remove-section=.note)
             strip_library=(strip --strip-unneeded --remove-section=.comment --remove-section=.note) ;;
    *) echo "install.sh: SYMBOLS is table or dynamic, not $SYMBOLS" >&2; exit 1 ;;
esac
install -m 0755 "$PRODUCTS/pathwatch" "$(d "$bindir/pathwatch")"
"${strip_program[@]}" "$(d "$bindir/pathwatch")"
patchelf --set-rpath '$ORIGIN/../lib/pathwatch' "$(d "$bindir/pathwatch")"
# Its command-line companion (every command but the plain forms of run, once and a plug-in child;
# docs/command-line.md), a private program beside the runtime it shares.
install -m 0755 "$PRODUCTS/pathwatch-cli" "$(d "$libdir/pathwatch-cli")"
"${strip_program[@]}" "$(d "$libdir/pathwatch-cli")"
patchelf --set-rpath '$ORIGIN' "$(d "$libdir/pathwatch-cli")"
for plugin in "$PRODUCTS"/libpathwatch_*.so; do
    install -m 0644 "$plugin" "$(d "$plugindir/$(basename "$plugin")")"
    "${strip_library[@]}" "$(d "$plugindir/$(basename "$plugin")")"
    patchelf --set-rpath '$ORIGIN/..' "$(d "$plugindir/$(basename "$plugin")")"
done

# The Swift runtime libraries they need: every NEEDED library, transitively, that is found in
# the toolchain's runtime folder (the one the build's run path names). System libraries (libc,
# libcurl, json-c) stay the distribution's.
runtime=$(readelf -d "$PRODUCTS/pathwatch" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' | tr ':' '\n' \
    | while read -r dir; do [ -e "$dir/libswiftCore.so" ] && echo "$dir" && break; done)
[ -n "$runtime" ] || { echo "install.sh: no Swift runtime folder in the run path of $PRODUCTS/pathwatch" >&2; exit 1; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
queue=("$PRODUCTS/pathwatch" "$PRODUCTS/pathwatch-cli" "$PRODUCTS"/libpathwatch_*.so)
declare -A copied=()
while [ ${#queue[@]} -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    for lib in $(needed "$file"); do
        if [ -z "${copied[$lib]:-}" ] && [ -e "$runtime/$lib" ]; then
            copied[$lib]=1
            install -m 0644 "$runtime/$lib" "$(d "$libdir/$lib")"
            [ "$SYMBOLS" = table ] || "${strip_library[@]}" "$(d "$libdir/$lib")"
            queue+=("$runtime/$lib")
        fi
    done
done

# The plug-in SDK for C: the header and its pkg-config file.
install -m 0644 "$here/../SDK/Sources/CPathwatchProbe/include/pathwatch_probe.h" "$(d "$PREFIX/include/pathwatch/pathwatch_probe.h")"
sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" "$here/pathwatch-probe.pc.in" > "$(d "$PREFIX/lib/pkgconfig/pathwatch-probe.pc")"
# ... and for Swift: the SDK package itself (header, JSON, ProbeKit, testing, its LICENSE), which an
# out-of-tree plug-in package names with .package(path: "$PREFIX/share/pathwatch/swift-sdk").
# Its tests too: the manifest declares them, and a package is whole only with every folder it names.
sdkdir=$PREFIX/share/pathwatch/swift-sdk
(cd "$here/../SDK" && find LICENSE Package.swift Sources Tests -type f) | while read -r file; do
    install -D -m 0644 "$here/../SDK/$file" "$(d "$sdkdir/$file")"
done

# The C example plug-in, which plugins.md tells authors to copy: where Debian policy (12.6) keeps
# a package's examples, from `make install` as from the package.
install -D -m 0644 "$here/../Plugins/Examples/LoadAvg/loadavg.c" "$(d "$PREFIX/share/doc/pathwatch/examples/loadavg.c")"
# The example conf.d fragments (one per probe plug-in and per sink type) and the README that says
# what to change in each, beside it: an operator copies one into $SYSCONFDIR/pathwatch/conf.d.
for file in "$here"/examples/conf.d/*.json "$here/examples/conf.d/README.md"; do
    install -D -m 0644 "$file" "$(d "$PREFIX/share/doc/pathwatch/examples/conf.d/$(basename "$file")")"
done
# Prometheus alert rules for the series this version exposes, with their promtool unit tests:
# package data rather than documentation (/usr/share/doc may be left out of an installation),
# which a Prometheus on the same host may name in its rule_files as they are, upgraded with the agent.
for file in pathwatch.rules.yml pathwatch.rules.test.yml; do
    install -D -m 0644 "$here/prometheus/$file" "$(d "$PREFIX/share/pathwatch/prometheus/$file")"
done

# Man page and completions, generated from the command definitions at build time. The page's
# paragraphs come separated by empty lines, which groff reads as blank lines and warns about:
# each becomes mdoc's paragraph break (.Pp). A completion script is sourced by the shell, never
# run: the bash one loses the #! line it is generated with.
sed 's/^$/.Pp/' "$MANPAGE" | gzip -9n > "$(d "$MANDIR/man1/pathwatch.1.gz")"
"$PRODUCTS/pathwatch" --generate-completion-script bash | sed '1{/^#!/d}' > "$(d "$BASHCOMPDIR/pathwatch")"
"$PRODUCTS/pathwatch" --generate-completion-script zsh > "$(d "$ZSHCOMPDIR/_pathwatch")"
"$PRODUCTS/pathwatch" --generate-completion-script fish > "$(d "$FISHCOMPDIR/pathwatch.fish")"

# The unit, and the configuration with the installed folders. An existing configuration is
# the operator's: never replaced by `make install` (the package's conffile handling asks).
sed -e "s|@BINDIR@|$bindir|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" "$here/pathwatch.service.in" > "$(d "$UNITDIR/pathwatch.service")"
dirs="\"$plugindir\""
[ "$plugindir" = "$localplugindir" ] || dirs="$dirs, \"$localplugindir\""
config=$(d "$SYSCONFDIR/pathwatch/config.json")
if [ -e "$config" ]; then
    echo "install.sh: keeping the existing $config"
else
    sed -e "s|@PLUGIN_DIRS@|$dirs|g" -e "s|@STATEDIR@|$statedir|g" "$here/config.json.in" > "$config"
fi
