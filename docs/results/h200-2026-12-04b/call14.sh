#!/usr/bin/env bash
# call 14: CAT = c82db10 plus four cluster schedules in the catalog (route catalog
# 1dc4017075b4b2eb): ring_c16_k4_s4_g4_a8_cl, ring_c16_k8_s3_g4_a8_cl,
# ring_c32_k4_s4_g2_a8_cl, ring_c32_w8_k4_s4_g2_a8_cl (the pushed cluster sum made the
# cluster epilogue cheaper than the workspace one). ninfer check of q4, memchecks of the
# new schedules at 5120x6144; the q4 family recalibrated into the re-stamped built-in entry
# (device-run-recalibrate.sh) and a second calibration (stability).
set -u
cd "$(dirname "$0")/../../.."
for b in CAT; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/CAT
S=$OUT/summary-call14.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== CAT: ninfer check --only q4_linear_add"
$F/ninfer check --only q4_linear_add > $OUT/check-q4-call14.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call14.txt | head -5 | tee -a $S
for sch in ring_c16_k4_s4_g4_a8_cl ring_c16_k8_s3_g4_a8_cl ring_c32_k4_s4_g2_a8_cl ring_c32_w8_k4_s4_g2_a8_cl; do
  say "== CAT: memcheck q4_linear_add/5120x6144 --schedule $sch"
  compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/5120x6144 --schedule $sch > /tmp/mc.txt 2>&1
  say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
done
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (CAT)"
OUT=/tmp/rc BIN=$F FAMILY=q4_linear_add timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-builtin.json bench-q4_linear_add-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call14.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== a second calibration (q4)"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p2.json $F/ninfer-calibrate --only q4_linear_add --out /tmp/second.json > /tmp/second.txt 2>&1; say "rc=$?"; tail -1 /tmp/second.txt | tee -a $S
cp /tmp/second.json $OUT/calibrated-second-call14.json
python3 - $OUT/profile-recalibrated-call14.json $OUT/calibrated-second-call14.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p)); e = d["devices"][0] if "devices" in d else d
    return {k: v for k, v in e["routes"].items() if k.startswith("q4_linear_add")}
a, b = routes(sys.argv[1]), routes(sys.argv[2])
for k in sorted(a):
    print(k, "first:", a[k]); print(k, "second:", b.get(k))
PY
(cd $OUT && tar czf extras-call14.tgz calibrate-q4_linear_add-call14.txt summary-recalibrate-call14.txt calibrated-second-call14.json && rm calibrate-q4_linear_add-call14.txt summary-recalibrate-call14.txt calibrated-second-call14.json)
