#!/usr/bin/env bash
# Several builds of scripts/build-ab.sh as one carry: their binaries in one xz stream with a
# 256 MiB dictionary, so that the bytes the builds share (most of them: the PTX) are stored
# once. Three builds are about 9 MB this way and 42 MB as three folders, against the
# device tool's 64 MiB carry limit (tracked files included).
# Usage: scripts/bundle-ab.sh BUNDLE NAME...  -> target/ab/BUNDLE/bins.tar.xz (about 40 s)
# On the GPU machine `scripts/device-unpack.sh BUNDLE` unpacks every NAME into /tmp/bin/NAME/.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/bundle-ab.sh BUNDLE NAME..." >&2; exit 2; }
cd "$(dirname "$0")/.."
bundle=$1; shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in "$@"; do
  ls target/ab/"$name"/*.xz > /dev/null 2>&1 || { echo "bundle-ab: no build in target/ab/$name (scripts/build-ab.sh $name)" >&2; exit 1; }
  mkdir -p "$work/$name"
  for f in target/ab/"$name"/*.xz; do xz -dc "$f" > "$work/$name/$(basename "$f" .xz)"; done
  chmod +x "$work/$name"/*
  cp target/ab/"$name"/BUILD "$work/$name/" 2> /dev/null || true
done
mkdir -p target/ab/"$bundle"
tar -C "$work" -cf - "$@" | xz -T1 -1 --lzma2=dict=256MiB,mf=hc4,nice=64 > target/ab/"$bundle"/bins.tar.xz
printf '%s\n' "$@" > target/ab/"$bundle"/BUNDLE
echo "target/ab/$bundle/bins.tar.xz: $* ($(du -h target/ab/"$bundle"/bins.tar.xz | cut -f1))"
