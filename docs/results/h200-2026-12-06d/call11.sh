#!/usr/bin/env bash
# call 11 (binaries C16X2 = branch t2-c16x2 8190a4a: main 704aaa5 plus the trial t2 schedule
# r64c16k4s3w1p0x2m0clg, 16 columns with two K splits in a cluster: 17408x5120's 16-row
# tiles take five 128-wide groups per CTA at k_split 8, twenty at 2):
# (1) `ninfer check --only t2_i8_small --schedule r64c16k4s3w1p0x2m0clg --every-width`;
#     memcheck on 17408x5120;
# (2) two `ninfer-calibrate --detail --only t2_i8_small`: the clg candidates at T = 9-16.
# Run: OUT=$OUT BUDGET=300 bash call11.sh (carry target/ab/C16X2).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call11.txt
say() { echo "$@" | tee -a "$S"; }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh C16X2 || exit 1
W=/tmp/bin/C16X2
timeout 90 $W/ninfer check --only t2_i8_small --schedule r64c16k4s3w1p0x2m0clg --every-width > $OUT/check.txt 2>&1
say "check rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL|error" $OUT/check.txt | head -4 | tee -a "$S"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $W/ninfer check --schedule r64c16k4s3w1p0x2m0clg \
  --only t2_i8_small/17408x5120 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only t2_i8_small > $OUT/calibrate-t2-$r.txt 2>&1
  say "calibrate t2 ($r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-t2-$r.txt)"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-t2-$r.txt --select 'c16k4s3w1p0x.m0clg$' --widths 9-16 >> "$S" 2>&1
done
cd $OUT && tar -cJf /tmp/raw-call11.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call11.tar.xz $OUT/
