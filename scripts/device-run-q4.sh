#!/usr/bin/env bash
# One GPU call for q4_linear_add after a kernel change (scripts/device-run-family.sh with
# the family's shapes): check and memcheck of every variant, calibration, bench on compiled
# and calibrated routes, the PyTorch baselines and the comparisons, in the same run.
# Usage on the GPU machine: OUT=/some/dir BIN=/dir/with/binaries scripts/device-run-q4.sh
FAMILY=q4_linear_add SHAPES=5120x6144,5120x17408 MEMCHECK_KEY=q4_linear_add/5120x6144 \
  WIDTHS=${WIDTHS:-1,2,4,8,16,32,64} exec "$(dirname "$0")/device-run-family.sh"
