#!/usr/bin/env bash
# call 4, as it ran (one command line of the device tool, written out): the attention
# families of the H100 calibrated into a fresh file, the second half of its built-in entry
# (call 3 took the projections). Build: FINAL2 as in call1.sh; carry target/ab/FINAL2.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 && S=$OUT/summary-call4.txt && nvidia-smi --query-gpu=name --format=csv,noheader > $S && timeout 330 /tmp/bin/FINAL2/ninfer-calibrate --out $OUT/h100-attention-profiles.json --no-ternary --no-groupwise --no-linear-attention --detail > $OUT/calibrate-attn.txt 2>&1; echo "calibrate rc=$?" >> $S; grep "keys measured" $OUT/calibrate-attn.txt >> $S; xz -9 $OUT/calibrate-attn.txt; cat $S
