#!/usr/bin/env bash
# Prints the package's Debian changelog: one entry, for the version being packaged. Pathwatch is
# packaged by its upstream (a native package, whose changelog is changelog.gz: Debian policy
# 12.7); what changed between versions is told by the documents it ships, so the entry points
# there. Dated by the last commit, as the man page is, so that a rebuild yields the same package;
# outside a git checkout, by SOURCE_DATE_EPOCH, else now.
#
#   VERSION      the package version (required)
#   MAINTAINER   "Name <address>", the package's Maintainer field
set -euo pipefail
: "${VERSION:?}" "${MAINTAINER:?}"
here=$(cd "$(dirname "$0")" && pwd)
date=$(git -C "$here" log -1 --format=%cD 2>/dev/null) || date=""
if [ -z "$date" ]; then
    date=$(LC_ALL=C date -u -R ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"})
fi
cat <<CHANGELOG
pathwatch ($VERSION) unstable; urgency=medium

  * Pathwatch $VERSION, built from the upstream source with make deb. What it
    does and how to run it: /usr/share/doc/pathwatch/README.md; what changed:
    /usr/share/doc/pathwatch/docs/changelog.md.
  * What to change when upgrading:
    /usr/share/doc/pathwatch/docs/upgrading.md.

 -- $MAINTAINER  $date
CHANGELOG
