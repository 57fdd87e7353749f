#!/usr/bin/env bash
# call 11 (prepared, not run): q4_act_wg with one thread per 16-byte output chunk (four
# 4-byte gathers, one 16-byte store; 8x the threads) instead of one per 128-byte row
# (actwg-chunks.diff; the image is the same: an index emulation of both kernels agreed).
# Worth running if call 10 shows q4_act_wg's own work is a large share of what the helper
# costs the warpgroup op. CH = HEAD + actwg-chunks.diff against HEAD: the check of q4 with CH
# (it compares q4_act_wg's image with pack::warpgroup_image), then bench of the warpgroup
# widths, two interleaved rounds.
# Build: scripts/build-ab.sh HEAD; scripts/build-ab.sh CH HEAD docs/results/h200-2026-12-04e/actwg-chunks.diff
# carry target/ab/HEAD, target/ab/CH (ninfer only suffices).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh HEAD CH || exit 1
S=$OUT/summary-call11.txt
R=$OUT/raw; mkdir -p $R
timeout 150 /tmp/bin/CH/ninfer check --only q4_linear_add > $R/check-q4-CH.txt 2>&1; echo "check CH rc=$?" >> $S
grep -E "checks of|FAIL" $R/check-q4-CH.txt | head >> $S
for round in 1 2; do
  for side in HEAD CH; do
    timeout 60 /tmp/bin/$side/ninfer bench --only q4_linear_add --widths 24,32,48,64 --samples 7 --json \
      > $R/q4-$side-$round.json 2> $R/q4-$side-$round.err
    echo "q4 $side round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 scripts/bench_modes_table.py $R HEAD CH --ratio CH/HEAD >> $S
tar -C $OUT -cJf /tmp/out-call11.tar.xz raw && rm -rf $R && mv /tmp/out-call11.tar.xz $OUT/
cat $S
