#!/usr/bin/env bash
# call 5: the t2 weights through a per-lane cp.async ring in shared memory (binaries WQ = branch
# exp-wring 94c548a: r16c1k8s2w1p0x1m1q{4,8}, r16c8k8s2w1p0x1m0q{4,8}; 62-80 registers, no
# spills on sm_80..sm_120). (1) `ninfer check --only t2_i8_small --schedule S` of each new
# one, memcheck of two; (2) `ninfer-calibrate --detail --only t2_i8_small`, weights from HBM
# twice and from L2 once; compare_calibrate_detail.py --columns at T = 1-8.
# Run: OUT=$OUT BUDGET=300 bash call5.sh (carry target/ab/WQ).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call5.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-300} - SECONDS )); }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh WQ || exit 1
F=/tmp/bin/WQ
R=$OUT/raw; mkdir -p $R
NEW="r16c1k8s2w1p0x1m1q8 r16c1k8s2w1p0x1m1q4 r16c8k8s2w1p0x1m0q8 r16c8k8s2w1p0x1m0q4"
crc=0
for s in $NEW; do
  timeout 60 $F/ninfer check --only t2_i8_small --schedule $s > $R/check-$s.txt 2>&1; rc=$?
  [ $rc = 0 ] || crc=$rc
  say "check $s rc=$rc: $(grep -E 'checks of' $R/check-$s.txt | head -1)"
done
for s in r16c1k8s2w1p0x1m1q8 r16c8k8s2w1p0x1m0q8; do
  timeout 120 compute-sanitizer --tool memcheck $F/ninfer check --only t2_i8_small/5120x6144 --schedule $s > $R/memcheck-$s.txt 2>&1
  say "memcheck $s rc=$?: $(grep -E 'ERROR SUMMARY' $R/memcheck-$s.txt | tail -1)"
done
[ $crc = 0 ] || { say "a check failed: stopped"; exit 1; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for run in hbm-1 l2-1 hbm-2; do
  [ $(left) -gt 30 ] || { say "budget: stopped before $run"; break; }
  timeout $(( $(left) - 10 )) $F/ninfer-calibrate --detail --only t2_i8_small --weights-from ${run%-*} > $R/cal-$run.txt 2>&1
  say "calibrate $run rc=$? (${SECONDS}s)"
done
C=r16c1k8s3w1p0x1m1,r16c1k8s2w1p0x1m1,r16c8k8s2w1p0x1m0,r16c8k8s2w1p0x1m0l4,r16c8k8s2w1p0x1m0l8,${NEW// /,}
say "== weights from HBM (two calibrations)"
python3 scripts/compare_calibrate_detail.py --a $R/cal-hbm-1.txt $R/cal-hbm-2.txt --columns $C --widths 1,2,3,4,5,6,7,8 | tee -a "$S"
say "== weights in L2"
python3 scripts/compare_calibrate_detail.py --a $R/cal-l2-1.txt --columns $C --widths 1,2,3,4,5,6,7,8 | tee -a "$S"
cd $OUT && tar -cJf /tmp/raw-call5.tar.xz raw && rm -rf raw && mv /tmp/raw-call5.tar.xz $OUT/
