#!/usr/bin/env bash
# call 1: the check-model fix verified on HEAD's binary (BASE), then the W8 A/B: BASE against NEW
set -u
cd "$(dirname "$0")/../.."
for b in BASE NEW; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== BASE: ninfer check --only attn_i8_small"
/tmp/bin/BASE/ninfer check --only attn_i8_small > $OUT/check-attn-base-call1.txt 2>&1; say "rc=$?"; tail -1 $OUT/check-attn-base-call1.txt | tee -a $S; grep -c FAIL $OUT/check-attn-base-call1.txt | tee -a $S
for ptx in default baseline; do
  say "== BASE replay seed 1796209860276383691, NINFER_PTX=$ptx"
  env $( [ $ptx = baseline ] && echo NINFER_PTX=baseline ) /tmp/bin/BASE/ninfer check --only attn_i8_small/h24/rk4v4 --schedule 8x1x64w --seed 1796209860276383691 --every-width > /tmp/replay-$ptx.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/replay-$ptx.txt | tee -a $S
done
say "== NEW: ninfer check --only attn_i8_small --schedule 8x1x64w --every-width"
/tmp/bin/NEW/ninfer check --only attn_i8_small --schedule 8x1x64w --every-width > $OUT/check-8x1x64w-new-call1.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-8x1x64w-new-call1.txt | tee -a $S
say "== NEW: prompt check (the V decode is shared)"
/tmp/bin/NEW/ninfer check --only attn_prompt/h24/int8 > /tmp/cp.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/cp.txt | tee -a $S
say "== A/B W8 (A = BASE, B = NEW)"
OUT=/tmp/abo A=/tmp/bin/BASE B=/tmp/bin/NEW WIDTHS=8192,65536,262144 scripts/device-run-ab.sh attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8 attn_i8_small/h24/int8/w4 2>&1 | tail -12 | tee -a $S
for r in 1 2; do for side in BASE NEW; do
  say "== prompt int8, compiled routes, $side (round $r)"
  /tmp/bin/$side/ninfer bench --only attn_prompt/h24/int8 --device-profile off --samples 7 2>/dev/null | tail -8 | tee -a $S
done; done
say "== t2_i8_small recalibrated into the built-in entry (BASE)"
OUT=/tmp/rc BIN=/tmp/bin/BASE FAMILY=t2_i8_small scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
cp /tmp/rc/profile-recalibrated.json /tmp/rc/calibrate-t2_i8_small.txt /tmp/rc/summary-recalibrate.txt $OUT/ 2>&1 | tee -a $S
tail -30 /tmp/rc/summary-recalibrate.txt | tee -a $S
