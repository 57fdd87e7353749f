#!/usr/bin/env bash
# call 3: OCC = FINAL's kernels plus four trial warpgroup schedules with more K slices and
# more resident CTAs per SM (occupancy-call3.diff: 8 CTAs of 64 registers for 16 columns,
# 7 of 72 for 32): wg_c16_k12_s4, wg_c16_k13_s4, wg_c32_k10_s4, wg_c32_k11_s4. Call 2
# suggested the warpgroup kernel's speed follows the CTAs per SM (c32 at T = 1: 36.8 µs
# with 2.4 per SM, 30.1 with 3.6, 25.6 with 4.8). Checks, then ninfer-calibrate --detail
# FINAL / OCC A B A B, then ncu of the shipped wg_c32_k8_s4 at T = 32 (its exact-sum build
# was never profiled).
set -u
cd "$(dirname "$0")/../../.."
for b in FINAL OCC; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/OCC
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a $S; }
say "== OCC: ninfer check --only q4_linear_add"
timeout 180 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call3.txt 2>&1; say "rc=$?"
grep -E 'FAIL|checks of' $OUT/check-q4-call3.txt | head -20 | tee -a $S
for r in 1 2; do for b in FINAL OCC; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 100 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call3.txt 2>&1; say "rc=$? $(tail -1 $OUT/calibrate-$b-$r-call3.txt)"
done; done
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-FINAL-*-call3.txt --b $OUT/calibrate-OCC-*-call3.txt --match wg_ --widths 1,8,12,16,20,24,28,32 | tee -a $S
say "== ncu of wg_c32_k8_s4 at 5120x17408 T = 32 (FINAL, its built-in route there)"
timeout 150 ncu --kernel-name regex:wg_c32_k8_s4 --launch-skip 3 --launch-count 1 --set full --import-source no --export /tmp/wg32 /tmp/bin/FINAL/ninfer bench --only q4_linear_add/5120x17408 --widths 32 --samples 1 > /tmp/ncu.log 2>&1; say "rc=$?"
ncu --import /tmp/wg32.ncu-rep --page details > $OUT/ncu-wg_c32_k8_s4-call3.txt 2>&1
ncu --import /tmp/wg32.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu-src-wg_c32_k8_s4-call3.csv.gz
grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Registers Per|Achieved Occ|Waves Per SM|Block Limit Reg" $OUT/ncu-wg_c32_k8_s4-call3.txt | tee -a $S
