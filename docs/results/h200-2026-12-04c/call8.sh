#!/usr/bin/env bash
# call 8: HEAD (call 6's binaries): `ninfer check --only q6_head` and
# `--only attn_i8_small/h24/int8` with the device time left (each under a timeout).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/bin/HEAD; for f in target/ab/HEAD/ninfer.xz; do xz -dc $f > /tmp/bin/HEAD/ninfer; done; chmod +x /tmp/bin/HEAD/*
F=/tmp/bin/HEAD
S=$OUT/summary-call8.txt
say() { echo "$@" | tee -a $S; }
for fam in q6_head attn_i8_small/h24/int8; do
  say "== HEAD: ninfer check --only $fam"
  timeout 75 $F/ninfer check --only $fam > $OUT/check-${fam//\//_}-call8.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-${fam//\//_}-call8.txt | head -5 | tee -a $S
done
