#!/usr/bin/env bash
# call 5 (binaries CLMORE = branch cl-more e3fc79c: main 0666824 plus trial cluster-sum
# warpgroup schedules q4 wg_c16_k{8,4}_s4_cl and t2 r64c16k4s3w1p0x4m0clg,
# r64c8k4s3w1p0x4m0clg):
# (1) `ninfer check --schedule S --every-width` of the four trials (both q4 keys, all t2
#     keys), memcheck of r64c8k4s3w1p0x4m0clg and wg_c16_k4_s4_cl on one key;
# (2) two `ninfer-calibrate --detail` of q4_linear_add and of t2_i8_small (scratch
#     profiles): the warpgroup candidates per width against the best other;
# (3) on an H200 only: CLMORE's recalibration of q4 and t2.
# Run: OUT=$OUT BUDGET=540 bash call5.sh (carry target/ab/CLMORE).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call5.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-540} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh CLMORE || exit 1
W=/tmp/bin/CLMORE
crc=0
for fs in q4_linear_add:wg_c16_k8_s4_cl q4_linear_add:wg_c16_k4_s4_cl t2_i8_small:r64c16k4s3w1p0x4m0clg t2_i8_small:r64c8k4s3w1p0x4m0clg; do
  IFS=: read fam s <<< "$fs"
  timeout 90 $W/ninfer check --only $fam --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  rc=$?; [ $rc = 0 ] || crc=$rc
  say "check $s rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL|error" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
for fsk in q4_linear_add:wg_c16_k4_s4_cl:5120x6144 t2_i8_small:r64c8k4s3w1p0x4m0clg:5120x17408; do
  IFS=: read fam s key <<< "$fsk"
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $W/ninfer check --schedule $s \
    --only $fam/$key > $OUT/memcheck-$s.txt 2>&1
  say "memcheck $s $key rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-$s.txt | tail -2 | tee -a "$S"
done
for fam in q4_linear_add t2_i8_small; do
  for r in 1 2; do
    NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only $fam > $OUT/calibrate-$fam-$r.txt 2>&1
    say "calibrate $fam ($r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-$fam-$r.txt)"
    python3 - $OUT/calibrate-$fam-$r.txt $fam >> "$S" 2>&1 <<'PY'
import collections, re, sys
fam = sys.argv[2]
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(%s/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)" % fam, line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
trial = {"wg_c16_k8_s4_cl", "wg_c16_k4_s4_cl", "r64c16k4s3w1p0x4m0clg", "r64c8k4s3w1p0x4m0clg"}
for (key, w), c in sorted(best.items()):
    if w > 32: continue
    t = sorted(((u, v) for v, u in c.items() if v in trial))
    o = sorted(((u, v) for v, u in c.items() if v not in trial))
    if not t: continue
    cells = ", ".join(f"{v} {u:.2f}" for u, v in t)
    print(f"{key} T={w}: best other {o[0][1]} {o[0][0]:.2f}; {cells}")
PY
  done
done
case "$gpu" in
  *H200*)
    if [ $crc = 0 ] && [ "$(left)" -gt 150 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$W FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200, CLMORE) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, check rc $crc, $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call5.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call5.tar.xz $OUT/
