#!/usr/bin/env bash
# call 6 (prepared, not run): KN = HEAD (b4778a0 or later, same kernels) plus
# knockouts-prepared.diff: trial schedules wg_c32_k8_s4_kn<bits> and wg_c64_k6_s4_kn<bits>
# that leave parts of the warpgroup main loop out (1 token-row copies, 2 scale copies,
# 4 weight copies, 8 decode, 16 wgmma, 32 rescale; timing only: their results are wrong,
# so no check). ninfer-calibrate --detail of q4 four times (A B A B with A = B = KN: the
# two columns are the same binary, their ratio the noise), every candidate's median.
# Build: scripts/build-ab.sh KN HEAD docs/results/h200-2026-12-04d/knockouts-prepared.diff;
# carry target/ab/KN.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh KN || exit 1
S=$OUT/summary-call6.txt
A=/tmp/bin/KN B=/tmp/bin/KN ONLY=q4_linear_add ROUNDS=2 MATCH=wg_c WIDTHS=1,16,32,64 \
  timeout 200 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1; echo "calibrate rc=$?" | tee -a $S
grep -E "wg_c" $OUT/summary-calibrate-ab.txt >> $S
cat $S
