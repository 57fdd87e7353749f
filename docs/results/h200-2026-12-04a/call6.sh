#!/usr/bin/env bash
# call 6: Q5 (bulk copies + mbarriers in the warpgroup schedules, pre-swizzled activation
# image from q4_act_wg; c64 with unrolled rounds too) against Q4: checks (compute_90a and
# baseline PTX), memcheck, ninfer-calibrate --detail of q4, A B A B.
set -u
cd "$(dirname "$0")/../../.."
for b in Q4 Q5; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q5
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== Q5: ninfer check --only q4_linear_add"
timeout 300 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call6.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of|q4_act_wg' $OUT/check-q4-call6.txt | tee -a $S
for s in wg_c32_k8_s4 wg_c64_k6_s4; do
  say "== Q5: NINFER_PTX=baseline ninfer check --only q4_linear_add --schedule $s"
  NINFER_PTX=baseline timeout 120 $F/ninfer check --only q4_linear_add --schedule $s > /tmp/b.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/b.txt | tee -a $S
done
say "== Q5: compute-sanitizer memcheck, q4_linear_add/5120x6144 --schedule wg_c32_k8_s4"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/5120x6144 --schedule wg_c32_k8_s4 > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
for r in 1 2; do for b in Q4 Q5; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call6.txt 2>&1; say "rc=$?"
done; done
