#!/usr/bin/env bash
# Prepared, not run (call 2 of this session was planned as a full calibration, benches,
# baselines and this rerun in one call; its starts were refused, and calls 3-5 took the
# rest). What is left of it: call 1's even split lengths (EX, NINFER_EXP_EVEN_SPLITS=1)
# against FINAL2 on the calibrated W = 8 route `8x1x64w` (the built-in entry of the H100
# or H200: EX's route catalog is FINAL2's, since template text is not in the digest), W = 8
# at 64K and 262K, three interleaved rounds (device-run-ab.sh: a fresh profile file, so each
# binary runs the built-in entry). Call 1 measured 3-4 % at 64K on the compiled
# mma.sync route only.
# Build: FINAL2 and EX as in call1.sh (EX from even-splits-b16.diff on ee6b3c2);
#   carry target/ab/FINAL2, target/ab/EX.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 EX || exit 1
S=$OUT/summary-call2.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
OUT=$OUT A=/tmp/bin/FINAL2 B=/tmp/bin/EX B_ENV="NINFER_EXP_EVEN_SPLITS=1" ROUNDS=3 \
  WIDTHS=65536,262144 timeout 300 bash scripts/device-run-ab.sh \
  attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8 > /dev/null 2>&1
echo "bench A/B rc=$?" >> $S
cat $OUT/summary-ab.txt >> $S
cat $S
