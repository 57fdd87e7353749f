#!/usr/bin/env bash
# call 2: t2_i8_small with the weights requested into L2 ahead of the register pipeline.
# PF1: every CTA prefetches all of its weights (codes and scales) at kernel start;
# PF2: each warp prefetches the weights 8 iterations ahead (and iterations stages..7 at start).
# BASE = session start (619ab1c). A B A B each on the built-in entry; then the checks of both.
set -u
cd "$(dirname "$0")/../.."
for b in BASE PF1 PF2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
for X in PF1 PF2; do
  say "== A/B (A = BASE, B = $X)"
  OUT=/tmp/abo-$X A=/tmp/bin/BASE B=/tmp/bin/$X WIDTHS=1,2,8,16,32 scripts/device-run-ab.sh t2_i8_small/5120x17408 t2_i8_small/5120x6144 t2_i8_small/17408x5120 > /tmp/ab-$X.txt 2>&1
  tail -16 /tmp/ab-$X.txt | tee -a $S
done
for X in PF1 PF2; do
  say "== $X: ninfer check --only t2_i8_small"
  /tmp/bin/$X/ninfer check --only t2_i8_small > $OUT/check-t2-$X-call2.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-t2-$X-call2.txt | tee -a $S
done
