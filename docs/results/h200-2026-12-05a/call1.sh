#!/usr/bin/env bash
# call 1 of this session: calls 1 and 2 prepared in ../h200-2026-12-04f, in one GPU call (a
# fresh machine costs a minute or more of device time, so checks and timing that belong
# together run together). Call 2 (the A/B bench MAIN/NK) runs only when call 1's check of
# q4 with NK passed.
# Build: scripts/build-ab.sh MAIN main; rm target/ab/MAIN/ninfer-calibrate.xz;
#   scripts/build-ab.sh NK natural-k.  carry target/ab/MAIN, target/ab/NK.
set -u
cd "$(dirname "$0")/../../.."
prep=docs/results/h200-2026-12-04f
bash $prep/call1.sh
if [ "$(sed -n 2p $OUT/summary-call1.txt)" != rc=0 ]; then
  echo "call 2 skipped: call 1's check did not pass" | tee -a $OUT/summary-call1.txt
  exit 1
fi
bash $prep/call2.sh
