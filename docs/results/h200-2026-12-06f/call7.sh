#!/usr/bin/env bash
# call 7: whichever card comes (an H200: call 6's steps first, as the budget allows).
# The trial build Q4A (branch exp-q4ahead: main 7eb6e96 + `q4-ahead-call7.diff`): the q4
# warpgroup schedules with `groups` = 2, call 4's change for q4 (group i's wgmma in flight
# while group i - 1 is scaled, within each unrolled ring round; two stages of copies ahead
# instead of three at stages = 4; 75-144 registers, no spills, no ptxas serialization):
# checks, memcheck, calibration detail from HBM (twice) and in L2 at T = 9-64 against the
# routed warpgroup schedules, through scripts/device-run-new-schedules.sh.
# Run: OUT=$OUT bash call7.sh (carry target/ab/Q4A; target/ab/FINAL12 too for an H200).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUDGET=575 bash "$here/call6.sh"; exit 0 ;;
esac
scripts/device-unpack.sh Q4A || exit 1
OUT=$OUT/q4a BIN=/tmp/bin/Q4A FAMILY=q4_linear_add \
  NEW="wg_c16_k8_s4_g2_cl wg_c32_k8_s4_g2_cl wg_c32_k4_s4_g2_cl wg_c64_k4_s4_g2_cl wg_c32_k8_s8_g2_cl" \
  BASE="wg_c16_k8_s4_cl wg_c32_k8_s4_cl wg_c32_k4_s4_cl wg_c64_k4_s4_cl" \
  WIDTHS=10,12,16,20,24,28,32,40,48,56,64 MEMCHECK_KEY=q4_linear_add/5120x6144 timeout 500 bash scripts/device-run-new-schedules.sh > /dev/null 2>&1
echo "q4a rc=$? (${SECONDS}s)" | tee $OUT/summary-call7.txt
cat $OUT/q4a/summary-new-schedules.txt >> $OUT/summary-call7.txt
(cd $OUT && tar -cJf raw-call7.tar.xz q4a && rm -rf q4a)
