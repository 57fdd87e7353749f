#!/usr/bin/env bash
# call 12: FINAL12 = the final HEAD (host code: the quantization layout chosen without an
# allocation; PTX as FINAL11 for compute_90a): `ninfer check --only t2_i8_small`, then
# `ninfer bench --only t2_i8_small` on the built-in entry (a fresh profile file).
set -u
cd "$(dirname "$0")/../.."
for b in FINAL12; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL12
S=$OUT/summary-call12.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== ninfer check --only t2_i8_small"
timeout 200 $F/ninfer check --only t2_i8_small > $OUT/check-t2-call12.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of|quant_act' $OUT/check-t2-call12.txt | head -6 | tee -a $S
say "== ninfer bench --only t2_i8_small (built-in entry)"
timeout 200 $F/ninfer bench --only t2_i8_small --out $OUT/bench-t2-call12.json 2>&1 | tee -a $S | tail -60
