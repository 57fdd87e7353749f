#!/usr/bin/env bash
# call 1: the q4 rings that quantize in the CTA (`_a8c`, branch a8c, binaries A8C only).
# In the order of what matters, each step only while the device time allows (BUDGET
# seconds, after the refused starts of this session): (1) `ninfer check` of
# ring_c8_k4_s3_g4_a8c_cl at every width of both keys; (2) `ninfer bench` A B A B at
# T = 1, 2, 4, 8, one binary, two profiles: A = the built-in entry re-stamped for A8C's
# route catalog (the routes of main), B = the same with T = 1-8 on ring_c8_k4_s3_g4_a8c_cl
# (profile-C.json); (3) q4 recalibrated into a copy of A (every candidate's time: the
# --detail log); (4) memcheck of ring_c8_k4_s3_g4_a8c_cl; (5) checks of
# ring_c8_k4_s4_g4_a8c_cl and of the twin ring_c8_k4_s3_g4_a8_cl (which reads
# quant_act_i8_q4, rebuilt from the shared rule).
# Build: scripts/build-ab.sh A8C 446b7ff docs/results/h200-2026-12-06a/a8c.diff (branch a8c
# of the session, e6f7dff); carry target/ab/A8C. Ran as: OUT=$OUT BUDGET=400 bash call1.sh.
# Known fault, as it ran: step (2)'s A_ENV / B_ENV expand $OUT after the same command's
# OUT=$OUT/ab, so both name files that do not exist, and both sides ran the built-in entry
# (ring_c8_k4_s3_g4_a8_cl at T <= 8): its B/A of 1.000 says nothing about _a8c. Step (3)'s
# calibration is the measurement.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh A8C || exit 1
B=/tmp/bin/A8C
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$S"
left() { echo $(( ${BUDGET:-450} - SECONDS )); } # the device time this call may still use
timeout 90 $B/ninfer check --schedule ring_c8_k4_s3_g4_a8c_cl --every-width > $OUT/check-a8c-s3.txt 2>&1
say "check ring_c8_k4_s3_g4_a8c_cl rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-a8c-s3.txt | head -8 | tee -a "$S"
digest=$($B/ninfer catalog | sed -n 's/^route catalog //p' | head -1)
python3 - "$digest" $OUT/profile-A.json <<'PY'
import json, sys
d = json.load(open("runtime/src/profile/builtin-device-profiles.json"))
for e in d["devices"]:
    e["calibration"]["route_catalog"] = sys.argv[1]
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
cp $OUT/profile-A.json $OUT/profile-B.json
# side C: the entry with T = 1-8 of both q4 keys on ring_c8_k4_s3_g4_a8c_cl (its twin's band)
python3 - $OUT/profile-A.json $OUT/profile-C.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["devices"]:
    for key, bands in e["routes"].items():
        if key.startswith("q4_linear_add/"):
            e["routes"][key] = [[w, "ring_c8_k4_s3_g4_a8c_cl" if s == "ring_c8_k4_s3_g4_a8_cl" else s] for w, s in bands]
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
$B/ninfer profile check $OUT/profile-C.json 2>&1 | tail -2 | tee -a "$S"
OUT=$OUT/ab A=$B B=$B ROUNDS=2 WIDTHS=1,2,4,8 \
  A_ENV="NINFER_DEVICE_PROFILES=$OUT/profile-A.json" B_ENV="NINFER_DEVICE_PROFILES=$OUT/profile-C.json" \
  timeout 200 bash scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /dev/null 2>&1
say "ab rc=$? (${SECONDS}s)"; cat $OUT/ab/summary-ab.txt >> "$S"
cat $OUT/ab/summary-ab.txt
if [ "$(left)" -gt 60 ]; then
  NINFER_DEVICE_PROFILES=$OUT/profile-B.json timeout 45 $B/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-B.txt 2>&1
  say "calibrate rc=$? (${SECONDS}s) $(tail -1 $OUT/calibrate-B.txt)"
  grep -E "a8c|confirm" $OUT/calibrate-B.txt | grep -E " (1|2|3|4|8) " | head -24 | tee -a "$S"
fi
if [ "$(left)" -gt 70 ]; then
  timeout $(( $(left) - 20 )) compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule ring_c8_k4_s3_g4_a8c_cl \
    --only q4_linear_add/5120x6144 > $OUT/memcheck.txt 2>&1
  say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
fi
for s in ring_c8_k4_s4_g4_a8c_cl ring_c8_k4_s3_g4_a8_cl; do
  [ "$(left)" -gt 40 ] || break
  timeout 30 $B/ninfer check --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
# at most 8 files come back: the summary, and everything else in one archive
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
