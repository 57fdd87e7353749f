#!/usr/bin/env bash
# call 10: F6, replay of call 8's failing memcheck seed (wg_c64_k6_s4 at 5120x17408, seed
# 1796381181127207800) without and with compute-sanitizer; the same seed on wg_c64_k4_s4
# and on the compiled route's schedule.
set -u
cd "$(dirname "$0")/../../.."
for b in F6; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/F6
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a $S; }
SEED=1796381181127207800
for s in wg_c64_k6_s4 wg_c64_k4_s4 ring_c32_w8_k6_s4_g2 wg_c32_k8_s4; do
  say "== plain, seed $SEED, $s"
  $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s --seed $SEED --every-width > $OUT/replay-$s-call10.txt 2>&1; say "rc=$?"
  grep -E 'checks of' $OUT/replay-$s-call10.txt | tee -a $S; grep FAIL $OUT/replay-$s-call10.txt | head -4 | cut -c1-240 | tee -a $S
done
say "== memcheck, seed $SEED, wg_c64_k6_s4"
timeout 150 compute-sanitizer --tool memcheck --print-limit 5 $F/ninfer check --only q4_linear_add/5120x17408 --schedule wg_c64_k6_s4 --seed $SEED --every-width > $OUT/replay-mc-call10.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of' $OUT/replay-mc-call10.txt | tail -2 | tee -a $S; grep FAIL $OUT/replay-mc-call10.txt | head -4 | cut -c1-240 | tee -a $S
