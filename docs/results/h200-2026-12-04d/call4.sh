#!/usr/bin/env bash
# call 4: REF = the warpgroup ring refilling group i - 1's stage while group i's MMAs run
# (after a named barrier; no empty mbarriers; refill-in-mma-call4.diff), against
# HEAD (7a1c81c's kernels): the check of q4 under a
# timeout, then ninfer-calibrate --detail of q4, A B A B, compared candidate by candidate.
set -u
cd "$(dirname "$0")/../../.."
for b in HEAD REF; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call4.txt
echo "== REF: ninfer check --only q4_linear_add" | tee -a $S
timeout 200 /tmp/bin/REF/ninfer check --only q4_linear_add > $OUT/check-q4-call4.txt 2>&1; echo "rc=$?" | tee -a $S
grep -E 'FAIL|checks of' $OUT/check-q4-call4.txt | head -20 | tee -a $S
A=/tmp/bin/HEAD B=/tmp/bin/REF ONLY=q4_linear_add ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32,48,64 \
  timeout 200 bash scripts/device-run-calibrate-ab.sh 2>&1 | tail -80 >> $S
tail -80 $S
