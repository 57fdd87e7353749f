#!/usr/bin/env bash
# call 2: the session's last 290 s of device time, too few for 06h call2.sh. On an H200, in order
# of value: device-run-baselines.sh of t2 and q4 on FINAL15's built-in H200 entry (today's
# kernels; PyTorch in the same run), `ninfer check --only t2_i8_small`, then the t2
# recalibration with a second calibration, each only while BUDGET lasts.
# Any other card: its name only. Run: OUT=$OUT BUDGET=<s> bash call2.sh (carry target/ab/FINAL15).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-180} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
case "$gpu" in *H200*) ;; *) say "not an H200, nothing run"; exit 0 ;; esac
scripts/device-unpack.sh FINAL15 || exit 1
F=/tmp/bin/FINAL15
OUT=$OUT/baselines BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 5 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
say "baselines rc=$? (${SECONDS}s)"; cat $OUT/baselines/summary-baselines.txt >> "$S"
timeout $(( $(left) - 5 )) $F/ninfer check --only t2_i8_small > $OUT/check-t2.txt 2>&1
say "check t2_i8_small rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-t2.txt | head -4 | tee -a "$S"
OUT=$OUT/recal BIN=$F FAMILY=t2_i8_small SECOND=1 timeout $(( $(left) - 5 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate t2_i8_small rc=$? (${SECONDS}s)"; cat $OUT/recal/summary-recalibrate.txt >> "$S" 2>/dev/null
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call2.tar.xz $OUT/
