#!/usr/bin/env bash
# call 2: Q2 (the warpgroup schedules with weights scaled in BF16 before the MMA, no wait per group; wg_c16_k8_s8 and wg_c32_k8_s8 added; calibration measures the compiled route at every width):
# wg_c64_k8_s4 + module q4_act_wg): check of the q4 family, memcheck of a wgmma variant,
# then the family recalibrated (bench on the built-in routes, ninfer-calibrate --detail,
# bench on the new routes).
set -u
cd "$(dirname "$0")/../../.."
for b in Q2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q2
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== Q2: ninfer check --only q4_linear_add"
timeout 300 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call2.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of|q4_act_wg|wg_c|forward' $OUT/check-q4-call2.txt | tee -a $S
say "== Q2: compute-sanitizer memcheck, q4_linear_add/5120x6144 --schedule wg_c64_k6_s4"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/5120x6144 --schedule wg_c64_k6_s4 > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (Q2)"
OUT=/tmp/rc BIN=$F FAMILY=q4_linear_add timeout 400 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-recalibrated.json bench-q4_linear_add-builtin.json; do cp /tmp/rc/$f $OUT/${f%.*}-call2.${f##*.}; done
tail -60 /tmp/rc/summary-recalibrate.txt | tee -a $S
