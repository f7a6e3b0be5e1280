#!/usr/bin/env bash
# Puts the `ecs-gpu` that the GitHub Action (action.yml) runs into DEST/bin:
#
#   1. the release binary of VERSION for this runner, from the GitHub Release vVERSION of the
#      action's repository (scripts/package-release.sh made the archive), after its SHA-256 matched
#      the release's .sha256 file;
#   2. only when that release has no such file (HTTP 404: a fork, or a version not released yet),
#      the check-only build of the action's own checkout with cargo (minutes, and Rust is needed).
#
# Any other failure (a checksum that does not match, a network error, an unknown platform without
# cargo) stops with the reason: it never falls back silently.
#
# Usage: scripts/action-install.sh DEST
# Environment:
#   ECS_GPU_VERSION      the release to install (0.1.0 or v0.1.0); empty: the version of this
#                        checkout (the workspace Cargo.toml); `source`: build this checkout
#   ECS_GPU_REPOSITORY   owner/name whose releases to use; empty: the `repository` of Cargo.toml
#   RUNNER_OS, RUNNER_ARCH   set by GitHub Actions (Linux, macOS, Windows; X64, ARM64); else uname
#   ECS_GPU_RELEASE_URL  where releases are (tests): https://github.com/REPOSITORY/releases/download
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: scripts/action-install.sh DEST" >&2
  exit 2
fi
dest=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$dest/bin"
dest=$(cd "$dest" && pwd)

# The one place the version is defined: [workspace.package] of the workspace Cargo.toml.
cargo_field() {
  sed -n '/^\[workspace\.package\]/,/^\[/p' "$root/Cargo.toml" | sed -nE "s/^$1 *= *\"([^\"]+)\".*/\\1/p" | head -n 1
}

build_from_source() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "::error::ecs-gpu: $1, and cargo is not installed to build it: run dtolnay/rust-toolchain before this action, or use a released version"
    exit 2
  fi
  echo "ecs-gpu: $1: building the check-only build of $root with cargo (a few minutes)"
  cargo install --locked --no-default-features --path "$root/crates/ecs-gpu" --root "$dest"
}

version=${ECS_GPU_VERSION:-}
if [ "$version" = source ]; then
  build_from_source "version: source"
  exit 0
fi
version=${version#v}
[ -n "$version" ] || version=$(cargo_field version)
repository=${ECS_GPU_REPOSITORY:-}
if [ -z "$repository" ]; then
  repository=$(cargo_field repository)
  repository=${repository#https://github.com/}
fi

os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
case "$os/$arch" in
  Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-musl ;;
  macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ;;
  macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *)
    build_from_source "no release binary for $os $arch"
    exit 0
    ;;
esac
case $target in
  *windows*) archive=ecs-gpu-$target.zip exe=ecs-gpu.exe ;;
  *) archive=ecs-gpu-$target.tar.gz exe=ecs-gpu ;;
esac

base=${ECS_GPU_RELEASE_URL:-https://github.com/$repository/releases/download}
url=$base/v$version/$archive
work=$(mktemp -d -t ecs-gpu-action.XXXXXX)
trap 'rm -rf "$work"' EXIT

# fetch URL FILE: prints the HTTP status (000 when no answer came).
fetch() {
  curl --silent --show-error --location --retry 3 --connect-timeout 20 \
    --output "$2" --write-out '%{http_code}' "$1" || true
}

status=$(fetch "$url" "$work/$archive")
case $status in
  200) ;;
  404)
    build_from_source "no release v$version of $repository has $archive"
    exit 0
    ;;
  *)
    echo "::error::ecs-gpu: downloading $url failed (HTTP $status)"
    exit 1
    ;;
esac
status=$(fetch "$url.sha256" "$work/$archive.sha256")
if [ "$status" != 200 ]; then
  echo "::error::ecs-gpu: the release has $archive but its checksum $url.sha256 could not be downloaded (HTTP $status)"
  exit 1
fi

expected=$(awk 'NR == 1 { print $1 }' "$work/$archive.sha256")
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$work/$archive" | awk '{ print $1 }')
else
  actual=$(shasum -a 256 "$work/$archive" | awk '{ print $1 }')
fi
if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
  echo "::error::ecs-gpu: the SHA-256 of $archive is $actual, and the release's $archive.sha256 says ${expected:-nothing}: not installed"
  exit 1
fi

case $archive in
  *.zip) (cd "$work" && unzip -q "$archive") ;;
  *) tar -C "$work" -xzf "$work/$archive" ;;
esac
cp "$work/ecs-gpu-$target/$exe" "$dest/bin/$exe"
chmod 755 "$dest/bin/$exe"
echo "ecs-gpu: installed $url (SHA-256 $actual verified) into $dest/bin"
"$dest/bin/$exe" --version
