#!/usr/bin/env bash
# call 4: BAL = the session start's kernels plus five trial int8 producer rings whose grids
# put at most 2 CTAs on an SM (balance-call4.diff): ring_c8_k3_s3_g4_a8, ring_c8_k3_s4_g4_a8,
# ring_c16_k3_s3_g4_a8 (80 x 3 = 240 CTAs), ring_c8_w8_k6_s3_g4_a8 (40 x 6 = 240, two bands
# a CTA), ring_c8_k2_s4_g4_a8 (160). The T <= 16 routes' k_split 4 grid is 320 CTAs: 2 or 3
# per SM. The t2 kernel measured its time following the most loaded SM
# (perf-notes-t2.md, session 5). Check, then two calibrations of BAL (round 1 as A,
# round 2 as B in the table: the spread between rounds).
set -u
cd "$(dirname "$0")/../../.."
for b in BAL; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/BAL
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
say "== BAL: ninfer check --only q4_linear_add"
timeout 180 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call4.txt 2>&1; say "rc=$?"
grep -E 'FAIL|checks of' $OUT/check-q4-call4.txt | head -20 | tee -a $S
for r in 1 2; do
  say "== BAL (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 100 $F/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-BAL-$r-call4.txt 2>&1; say "rc=$? $(tail -1 $OUT/calibrate-BAL-$r-call4.txt)"
done
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-BAL-1-call4.txt --b $OUT/calibrate-BAL-2-call4.txt --match _a8 --widths 1,4,8,12,16 | grep -E "ring_c(8|16)_|fastest" | tee -a $S
