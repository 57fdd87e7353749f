#!/usr/bin/env bash
# call 2: PIPE2 = call 1's PIPE with every stage filled ahead (call 1's PIPE filled
# stages - 1 and then waited for a group that no one copied: its check hung at the first
# warpgroup schedule; wg_protocol_sim.py here models the ring and finds that hang), against
# FINAL (ffa6885): checks (each under a timeout now), then ninfer-calibrate --detail of q4,
# FINAL and PIPE2 alternately (A B A B), compared candidate by candidate.
set -u
cd "$(dirname "$0")/../../.."
for b in FINAL PIPE2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/PIPE2
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
say "== PIPE2: ninfer check --only q4_linear_add"
timeout 180 $F/ninfer check --only q4_linear_add > $OUT/check-q4-call2.txt 2>&1; say "rc=$?"
grep -E 'FAIL|checks of' $OUT/check-q4-call2.txt | head -20 | tee -a $S
grep -E "wg_c" $OUT/check-q4-call2.txt | awk '{print $1, $2, $3, $NF}' | sort | uniq -c | sort -rn | head -40 > $OUT/check-wg-call2.txt
for r in 1 2; do for b in FINAL PIPE2; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 100 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call2.txt 2>&1; say "rc=$? $(tail -1 $OUT/calibrate-$b-$r-call2.txt)"
done; done
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-FINAL-*-call2.txt --b $OUT/calibrate-PIPE2-*-call2.txt --match wg_ > $OUT/compare-wg-call2.txt
python3 scripts/compare_calibrate_detail.py --a $OUT/calibrate-FINAL-*-call2.txt --b $OUT/calibrate-PIPE2-*-call2.txt --match wg_ --widths 1,8,16,24,32,48,64 | tee -a $S
