#!/usr/bin/env bash
# call 2: NEW2 (= NEW + the producer's page index loaded ahead) checked, memchecked, A/B against NEW; prompt bench BASE against NEW2; ncu of NEW2's int8 W = 8
set -u
cd "$(dirname "$0")/../.."
for b in BASE NEW NEW2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/ninfer.xz; do xz -dc $f > /tmp/bin/$b/ninfer; done; chmod +x /tmp/bin/$b/*; done
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== NEW2: ninfer check --only attn_i8_small --schedule 8x1x64w --every-width"
/tmp/bin/NEW2/ninfer check --only attn_i8_small --schedule 8x1x64w --every-width > $OUT/check-8x1x64w-new2-call2.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-8x1x64w-new2-call2.txt | tee -a $S
say "== NEW2: ninfer check --only attn_prompt"
/tmp/bin/NEW2/ninfer check --only attn_prompt > /tmp/cp.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/cp.txt | tee -a $S
for k in int8/w8 rk8v4/w5 rk4v4/w8; do
  say "== NEW2 memcheck attn_i8_small/h24/$k 8x1x64w"
  compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/NEW2/ninfer check --only attn_i8_small/h24/$k --schedule 8x1x64w > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
say "== A/B (A = NEW, B = NEW2)"
OUT=/tmp/abo A=/tmp/bin/NEW B=/tmp/bin/NEW2 WIDTHS=8192,65536,262144 scripts/device-run-ab.sh attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8 2>&1 | tail -7 | tee -a $S
for side in BASE NEW2; do
  say "== prompt bench, compiled routes, $side"
  /tmp/bin/$side/ninfer bench --only attn_prompt --device-profile off --samples 7 > $OUT/bench-prompt-$side-call2.txt 2>/dev/null; say "rc=$?"
done
say "== ncu NEW2 int8 W = 8 at 64K"
ncu --section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats -k regex:'8x1x64w_int8$' -c 1 -o /tmp/w8 /tmp/bin/NEW2/ninfer bench --only attn_i8_small/h24/int8/w8 --widths 65536 --samples 1 > /tmp/ncu.log 2>&1; say "rc=$?"; tail -3 /tmp/ncu.log | tee -a $S
ncu --import /tmp/w8.ncu-rep --page details > $OUT/w8-details-call2.txt 2>&1
ncu --import /tmp/w8.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip -9 > $OUT/w8-source-call2.csv.gz
ls -la $OUT | tee -a $S
