#!/usr/bin/env bash
# call 3 (call 2 trimmed to the device time left after three refused starts): on the lent
# H100, `ninfer-calibrate --no-attention` into a fresh profile file (the projection
# families and their switches), then `ninfer bench` of t2_i8_small, q4_linear_add and
# q6_head on that profile and on the compiled routes, and the PyTorch baselines on the same
# shapes and widths: the issue 4 and 5 ratio targets on an H100, from one run.
# Build: FINAL2 as in call1.sh; carry target/ab/FINAL2.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 || exit 1
B=/tmp/bin/FINAL2
S=$OUT/summary-call3.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
t0=$(date +%s)
P=$OUT/h100-projection-profiles.json
timeout 120 $B/ninfer-calibrate --out $P --no-attention --no-linear-attention --detail > $OUT/calibrate.txt 2>&1
echo "calibrate rc=$? at $(( $(date +%s) - t0 )) s" >> $S
grep -E "keys measured" $OUT/calibrate.txt >> $S
W=1,8,16,32,64
for fam in t2_i8_small q4_linear_add q6_head; do
  timeout 40 $B/ninfer bench --device-profile-path $P --only $fam --widths $W --json > $OUT/bench-$fam-cal.json 2>/dev/null
  echo "bench $fam (calibrated) rc=$? at $(( $(date +%s) - t0 )) s" >> $S
  timeout 40 $B/ninfer bench --device-profile off --only $fam --widths $W --json > $OUT/bench-$fam-off.json 2>/dev/null
  echo "bench $fam (compiled) rc=$?" >> $S
  python3 scripts/compare_routes.py $OUT/bench-$fam-off.json $OUT/bench-$fam-cal.json > $OUT/routes-$fam.txt 2>&1
  echo "compare_routes $fam rc=$?" >> $S; tail -2 $OUT/routes-$fam.txt >> $S
done
timeout 120 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120,248320x5120 --widths $W --out $OUT/torch.json 2> $OUT/torch.err
echo "torch baselines rc=$? at $(( $(date +%s) - t0 )) s" >> $S
for fam in t2_i8_small q4_linear_add q6_head; do
  python3 scripts/compare_baselines.py --all $OUT/torch.json $OUT/bench-$fam-cal.json > $OUT/compare-$fam.txt 2>&1
  grep -E "shape|^(5120|17408|248320)x" $OUT/compare-$fam.txt >> $S
done
echo "done at $(( $(date +%s) - t0 )) s" >> $S
cd $OUT && tar -cJf /tmp/raw-call3.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call3.tar.xz $OUT/
cat $S
