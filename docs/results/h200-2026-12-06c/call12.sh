#!/usr/bin/env bash
# call 12: the session's start against its end in one run: `ninfer bench` A/B (2 interleaved
# rounds) of t2_i8_small and q4_linear_add, A = FINAL (commit d6b97cf, the runtime of the
# session start 287d8cc, its built-in entries), B = FINAL4 (commit d1e50dd, the end's kernels
# and entries).
# Run: OUT=$OUT BUDGET=200 bash call12.sh (carry target/ab/FINAL, target/ab/FINAL4).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call12.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-200} - SECONDS )); }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh FINAL FINAL4 || exit 1
OUT=$OUT/ab-t2 A=/tmp/bin/FINAL B=/tmp/bin/FINAL4 ROUNDS=2 WIDTHS=1,8,16,24,32 timeout $(( ($(left) - 10) / 2 )) bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
say "ab t2 rc=$? (${SECONDS}s)"; cat $OUT/ab-t2/summary-ab.txt >> "$S"
OUT=$OUT/ab-q4 A=/tmp/bin/FINAL B=/tmp/bin/FINAL4 ROUNDS=2 WIDTHS=1,16,32,48,64 timeout $(( $(left) - 5 )) bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
