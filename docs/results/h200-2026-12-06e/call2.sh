#!/usr/bin/env bash
# call 2: what each t2 and q4 op takes with its weights in L2 against from HBM (binaries L2A =
# main 5c42b7b with `ninfer bench --weights-from`), on each family's built-in entry for the
# card that comes (H100: its own entry), two interleaved rounds; table by
# scripts/bench_modes_table.py. The L2 time bounds what more bandwidth (an H200) can buy.
# Run: OUT=$OUT BUDGET=300 bash call2.sh (carry target/ab/L2A).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-300} - SECONDS )); }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh L2A || exit 1
F=/tmp/bin/L2A
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for fam in t2_i8_small q4_linear_add; do
    W=1,2,4,8,12,16,24,32; [ $fam = q4_linear_add ] && W=$W,48,64
    for mode in hbm l2; do
      [ $(left) -gt 30 ] || { say "budget: stopped before $fam $mode $round"; break 3; }
      timeout $(( $(left) - 10 )) $F/ninfer bench --only $fam --widths $W --weights-from $mode \
        --json > $R/$fam-$mode-$round.json 2> $R/$fam-$mode-$round.err
      say "$fam $mode round $round rc=$? (${SECONDS}s)"
    done
  done
done
grep -h "larger_than_l2" -A4 $R/*-l2-1.json | head -12 >> "$S"
python3 scripts/bench_modes_table.py $R hbm l2 --ratio l2/hbm | tee -a "$S"
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz raw && rm -rf raw && mv /tmp/raw-call2.tar.xz $OUT/
