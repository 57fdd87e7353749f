#!/usr/bin/env bash
# call 5: call 4 found the q4 warpgroup op slower with programmatic dependent launch on its
# first kernel (q4_act_wg) than with it on the projection only (NINFER_PDL=second): 5120x17408
# T = 32 30.5 against 28.1 µs (stamped build). Here the shipped binaries (R1 = HEAD's
# kernels) on the built-in entry, every q4 and t2 key: ninfer bench with NINFER_PDL=1
# (default), second and 0, interleaved, two rounds.
# carry target/ab/R1.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 || exit 1
S=$OUT/summary-call5.txt
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for pdl in 1 second 0; do
    NINFER_PDL=$pdl timeout 90 /tmp/bin/R1/ninfer bench --only q4_linear_add --widths 1,4,8,16,24,32,48,64 \
      --samples 7 --json > $R/q4-$pdl-$round.json 2> $R/q4-$pdl-$round.err
    echo "q4 PDL=$pdl round $round rc=$?" >> $R/rc.txt
    NINFER_PDL=$pdl timeout 90 /tmp/bin/R1/ninfer bench --only t2_i8_small --widths 1,4,8,16,32 \
      --samples 7 --json > $R/t2-$pdl-$round.json 2> $R/t2-$pdl-$round.err
    echo "t2 PDL=$pdl round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 scripts/bench_modes_table.py $R 1 second 0 --ratio second/1 >> $S
tar -C $OUT -cJf /tmp/out-call5.tar.xz raw && rm -rf $R && mv /tmp/out-call5.tar.xz $OUT/
cat $S
