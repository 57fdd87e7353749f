#!/usr/bin/env bash
# call 4: Q4 (Q3 with the ring rounds unrolled: constant stage offsets and descriptors up to
# 32 tokens): check of q4, ninfer-calibrate --detail of q4, Q3 and Q4 alternately (A B A B).
set -u
cd "$(dirname "$0")/../../.."
for b in Q3 Q4; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== Q4: ninfer check --only q4_linear_add"
timeout 300 /tmp/bin/Q4/ninfer check --only q4_linear_add > $OUT/check-q4-call4.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call4.txt | tee -a $S
for r in 1 2; do for b in Q3 Q4; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call4.txt 2>&1; say "rc=$?"
done; done
