#!/usr/bin/env bash
# call 3: Q3 (Q2 + two accumulator sets, the k-steps alternating, for up to 32 tokens):
# ncu of one cold launch of wg_c16_k8_s4 (T = 1) and wg_c64_k6_s4 (T = 64) at 5120x17408
# (details and per-instruction SASS stalls), then ninfer-calibrate --detail of q4.
set -u
cd "$(dirname "$0")/../../.."
for b in Q3; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q3
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
for v in wg_c16_k8_s4:0 wg_c64_k6_s4:63; do
  s=${v%%:*}; skip=${v##*:}
  say "== ncu $s (launch $skip of the check at 5120x17408)"
  timeout 200 ncu --kernel-name regex:q4_linear_add__$s --launch-skip $skip --launch-count 1 --set full --import-source no \
    --export /tmp/ncu-$s -f $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s > /tmp/ncu-$s.log 2>&1; say "rc=$?"
  ncu --import /tmp/ncu-$s.ncu-rep --page details > $OUT/ncu-$s-call3.txt 2>&1
  ncu --import /tmp/ncu-$s.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu-src-$s-call3.csv.gz
  grep -E "Duration|Registers Per|Achieved Occupancy|Issued Ipc|No Eligible|Memory Throughput|DRAM Throughput|Block Limit" $OUT/ncu-$s-call3.txt | head -12 | tee -a $S
done
say "== Q3: ninfer-calibrate --detail --only q4_linear_add"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 $F/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-q4_linear_add-call3.txt 2>&1; say "rc=$?"
grep "keys measured" $OUT/calibrate-q4_linear_add-call3.txt | tee -a $S
