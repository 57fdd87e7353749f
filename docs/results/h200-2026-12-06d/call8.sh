#!/usr/bin/env bash
# call 8 (binaries WGC8 = branch wg-c8: main efc50ad plus trial q4 schedules
# wg_c8_k4_s4_cl and wg_c8_k4_s8_cl, the warpgroup kernel at 8 columns with the cluster sum:
# BF16 activations, so no quantization launch at T <= 8; FINAL7 = commit b950f69):
# (1) WGC8: `ninfer check --schedule S --every-width` of both trials (both q4 keys); two
#     `ninfer-calibrate --detail --only q4_linear_add`: the trials per width against the best
#     other;
# (2) on an H200 only: FINAL7's checks of q4 and t2, its recalibration of both families into
#     the H200 entry (SECOND=1), and device-run-baselines.sh on its built-in H200 entry (the
#     routes before the recalibration; the recalibration's own benches give the new ones).
# Run: OUT=$OUT BUDGET=540 bash call8.sh (carry target/ab/WGC8, target/ab/FINAL7).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call8.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-540} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh WGC8 FINAL7 || exit 1
W=/tmp/bin/WGC8 F=/tmp/bin/FINAL7
for s in wg_c8_k4_s4_cl wg_c8_k4_s8_cl; do
  timeout 90 $W/ninfer check --only q4_linear_add --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL|error" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-q4-$r.txt 2>&1
  say "calibrate q4 ($r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-q4-$r.txt)"
  python3 - $OUT/calibrate-q4-$r.txt >> "$S" 2>&1 <<'PY'
import collections, re, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(q4_linear_add/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)", line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
trial = {"wg_c8_k4_s4_cl", "wg_c8_k4_s8_cl"}
for (key, w), c in sorted(best.items()):
    t = sorted(((u, v) for v, u in c.items() if v in trial))
    o = sorted(((u, v) for v, u in c.items() if v not in trial))
    if not t: continue
    cells = ", ".join(f"{v} {u:.2f}" for u, v in t)
    print(f"{key} T={w}: best other {o[0][1]} {o[0][0]:.2f}; {cells}")
PY
done
case "$gpu" in
  *H200*)
    crc=0
    for fam in q4_linear_add t2_i8_small; do
      timeout 150 $F/ninfer check --only $fam > $OUT/check-$fam-FINAL7.txt 2>&1
      rc=$?; [ $rc = 0 ] || crc=$rc
      say "check FINAL7 $fam rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam-FINAL7.txt | head -4 | tee -a "$S"
    done
    if [ $crc = 0 ] && [ "$(left)" -gt 200 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 90 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200, FINAL7) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
      if [ -f $RC/profile-recalibrated.json ] && [ "$(left)" -gt 60 ]; then
        BL=$OUT/baselines
        OUT=$BL BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
        say "baselines on FINAL7's built-in H200 entry rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S"
      fi
    else say "H200, check rc $crc, $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: FINAL7's H200 part skipped" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call8.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call8.tar.xz $OUT/
