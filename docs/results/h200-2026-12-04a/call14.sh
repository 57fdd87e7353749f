#!/usr/bin/env bash
# call 14: W8 = the final HEAD plus two-warpgroup schedules (wg_c32_w8_k6_s4, wg_c64_w8_k6_s4:
# two 64-row bands share each stage's token rows; experiment): their checks, then
# ninfer-calibrate --detail of q4 twice.
set -u
cd "$(dirname "$0")/../../.."
for b in W8; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/W8
S=$OUT/summary-call14.txt
say() { echo "$@" | tee -a $S; }
for s in wg_c32_w8_k6_s4 wg_c64_w8_k6_s4; do
  say "== W8: ninfer check --only q4_linear_add --schedule $s"
  $F/ninfer check --only q4_linear_add --schedule $s > /tmp/c.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/c.txt | tee -a $S
done
for r in 1 2; do
  say "== W8 (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 $F/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-W8-$r-call14.txt 2>&1; say "rc=$?"
done
