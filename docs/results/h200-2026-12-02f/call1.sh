#!/usr/bin/env bash
# call 1: BASE (session start, 619ab1c) against NEW (the consumer warpgroups decode the V
# keys 32..63 of their own tile while their second Q.K half is in flight; the producer
# decodes keys 0..31): A B A B on the built-in entry, then NEW's checks of 8x1x64w and memcheck.
set -u
cd "$(dirname "$0")/../.."
for b in BASE NEW; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== A/B (A = BASE, B = NEW)"
OUT=/tmp/abo A=/tmp/bin/BASE B=/tmp/bin/NEW WIDTHS=8192,65536,262144 scripts/device-run-ab.sh attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8 attn_i8_small/h24/int8/w4 attn_i8_small/h24/rk4v4/w8 > /tmp/ab.txt 2>&1
tail -13 /tmp/ab.txt | tee -a $S
F=/tmp/bin/NEW
say "== NEW: ninfer check --only attn_i8_small --schedule 8x1x64w --every-width (compute_90a)"
$F/ninfer check --only attn_i8_small --schedule 8x1x64w --every-width > $OUT/check-8x1x64w-call1.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-8x1x64w-call1.txt | tee -a $S
for k in int8/w8 rk8v4/w8 rk4v4/w5; do
  say "== NEW memcheck attn_i8_small/h24/$k 8x1x64w"
  compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only attn_i8_small/h24/$k --schedule 8x1x64w > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
