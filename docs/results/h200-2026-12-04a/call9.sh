#!/usr/bin/env bash
# call 9: F6, the memcheck failures of call 8 (wg_c64_k6_s4 at 5120x17408: 53 of 64 checks
# failed under compute-sanitizer, 0 memory errors): which rows fail, with and without PDL,
# other schedules and keys under memcheck, and repeated plain checks.
set -u
cd "$(dirname "$0")/../../.."
for b in F6; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/F6
S=$OUT/summary-call9.txt
say() { echo "$@" | tee -a $S; }
for pdl in 1 0; do
  say "== memcheck NINFER_PDL=$pdl q4_linear_add/5120x17408 --schedule wg_c64_k6_s4"
  NINFER_PDL=$pdl timeout 150 compute-sanitizer --tool memcheck --print-limit 5 $F/ninfer check --only q4_linear_add/5120x17408 --schedule wg_c64_k6_s4 > $OUT/mc-pdl$pdl-call9.txt 2>&1; say "rc=$?"
  grep -E 'ERROR SUMMARY|checks of' $OUT/mc-pdl$pdl-call9.txt | tail -2 | tee -a $S; grep -E "FAIL" $OUT/mc-pdl$pdl-call9.txt | head -6 | cut -c1-220 | tee -a $S
done
for v in 5120x6144:wg_c64_k6_s4 5120x17408:wg_c32_k8_s4 5120x17408:wg_c64_k4_s4; do
  say "== memcheck q4_linear_add/${v%%:*} --schedule ${v##*:}"
  timeout 150 compute-sanitizer --tool memcheck --print-limit 5 $F/ninfer check --only q4_linear_add/${v%%:*} --schedule ${v##*:} > /tmp/mc.txt 2>&1; say "rc=$?"
  grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S; grep -E "FAIL" /tmp/mc.txt | head -4 | cut -c1-220 | tee -a $S
done
say "== racecheck/synccheck not applicable to bulk copies; plain checks x3 of wg_c64_k6_s4 and wg_c64_k4_s4 at 5120x17408 --every-width"
for r in 1 2 3; do for s in wg_c64_k6_s4 wg_c64_k4_s4; do
  $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s --every-width > /tmp/c.txt 2>&1; say "$s rc=$?"; grep -E 'checks of' /tmp/c.txt | tee -a $S; grep FAIL /tmp/c.txt | head -3 | cut -c1-200 | tee -a $S
done; done
