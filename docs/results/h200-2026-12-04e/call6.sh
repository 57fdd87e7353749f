#!/usr/bin/env bash
# call 6: call 5 measured the q4 warpgroup op faster with its first kernel (q4_act_wg)
# launched without PDL (NINFER_PDL=second: 5120x17408 T = 64 41.53 -> 39.67 µs), while the
# rings and t2 lose without it. A guess: launched early, while the projection ahead drains,
# the helper's CTAs pile onto the first SMs that free up (up to 8 an SM), as the
# projection's did before its shared memory was padded. EV = HEAD + even-first-kernels.diff:
# NINFER_EVEN_FIRST=1 pads q4_act_wg's dynamic shared memory the same way (even_share_smem),
# 2 also quant_act_i8_q4 and t2's quant_act_i8. ninfer bench of q4 and t2 with EVEN_FIRST
# 0, 1, 2 (PDL on) and NINFER_PDL=second, interleaved, two rounds; then the q4 check with 2.
# carry target/ab/EV (ninfer only).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh EV || exit 1
S=$OUT/summary-call6.txt
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for mode in e0 e1 e2 second; do
    env=(NINFER_EVEN_FIRST=${mode#e}); [ $mode = second ] && env=(NINFER_PDL=second)
    env "${env[@]}" timeout 90 /tmp/bin/EV/ninfer bench --only q4_linear_add --widths 1,4,8,16,24,32,48,64 \
      --samples 7 --json > $R/q4-$mode-$round.json 2> $R/q4-$mode-$round.err
    echo "q4 $mode round $round rc=$?" >> $R/rc.txt
    env "${env[@]}" timeout 90 /tmp/bin/EV/ninfer bench --only t2_i8_small --widths 1,4,8,16,32 \
      --samples 7 --json > $R/t2-$mode-$round.json 2> $R/t2-$mode-$round.err
    echo "t2 $mode round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 scripts/bench_modes_table.py $R e0 e1 e2 second --ratio e1/e0 --ratio e2/e0 >> $S
NINFER_EVEN_FIRST=2 timeout 150 /tmp/bin/EV/ninfer check --only q4_linear_add > $R/check-q4-e2.txt 2>&1; echo "check q4 e2 rc=$?" >> $S
NINFER_EVEN_FIRST=2 timeout 100 /tmp/bin/EV/ninfer check --only t2_i8_small > $R/check-t2-e2.txt 2>&1; echo "check t2 e2 rc=$?" >> $S
grep -hE "checks of|FAIL" $R/check-*.txt | head >> $S
tar -C $OUT -cJf /tmp/out-call6.tar.xz raw && rm -rf $R && mv /tmp/out-call6.tar.xz $OUT/
cat $S
