#!/usr/bin/env bash
# call 7: FINAL = this session's final kernels and runtime (HEAD: the q4 helper kernels'
# shared memory padded under PDL; kernels and catalog unchanged, route catalog
# 8788bc06765d09c9). (1) ninfer check of q4; (2) ninfer-calibrate --detail of q4, R1 against
# FINAL, A B A B: whether a route's fastest candidate moves; (3) ninfer bench of q4 and t2 on
# the built-in entry, the PyTorch baselines on the same shapes and the comparison.
# Build: scripts/build-ab.sh FINAL HEAD; carry target/ab/R1, target/ab/FINAL.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 FINAL || exit 1
F=/tmp/bin/FINAL
S=$OUT/summary-call7.txt
say() { echo "$@" | tee -a $S; }
mkdir -p $OUT/cal
OUT=$OUT/cal A=/tmp/bin/R1 B=$F ONLY=q4_linear_add CHECK=1 CHECK_TIMEOUT=150 ROUNDS=2 WIDTHS=1,8,16,24,32,48,64 \
  timeout 280 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
say "calibrate A/B rc=$?"
grep -E "checks of|FAIL|fastest" $OUT/cal/summary-calibrate-ab.txt >> $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for fam in q4_linear_add t2_i8_small; do
  timeout 90 $F/ninfer bench --only $fam --widths 1,8,16,32,64 --json > $OUT/bench-$fam-call7.json 2> /tmp/bench.err; say "bench $fam rc=$?"
done
timeout 120 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120 --widths 1,8,16,32,64 --out $OUT/torch-call7.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt | tee -a $S
for fam in q4_linear_add t2_i8_small; do
  python3 scripts/compare_baselines.py --all $OUT/torch-call7.json $OUT/bench-$fam-call7.json > $OUT/compare-$fam-call7.txt 2>&1
  grep -E "shape|^(5120|17408)x" $OUT/compare-$fam-call7.txt >> $S
done
tar -C $OUT -cJf /tmp/out-call7.tar.xz cal && rm -rf $OUT/cal && mv /tmp/out-call7.tar.xz $OUT/
cat $S
