#!/usr/bin/env bash
# call 6: HEAD = this session's final HEAD (kernels, catalog and runtime unchanged from the
# session start; route catalog 8788bc06765d09c9): `ninfer bench` of q4 and t2 on the
# built-in entry, the PyTorch baselines on the same shapes and the comparison, then
# `ninfer check` of every family (under a timeout, last).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/bin/HEAD; for f in target/ab/HEAD/*.xz; do xz -dc $f > /tmp/bin/HEAD/$(basename $f .xz); done; chmod +x /tmp/bin/HEAD/*
F=/tmp/bin/HEAD
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
$F/ninfer routes 2>&1 | grep -E "route catalog|mode:" | tee -a $S
for fam in q4_linear_add t2_i8_small; do
  say "== HEAD: ninfer bench --only $fam --widths 1,8,16,32 (built-in entry)"
  $F/ninfer bench --only $fam --widths 1,8,16,32 --out $OUT/bench-$fam-call6.json > /tmp/bench.txt 2>&1; say "rc=$?"; grep -E "read bandwidth" /tmp/bench.txt | head -2 | tee -a $S
done
say "== PyTorch baselines and the comparison"
timeout 150 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120 --widths 1,8,16,32 --out $OUT/torch-call6.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt
for fam in q4_linear_add t2_i8_small; do
  python3 scripts/compare_baselines.py --all $OUT/torch-call6.json $OUT/bench-$fam-call6.json > $OUT/compare-$fam-call6.txt 2>&1
  grep -E "shape|^(5120|17408)x" $OUT/compare-$fam-call6.txt | tee -a $S
done
say "== HEAD: ninfer check (every family, every variant)"
timeout 170 $F/ninfer check > /tmp/check-all.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/check-all.txt | tail -5 | tee -a $S
gzip -c /tmp/check-all.txt > $OUT/check-all-call6.txt.gz
