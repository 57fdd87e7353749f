#!/usr/bin/env bash
# call 5 (refused: no machine was lent; prepared for the next session): EPI = R1 (b4778a0:
# the q4 warpgroup refill kept from call 4) plus (a) q4's K-slice sum loading several
# column tiles' partials per L2 round (a tile's partials in one range), every q4 schedule
# but the cluster ones, and (b) the t2 warpgroup kernel's copies issued while the group's
# MMAs run (epilogue-rounds-and-t2-refill-call5.diff), against R1: per family, the check
# with EPI under a timeout, then ninfer-calibrate --detail A B A B.
# Build: scripts/build-ab.sh R1 b4778a0; scripts/build-ab.sh EPI b4778a0
# docs/results/h200-2026-12-04d/epilogue-rounds-and-t2-refill-call5.diff; carry both.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 EPI || exit 1
for fam in q4_linear_add t2_i8_small; do
  OUT=$OUT/$fam A=/tmp/bin/R1 B=/tmp/bin/EPI ONLY=$fam CHECK=1 CHECK_TIMEOUT=150 ROUNDS=2 WIDTHS=1,8,16,24,32,48,64 \
    timeout 300 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
  echo "$fam rc=$?" >> $OUT/summary-call5.txt
  grep -E "check|FAIL|fastest|B/A" $OUT/$fam/summary-calibrate-ab.txt >> $OUT/summary-call5.txt
done
cat $OUT/summary-call5.txt
