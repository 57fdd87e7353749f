#!/usr/bin/env bash
# call 7 (prepared, not run): GS = HEAD plus grouped-stages-prepared.diff: the warpgroup
# ring with two groups per stage (one copy of their weights, one of their scales, one of
# each group's token rows: 4 bulk copies per 2 groups instead of 6), trial schedules
# wg_c32_k8_s3_g2 and wg_c16_k8_s3_g2 (3 stages of 2 groups; every shipped PTX unchanged),
# against HEAD's binaries: the check of q4, then ninfer-calibrate --detail A B A B.
# Build: scripts/build-ab.sh HEAD; scripts/build-ab.sh GS HEAD
# docs/results/h200-2026-12-04d/grouped-stages-prepared.diff; carry target/ab/HEAD and
# target/ab/GS.
set -u
cd "$(dirname "$0")/../../.."
for b in HEAD GS; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call7.txt
echo "== GS: ninfer check --only q4_linear_add" | tee -a $S
timeout 200 /tmp/bin/GS/ninfer check --only q4_linear_add > $OUT/check-q4-call7.txt 2>&1; echo "rc=$?" | tee -a $S
grep -E 'FAIL|checks of' $OUT/check-q4-call7.txt | head -20 | tee -a $S
A=/tmp/bin/HEAD B=/tmp/bin/GS ONLY=q4_linear_add ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32 \
  timeout 200 bash scripts/device-run-calibrate-ab.sh 2>&1 | tail -60 >> $S
tail -60 $S
