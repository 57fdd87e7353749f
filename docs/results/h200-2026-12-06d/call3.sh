#!/usr/bin/env bash
# call 3 (binaries A = Q4S8: commit e8d3b8f, main; Q4SC2 = branch q4-scales a53956c: the f32
# scales of call 2 with each row's scales padded to 16 bytes (call 2's misaligned address);
# T2CL = branch t2-wg-cluster f3f99fe: Q4SC2 plus the cluster K-slice sum for the q4
# warpgroup schedules (trials wg_c32_k{8,4}_s4_cl, wg_c64_k{4,8}_s4_cl) and the t2 ones
# (trials r64c32k4s3w1p0x{8,2,4}m0clg, r64c16k4s3w1p0x8m0clg)):
# (1) T2CL `ninfer check --only q4_linear_add` and `--only t2_i8_small` (every variant and
#     width); memcheck of ring_c8_k8_s4_g2_a8 (the 2-group int8 ring) and wg_c32_k4_s4_cl on
#     5120x17408, r64c32k4s3w1p0x8m0clg on 5120x17408, r64c32k4s3w1p0x2m0clg on 17408x5120;
# (2) `ninfer bench` A/B A vs Q4SC2, 3 interleaved rounds, q4_linear_add T = 1-20;
# (3) T2CL: two `ninfer-calibrate --detail` of q4_linear_add and of t2_i8_small (scratch
#     profiles): the warpgroup candidates per width, cluster against workspace sum;
# (4) on an H200 only: T2CL's recalibration of q4 and t2 (if its checks passed).
# Run: OUT=$OUT BUDGET=560 bash call3.sh (carry target/ab/Q4S8, target/ab/Q4SC2, target/ab/T2CL).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh Q4S8 Q4SC2 T2CL || exit 1
A=/tmp/bin/Q4S8 B=/tmp/bin/Q4SC2 W=/tmp/bin/T2CL
crc=0
for fam in q4_linear_add t2_i8_small; do
  timeout 150 $W/ninfer check --only $fam > $OUT/check-$fam-T2CL.txt 2>&1
  rc=$?; [ $rc = 0 ] || crc=$rc
  say "check T2CL $fam rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL|error" $OUT/check-$fam-T2CL.txt | head -6 | tee -a "$S"
done
for fsk in q4_linear_add:ring_c8_k8_s4_g2_a8:5120x17408 q4_linear_add:wg_c32_k4_s4_cl:5120x17408 \
           t2_i8_small:r64c32k4s3w1p0x8m0clg:5120x17408 t2_i8_small:r64c32k4s3w1p0x2m0clg:17408x5120; do
  IFS=: read fam s key <<< "$fsk"
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $W/ninfer check --schedule $s \
    --only $fam/$key > $OUT/memcheck-$s.txt 2>&1
  say "memcheck T2CL $s $key rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-$s.txt | tail -2 | tee -a "$S"
done
OUT=$OUT/ab-q4 A=$A B=$B ROUNDS=3 WIDTHS=1,2,4,8,10,12,16,20 timeout 150 bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 A vs Q4SC2 rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
for fam in q4_linear_add t2_i8_small; do
  for r in 1 2; do
    NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only $fam > $OUT/calibrate-$fam-T2CL-$r.txt 2>&1
    say "calibrate $fam (T2CL, $r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-$fam-T2CL-$r.txt)"
    python3 - $OUT/calibrate-$fam-T2CL-$r.txt $fam >> "$S" 2>&1 <<'PY'
import collections, re, sys
fam = sys.argv[2]
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(%s/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)" % fam, line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
wgs = (lambda v: v.startswith("wg_")) if fam.startswith("q4") else (lambda v: v.endswith("g"))
for (key, w), c in sorted(best.items()):
    if w < 9: continue
    wg = sorted(((u, v) for v, u in c.items() if wgs(v)))
    o = sorted(((u, v) for v, u in c.items() if not wgs(v)))
    if not wg: continue
    cells = ", ".join(f"{v} {u:.2f}" for u, v in wg)
    other = f"{o[0][1]} {o[0][0]:.2f}" if o else "-"
    print(f"{key} T={w}: best other {other}; {cells}")
PY
  done
done
case "$gpu" in
  *H200*)
    if [ $crc = 0 ] && [ "$(left)" -gt 150 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$W FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200, T2CL) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, check rc $crc, $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call3.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call3.tar.xz $OUT/
