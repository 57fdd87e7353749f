#!/usr/bin/env bash
# call 2: DBG = HEAD's kernels with per-CTA globaltimer stamps in the warpgroup kernel
# (timestamps-call2.diff: entry, after the PDL wait, group 0 landed, main loop done, K-slice
# counter taken, end; one launch's records printed by a dump kernel after the 41st launch)
# and compiled routes wg_c32_k8_s4 up to 32 tokens, wg_c64_k6_s4 up to 64; ninfer bench
# --device-profile off per key and width.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/bin/DBG; xz -dc target/ab/DBG/ninfer.xz > /tmp/bin/DBG/ninfer; chmod +x /tmp/bin/DBG/ninfer
S=$OUT/summary-call2.txt
for key in 5120x17408 5120x6144; do for w in 1 16 32 64; do
  NINFER_Q4DUMP=1 timeout 60 /tmp/bin/DBG/ninfer bench --device-profile off --only q4_linear_add/$key --widths $w --samples 5 > $OUT/dbg-$key-$w.txt 2>&1
  echo "$key T=$w rc=$? records=$(grep -c Q4DBG $OUT/dbg-$key-$w.txt) $(grep -E "q4_linear_add" $OUT/dbg-$key-$w.txt | grep -v Q4DBG | tail -1)" | tee -a $S
done; done
