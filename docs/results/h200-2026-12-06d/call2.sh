#!/usr/bin/env bash
# call 2 (binaries A = Q4S8: commit e8d3b8f, main after call 1; Q4SC = branch q4-scales
# 4de054e: quant_act_i8_q4 writes the f32 scale only, 4-byte scale copies; WGCL = branch
# wg-cluster b1d7698: Q4SC plus the cluster K-slice sum for the warpgroup schedules, trial
# schedules wg_c32_k{8,4}_s4_cl and wg_c64_k{4,8}_s4_cl, route catalog 8ff0595ae8f6cb36):
# (1) WGCL `ninfer check --only q4_linear_add` (every variant and width: Q4SC's int8 rings
#     and the new schedules); memcheck of wg_c32_k8_s4_cl and wg_c64_k4_s4_cl on 5120x6144,
#     of ring_c8_k4_s3_g4_a8_cl on 5120x17408;
# (2) `ninfer bench` A/B A vs Q4SC, 3 interleaved rounds, q4_linear_add T = 1-20;
# (3) WGCL: two `ninfer-calibrate --detail --only q4_linear_add` (scratch profiles): the
#     warpgroup candidates per width, cluster against workspace sum;
# (4) on an H200 only: WGCL's recalibration of q4 and t2 (if its check passed).
# Run: OUT=$OUT BUDGET=560 bash call2.sh (carry target/ab/Q4S8, target/ab/Q4SC, target/ab/WGCL).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh Q4S8 Q4SC WGCL || exit 1
A=/tmp/bin/Q4S8 B=/tmp/bin/Q4SC W=/tmp/bin/WGCL
timeout 150 $W/ninfer check --only q4_linear_add > $OUT/check-q4-WGCL.txt 2>&1
crc=$?
say "check WGCL q4_linear_add rc=$crc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-q4-WGCL.txt | head -6 | tee -a "$S"
for sk in wg_c32_k8_s4_cl:5120x6144 wg_c64_k4_s4_cl:5120x6144 ring_c8_k4_s3_g4_a8_cl:5120x17408; do
  s=${sk%%:*} key=${sk#*:}
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $W/ninfer check --schedule $s \
    --only q4_linear_add/$key > $OUT/memcheck-q4-$s.txt 2>&1
  say "memcheck WGCL $s $key rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-q4-$s.txt | tail -2 | tee -a "$S"
done
OUT=$OUT/ab-q4 A=$A B=$B ROUNDS=3 WIDTHS=1,2,4,8,10,12,16,20 timeout 150 bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 A vs Q4SC rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 90 $W/ninfer-calibrate --detail --only q4_linear_add > $OUT/calibrate-q4-WGCL-$r.txt 2>&1
  say "calibrate q4 (WGCL, $r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-q4-WGCL-$r.txt)"
  python3 - $OUT/calibrate-q4-WGCL-$r.txt >> "$S" 2>&1 <<'PY'
import collections, re, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(q4_linear_add/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)", line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
for (key, w), c in sorted(best.items()):
    if w < 16: continue
    wg = sorted(((u, v) for v, u in c.items() if v.startswith("wg_")))
    o = sorted(((u, v) for v, u in c.items() if not v.startswith("wg_")))
    cells = ", ".join(f"{v} {u:.2f}" for u, v in wg)
    other = f"{o[0][1]} {o[0][0]:.2f}" if o else "-"
    print(f"{key} T={w}: best other {other}; {cells}")
PY
done
case "$gpu" in
  *H200*)
    if [ $crc = 0 ] && [ "$(left)" -gt 150 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$W FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200, WGCL) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, check rc $crc, $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call2.tar.xz $OUT/
