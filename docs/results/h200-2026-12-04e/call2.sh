#!/usr/bin/env bash
# call 2: the twenty-first session's prepared calls 7 and 8 in one GPU call.
# (a) GS vs R1 (h200-2026-12-04d/call7.sh): GS = HEAD + grouped-stages-prepared.diff, the
#     warpgroup ring with two groups per stage (trial schedules wg_c32_k8_s3_g2,
#     wg_c16_k8_s3_g2; every shipped PTX unchanged); R1 = b4778a0 (HEAD's kernels): the
#     check of q4 with GS, then ninfer-calibrate --detail A B A B.
# (b) ST (h200-2026-12-04d/call8.sh): HEAD + t2-stamps-prepared.diff, per-CTA stamps in
#     t2_i8_small's per-warp kernel, on the built-in entry at T = 1, 8, 16 for each key.
# Build: scripts/build-ab.sh GS HEAD docs/results/h200-2026-12-04d/grouped-stages-prepared.diff
#        scripts/build-ab.sh ST HEAD docs/results/h200-2026-12-04d/t2-stamps-prepared.diff
# carry target/ab/R1, target/ab/GS, target/ab/ST.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 GS ST || exit 1
S=$OUT/summary-call2.txt
mkdir -p $OUT/gs
OUT=$OUT/gs A=/tmp/bin/R1 B=/tmp/bin/GS ONLY=q4_linear_add CHECK=1 CHECK_TIMEOUT=150 ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32 \
  timeout 330 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "GS rc=$?" >> $S
grep -vE "^==|^rc=" $OUT/gs/summary-calibrate-ab.txt >> $S
for key in 5120x17408 5120x6144 17408x5120; do for w in 1 8 16; do
  NINFER_STAMPS=1 timeout 30 /tmp/bin/ST/ninfer bench --only t2_i8_small/$key --widths $w --samples 5 > $OUT/stamps-$key-$w.txt 2>&1
  echo "ST $key T=$w rc=$? records=$(grep -c '^STAMP ' $OUT/stamps-$key-$w.txt) $(grep t2_i8_small $OUT/stamps-$key-$w.txt | tail -1)" >> $S
done; done
python3 docs/results/h200-2026-12-04d/stamps_timeline.py $OUT/stamps-*-1.txt >> $S 2>&1
cat $S
