#!/usr/bin/env bash
# The ways to install ecs-gpu without Rust, as far as they run on this machine (the release workflow,
# .github/workflows/release.yml, builds and smoke-tests the rest on each platform):
#
#   1. the PyPI package: maturin (from PyPI, into .venv/package) builds the wheel of
#      crates/ecs-gpu/pyproject.toml; pip installs it into a fresh virtual environment, from the file
#      alone; there `ecs-gpu --version` names the version and this commit, and
#      `ecs-gpu check examples/broken-gpu-chain` finds its broken links;
#   2. the sdist: built by pip from the unpacked sdist, which has no .git, so `--version` says
#      the commit is unknown; check-only, and static where the host can build it (x86_64 Linux:
#      rustup's x86_64-unknown-linux-musl target and a musl C compiler, Debian's musl-tools,
#      installed when CI=true and apt-get is there, as root): then it is the release's Linux wheel
#      recipe, one static binary tagged manylinux_2_17 and musllinux_1_2, installed on this glibc
#      system, with no program interpreter;
#   3. the pre-commit hook `ecs-gpu-check` (language: python): `pre-commit try-repo` of this
#      checkout, with pip held to the wheel of 1 and the build backend of the root's pyproject.toml
#      (no index): the hook installs with no Rust and finds the broken links;
#   4. the release's notes: scripts/release-notes.sh finds the CHANGELOG section of the version,
#      and the docs name that version wherever they name a release;
#   5. the Action's installer (scripts/action-install.sh) against a local release served on
#      127.0.0.1 (archives made by scripts/package-release.sh): the checksum verified, a wrong
#      checksum refused, and no release falling back to the source build with cargo.
#
# The wheels here are built with the dev profile (the first reuses the debug build of `cargo test`):
# what is tested is the packaging; the release workflow builds the release profile. Each part that
# cannot run here says so in one line (`test-package: skipped: ...`) and the rest still runs.
#
# Usage: scripts/test-package.sh   (from anywhere)
set -Eeuo pipefail
trap '[ "$BASH_SUBSHELL" -gt 0 ] || echo "test-package: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

maturin_version=1.16.0
pre_commit_version=4.7.0
venv=$root/.venv/package
version=$(sed -n '/^\[workspace\.package\]/,/^\[/p' Cargo.toml | sed -nE 's/^version *= *"([^"]+)".*/\1/p' | head -n 1)

# The commit --version names comes from git here, not from the release workflow's variable.
unset ECS_GPU_COMMIT

say() { printf '\n=== test-package: %s\n' "$*"; }
skip() { echo "test-package: skipped: $*"; }
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }

command -v python3 >/dev/null 2>&1 || { skip "python3 is not on PATH: no wheel, sdist or hook test"; exit 0; }
command -v cargo >/dev/null 2>&1 || { skip "cargo is not on PATH: nothing to build the wheel with"; exit 0; }

work=$(mktemp -d -t ecs-gpu-package.XXXXXX)
server_pid=
cleanup() {
  status=$?
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "test-package: the scratch folder is kept: $work" >&2; fi
  exit "$status"
}
trap cleanup EXIT

if [ ! -x "$venv/bin/maturin" ] || ! "$venv/bin/maturin" --version | grep -qx "maturin $maturin_version" \
  || ! "$venv/bin/pre-commit" --version 2>/dev/null | grep -qx "pre-commit $pre_commit_version"; then
  echo "test-package: installing maturin $maturin_version and pre-commit $pre_commit_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$maturin_version" "pre-commit==$pre_commit_version"
fi

# run_installed VENV: the ecs-gpu of a fresh environment, with nothing else on PATH that could answer
# (no ~/.cargo/bin): proves the wheel alone gives the command.
run_installed() {
  local env=$1; shift
  PATH="$env/bin:/usr/bin:/bin" "$env/bin/ecs-gpu" "$@"
}

# expect_check BIN...: `check examples/broken-gpu-chain` exits 1 with the broken links.
expect_check() {
  local out status=0
  out=$("$@" check examples/broken-gpu-chain 2>&1) || status=$?
  [ "$status" -eq 1 ] || fail "$* check examples/broken-gpu-chain exited $status, not 1: $out"
  grep -q 'error GPU103 gpu-value-invalid' <<<"$out" || fail "$* check found no GPU103: $out"
  tail -n 1 <<<"$out"
}

head_commit=$(git log -1 --date=short --format='%h %cd' --abbrev=9 2>/dev/null || echo unknown)
[ -e .git ] || head_commit=unknown

# --- 1. the wheel ----------------------------------------------------------------------------------
say "1. the wheel (maturin $maturin_version, crates/ecs-gpu/pyproject.toml), installed into a fresh environment"
"$venv/bin/maturin" build --locked --profile dev -m crates/ecs-gpu/Cargo.toml -o "$work/wheels" --quiet
wheel=$(ls "$work"/wheels/ecs_gpu-"$version"-*.whl)
echo "$(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB"
python3 -m venv "$work/venv-wheel"
"$work/venv-wheel/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
[ "$(PATH="$work/venv-wheel/bin:/usr/bin:/bin" command -v ecs-gpu)" = "$work/venv-wheel/bin/ecs-gpu" ] \
  || fail "the wheel put no ecs-gpu on the environment's PATH"
line=$(run_installed "$work/venv-wheel" --version)
echo "$line"
[ "$line" = "ecs-gpu $version (commit $head_commit; live AWS access)" ] \
  || fail "--version of the wheel: expected \`ecs-gpu $version (commit $head_commit; live AWS access)\`"
expect_check run_installed "$work/venv-wheel"

# --- 2. the sdist, built as pip builds it: without git, static where it can -----------------------
say "2. the sdist, built by pip without git (check-only; static musl where this host can), installed into a fresh environment"
# (cargo package's warnings about crate metadata are kept out of the log unless it fails.)
"$venv/bin/maturin" sdist -m crates/ecs-gpu/Cargo.toml -o "$work/sdist" >"$work/sdist.log" 2>&1 \
  || { cat "$work/sdist.log" >&2; fail "maturin sdist"; }
sdist=$(ls "$work"/sdist/ecs_gpu-"$version".tar.gz)
if tar -tzf "$sdist" | grep -qE '(^|/)\.git(/|$)'; then fail "the sdist holds .git"; fi
echo "$(basename "$sdist"): $(du -k "$sdist" | cut -f1) KiB, $(tar -tzf "$sdist" | wc -l) files"

# The static build: rustup's musl target and a musl C compiler (for mimalloc), where they can be had.
musl_target=x86_64-unknown-linux-musl
musl=
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
  skip "the static musl build: this host is $(uname -s) $(uname -m), the test builds for x86_64 Linux"
elif ! command -v rustup >/dev/null 2>&1; then
  skip "the static musl build: rustup is not on PATH to add the $musl_target target"
elif ! rustup target list --installed | grep -qx "$musl_target" \
  && ! rustup target add "$musl_target" >"$work/rustup.log" 2>&1; then
  skip "the static musl build: \`rustup target add $musl_target\` failed: $(tail -n 1 "$work/rustup.log")"
else
  if ! command -v musl-gcc >/dev/null 2>&1 && [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-package: installing musl-tools (a musl C compiler, for mimalloc) with apt-get"
    { apt-get install -y -qq musl-tools >"$work/apt.log" 2>&1 \
      || { apt-get update -qq >>"$work/apt.log" 2>&1 && apt-get install -y -qq musl-tools >>"$work/apt.log" 2>&1; }; } \
      || tail -n 3 "$work/apt.log"
  fi
  if command -v musl-gcc >/dev/null 2>&1; then
    musl=yes
  else
    skip "the static musl build: no musl C compiler (musl-gcc, from Debian's musl-tools) for mimalloc"
  fi
fi

# pip builds the unpacked sdist (as it does a downloaded one), in a scratch folder outside any git
# checkout. Its own target folder: a build of the same workspace elsewhere shares cargo's build
# script output (cargo hashes a path package by its place in the workspace), so it would reuse this
# checkout's commit. Touched files: that folder is kept between runs, and cargo goes by mtimes.
mkdir "$work/sdist-src"
tar -xzf "$sdist" -C "$work/sdist-src"
find "$work/sdist-src" -type f -exec touch {} +
sdist_args="--profile dev --no-default-features"
[ -z "$musl" ] || sdist_args="$sdist_args --target $musl_target --compatibility manylinux_2_17 musllinux_1_2"
PATH="$venv/bin:$PATH" MATURIN_PEP517_ARGS="$sdist_args" CARGO_TARGET_DIR="$root/target/package-sdist" \
  "$venv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
  -w "$work/sdist-wheel" "$work/sdist-src/ecs_gpu-$version"
sdist_wheel=$(ls "$work"/sdist-wheel/*.whl)
basename "$sdist_wheel"
python3 -m venv "$work/venv-sdist"
"$work/venv-sdist/bin/pip" install --quiet --disable-pip-version-check --no-index "$sdist_wheel"
line=$(run_installed "$work/venv-sdist" --version)
echo "$line"
[ "$line" = "ecs-gpu $version (commit unknown; check-only build, no live AWS access)" ] \
  || fail "--version of the build from the sdist: expected \`ecs-gpu $version (commit unknown; check-only build, no live AWS access)\`"
expect_check run_installed "$work/venv-sdist"

static_binary=
if [ -n "$musl" ]; then
  # The release's Linux wheel recipe: one static binary, tagged for glibc and musl systems alike,
  # installed here on a glibc system.
  case $(basename "$sdist_wheel") in
    *manylinux_2_17_x86_64*musllinux_1_2_x86_64*) ;;
    *) fail "the static wheel is not tagged for both manylinux_2_17 and musllinux_1_2" ;;
  esac
  static_binary=$work/venv-sdist/bin/ecs-gpu
  if readelf -l "$static_binary" | grep -q 'Requesting program interpreter'; then
    fail "$static_binary asks for a program interpreter: it is not static"
  fi
  echo "static: no program interpreter; it runs with an empty environment:"
  expect_check env -i "$static_binary"
fi

# --- 3. the pre-commit hook ------------------------------------------------------------------------
say "3. the pre-commit hook ecs-gpu-check (language: python), pip held to the wheel built here"
# The root's pyproject.toml builds with hatchling; everything pip may take sits in one folder.
"$venv/bin/pip" download --quiet --disable-pip-version-check --dest "$work/wheels" "hatchling>=1.26"
mkdir "$work/hook-repo"
cp -r examples/broken-gpu-chain "$work/hook-repo/"
git -C "$work/hook-repo" init --quiet
git -C "$work/hook-repo" add .
hook_out=$work/hook.log
hook_status=0
(
  cd "$work/hook-repo"
  PRE_COMMIT_HOME=$work/pre-commit-home PIP_NO_INDEX=1 PIP_FIND_LINKS=$work/wheels \
    PATH="$venv/bin:/usr/bin:/bin" \
    "$venv/bin/pre-commit" try-repo "$root" ecs-gpu-check --all-files
) >"$hook_out" 2>&1 || hook_status=$?
if [ "$hook_status" -ne 1 ] || ! grep -q 'error GPU103 gpu-value-invalid' "$hook_out"; then
  cat "$hook_out" >&2
  fail "pre-commit try-repo exited $hook_status: expected 1 with the broken links"
fi
echo "$(grep -E '^ecs-gpu check\.+' "$hook_out") (as it should: the hook found the broken links)"
grep -E '^[0-9]+ errors?,' "$hook_out" || true

# --- 4. the release's notes ------------------------------------------------------------------------
say "4. the release's notes (scripts/release-notes.sh --tag v$version)"
notes=$(scripts/release-notes.sh --tag "v$version")
echo "the CHANGELOG section of $version: $(wc -l <<<"$notes") lines"
if scripts/release-notes.sh --tag "v$version.1" >/dev/null 2>&1; then
  fail "release-notes.sh took the tag v$version.1 for version $version"
fi
# The docs name the release of this version: the Action's @vX.Y.Z, pre-commit's rev, the wheel's
# ==X.Y.Z, the image's tag and the download URL (CONTRIBUTING.md, "Releasing", step 2).
named=$(grep -noE 'ecs-gpu/ecs-gpu@v[0-9][0-9.]*|rev: v[0-9][0-9.]*|ecs-gpu==[0-9][0-9.]*|ghcr\.io/ecs-gpu/ecs-gpu:[0-9][0-9.]*|releases/download/v[0-9][0-9.]*' \
  README.md docs/*.md .pre-commit-hooks.yaml)
stale=$(grep -vE "(@v|rev: v|==|:|download/v)$version\$" <<<"$named" || true)
[ -z "$stale" ] || fail "the docs name another version than $version:
$stale"
echo "the docs name $version in $(wc -l <<<"$named") places"

# --- 5. the Action's installer ---------------------------------------------------------------------
say "5. the Action's installer (scripts/action-install.sh) against a release on 127.0.0.1"
release_binary=${static_binary:-$work/venv-wheel/bin/ecs-gpu}
release=$work/release
scripts/package-release.sh x86_64-unknown-linux-musl "$release_binary" "$release/v$version" >/dev/null
# v9.9.8: an archive whose checksum file says something else.
scripts/package-release.sh x86_64-unknown-linux-musl "$release_binary" "$release/v9.9.8" >/dev/null
echo "0000000000000000000000000000000000000000000000000000000000000000  ecs-gpu-x86_64-unknown-linux-musl.tar.gz" \
  >"$release/v9.9.8/ecs-gpu-x86_64-unknown-linux-musl.tar.gz.sha256"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$release" "$port" >"$work/http.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=1)" 2>/dev/null && break
  sleep 0.2
done
install_action() {
  env -u ECS_GPU_VERSION ECS_GPU_RELEASE_URL="http://127.0.0.1:$port" RUNNER_OS=Linux RUNNER_ARCH=X64 \
    ECS_GPU_REPOSITORY=ecs-gpu/ecs-gpu "$@"
}

# The release of the checkout's own version (Cargo.toml's), checksum verified.
out=$(install_action scripts/action-install.sh "$work/action-release" 2>&1) || fail "action-install.sh: $out"
grep -q "installed http://127.0.0.1:$port/v$version/ecs-gpu-x86_64-unknown-linux-musl.tar.gz (SHA-256 [0-9a-f]\{64\} verified)" <<<"$out" \
  || fail "action-install.sh did not say it verified the release of v$version: $out"
expect_check "$work/action-release/bin/ecs-gpu"
echo "the release of v$version: installed, checksum verified"

# A checksum that does not match: refused, nothing installed.
status=0
out=$(install_action env ECS_GPU_VERSION=9.9.8 scripts/action-install.sh "$work/action-bad" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "action-install.sh installed an archive whose checksum does not match: $out"
grep -q 'the SHA-256 of ecs-gpu-x86_64-unknown-linux-musl.tar.gz is [0-9a-f]\{64\}, and the release' <<<"$out" \
  || fail "action-install.sh did not say the checksum differs: $out"
[ ! -e "$work/action-bad/bin/ecs-gpu" ] || fail "action-install.sh left a binary whose checksum does not match"
echo "a wrong checksum: refused ($(grep -o 'the SHA-256 of .*' <<<"$out" | cut -c1-60)...)"

# No release of that version: the source build, with cargo (a stand-in that records its arguments).
mkdir -p "$work/stub"
cat >"$work/stub/cargo" <<'STUB'
#!/usr/bin/env bash
echo "$*" >"$(dirname "$0")/cargo.args"
dest=${!#}   # the last argument: --root DEST
mkdir -p "$dest/bin" && printf '#!/bin/sh\necho stub\n' >"$dest/bin/ecs-gpu" && chmod +x "$dest/bin/ecs-gpu"
STUB
chmod +x "$work/stub/cargo"
out=$(install_action env ECS_GPU_VERSION=9.9.9 PATH="$work/stub:$PATH" scripts/action-install.sh "$work/action-source" 2>&1) \
  || fail "action-install.sh without a release: $out"
expected="install --locked --no-default-features --path $root/crates/ecs-gpu --root $work/action-source"
[ "$(cat "$work/stub/cargo.args")" = "$expected" ] || fail "the source build ran \`cargo $(cat "$work/stub/cargo.args")\`, not \`cargo $expected\`"
[ -x "$work/action-source/bin/ecs-gpu" ] || fail "the source build left no ecs-gpu in $work/action-source/bin"
echo "no release v9.9.9: $(grep -o 'no release v9.9.9.*' <<<"$out" | head -n 1)"

echo
echo "test-package: passed"
