#!/usr/bin/env bash
# call 6: the session's end build (FINAL10 = main 6dc90d3 or later: build-ab.sh FINAL10 main) on whatever card comes.
# On an H200: the prepared call 1 (FINAL8's kernels are FINAL10's; only stream_read and the
# tools differ), then (2) below if the budget allows. On an H100: (2) only:
# (2) `ninfer bench` of 5120x6144 (t2, q4) from HBM and in L2 (the new stream_read's HBM and
#     L2 bandwidths), and `ninfer-calibrate --weights-from l2` of two keys into a fresh
#     profile path, which must stay absent (nothing stored).
# Run: OUT=$OUT BUDGET=... bash call6.sh (carry target/ab/FINAL10 and target/ab/FINAL8).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-120} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
case "$gpu" in
  *H200*) mkdir -p $OUT/h200; OUT=$OUT/h200 BUDGET=$(( $(left) - 70 )) bash docs/results/h200-2026-12-06e/call1.sh
          cat $OUT/h200/summary-call1.txt >> "$S" ;;
esac
scripts/device-unpack.sh FINAL10 || exit 1
F=/tmp/bin/FINAL10
for mode in hbm l2; do
  [ $(left) -gt 20 ] || { say "budget: stopped before bench $mode"; exit 0; }
  timeout 60 $F/ninfer bench --only t2_i8_small/5120x6144 --widths 1,8,16 --weights-from $mode > $OUT/bench-t2-$mode.txt 2>&1
  say "bench t2 $mode rc=$?"; grep -vE "^  " $OUT/bench-t2-$mode.txt | tail -6 | tee -a "$S"
done
P=$(mktemp -d)/p.json
[ $(left) -gt 20 ] || { say "budget: stopped before calibrate l2"; exit 0; }
NINFER_DEVICE_PROFILES=$P timeout 60 $F/ninfer-calibrate --only t2_i8_small/5120x --weights-from l2 > $OUT/cal-l2.txt 2>&1
say "calibrate l2 rc=$? profile stored: $([ -e $P ] && echo yes || echo no)"; tail -3 $OUT/cal-l2.txt | tee -a "$S"
# (3) scripts/device-run-new-schedules.sh (new, the generic form of calls 4-5) on two shipped
#     schedules as its "trial" ones, one HBM round: that the script runs end to end.
[ $(left) -gt 40 ] || { say "budget: stopped before device-run-new-schedules.sh"; exit 0; }
OUT=$OUT/new-schedules BIN=$F FAMILY=t2_i8_small NEW="r16c8k8s2w1p0x1m0l4 r16c1k8s3w1p0x1m1" \
  BASE=r16c8k8s2w1p0x1m0 WIDTHS=1,2,8 ROUNDS=1 MEMCHECK_KEY=t2_i8_small/5120x6144 \
  timeout $(( $(left) - 5 )) bash scripts/device-run-new-schedules.sh > /dev/null 2>&1
say "device-run-new-schedules.sh rc=$?"; tail -12 $OUT/new-schedules/summary-new-schedules.txt | cut -c1-160 | tee -a "$S"
cd $OUT && tar -cJf /tmp/raw-call6.tar.xz --exclude=summary-call6.txt new-schedules *.txt && rm -rf new-schedules && mv /tmp/raw-call6.tar.xz $OUT/
