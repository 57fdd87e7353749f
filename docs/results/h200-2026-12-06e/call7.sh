#!/usr/bin/env bash
# call 7 (PREPARED, not run): activations loaded one iteration ahead for the 8-column
# per-warp t2 schedules (T = 2-8). Why: the T = 2-8 routes lose the most to HBM (L2 / HBM
# 0.74-0.84, call 2), yet neither more weight bytes in flight (calls 4-5) nor more stages
# helped. Unlike the T = 1 route (activations staged in shared memory), they load each
# group's activations from L2 at the start of its iteration; under the HBM stream the L2's
# latency grows, and that wait is on every iteration's chain. act_prefetch (p1, in the
# catalog for T = 1 only) takes it off. Trial schedules (`c8-act-prefetch-prepared.diff`):
# r16c8k8s2w1p1x1m0 (82 registers: 2 CTAs an SM, so two waves at 5120 rows),
# r16c8k4s2w1p1x1m0 (82, 4 warps), r16c8k4s2w1p1x1m0l4 (93-96); no spills on sm_80..sm_120.
# Build: scripts/build-ab.sh C8P1 <main> docs/results/h200-2026-12-06e/c8-act-prefetch-prepared.diff
# Run: OUT=$OUT bash call7.sh (carry target/ab/C8P1); about 90 s on an H100.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh C8P1 || exit 1
OUT=$OUT BIN=/tmp/bin/C8P1 FAMILY=t2_i8_small \
  NEW="r16c8k8s2w1p1x1m0 r16c8k4s2w1p1x1m0 r16c8k4s2w1p1x1m0l4" \
  BASE="r16c8k8s2w1p0x1m0 r16c8k8s2w1p0x1m0l4 r16c8k8s2w1p0x1m0l8" WIDTHS=2,4,8 \
  MEMCHECK_KEY=t2_i8_small/5120x6144 bash scripts/device-run-new-schedules.sh
