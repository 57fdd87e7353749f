#!/usr/bin/env bash
# call 3: where the knock-out kernel's time goes. KS = HEAD + knockout-stamps.diff (the
# knock-out schedules of h200-2026-12-04d/knockouts-prepared.diff plus that session's
# call-2 per-CTA stamps: entry, after the PDL wait, group 0 landed, main loop done, K-slice
# counter taken, end; one launch's records printed by a dump kernel, NINFER_Q4DUMP=1).
# ninfer bench with each schedule routed (route_profile.py) at 5120x17408, T = 1, 8, 32;
# the dump kernel breaks the PDL chain, so "pdl wait" holds the previous launch's tail.
# (b) SP = HEAD + spread-copies.diff: the warpgroup ring's three bulk copies of a group
#     issued by three warps (codes by thread 0, scales by 32, token rows by 64, each with its
#     own arrive.expect_tx; full mbarriers count 3) instead of all by thread 0, whose warp
#     carried about 40 more instructions a group than the others. Check of q4 with SP,
#     then calibration R1/SP A B A B. The diff also drops the unused `empty` mbarriers, so SP
#     is the kernel that would ship.
# Build: scripts/build-ab.sh KS HEAD docs/results/h200-2026-12-04e/knockout-stamps.diff
#        scripts/build-ab.sh SP HEAD docs/results/h200-2026-12-04e/spread-copies.diff
# carry target/ab/KS (ninfer only), target/ab/R1, target/ab/SP.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh KS R1 SP || exit 1
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
mkdir -p $OUT/sp
OUT=$OUT/sp A=/tmp/bin/R1 B=/tmp/bin/SP ONLY=q4_linear_add CHECK=1 CHECK_TIMEOUT=150 ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32,48,64 \
  timeout 300 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "(b) SP rc=$?" >> $S
grep -vE "^==|^rc=|^name|^NVIDIA" $OUT/sp/summary-calibrate-ab.txt >> $S
tar -C $OUT -cJf /tmp/out-call3.tar.xz raw sp && rm -rf $R $OUT/sp && mv /tmp/out-call3.tar.xz $OUT/
cat $S
