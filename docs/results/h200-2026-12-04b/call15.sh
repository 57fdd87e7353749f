#!/usr/bin/env bash
# call 15: FINAL = ffa6885, the final HEAD (its 172 PTX byte-identical to call 14's binary;
# built-in entry of route catalog 8788bc06765d09c9). ninfer check of q4 (and of t2, whose
# kernels are unchanged, as a control); `ninfer bench` of q4 on the built-in entry; PyTorch
# baselines on the same shapes and the comparison.
set -u
cd "$(dirname "$0")/../../.."
for b in FINAL; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL
S=$OUT/summary-call15.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
$F/ninfer routes 2>&1 | grep -A6 "q4_linear_add/5120x6144" | tee -a $S
for fam in q4_linear_add t2_i8_small; do
  say "== FINAL: ninfer check --only $fam"
  $F/ninfer check --only $fam > $OUT/check-$fam-call15.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-$fam-call15.txt | head -5 | tee -a $S
done
say "== FINAL: ninfer bench --only q4_linear_add (built-in entry)"
$F/ninfer bench --only q4_linear_add --out $OUT/bench-q4-call15.json > /tmp/bench.txt 2>&1; say "rc=$?"; grep -E "device:|read bandwidth" /tmp/bench.txt | head -3 | tee -a $S
say "== PyTorch baselines and the comparison"
timeout 240 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144 --widths 1,8,16,32,64 --out $OUT/torch-q4-call15.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt
python3 scripts/compare_baselines.py --all $OUT/torch-q4-call15.json $OUT/bench-q4-call15.json 2>&1 | tee $OUT/compare-q4-call15.txt | grep -E "^5120x(17408|6144) +(1|8|16|32|64) |shape" | tee -a $S
