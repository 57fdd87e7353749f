#!/usr/bin/env bash
# call 3: where the knock-out kernel's time goes. KS = HEAD + knockout-stamps.diff (the
# knock-out schedules of h200-2026-12-04d/knockouts-prepared.diff plus that session's
# call-2 per-CTA stamps: entry, after the PDL wait, group 0 landed, main loop done, K-slice
# counter taken, end; one launch's records printed by a dump kernel, NINFER_Q4DUMP=1).
# ninfer bench with each schedule routed (route_profile.py) at 5120x17408, T = 1, 8, 32;
# the dump kernel breaks the PDL chain, so "pdl wait" holds the previous launch's tail.
# Build: scripts/build-ab.sh KS HEAD docs/results/h200-2026-12-04e/knockout-stamps.diff;
# carry target/ab/KS.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh KS || exit 1
S=$OUT/summary-call3.txt
R=$OUT/raw; mkdir -p $R
/tmp/bin/KS/ninfer catalog --json > $R/ks-catalog.json
for sch in wg_c32_k8_s4 wg_c32_k8_s4_kn63 wg_c32_k8_s4_kn7 wg_c32_k8_s4_kn56; do
  python3 docs/results/h200-2026-12-04e/route_profile.py $R/ks-catalog.json $R/p.json \
    q4_linear_add/5120x17408=32:$sch,64:wg_c64_k6_s4 || exit 1
  for w in 1 8 32; do
    NINFER_Q4DUMP=1 NINFER_DEVICE_PROFILES=$R/p.json timeout 40 /tmp/bin/KS/ninfer bench \
      --only q4_linear_add/5120x17408 --widths $w --samples 5 > $R/ks-$sch-$w.txt 2>&1
    echo "$sch T=$w rc=$? records=$(grep -c Q4DBG $R/ks-$sch-$w.txt) $(grep -E '^q4_linear_add' $R/ks-$sch-$w.txt | tail -1)" >> $S
    python3 docs/results/h200-2026-12-04d/timeline.py $R/ks-$sch-$w.txt >> $S 2>&1
  done
done
tar -C $OUT -cJf /tmp/out-call3.tar.xz raw && rm -rf $R && mv /tmp/out-call3.tar.xz $OUT/
cat $S
