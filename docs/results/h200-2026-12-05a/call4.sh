#!/usr/bin/env bash
# call 4: (a) issue 5's numbers on main after natural-k and its recalibration (FINAL), with
# the PyTorch baselines in the same call: the prepared call 5 of ../h200-2026-12-04f;
# (b) branch wg-more (WG): seven more warpgroup schedules for q4_linear_add (c8, c16, k4/k6
# splits, 8 stages, c64 k8), checked, then the built-in entry re-stamped for WG's route
# catalog and q4 recalibrated into it (scripts/device-run-recalibrate.sh).
# Build: scripts/build-ab.sh FINAL main; rm target/ab/FINAL/ninfer-calibrate.xz;
#   scripts/build-ab.sh WG wg-more.  carry target/ab/FINAL, target/ab/WG.
set -u
cd "$(dirname "$0")/../../.."
bash docs/results/h200-2026-12-04f/call5.sh
scripts/device-unpack.sh WG || exit 1
S=$OUT/summary-call4.txt
timeout 150 /tmp/bin/WG/ninfer check --only q4_linear_add > $OUT/check-q4-WG.txt 2>&1
echo "check WG rc=$?" | tee -a $S
grep -E "checks of|FAIL" $OUT/check-q4-WG.txt | head -10 | tee -a $S
mkdir -p $OUT/wg
OUT=$OUT/wg BIN=/tmp/bin/WG FAMILY=q4_linear_add timeout 300 bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
echo "recalibrate WG rc=$?" | tee -a $S
tail -45 $OUT/wg/summary-recalibrate.txt | tee -a $S
# at most 8 files come back: the summaries, and everything else in one archive
cd $OUT && tar -cJf /tmp/raw-call4.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call4.tar.xz $OUT/
