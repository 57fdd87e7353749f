#!/usr/bin/env bash
# call 1: the session's start build FINAL11 (= main 5997eb5: scripts/build-ab.sh FINAL11 main)
# and the trial build C8P1 (main + ../h200-2026-12-06e/c8-act-prefetch-prepared.diff).
# On an H200 first: (h) `ninfer check` of q4_linear_add and t2_i8_small, device-run-recalibrate.sh
#   FAMILY="q4_linear_add t2_i8_small" SECOND=1 for the H200 entry, device-run-baselines.sh
#   (PyTorch in the same run): the issue 4 and 5 numbers (as 06e's call 1).
# On any card, as the budget allows:
# (a) `ninfer bench` t2 5120x6144 from HBM and in L2: stream_read's new pass count (HBM and
#     L2 read bandwidths), never run on a GPU before;
# (b) `ninfer-calibrate --weights-from l2` into a fresh profile path that must stay absent;
# (c) the prepared 06e call 7: activations one iteration ahead (act_prefetch p1) for the
#     8-column per-warp t2 schedules at T = 2-8, through scripts/device-run-new-schedules.sh
#     (also that script's first run).
# (c8-act-prefetch-call1.diff of this folder: moved here from 06e after the call.)
# Run: OUT=$OUT BUDGET=... bash call1.sh (carry target/ab/FINAL11 and target/ab/C8P1).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL11 || exit 1
F=/tmp/bin/FINAL11
case "$gpu" in
  *H200*)
    crc=0
    for fam in q4_linear_add t2_i8_small; do
      timeout 150 $F/ninfer check --only $fam > $OUT/check-$fam.txt 2>&1
      rc=$?; [ $rc = 0 ] || crc=$rc
      say "check $fam rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam.txt | head -4 | tee -a "$S"
    done
    [ $crc = 0 ] || { say "a check failed: stopped"; exit 1; }
    OUT=$OUT/recal BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 \
      timeout $(( $(left) - 100 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
    say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $OUT/recal/summary-recalibrate.txt >> "$S"
    OUT=$OUT/baselines BIN=$F FAMILIES="t2_i8_small q4_linear_add" \
      timeout $(( $(left) - 40 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
    say "baselines rc=$? (${SECONDS}s)"; cat $OUT/baselines/summary-baselines.txt >> "$S" ;;
esac
for mode in hbm l2; do
  [ $(left) -gt 25 ] || { say "budget: stopped before bench $mode"; break; }
  timeout 60 $F/ninfer bench --only t2_i8_small/5120x6144 --widths 1,8,16 --weights-from $mode > $OUT/bench-t2-$mode.txt 2>&1
  say "bench t2 $mode rc=$?"; grep -vE "^  " $OUT/bench-t2-$mode.txt | tail -6 | tee -a "$S"
done
P=$(mktemp -d)/p.json
if [ $(left) -gt 25 ]; then
  NINFER_DEVICE_PROFILES=$P timeout 60 $F/ninfer-calibrate --only t2_i8_small/5120x --weights-from l2 > $OUT/cal-l2.txt 2>&1
  say "calibrate l2 rc=$? profile stored: $([ -e $P ] && echo yes || echo no)"; tail -3 $OUT/cal-l2.txt | tee -a "$S"
fi
if [ $(left) -gt 200 ]; then
  scripts/device-unpack.sh C8P1 || exit 1
  OUT=$OUT/c8p1 BIN=/tmp/bin/C8P1 FAMILY=t2_i8_small \
    NEW="r16c8k8s2w1p1x1m0 r16c8k4s2w1p1x1m0 r16c8k4s2w1p1x1m0l4" \
    BASE="r16c8k8s2w1p0x1m0 r16c8k8s2w1p0x1m0l4 r16c8k8s2w1p0x1m0l8" WIDTHS=2,4,8 \
    MEMCHECK_KEY=t2_i8_small/5120x6144 timeout $(( $(left) - 10 )) bash scripts/device-run-new-schedules.sh > /dev/null 2>&1
  say "c8p1 (device-run-new-schedules.sh) rc=$? (${SECONDS}s)"; cat $OUT/c8p1/summary-new-schedules.txt | cut -c1-170 >> "$S"
else
  say "budget: c8p1 not run"
fi
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
