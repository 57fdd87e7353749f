#!/usr/bin/env bash
# call 4 (prepared; run last, once the branches that passed calls 1-3 are merged and the
# built-in entry holds call 2's (and, if merged, call 3's) recalibrated routes): the final
# numbers of issue 5 with the PyTorch baselines in the same call, as call 7 of
# h200-2026-12-04e. FINAL = main at that point.
# Build: scripts/build-ab.sh FINAL main; rm target/ab/FINAL/ninfer-calibrate.xz
# carry target/ab/FINAL.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL || exit 1
F=/tmp/bin/FINAL
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
timeout 180 $F/ninfer check --only q4_linear_add > $OUT/check-q4-final.txt 2>&1; say "check q4 rc=$?"
grep -E "checks of|FAIL" $OUT/check-q4-final.txt | head -10 >> $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for fam in q4_linear_add t2_i8_small; do
  timeout 90 $F/ninfer bench --only $fam --widths 1,8,16,32,64 --json > $OUT/bench-$fam-call4.json 2> /tmp/bench.err; say "bench $fam rc=$?"
done
timeout 120 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120 --widths 1,8,16,32,64 --out $OUT/torch-call4.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt | tee -a $S
for fam in q4_linear_add t2_i8_small; do
  python3 scripts/compare_baselines.py --all $OUT/torch-call4.json $OUT/bench-$fam-call4.json > $OUT/compare-$fam-call4.txt 2>&1
  grep -E "shape|^(5120|17408)x" $OUT/compare-$fam-call4.txt >> $S
done
cat $S
