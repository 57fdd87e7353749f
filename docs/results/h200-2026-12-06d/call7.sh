#!/usr/bin/env bash
# call 7: the session's start against its end in one run, then the end against PyTorch:
# (1) `ninfer bench` A/B (2 interleaved rounds) of t2_i8_small and q4_linear_add, A = MAIN5
#     (commit b5adc60, the session's start, its built-in entries), B = FINAL7 (commit
#     b950f69: the signed int8 rings, the cluster sums, the recalibrated H100 entry);
# (2) device-run-baselines.sh on FINAL7 (its built-in entry; PyTorch in the same run).
# Run: OUT=$OUT BUDGET=540 bash call7.sh (carry target/ab/MAIN5, target/ab/FINAL7).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call7.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-540} - SECONDS )); }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh MAIN5 FINAL7 || exit 1
OUT=$OUT/ab-t2 A=/tmp/bin/MAIN5 B=/tmp/bin/FINAL7 ROUNDS=2 WIDTHS=1,8,12,16,24,32 timeout 150 bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
say "ab t2 rc=$? (${SECONDS}s)"; cat $OUT/ab-t2/summary-ab.txt >> "$S"
OUT=$OUT/ab-q4 A=/tmp/bin/MAIN5 B=/tmp/bin/FINAL7 ROUNDS=2 WIDTHS=1,8,16,24,32,48,64 timeout 150 bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
BL=$OUT/baselines
OUT=$BL BIN=/tmp/bin/FINAL7 FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
say "baselines rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call7.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call7.tar.xz $OUT/
