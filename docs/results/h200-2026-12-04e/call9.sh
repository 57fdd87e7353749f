#!/usr/bin/env bash
# call 9: what q4_linear_add's helper launch costs an op on the final routes (the bound on
# fusing the activation quantization or image into the projection). SK = HEAD +
# skip-helper.diff: NINFER_SKIP_HELPER=1 leaves quant_act_i8_q4 / q4_act_wg out (the
# projection reads stale rows: timing only). ninfer bench of q4 on the built-in entry,
# with and without, interleaved, two rounds. carry target/ab/SK (ninfer only).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh SK || exit 1
S=$OUT/summary-call9.txt
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for mode in with skip; do
    env=(NINFER_SKIP_HELPER_UNSET=1); [ $mode = skip ] && env=(NINFER_SKIP_HELPER=1)
    env "${env[@]}" timeout 90 /tmp/bin/SK/ninfer bench --only q4_linear_add --widths 1,4,8,16,24,32,64 \
      --samples 7 --json > $R/q4-$mode-$round.json 2> $R/q4-$mode-$round.err
    echo "q4 $mode round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 scripts/bench_modes_table.py $R with skip --ratio skip/with >> $S
tar -C $OUT -cJf /tmp/out-call9.tar.xz raw && rm -rf $R && mv /tmp/out-call9.tar.xz $OUT/
cat $S
