#!/usr/bin/env bash
# Builds one side of a device A/B: the release binaries of a commit, optionally with
# experiment diffs applied, stripped and xz'd into target/ab/NAME/ (what the device scripts
# unpack). The build happens in a scratch git worktree, so the working tree and its
# uncommitted changes are left alone; cargo's target directory target/ab-build is shared
# between builds, so only the workspace's own crates compile again.
# Usage: scripts/build-ab.sh NAME [REV] [DIFF ...]
#   NAME  folder under target/ab/ (an existing one is replaced)
#   REV   commit to build (default HEAD)
#   DIFF  patches applied on top, in order (git apply)
# Prints the folder and its files' sizes; target/ab/NAME/BUILD records the commit and the
# diffs (name and a hash of each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: scripts/build-ab.sh NAME [REV] [DIFF ...]}
shift
rev=HEAD
if [ $# -gt 0 ] && [[ "$1" != *.diff && "$1" != *.patch ]]; then rev=$1; shift; fi
case "$name" in */* | .* | "") echo "build-ab: NAME must be a plain folder name, got '$name'" >&2; exit 2 ;; esac
commit=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || {
  echo "build-ab: '$rev' is not a commit in $root" >&2; exit 2; }
diffs=()
for d in "$@"; do
  [ -f "$d" ] || { echo "build-ab: no such diff: $d" >&2; exit 2; }
  diffs+=("$(cd "$(dirname "$d")" && pwd)/$(basename "$d")")
done
export NINFER_CUDA_ROOT="${NINFER_CUDA_ROOT:-$("$root/scripts/setup-cuda.sh")}"
tree=$(mktemp -d "${TMPDIR:-/tmp}/ninfer-ab-$name.XXXXXX")
cleanup() { git -C "$root" worktree remove --force "$tree" > /dev/null 2>&1 || rm -rf "$tree"; }
trap cleanup EXIT
git -C "$root" worktree add --quiet --detach "$tree" "$commit"
for d in "${diffs[@]}"; do
  git -C "$tree" apply "$d" || { echo "build-ab: $d does not apply to $commit" >&2; exit 1; }
done
echo "build-ab: $name = ${commit:0:7}${diffs:+ + ${#diffs[@]} diff(s)}: building" >&2
CARGO_TARGET_DIR="$root/target/ab-build" cargo build --release --quiet -p ninfer-runtime --bins \
  --manifest-path "$tree/Cargo.toml"
out="$root/target/ab/$name"
rm -rf "$out"
mkdir -p "$out"
for bin in ninfer ninfer-calibrate; do
  strip -o "$out/$bin" "$root/target/ab-build/release/$bin"
  xz -9 -T2 "$out/$bin"
done
{
  echo "commit $commit"
  for d in "${diffs[@]}"; do echo "diff $(basename "$d") $(sha256sum "$d" | cut -c1-16)"; done
} > "$out/BUILD"
echo "$out"
ls -l "$out" | awk 'NR > 1 { print "  " $5 "  " $9 }'
