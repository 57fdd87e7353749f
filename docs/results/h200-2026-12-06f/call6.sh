#!/usr/bin/env bash
# call 6 (and call 8 with BUILD=FINAL13): the build with r64c32k4s3w2p0x4m0clg in the catalog (FINAL12 = main 31a902c:
# scripts/build-ab.sh FINAL12 main), on whichever card comes:
# (1) `ninfer check --only t2_i8_small` (every variant, every width);
# (2) device-run-recalibrate.sh SECOND=1 for this card's built-in entry: t2_i8_small on an
#     H100; q4_linear_add and t2_i8_small on an H200, then device-run-baselines.sh (PyTorch
#     in the same run: the issue 4 and 5 numbers).
# Run: OUT=$OUT bash call6.sh (carry target/ab/FINAL12).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-575} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh ${BUILD:-FINAL12} || exit 1
F=/tmp/bin/${BUILD:-FINAL12}
timeout 200 $F/ninfer check --only t2_i8_small > $OUT/check-t2.txt 2>&1
rc=$?; say "check t2_i8_small rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-t2.txt | head -4 | tee -a "$S"
[ $rc = 0 ] || exit 1
fams=t2_i8_small
case "$gpu" in *H200*) fams="q4_linear_add t2_i8_small" ;; esac
OUT=$OUT/recal BIN=$F FAMILY="$fams" SECOND=1 timeout $(( $(left) - 10 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate $fams rc=$? (${SECONDS}s)"; cat $OUT/recal/summary-recalibrate.txt >> "$S"
case "$gpu" in *H200*)
  OUT=$OUT/baselines BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
  say "baselines rc=$? (${SECONDS}s)"; cat $OUT/baselines/summary-baselines.txt >> "$S" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call6.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call6.tar.xz $OUT/
