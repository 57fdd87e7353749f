#!/usr/bin/env bash
# call 2: NEW2 = 7845480: NEW1 with the aux records of a stage group-major (in call 1 the
# four token pairs a warp reads at once were 128 bytes apart, one bank set: T >= 4 up to
# 2x slower). OLD = b7870b9. NEW2: ninfer check --only q4_linear_add, memcheck of the two
# built-in int8 schedules at 5120x6144; A B A B `ninfer bench` of both q4 keys on each
# binary's built-in entry; then the q4 family recalibrated with NEW2 (benches before and
# after in device-run-recalibrate.sh).
set -u
cd "$(dirname "$0")/../../.."
for b in OLD NEW2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== NEW2: ninfer check --only q4_linear_add"
/tmp/bin/NEW2/ninfer check --only q4_linear_add > $OUT/check-q4-call2.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call2.txt | head -20 | tee -a $S
for s in ring_c8_k4_s3_g4_a8_cl ring_c16_k4_s3_g4_a8_cl ring_c32_w8_k6_s4_g2_a8; do
  say "== NEW2: memcheck q4_linear_add/5120x6144 --schedule $s"
  compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/NEW2/ninfer check --only q4_linear_add/5120x6144 --schedule $s > /tmp/mc.txt 2>&1
  say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
done
say "== A/B bench (A = OLD, B = NEW2), built-in entry"
LOG_NAME=summary-ab-call2.txt OUT=$OUT A=/tmp/bin/OLD B=/tmp/bin/NEW2 WIDTHS=1,2,4,8,12,16,24,32 \
  bash scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /dev/null 2>&1
grep -A40 "B/A" $OUT/summary-ab-call2.txt | tee -a $S
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (NEW2)"
OUT=/tmp/rc BIN=/tmp/bin/NEW2 FAMILY=q4_linear_add timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-builtin.json bench-q4_linear_add-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call2.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
