#!/usr/bin/env bash
# call 5: EPI = R1 (adc62e5: the q4 warpgroup refill kept from call 4) plus (a) q4's K-slice
# sum loading several column tiles' partials per L2 round (a tile's partials in one range),
# every q4 schedule but the cluster ones, and (b) the t2 warpgroup kernel's copies issued
# while the group's MMAs run (epilogue-rounds-and-t2-refill-call5.diff), against R1: checks
# of q4 and t2 under a timeout, then ninfer-calibrate --detail of each family, A B A B.
set -u
cd "$(dirname "$0")/../../.."
for b in R1 EPI; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call5.txt
for fam in q4_linear_add t2_i8_small; do
  echo "== EPI: ninfer check --only $fam" | tee -a $S
  timeout 150 /tmp/bin/EPI/ninfer check --only $fam > $OUT/check-$fam-call5.txt 2>&1; echo "rc=$?" | tee -a $S
  grep -E 'FAIL|checks of' $OUT/check-$fam-call5.txt | head -20 | tee -a $S
done
for fam in q4_linear_add t2_i8_small; do
  mkdir -p $OUT/$fam
  OUT=$OUT/$fam A=/tmp/bin/R1 B=/tmp/bin/EPI ONLY=$fam ROUNDS=2 WIDTHS=1,8,16,24,32,48,64 \
    timeout 150 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1; echo "$fam calibrate-ab rc=$?" | tee -a $S
  grep -E "fastest|B/A" $OUT/$fam/summary-calibrate-ab.txt >> $S
done
cat $S
