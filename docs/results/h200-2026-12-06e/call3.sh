#!/usr/bin/env bash
# call 3: which candidate leads with the weights in L2 (binaries L2B = main 7aaf2bc):
# (1) `ninfer bench --weights-from l2` of t2 and q4 (the L2's read bandwidth in the run);
# (2) `ninfer-calibrate --detail --only FAMILY`, weights from HBM and from L2
#     (`--weights-from l2`), two interleaved rounds each, into a throwaway profile;
#     compare_calibrate_detail.py: per (key, T) every candidate's HBM and L2 medians.
# Run: OUT=$OUT BUDGET=300 bash call3.sh (carry target/ab/L2B).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-300} - SECONDS )); }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh L2B || exit 1
F=/tmp/bin/L2B
R=$OUT/raw; mkdir -p $R
timeout 60 $F/ninfer bench --only t2_i8_small --widths 1,8,16,32 --weights-from l2 > $R/bench-t2-l2.txt 2>&1
say "bench t2 l2 rc=$? (${SECONDS}s)"; head -4 $R/bench-t2-l2.txt | tee -a "$S"
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for round in 1 2; do
  for fam in t2_i8_small q4_linear_add; do
    for mode in hbm l2; do
      [ $(left) -gt 25 ] || { say "budget: stopped before $fam $mode $round"; break 3; }
      timeout $(( $(left) - 10 )) $F/ninfer-calibrate --detail --only $fam --weights-from $mode \
        > $R/cal-$fam-$mode-$round.txt 2>&1
      say "calibrate $fam $mode round $round rc=$? (${SECONDS}s)"
    done
  done
done
for fam in t2_i8_small q4_linear_add; do
  say "== $fam: A = HBM, B = weights in L2"
  python3 scripts/compare_calibrate_detail.py --a $R/cal-$fam-hbm-*.txt --b $R/cal-$fam-l2-*.txt \
    > $OUT/detail-$fam.txt 2>&1
  grep -iE "fastest" $OUT/detail-$fam.txt >> "$S"
done
cd $OUT && tar -cJf /tmp/raw-call3.tar.xz raw && rm -rf raw && mv /tmp/raw-call3.tar.xz $OUT/
