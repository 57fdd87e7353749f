#!/usr/bin/env bash
# call 4 (binaries FINAL = commit d6b97cf), for an H200 only (any other card: stop, the
# H100 entry was recalibrated in call 3): (1) `ninfer check --only q4_linear_add
# --schedule ring_c8_k4_s3_g4_cl --every-width` and its memcheck on 5120x6144,
# (2) scripts/device-run-recalibrate.sh with FAMILY=q4_linear_add SECOND=1 (bench on the
# re-stamped built-in routes, recalibration into that entry, bench again, per-width ratios,
# a second calibration into a copy and the entry's q4 routes of both).
# Run: OUT=$OUT BUDGET=... bash call4.sh (carry target/ab/FINAL).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-450} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
case "$gpu" in *H200*) ;; *) say "not an H200: stopped"; exit 0 ;; esac
scripts/device-unpack.sh FINAL || exit 1
B=/tmp/bin/FINAL
timeout 60 $B/ninfer check --only q4_linear_add --schedule ring_c8_k4_s3_g4_cl --every-width > $OUT/check.txt 2>&1
say "check ring_c8_k4_s3_g4_cl rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check.txt | head -4 | tee -a "$S"
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule ring_c8_k4_s3_g4_cl \
  --only q4_linear_add/5120x6144 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
RC=$OUT/recal
OUT=$RC BIN=$B FAMILY=q4_linear_add SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call4.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call4.tar.xz $OUT/
