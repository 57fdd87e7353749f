#!/usr/bin/env bash
# call 5: what the activation quantization kernel costs the op. SKIPQ = the session start
# (3f1d66b) with an experiment switch (skip-quant-call5.diff, never committed):
# NINFER_EXPERIMENT_SKIP_QUANT=1 leaves out the quantization launch of q4's int8 routes
# and of t2 (the projection then reads stale codes: timing only). `ninfer bench` on the
# built-in entry, the switch off (A) and on (B), three interleaved rounds
# (scripts/device-run-ab.sh). An upper bound on what quantizing inside the projection
# kernel could save.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/bin/SKIPQ && xz -dc target/ab/SKIPQ/ninfer.xz > /tmp/bin/SKIPQ/ninfer && chmod +x /tmp/bin/SKIPQ/ninfer
OUT=$OUT A=/tmp/bin/SKIPQ B=/tmp/bin/SKIPQ B_ENV=NINFER_EXPERIMENT_SKIP_QUANT=1 ROUNDS=3 WIDTHS=1,2,4,8,16 \
  bash scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 t2_i8_small/5120x17408 t2_i8_small/5120x6144 t2_i8_small/17408x5120
mv $OUT/summary-ab.txt $OUT/summary-ab-call5.txt
