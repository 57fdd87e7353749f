#!/usr/bin/env bash
# On the GPU machine: the xz'd binaries that scripts/build-ab.sh left in target/ab/NAME/,
# unpacked into /tmp/bin/NAME/ (run from the repository root, where the carried folders land).
# A bundle (scripts/bundle-ab.sh) unpacks into one folder per build it holds; a NAME already
# in /tmp/bin and not carried is left as it is.
# Usage: scripts/device-unpack.sh NAME ...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/device-unpack.sh NAME ..." >&2; exit 2; }
for name in "$@"; do
  src="target/ab/$name"
  # a bundle of several builds (scripts/bundle-ab.sh): each into /tmp/bin/<its name>/
  if [ -f "$src/bins.tar.xz" ]; then
    mkdir -p /tmp/bin && tar -xJf "$src/bins.tar.xz" -C /tmp/bin
    continue
  fi
  # already there (unpacked by an earlier step, e.g. from a bundle)
  [ -x "/tmp/bin/$name/ninfer" ] && [ ! -e "$src" ] && continue
  ls "$src"/*.xz > /dev/null 2>&1 || { echo "device-unpack: no binaries in $src (carried?)" >&2; exit 1; }
  mkdir -p "/tmp/bin/$name"
  for f in "$src"/*.xz; do xz -dc "$f" > "/tmp/bin/$name/$(basename "$f" .xz)"; done
  chmod +x "/tmp/bin/$name"/*
done
