#!/usr/bin/env bash
# call 11: Q6 (exact group sums rescaled in fp32 again, bulk copies and mbarriers kept):
# checks (call 10's failing seed, fresh seeds, baseline PTX), memcheck, and
# ninfer-calibrate --detail of q4, Q4 (exact, cp.async) and Q6 alternately (A B A B).
set -u
cd "$(dirname "$0")/../../.."
for b in Q4 Q6; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/Q6
S=$OUT/summary-call11.txt
say() { echo "$@" | tee -a $S; }
SEED=1796381181127207800
for s in wg_c64_k6_s4 wg_c32_k8_s4; do
  say "== Q6: seed $SEED, $s"
  $F/ninfer check --only q4_linear_add/5120x17408 --schedule $s --seed $SEED > /tmp/c.txt 2>&1; say "rc=$?"; grep -E 'checks of' /tmp/c.txt | tee -a $S; grep FAIL /tmp/c.txt | head -3 | cut -c1-200 | tee -a $S
done
say "== Q6: ninfer check --only q4_linear_add, three fresh seeds"
for r in 1 2 3; do $F/ninfer check --only q4_linear_add > $OUT/check-q4-$r-call11.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-$r-call11.txt | tee -a $S; done
grep -E "wg_c|q4_act_wg" $OUT/check-q4-1-call11.txt | tee -a $S
for s in wg_c32_k8_s4 wg_c64_k6_s4; do
  say "== Q6: NINFER_PTX=baseline ninfer check --only q4_linear_add --schedule $s"
  NINFER_PTX=baseline $F/ninfer check --only q4_linear_add --schedule $s > /tmp/b.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/b.txt | tee -a $S
done
for v in 5120x17408:wg_c64_k6_s4 5120x6144:wg_c32_k8_s4; do
  say "== Q6: compute-sanitizer memcheck, q4_linear_add/${v%%:*} --schedule ${v##*:}"
  timeout 150 compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/${v%%:*} --schedule ${v##*:} > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
for r in 1 2; do for b in Q4 Q6; do
  say "== $b (round $r): ninfer-calibrate --detail --only q4_linear_add"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-$b-$r-call11.txt 2>&1; say "rc=$?"
done; done
