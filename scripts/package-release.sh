#!/usr/bin/env bash
# The release archive of one platform, and its checksum, as the release workflow publishes them and
# the GitHub Action (scripts/action-install.sh) downloads them:
#
#   OUT/ecs-gpu-TARGET.tar.gz          (.zip for Windows) holding the folder ecs-gpu-TARGET/ with
#                                      ecs-gpu (ecs-gpu.exe), LICENSE, README.md, CHANGELOG.md
#   OUT/ecs-gpu-TARGET.tar.gz.sha256   "<sha256>  ecs-gpu-TARGET.tar.gz", for `sha256sum -c`
#
# Usage: scripts/package-release.sh TARGET BINARY OUT
#   TARGET  the Rust target triple (x86_64-unknown-linux-musl, aarch64-apple-darwin, ...)
#   BINARY  the built ecs-gpu binary for it
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: scripts/package-release.sh TARGET BINARY OUT" >&2
  exit 2
fi
target=$1 binary=$2 out=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -f "$binary" ] || { echo "package-release: $binary: no such file" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

name=ecs-gpu-$target
stage=$(mktemp -d -t ecs-gpu-package.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
case $target in
  *windows*) exe=ecs-gpu.exe ;;
  *) exe=ecs-gpu ;;
esac
cp "$binary" "$stage/$name/$exe"
chmod 755 "$stage/$name/$exe"
cp "$root/LICENSE" "$root/README.md" "$root/CHANGELOG.md" "$stage/$name/"

case $target in
  *windows*)
    archive=$name.zip
    rm -f "$out/$archive"
    if command -v 7z >/dev/null 2>&1; then
      (cd "$stage" && 7z a -tzip -bso0 "$out/$archive" "$name")
    else
      (cd "$stage" && zip -qr "$out/$archive" "$name")
    fi
    ;;
  *)
    archive=$name.tar.gz
    # Owner and order fixed: the same files make the same archive listing on every runner.
    tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name -czf "$out/$archive" "$name" 2>/dev/null \
      || tar -C "$stage" -czf "$out/$archive" "$name"   # bsdtar (macOS) has neither option
    ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
  (cd "$out" && sha256sum "$archive" >"$archive.sha256")
else
  (cd "$out" && shasum -a 256 "$archive" >"$archive.sha256")
fi
echo "$out/$archive"
