#!/usr/bin/env bash
# Prints, one a line, the repository files the package installs under /usr/share/doc/pathwatch, at
# their repository paths: README.md, docs/, the plug-ins' and the HTTP sinks' READMEs, the
# benchmark results, and the few files those documents link to (the embedded default
# configuration, the plug-in header, a sample). make-deb.sh installs exactly these; a test checks
# that every relative link in them leads to one of them, so an installed README links nothing the
# package leaves out.
set -euo pipefail
cd "$(dirname "$0")/.."
find README.md docs bench Plugins Sources/PathwatchWebhook/README.md Sources/PathwatchRemoteWrite/README.md Sources/PathwatchOTLP/README.md \
    \( -path 'docs/*' -o -name README.md -o -name RESULTS.md \) -type f
echo config.json
echo SDK/Sources/CPathwatchProbe/include/pathwatch_probe.h
echo Plugins/Disk/sample.json
