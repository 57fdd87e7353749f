#!/usr/bin/env bash
# call 1: PIPE = the warpgroup kernel with two groups in the tensor pipe (group i's wgmma
# issued before group i - 1's are waited for; rounds of 4 groups, nothing in flight across
# the loop's back edge) plus five trial schedules, against FINAL (ffa6885, the session
# start's kernels): PIPE's checks, then ninfer-calibrate --detail of q4,
# FINAL and PIPE alternately (A B A B), compared candidate by candidate. (Memcheck left
# for a later call: two tries of this call lost the machine, so it was made shorter.)
set -u
cd "$(dirname "$0")/../../.."
for b in FINAL PIPE; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/PIPE
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
say "== PIPE: ninfer check --only q4_linear_add"
$F/ninfer check --only q4_linear_add > $OUT/check-q4-call1.txt 2>&1; say "rc=$?"
grep -E 'FAIL|checks of' $OUT/check-q4-call1.txt | head -20 | tee -a $S
grep -E "wg_c" $OUT/check-q4-call1.txt | awk '{print $1, $2, $3, $NF}' | sort | uniq -c | sort -rn | head -40 > $OUT/check-wg-call1.txt
for r in 1 2; do for b in FINAL PIPE; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call1.txt 2>&1; say "rc=$? $(tail -1 $OUT/calibrate-$b-$r-call1.txt)"
done; done
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-FINAL-*-call1.txt --b $OUT/calibrate-PIPE-*-call1.txt --match wg_ > $OUT/compare-wg-call1.txt
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-FINAL-*-call1.txt --b $OUT/calibrate-PIPE-*-call1.txt --match wg_ --widths 1,8,16,24,32,48,64 | tee -a $S
