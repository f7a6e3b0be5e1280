#!/usr/bin/env bash
# Brings the validation set back at its pinned commits into validation/setups/ (ignored by git):
# each setup of setups.tsv, with the registry modules of modules.tsv installed as `terraform init`
# would (under .terraform/modules, with the manifest modules.json). Nothing here is committed.
#
# Repositories are cloned from GitHub, or taken from $MIRROR/<owner>+<name>/repo (a bare git
# directory) when that exists.
#
#   scripts/validation/fetch.sh            # all setups
#   MIRROR=/work/.mirror scripts/validation/fetch.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/validation
MIRROR=${MIRROR:-}
mkdir -p "$out/repos" "$out/setups"

# The git directory of a repository, cloned once.
gitdir() {
  local repo=$1 name=${1/\//+}
  if [[ -n "$MIRROR" && -d "$MIRROR/$name/repo" ]]; then
    echo "$MIRROR/$name/repo"
    return
  fi
  if [[ ! -d "$out/repos/$name.git" ]]; then
    git clone --quiet --bare --filter=blob:none "https://github.com/$repo.git" "$out/repos/$name.git" >&2
  fi
  echo "$out/repos/$name.git"
}

# The files of `path` at `commit`, under `dest` (the path kept). File by file: a snapshot may
# lack its largest files (images, data), which are skipped.
extract() {
  local dir=$1 commit=$2 path=$3 dest=$4 f
  git --git-dir="$dir" ls-tree -r --name-only "$commit" -- "$path" | while IFS= read -r f; do
    mkdir -p "$dest/$(dirname "$f")"
    git --git-dir="$dir" cat-file blob "$commit:$f" >"$dest/$f" 2>/dev/null || rm -f "$dest/$f"
  done
}

while IFS=$'\t' read -r name repo commit path kind; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  dest=$out/setups/$name
  rm -rf "$dest"
  dir=$(gitdir "$repo")
  # A root may call local modules anywhere in its repository: the whole tree, except for the
  # large ones (and those whose snapshot lacks large binary files), where the checked path's
  # top-level directory is enough.
  case "$repo" in
    aws-ia/ecs-blueprints | wellcomecollection/catalogue-pipeline | 2017387-jh/vw-aws-cloud-service | aws-samples/sample-ecs-inference-pipeline)
      extract "$dir" "$commit" "${path%%/*}" "$dest"
      ;;
    # A monorepo whose snapshot lacks large data files: its Terraform tree is enough.
    galion-studio/nexuslang-v2)
      extract "$dir" "$commit" v1/galion/infrastructure/terraform "$dest"
      ;;
    *) extract "$dir" "$commit" . "$dest" ;;
  esac
  printf '%s\t%s\t%s\n' "$path" "$kind" "$repo@$commit" >"$dest/.validation"
  echo "$name: $repo@${commit:0:8} $path"
done <"$here/setups.tsv"

# Registry modules: .terraform/modules/<key> and .terraform/modules/modules.json in the root.
declare -A manifest
while IFS=$'\t' read -r setup key source version repo tag folder; do
  [[ -z "$setup" || "$setup" == \#* ]] && continue
  path=$(cut -f1 "$out/setups/$setup/.validation")
  rootdir=$out/setups/$setup/$path
  dir=$(gitdir "$repo")
  rm -rf "$rootdir/.terraform/modules/$key"
  mkdir -p "$rootdir/.terraform/modules/$key"
  extract "$dir" "$tag" . "$rootdir/.terraform/modules/$key"
  sub=".terraform/modules/$key"
  [[ "$folder" != "." ]] && sub="$sub/$folder"
  entry=$(printf '{"Key":"%s","Source":"registry.terraform.io/%s","Version":"%s","Dir":"%s"}' \
    "$key" "$source" "$version" "$sub")
  # The service module calls its own ../container-definition for each container.
  if [[ "$source" == */modules/service ]]; then
    entry+=$(printf ',{"Key":"%s.container_definition","Source":"../container-definition","Dir":".terraform/modules/%s/modules/container-definition"}' "$key" "$key")
  fi
  manifest[$rootdir]+="${manifest[$rootdir]:+,}$entry"
  echo "$setup: module.$key = $source $version"
done <"$here/modules.tsv"
for rootdir in "${!manifest[@]}"; do
  printf '{"Modules":[{"Key":"","Source":"","Dir":"."},%s]}\n' "${manifest[$rootdir]}" \
    >"$rootdir/.terraform/modules/modules.json"
done
