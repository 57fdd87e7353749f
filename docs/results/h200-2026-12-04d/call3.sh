#!/usr/bin/env bash
# call 3: XST = the warpgroup ring with the weights `stages` deep and the token rows at most 4
# (split-depth-call3.diff; trial schedules wg_c32_k8_s8, wg_c64_k6_s8, wg_c16_k8_s8), against
# HEAD (7a1c81c's kernels): the check of q4 under a
# timeout, then ninfer-calibrate --detail of q4, A B A B, compared candidate by candidate.
set -u
cd "$(dirname "$0")/../../.."
for b in HEAD XST; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call3.txt
echo "== XST: ninfer check --only q4_linear_add" | tee -a $S
timeout 200 /tmp/bin/XST/ninfer check --only q4_linear_add > $OUT/check-q4-call3.txt 2>&1; echo "rc=$?" | tee -a $S
grep -E 'FAIL|checks of' $OUT/check-q4-call3.txt | head -20 | tee -a $S
A=/tmp/bin/HEAD B=/tmp/bin/XST ONLY=q4_linear_add ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32,48,64 \
  timeout 200 bash scripts/device-run-calibrate-ab.sh 2>&1 | tail -80 >> $S
tail -80 $S
