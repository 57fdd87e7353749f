#!/usr/bin/env bash
# call 10: of the 3.7-4.7 µs the warpgroup op pays for q4_act_wg (call 9), how much is the
# launch and its handoffs and how much the work? EM = HEAD + empty-actwg.diff (call 9's
# NINFER_SKIP_HELPER plus NINFER_ACTWG_EMPTY=1: q4_act_wg launched over 0 tokens, one CTA
# that returns at once; timing only). ninfer bench of q4 at T = 24, 32, 64 (warpgroup
# routes): as shipped, empty helper, no helper; two rounds. carry target/ab/EM (ninfer only).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh EM || exit 1
S=$OUT/summary-call10.txt
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for mode in with empty skip; do
    env=(NINFER_UNUSED=1); [ $mode = empty ] && env=(NINFER_ACTWG_EMPTY=1); [ $mode = skip ] && env=(NINFER_SKIP_HELPER=1)
    env "${env[@]}" timeout 60 /tmp/bin/EM/ninfer bench --only q4_linear_add --widths 24,32,64 \
      --samples 7 --json > $R/q4-$mode-$round.json 2> $R/q4-$mode-$round.err
    echo "q4 $mode round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 scripts/bench_modes_table.py $R with empty skip >> $S
tar -C $OUT -cJf /tmp/out-call10.tar.xz raw && rm -rf $R && mv /tmp/out-call10.tar.xz $OUT/
cat $S
