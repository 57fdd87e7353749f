#!/usr/bin/env bash
# call 10 (binaries UNEVEN = branch cl-uneven: main 3846580 plus the q4 cluster epilogue with
# uneven shares (rank r owns fragments [F r / k_split, F (r + 1) / k_split)), so k_split 6
# clusters: trials wg_c64_k6_s4_cl and wg_c32_k6_s4_cl):
# (1) `ninfer check --only q4_linear_add` (every variant and width: the changed epilogue of
#     every cluster schedule, and the trials); memcheck of wg_c64_k6_s4_cl on 5120x17408;
# (2) two `ninfer-calibrate --detail --only q4_linear_add`: the warpgroup candidates at
#     T >= 17 against the best other.
# Run: OUT=$OUT BUDGET=400 bash call10.sh (carry target/ab/UNEVEN).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a "$S"; }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh UNEVEN || exit 1
W=/tmp/bin/UNEVEN
timeout 150 $W/ninfer check --only q4_linear_add > $OUT/check-q4.txt 2>&1
say "check q4_linear_add rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL|error" $OUT/check-q4.txt | head -6 | tee -a "$S"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $W/ninfer check --schedule wg_c64_k6_s4_cl \
  --only q4_linear_add/5120x17408 > $OUT/memcheck.txt 2>&1
say "memcheck wg_c64_k6_s4_cl rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-q4-$r.txt 2>&1
  say "calibrate q4 ($r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-q4-$r.txt)"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-q4-$r.txt --family q4_linear_add --select '^wg_' --widths 17-64 >> "$S" 2>&1
done
cd $OUT && tar -cJf /tmp/raw-call10.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call10.tar.xz $OUT/
