#!/usr/bin/env bash
# call 10 (binaries FINAL4 = commit d1e50dd, main at the session's end), for an H200 only (any
# other card: stop): `ninfer check --only q4_linear_add` and `--only t2_i8_small`, then
# device-run-recalibrate.sh FAMILY="q4_linear_add t2_i8_small" SECOND=1 for the H200 entry.
# Run: OUT=$OUT BUDGET=300 bash call10.sh (carry target/ab/FINAL4).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-300} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
case "$gpu" in *H200*) ;; *) say "not an H200: stopped"; exit 0 ;; esac
scripts/device-unpack.sh FINAL4 || exit 1
F=/tmp/bin/FINAL4
for fam in q4_linear_add t2_i8_small; do
  timeout 120 $F/ninfer check --only $fam > $OUT/check-$fam.txt 2>&1
  say "check $fam rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam.txt | head -4 | tee -a "$S"
done
RC=$OUT/recal
OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 10 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call10.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call10.tar.xz $OUT/
