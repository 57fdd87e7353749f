#!/usr/bin/env bash
# call 3: whichever card comes. An H200: call 1's H200 steps (FINAL13: checks, the H200
# entry's recalibration of q4 and t2, baselines). Otherwise the trial build UNGUARD (branch
# unguarded-rounds, c176758: the warpgroup main loops run the ring rounds whose copies all
# fall in the K range without the range checks, i.e. without their branches: t2 schedules
# without AHEAD 789 -> 698 SASS instructions a 4-step round, the 16-column ones 613 -> 522;
# q4 440 -> 415 (16 columns), 472 -> 447 (32); no spills) against FINAL13 (main):
# (a) scripts/device-run-calibrate-ab.sh CHECK=1, for t2_i8_small, then for q4_linear_add:
#     `ninfer check` of the family with UNGUARD, then every candidate's calibration time,
#     A B A B;
# (b) compute-sanitizer memcheck of a t2 and a q4 warpgroup schedule with UNGUARD;
# (c) scripts/device-run-ab.sh: `ninfer bench` of the H100 entry's routes, A B A B.
# Run: OUT=$OUT bash call3.sh (carry target/ab/DUO: scripts/bundle-ab.sh DUO FINAL13 UNGUARD).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
scripts/device-unpack.sh DUO || exit 1
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT bash "$here/call1.sh"; exit 0 ;;
esac
S=$OUT/summary-call3.txt
A=/tmp/bin/FINAL13 B=/tmp/bin/UNGUARD
for fam in t2_i8_small q4_linear_add; do
  match=g; [ $fam = q4_linear_add ] && match=wg_
  OUT=$OUT/cal-$fam A=$A B=$B CHECK=1 ONLY=$fam ROUNDS=2 MATCH=$match WIDTHS=10,12,16,20,24,32,48,64 \
    timeout 200 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
  echo "calibrate-ab $fam rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/cal-$fam/summary-calibrate-ab.txt >> $S
done
for ks in t2_i8_small:r64c16k4s3w1p0x8m0clg q4_linear_add:wg_c16_k8_s4_cl; do
  timeout 90 compute-sanitizer --tool memcheck $B/ninfer check --only ${ks%%:*}/5120x6144 --schedule ${ks#*:} > $OUT/memcheck-${ks#*:}.txt 2>&1
  echo "memcheck ${ks#*:} rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck-${ks#*:}.txt | tail -1) (${SECONDS}s)" | tee -a $S
done
OUT=$OUT/ab A=$A B=$B WIDTHS=1,12,16,24,32,64 ROUNDS=2 timeout $(( 540 - SECONDS )) bash scripts/device-run-ab.sh \
  t2_i8_small/5120x17408 t2_i8_small/5120x6144 t2_i8_small/17408x5120 q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /dev/null 2>&1
echo "ab rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/ab/summary-ab.txt >> $S
(cd $OUT && tar -cJf raw-call3.tar.xz cal-* ab memcheck-* && rm -rf cal-* ab memcheck-*)
