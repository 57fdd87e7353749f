#!/usr/bin/env bash
# call 4 (binaries FINAL2 = commit 62bc309, route catalog 97ff95a36d047dfa):
# (1) `ninfer check --only t2_i8_small` (every variant, every width);
# (2) device-run-recalibrate.sh SECOND=1 for this card's built-in entry: t2_i8_small on an
#     H100; q4_linear_add and t2_i8_small on an H200 (its q4 recalibration with
#     `ring_c8_k4_s3_g4_cl` was prepared in h200-2026-12-06b call 4).
# Run: OUT=$OUT BUDGET=560 bash call4.sh (carry target/ab/FINAL2).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL2 || exit 1
F=/tmp/bin/FINAL2
timeout 150 $F/ninfer check --only t2_i8_small > $OUT/check-t2.txt 2>&1
say "check t2_i8_small rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-t2.txt | head -6 | tee -a "$S"
fam=t2_i8_small
case "$gpu" in *H200*) fam="q4_linear_add t2_i8_small" ;; esac
RC=$OUT/recal
OUT=$RC BIN=$F FAMILY="$fam" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate $fam rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call4.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call4.tar.xz $OUT/
