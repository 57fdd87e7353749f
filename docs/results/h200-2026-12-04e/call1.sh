#!/usr/bin/env bash
# call 1: the twenty-first session's prepared calls 5 and 6 in one GPU call.
# (a) EPI vs R1 (h200-2026-12-04d/call5.sh): R1 = b4778a0 (the shipped kernels; HEAD's PTX
#     is byte-identical), EPI = R1 + epilogue-rounds-and-t2-refill-call5.diff. Per family:
#     the check with EPI under a timeout, then ninfer-calibrate --detail A B A B.
# (b) KN (h200-2026-12-04d/call6.sh): HEAD + knockouts-prepared.diff, the knock-out trial
#     schedules wg_c32_k8_s4_kn<bits>, wg_c64_k6_s4_kn<bits>; timing only (A = B = KN).
# Build: scripts/build-ab.sh R1 b4778a0
#        scripts/build-ab.sh EPI b4778a0 docs/results/h200-2026-12-04d/epilogue-rounds-and-t2-refill-call5.diff
#        scripts/build-ab.sh KN HEAD docs/results/h200-2026-12-04d/knockouts-prepared.diff
# carry target/ab/R1, target/ab/EPI, target/ab/KN.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 EPI KN || exit 1
S=$OUT/summary-call1.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
for fam in q4_linear_add t2_i8_small; do
  mkdir -p $OUT/epi-$fam
  OUT=$OUT/epi-$fam A=/tmp/bin/R1 B=/tmp/bin/EPI ONLY=$fam CHECK=1 CHECK_TIMEOUT=120 ROUNDS=2 WIDTHS=1,8,16,24,32,48,64 \
    timeout 170 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
  echo "EPI $fam rc=$?" >> $S
  grep -vE "^==|^rc=" $OUT/epi-$fam/summary-calibrate-ab.txt >> $S
done
mkdir -p $OUT/kn
OUT=$OUT/kn A=/tmp/bin/KN B=/tmp/bin/KN ONLY=q4_linear_add ROUNDS=2 MATCH=wg_c WIDTHS=1,16,32,64 \
  timeout 170 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "KN calibrate rc=$?" >> $S
grep -E "wg_c" $OUT/kn/summary-calibrate-ab.txt >> $S
cat $S
