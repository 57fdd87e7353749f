#!/usr/bin/env bash
# call 5: ncu of the built-in T <= 8 route ring_c8_k4_s3_g4_a8_cl (OLD = b7870b9): one cold
# launch each at T = 1 and T = 8 (5120x17408; details and per-instruction SASS stalls).
set -u
cd "$(dirname "$0")/../../.."
for b in OLD; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/ninfer.xz; do xz -dc $f > /tmp/bin/$b/ninfer; done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/OLD
S=$OUT/summary-call5.txt
say() { echo "$@" | tee -a $S; }
s=ring_c8_k4_s3_g4_a8_cl
for skip in 0 7; do
  say "== ncu $s (launch $skip of the check at 5120x17408)"
  timeout 200 ncu --kernel-name regex:q4_linear_add__$s --launch-skip $skip --launch-count 1 --set full --import-source no \
    --export /tmp/ncu-$skip -f $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s > /tmp/ncu-$skip.log 2>&1; say "rc=$?"
  ncu --import /tmp/ncu-$skip.ncu-rep --page details > $OUT/ncu-$s-launch$skip-call5.txt 2>&1
  ncu --import /tmp/ncu-$skip.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu-src-$s-launch$skip-call5.csv.gz
  grep -E "Duration|Registers Per|Achieved Active|Issued Ipc|No Eligible|DRAM Throughput|Executed Instructions  |Grid Size|Block Size" $OUT/ncu-$s-launch$skip-call5.txt | head -14 | tee -a $S
done
