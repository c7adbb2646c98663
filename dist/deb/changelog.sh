#!/usr/bin/env bash
# Prints the package's Debian changelog: one entry per release of docs/changelog.md, newest
# first. Pathwatch is packaged by its upstream (a native package, whose changelog is changelog.gz:
# Debian policy 12.7). Each entry names the areas its release changed (the `###` headings under
# the release's `##` heading) and points at the installed changelog and upgrading guide, which
# name every change. The newest entry carries VERSION (the same release, or a rebuild of it) and
# is dated by the last commit, as the man page is, so that a rebuild yields the same package;
# outside a git checkout by SOURCE_DATE_EPOCH, else now. Older entries are dated by their
# heading (`## 0.1.0 — 2026-11-21`).
#
#   VERSION      the package version (required)
#   MAINTAINER   "Name <address>", the package's Maintainer field
#   CHANGELOG    the changelog to read (default: docs/changelog.md beside this script's dist/)
set -euo pipefail
: "${VERSION:?}" "${MAINTAINER:?}"
here=$(cd "$(dirname "$0")" && pwd)
changelog=${CHANGELOG:-$here/../../docs/changelog.md}
[ -r "$changelog" ] || { echo "changelog.sh: $changelog cannot be read" >&2; exit 1; }
newest_date=$(git -C "$here" log -1 --format=%cD 2>/dev/null) || newest_date=""
if [ -z "$newest_date" ]; then
    newest_date=$(LC_ALL=C date -u -R ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"})
fi

# One line per release: "version<TAB>date<TAB>area; area; …" (areas empty when it has none).
releases=$(awk '
    function flush() { if (version != "") printf "%s\t%s\t%s\n", version, day, areas }
    /^## [0-9]+\.[0-9]+\.[0-9]+( |$)/ {
        flush(); version = $2; day = ""; areas = ""
        if (match($0, /[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/)) day = substr($0, RSTART, RLENGTH)
        next
    }
    /^### / && version != "" { sub(/^### /, ""); areas = (areas == "" ? $0 : areas "; " $0) }
    END { flush() }
' "$changelog")
[ -n "$releases" ] || { echo "changelog.sh: $changelog has no release heading (## 0.2.0 — date)" >&2; exit 1; }

first=1
while IFS=$'\t' read -r version day areas; do
    if [ "$first" = 1 ]; then
        version=$VERSION date=$newest_date
    else
        date=$(LC_ALL=C date -u -R -d "${day:-1970-01-01} 00:00:00")
        echo
    fi
    echo "pathwatch ($version) unstable; urgency=medium"
    echo
    if [ -n "$areas" ]; then
        echo "  * Changes to: $areas." | fold -s -w 76 | sed '2,$s/^/    /'
    else
        echo "  * The first release."
    fi
    if [ "$first" = 1 ]; then
        echo "  * What changed, release by release:"
        echo "    /usr/share/doc/pathwatch/docs/changelog.md; what to change when"
        echo "    upgrading: /usr/share/doc/pathwatch/docs/upgrading.md."
    fi
    echo
    echo " -- $MAINTAINER  $date"
    first=0
done <<<"$releases"
