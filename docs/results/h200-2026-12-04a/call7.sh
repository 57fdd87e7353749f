#!/usr/bin/env bash
# call 7: ncu of Q5's warpgroup schedules: one cold launch each of wg_c64_k6_s4 at T = 64
# and wg_c32_k8_s4 at T = 32 (5120x17408; details and per-instruction SASS stalls).
set -u
cd "$(dirname "$0")/../../.."
for b in Q5; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q5
S=$OUT/summary-call7.txt
say() { echo "$@" | tee -a $S; }
for v in wg_c64_k6_s4:63 wg_c32_k8_s4:31; do
  s=${v%%:*}; skip=${v##*:}
  say "== ncu $s (launch $skip of the check at 5120x17408)"
  timeout 200 ncu --kernel-name regex:q4_linear_add__$s --launch-skip $skip --launch-count 1 --set full --import-source no \
    --export /tmp/ncu-$s -f $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s > /tmp/ncu-$s.log 2>&1; say "rc=$?"
  ncu --import /tmp/ncu-$s.ncu-rep --page details > $OUT/ncu-$s-call7.txt 2>&1
  ncu --import /tmp/ncu-$s.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu-src-$s-call7.csv.gz
  grep -E "Duration|Registers Per|Achieved Active|Issued Ipc|No Eligible|DRAM Throughput|Executed Instructions  " $OUT/ncu-$s-call7.txt | head -12 | tee -a $S
done
