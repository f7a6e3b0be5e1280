#!/usr/bin/env bash
# The notes of a release: the CHANGELOG.md section of the version, printed without its heading, for
# the GitHub Release. It fails, saying why, when the section is missing or empty, and with --tag,
# when the tag is not `v` and the version of the workspace Cargo.toml (the one place the version is
# defined): the release workflow runs it first, so a tag that disagrees publishes nothing.
#
# Usage: scripts/release-notes.sh [--tag vX.Y.Z] [VERSION]   (VERSION: Cargo.toml's by default)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=
if [ "${1:-}" = --tag ]; then
  tag=${2:?--tag needs a tag}
  shift 2
fi
cargo_version=$(sed -n '/^\[workspace\.package\]/,/^\[/p' "$root/Cargo.toml" | sed -nE 's/^version *= *"([^"]+)".*/\1/p' | head -n 1)
version=${1:-$cargo_version}
if [ -n "$tag" ] && [ "$tag" != "v$cargo_version" ]; then
  echo "release-notes: the tag is $tag, and Cargo.toml's version is $cargo_version: the tag must be v$cargo_version" >&2
  exit 1
fi

# The section: from `## [VERSION] - DATE` (or `## VERSION - DATE`) to the next `## ` heading.
notes=$(awk -v v="$version" '
  /^## / {
    if (found) exit
    h = $0; sub(/^## \[?/, "", h); sub(/\]? .*$/, "", h)
    if (h == v) { found = 1; heading = $0; next }
  }
  found { print }
  END { if (!found) exit 3 }
' "$root/CHANGELOG.md") || {
  echo "release-notes: CHANGELOG.md has no section \`## [$version] - <date>\`: move the Unreleased entries under one before tagging" >&2
  exit 1
}
if ! grep -q '[^[:space:]]' <<<"$notes"; then
  echo "release-notes: the CHANGELOG.md section of $version is empty" >&2
  exit 1
fi
# Without the blank lines around it.
sed -e '/./,$!d' <<<"$notes" | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'
