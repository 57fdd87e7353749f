#!/usr/bin/env bash
# call 4 (prepared; run after call 1 passes): branch producer-quant (on natural-k), the int8
# rings quantizing x in their producer warp (act_i8 = 2: trial schedules
# ring_c8_k4_s3_g4_q8_cl, ring_c8_k4_s4_g4_q8_cl, twins of the T <= 8 route
# ring_c8_k4_s3_g4_a8_cl without its quant_act_i8_q4 launch, which cost 0.9-1.3 µs an op at
# T <= 8 in call 9 of h200-2026-12-04e). Every CTA quantizes its K slice again (278 static
# SASS instructions a stage per token row on the producer, which shares a scheduler with
# tile warp 0), so only T = 1-2 can gain. scripts/device-run-calibrate-ab.sh: the check of
# q4 with NKQ (the new schedules at every width they serve), then calibration NK/NKQ A B A B;
# the q8 candidates show with the A side empty, next to the a8 ones timed in the same run.
# Build: scripts/build-ab.sh NK natural-k; scripts/build-ab.sh NKQ producer-quant (without the
#   branches: the same commit of main with natural-k.diff, then also producer-quant.diff)
# carry target/ab/NK, target/ab/NKQ.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh NK NKQ || exit 1
S=$OUT/summary-call4.txt
OUT=$OUT A=/tmp/bin/NK B=/tmp/bin/NKQ ONLY=q4_linear_add CHECK=1 CHECK_TIMEOUT=180 ROUNDS=2 MATCH=ring_c8_k4 \
  WIDTHS=1,2,3,4,8 timeout 500 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "calibrate-ab rc=$?" >> $S
cat $OUT/summary-calibrate-ab.txt >> $S
cat $S
