#!/usr/bin/env bash
# On the GPU machine: the xz'd binaries that scripts/build-ab.sh left in target/ab/NAME/,
# unpacked into /tmp/bin/NAME/ (run from the repository root, where the carried folders land).
# A NAME already in /tmp/bin and not carried is left as it is (a call script may unpack a
# bundle of builds there first: tar -xJf bins.tar.xz -C /tmp/bin).
# Usage: scripts/device-unpack.sh NAME ...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/device-unpack.sh NAME ..." >&2; exit 2; }
for name in "$@"; do
  src="target/ab/$name"
  # already there (unpacked by an earlier step, or from a bundle of several builds)
  [ -x "/tmp/bin/$name/ninfer" ] && [ ! -e "$src" ] && continue
  ls "$src"/*.xz > /dev/null 2>&1 || { echo "device-unpack: no binaries in $src (carried?)" >&2; exit 1; }
  mkdir -p "/tmp/bin/$name"
  for f in "$src"/*.xz; do xz -dc "$f" > "/tmp/bin/$name/$(basename "$f" .xz)"; done
  chmod +x "/tmp/bin/$name"/*
done
