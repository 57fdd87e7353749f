#!/usr/bin/env bash
# call 1: PAIR = the warpgroup kernel with two groups per wgmma join at 16 and 32 columns
# (the twentieth session's two-groups-per-join-prepared.diff, plus trial schedules
# wg_c16_k8_s4 and wg_c32_k6_s4), against HEAD (7a1c81c's kernels): the check of q4 under a
# timeout, then ninfer-calibrate --detail of q4, A B A B, compared candidate by candidate.
set -u
cd "$(dirname "$0")/../../.."
for b in HEAD PAIR; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call1.txt
echo "== PAIR: ninfer check --only q4_linear_add" | tee -a $S
timeout 200 /tmp/bin/PAIR/ninfer check --only q4_linear_add > $OUT/check-q4-call1.txt 2>&1; echo "rc=$?" | tee -a $S
grep -E 'FAIL|checks of' $OUT/check-q4-call1.txt | head -20 | tee -a $S
A=/tmp/bin/HEAD B=/tmp/bin/PAIR ONLY=q4_linear_add ROUNDS=3 MATCH=wg_c WIDTHS=1,8,16,24,32,48,64 \
  timeout 200 bash scripts/device-run-calibrate-ab.sh 2>&1 | tail -80 >> $S
tail -80 $S
