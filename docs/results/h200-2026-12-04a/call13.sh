#!/usr/bin/env bash
# call 13: FINAL13 = the final HEAD (PTX byte-identical to call 12's F7; host: bench names
# the launches of q4's launch plan, helpers shared in common/warpgroup_ring.cuh):
# ninfer check of q4 and t2, ninfer bench of q4 on the built-in entry (a fresh profile file).
set -u
cd "$(dirname "$0")/../../.."
for b in FINAL13; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL13
S=$OUT/summary-call13.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for fam in q4_linear_add t2_i8_small; do
  say "== FINAL13: ninfer check --only $fam"
  $F/ninfer check --only $fam > $OUT/check-$fam-call13.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-$fam-call13.txt | tee -a $S
done
say "== FINAL13: ninfer bench --only q4_linear_add (built-in entry)"
$F/ninfer bench --only q4_linear_add --out $OUT/bench-q4-call13.json > /tmp/bench.txt 2>&1; say "rc=$?"; grep -E "device:|key| (1|8|16|32|33|40|64) " /tmp/bench.txt | tee -a $S
