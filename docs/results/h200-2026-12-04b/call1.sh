#!/usr/bin/env bash
# call 1: NEW1 = the int8-activation rings without the high-nibble shift and the FADD of
# the correction (one LOP3 per weight register; the MMAs start from the corrections, which
# quant_act_i8_q4 now writes per token pair in the C fragment's order), OLD = b7870b9.
# NEW1: ninfer check --only q4_linear_add, memcheck of the two built-in int8 schedules at
# 5120x6144; then A B A B `ninfer bench` of both q4 keys on each binary's built-in entry.
set -u
cd "$(dirname "$0")/../../.."
for b in OLD NEW1; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== NEW1: ninfer check --only q4_linear_add"
/tmp/bin/NEW1/ninfer check --only q4_linear_add > $OUT/check-q4-call1.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call1.txt | head -20 | tee -a $S
for s in ring_c8_k4_s3_g4_a8_cl ring_c16_k4_s3_g4_a8_cl; do
  say "== NEW1: memcheck q4_linear_add/5120x6144 --schedule $s"
  compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/NEW1/ninfer check --only q4_linear_add/5120x6144 --schedule $s > /tmp/mc.txt 2>&1
  say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
done
say "== A/B bench (A = OLD, B = NEW1), built-in entry"
# (as first run this line passed BIN= instead of B= and timed nothing; the A/B was run
# again as this line in a second device call, right after: summary-ab-call1.txt)
LOG_NAME=summary-ab-call1.txt OUT=$OUT A=/tmp/bin/OLD B=/tmp/bin/NEW1 WIDTHS=1,2,4,8,12,16,24,32 \
  bash scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /dev/null 2>&1
cat $OUT/summary-ab-call1.txt >> $S; tail -20 $OUT/summary-ab-call1.txt
