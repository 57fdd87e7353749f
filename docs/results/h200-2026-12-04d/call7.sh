#!/usr/bin/env bash
# call 7 (prepared, not run): GS = HEAD plus grouped-stages-prepared.diff: the warpgroup
# ring with two groups per stage (one copy of their weights, one of their scales, one of
# each group's token rows: 4 bulk copies per 2 groups instead of 6), trial schedules
# wg_c32_k8_s3_g2 and wg_c16_k8_s3_g2 (3 stages of 2 groups; every shipped PTX unchanged),
# against HEAD's binaries: the check of q4 with GS, then ninfer-calibrate --detail A B A B.
# Build: scripts/build-ab.sh HEAD; scripts/build-ab.sh GS HEAD
# docs/results/h200-2026-12-04d/grouped-stages-prepared.diff; carry target/ab/HEAD and
# target/ab/GS.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh HEAD GS || exit 1
A=/tmp/bin/HEAD B=/tmp/bin/GS ONLY=q4_linear_add CHECK=1 ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32 \
  timeout 400 bash scripts/device-run-calibrate-ab.sh 2>&1 | tail -60
