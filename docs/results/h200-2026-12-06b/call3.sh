#!/usr/bin/env bash
# call 3 (binaries MAIN3 = commit a5edb8f, whose catalog has the BF16 cluster rings
# ring_c{8,16}_k4_s3_g4_cl, plus bf16cl-g2.diff: two more with 2 groups a stage,
# ring_c8_k4_s{4,6}_g2_cl, for the short K slices of 5120x6144): on
# whatever card is lent, (1) `ninfer check --only q4_linear_add --schedule S --every-width`
# of those four, (2) memcheck of ring_c8_k4_s3_g4_cl
# on 5120x6144, (3) scripts/device-run-recalibrate.sh with FAMILY=q4_linear_add (bench on
# the re-stamped built-in routes, recalibration into that entry, bench again, per-width
# ratios), (4) a second calibration into a copy of the recalibrated entry, to see which
# routes a rerun keeps. Run: OUT=$OUT BUDGET=... bash call3.sh (carry target/ab/MAIN3).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh MAIN3 || exit 1
B=/tmp/bin/MAIN3
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-450} - SECONDS )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$S"
for s in ring_c8_k4_s3_g4_cl ring_c16_k4_s3_g4_cl ring_c8_k4_s4_g2_cl ring_c8_k4_s6_g2_cl; do
  timeout 60 $B/ninfer check --only q4_linear_add --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule ring_c8_k4_s3_g4_cl \
  --only q4_linear_add/5120x6144 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
RC=$OUT/recal
OUT=$RC BIN=$B FAMILY=q4_linear_add timeout $(( $(left) - 60 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
if [ "$(left)" -gt 30 ] && [ -f $RC/profile-recalibrated.json ]; then
  cp $RC/profile-recalibrated.json $OUT/profile-second.json
  NINFER_DEVICE_PROFILES=$OUT/profile-second.json timeout 40 $B/ninfer-calibrate --detail --only q4_linear_add \
    > $OUT/calibrate-second.txt 2>&1
  say "second calibration rc=$? (${SECONDS}s) $(tail -1 $OUT/calibrate-second.txt)"
  python3 - $RC/profile-recalibrated.json $OUT/profile-second.json <<'PY' | tee -a "$S"
import json, sys
def q4(p):
    d = json.load(open(p))
    return {k: v for e in d["devices"] for k, v in e["routes"].items() if k.startswith("q4_linear_add/")}
a, b = q4(sys.argv[1]), q4(sys.argv[2])
for k in sorted(a):
    print(k, "first ", a[k])
    print(k, "second", b.get(k), "(same)" if a[k] == b.get(k) else "(differs)")
PY
fi
cd $OUT && tar -cJf /tmp/raw-call3.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call3.tar.xz $OUT/
