#!/usr/bin/env bash
# call 1: Q1 (q4_linear_add warpgroup schedules wg_c16_k8_s4, wg_c32_k8_s4, wg_c64_k6_s4,
# wg_c64_k8_s4 + module q4_act_wg): check of the q4 family, memcheck of a wgmma variant,
# then the family recalibrated (bench on the built-in routes, ninfer-calibrate --detail,
# bench on the new routes).
set -u
cd "$(dirname "$0")/../../.."
for b in Q1; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q1
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== Q1: ninfer check --only q4_linear_add"
timeout 300 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call1.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of|q4_act_wg|wg_c|forward' $OUT/check-q4-call1.txt | tee -a $S
say "== Q1: compute-sanitizer memcheck, q4_linear_add/5120x6144 --schedule wg_c64_k6_s4"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/5120x6144 --schedule wg_c64_k6_s4 > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (Q1)"
OUT=/tmp/rc BIN=$F FAMILY=q4_linear_add timeout 400 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-recalibrated.json bench-q4_linear_add-builtin.json; do cp /tmp/rc/$f $OUT/${f%.*}-call1.${f##*.}; done
tail -60 /tmp/rc/summary-recalibrate.txt | tee -a $S
