#!/usr/bin/env bash
# Trial schedules of one family on the GPU in one call: `ninfer check --schedule S` of each,
# compute-sanitizer memcheck of the first (or MEMCHECK="S ..."), then `ninfer-calibrate
# --detail` of the family with the weights from HBM (ROUNDS, default 2) and, unless L2=0,
# once with the weights in L2 (`--weights-from l2`: which candidate leads when bandwidth
# is not the limit), and a table of the named candidates' medians per (key, T)
# (compare_calibrate_detail.py --columns). Stops before calibrating if a check fails.
# Usage on the GPU machine:
#   OUT=/dir BIN=/dir/with/binaries FAMILY=t2_i8_small NEW="sched ..." \
#     [BASE="routed-sched ..."] [WIDTHS=1,2,4,8] [MEMCHECK_KEY=t2_i8_small/5120x6144] \
#     scripts/device-run-new-schedules.sh
LOG_NAME=summary-new-schedules.txt
source "$(dirname "$0")/device-common.sh"
: "${FAMILY:?FAMILY= names the family}" "${NEW:?NEW= lists the trial schedules}"
crc=0
for s in $NEW; do
  $B/ninfer check --only "$FAMILY" --schedule "$s" > "$OUT/check-$s.txt" 2>&1; rc=$?
  [ $rc = 0 ] || crc=$rc
  say "check $s rc=$rc: $(grep -E 'checks of' "$OUT/check-$s.txt" | head -1)"
done
for s in ${MEMCHECK:-${NEW%% *}}; do
  compute-sanitizer --tool memcheck "$B/ninfer" check --only "${MEMCHECK_KEY:-$FAMILY}" --schedule "$s" \
    > "$OUT/memcheck-$s.txt" 2>&1
  say "memcheck $s rc=$?: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-$s.txt" | tail -1)"
done
[ $crc = 0 ] || { say "a check failed: not calibrated"; exit 1; }
runs=""
for round in $(seq 1 "${ROUNDS:-2}"); do runs="$runs hbm-$round"; done
[ "${L2:-1}" = 0 ] || runs="$runs l2-1"
for run in $runs; do
  $B/ninfer-calibrate --detail --only "$FAMILY" --weights-from "${run%-*}" > "$OUT/cal-$run.txt" 2>&1
  say "calibrate $run rc=$?: $(grep -E 'keys (measured|timed)' "$OUT/cal-$run.txt")"
done
cols=$(echo ${BASE:-} $NEW | tr ' ' ',')
widths=${WIDTHS:+--widths $WIDTHS}
say "== weights from HBM"
python3 "$(dirname "$0")/compare_calibrate_detail.py" --a "$OUT"/cal-hbm-*.txt --columns "$cols" $widths | tee -a "$log"
if [ "${L2:-1}" != 0 ]; then
  say "== weights in L2"
  python3 "$(dirname "$0")/compare_calibrate_detail.py" --a "$OUT/cal-l2-1.txt" --columns "$cols" $widths | tee -a "$log"
fi
