#!/usr/bin/env bash
# call 3: GATED (the lean producer in decode columns and rk4v4 prompts only) against NEW3
# (GATED + the previous P.V waited before the first Q.K group); the faster one (mean B/A
# under 0.99 picks NEW3) is FINAL: checks on both PTX builds, memcheck, the attention
# recalibration into the built-in entry, SDPA baselines in the same call.
set -u
cd "$(dirname "$0")/../.."
for b in GATED NEW3; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== A/B (A = GATED, B = NEW3)"
OUT=/tmp/abo A=/tmp/bin/GATED B=/tmp/bin/NEW3 WIDTHS=8192,65536,262144 scripts/device-run-ab.sh attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8 > /tmp/ab.txt 2>&1
tail -7 /tmp/ab.txt | tee -a $S
FINAL=$(tail -6 /tmp/ab.txt | awk '{s+=$NF; n++} END {print (n == 6 && s / n < 0.99) ? "NEW3" : "GATED"}')
say "FINAL=$FINAL"
F=/tmp/bin/$FINAL
say "== $FINAL: ninfer check --only attn_i8_small --schedule 8x1x64w --every-width (compute_90a, then NINFER_PTX=baseline)"
$F/ninfer check --only attn_i8_small --schedule 8x1x64w --every-width > $OUT/check-8x1x64w-call3.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-8x1x64w-call3.txt | tee -a $S
NINFER_PTX=baseline $F/ninfer check --only attn_i8_small --schedule 8x1x64w --every-width > /tmp/cb.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/cb.txt | tee -a $S
for k in int8/w8 rk8v4/w8; do
  say "== $FINAL memcheck attn_i8_small/h24/$k 8x1x64w"
  compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only attn_i8_small/h24/$k --schedule 8x1x64w > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
say "== FAMILY=attn_i8_small scripts/device-run-recalibrate.sh ($FINAL)"
OUT=/tmp/rc BIN=$F FAMILY=attn_i8_small timeout 330 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
cp /tmp/rc/profile-recalibrated.json /tmp/rc/summary-recalibrate.txt /tmp/rc/calibrate-attn_i8_small.txt /tmp/rc/bench-attn_i8_small-recalibrated.json $OUT/ 2>&1 | tee -a $S
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== SDPA baselines"
timeout 150 python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,8 --backends flash --replays 9 --out $OUT/torch-attention-call3.json > /tmp/torch.log 2>&1; say "rc=$?"; tail -3 /tmp/torch.log | tee -a $S
python3 scripts/compare_attention_baselines.py --markdown $OUT/torch-attention-call3.json /tmp/rc/bench-attn_i8_small-recalibrated.json 2>&1 | tee -a $S
