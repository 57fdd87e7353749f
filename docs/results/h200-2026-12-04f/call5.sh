#!/usr/bin/env bash
# call 5 (prepared; run last, once the branches that passed calls 1-4 are merged and the
# built-in entry holds call 3's (and, if merged, call 4's) recalibrated routes): the final
# numbers of issue 5 with the PyTorch baselines in the same call, as call 7 of
# h200-2026-12-04e: the check of q4, then scripts/device-run-baselines.sh (bench of q4 and
# t2 on the built-in entry, torch_baselines.py, compare_baselines.py). FINAL = main then.
# Build: scripts/build-ab.sh FINAL main; rm target/ab/FINAL/ninfer-calibrate.xz
# carry target/ab/FINAL.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL || exit 1
S=$OUT/summary-call5.txt
timeout 180 /tmp/bin/FINAL/ninfer check --only q4_linear_add > $OUT/check-q4-final.txt 2>&1
echo "check q4 rc=$?" >> $S
grep -E "checks of|FAIL" $OUT/check-q4-final.txt | head -10 >> $S
OUT=$OUT BIN=/tmp/bin/FINAL TAG=call5 timeout 400 bash scripts/device-run-baselines.sh > /dev/null 2>&1
echo "baselines rc=$?" >> $S
cat $OUT/summary-baselines.txt >> $S
cat $S
