#!/usr/bin/env bash
# call 12 (binaries FINAL9 = commit 0071bb8, main with the cluster sums of the q4 and t2
# warpgroup schedules and r64c16k4s3w1p0x2m0clg, route catalog 8129db9fc5604392, entries re-stamped):
# (1) `ninfer check --only q4_linear_add` and `--only t2_i8_small` (every variant, width);
#     memcheck of r64c16k4s3w1p0x2m0clg on 17408x5120 and r64c32k4s3w1p0x4m0clg on 5120x6144;
# (2) device-run-recalibrate.sh FAMILY="q4_linear_add t2_i8_small" SECOND=1 for this card's
#     built-in entry (bench on it, recalibration, bench, ratios, second calibration).
# Run: OUT=$OUT BUDGET=540 bash call12.sh (carry target/ab/FINAL9).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call12.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-540} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL9 || exit 1
F=/tmp/bin/FINAL9
for fam in q4_linear_add t2_i8_small; do
  timeout 150 $F/ninfer check --only $fam > $OUT/check-$fam.txt 2>&1
  say "check $fam rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam.txt | head -4 | tee -a "$S"
done
for fsk in t2_i8_small:r64c16k4s3w1p0x2m0clg:17408x5120 \
           t2_i8_small:r64c32k4s3w1p0x4m0clg:5120x6144; do
  IFS=: read fam s key <<< "$fsk"
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --schedule $s \
    --only $fam/$key > $OUT/memcheck-$s.txt 2>&1
  say "memcheck $s $key rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-$s.txt | tail -2 | tee -a "$S"
done
RC=$OUT/recal
OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 15 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate q4 + t2 rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call12.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call12.tar.xz $OUT/
