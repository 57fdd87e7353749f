#!/usr/bin/env bash
# call 7: HEAD (call 6's binaries): `ninfer check --only q4_linear_add` and
# `--only t2_i8_small` (call 6's check of every family ran past its 170 s limit in the
# attention keys and printed no table; 2026-12-02f's full check took longer than fits
# this session's remaining device time).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/bin/HEAD; for f in target/ab/HEAD/ninfer.xz; do xz -dc $f > /tmp/bin/HEAD/ninfer; done; chmod +x /tmp/bin/HEAD/*
F=/tmp/bin/HEAD
S=$OUT/summary-call7.txt
say() { echo "$@" | tee -a $S; }
for fam in q4_linear_add t2_i8_small; do
  say "== HEAD: ninfer check --only $fam"
  timeout 90 $F/ninfer check --only $fam > $OUT/check-$fam-call7.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-$fam-call7.txt | head -5 | tee -a $S
done
