#!/usr/bin/env bash
# call 2, three parts; every output file also in out-call2.tar.xz (a call brings back
# only so many files).
# (a) Where the knock-outs' time goes: ninfer bench (op and projection-only medians) with
#     KN (h200-2026-12-04d/knockouts-prepared.diff) routing each knock-out schedule at
#     T = 1-32 (route_profile.py), at 5120x17408 and 5120x6144. Call 1's calibration put
#     wg_c32_k8_s4_kn63 (nothing in the main loop) at 22.2 µs at T = 32 but 9.9 at T = 1:
#     bench's projection-only column says whether that is the projection kernel.
# (b) GS vs R1 (h200-2026-12-04d/call7.sh): two groups per warpgroup stage (trial schedules
#     wg_c32_k8_s3_g2, wg_c16_k8_s3_g2): check of q4 with GS, then calibrate A B A B.
# (c) ST (h200-2026-12-04d/call8.sh): per-CTA stamps in t2_i8_small's per-warp kernel.
# Build: scripts/build-ab.sh GS HEAD docs/results/h200-2026-12-04d/grouped-stages-prepared.diff
#        scripts/build-ab.sh ST HEAD docs/results/h200-2026-12-04d/t2-stamps-prepared.diff
# (R1, KN: call1.sh) carry target/ab/R1, target/ab/GS and KNb, STb: KN, ST less ninfer-calibrate
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 KNb GS STb || exit 1
S=$OUT/summary-call2.txt
R=$OUT/raw; mkdir -p $R
/tmp/bin/KNb/ninfer catalog --json > $R/kn-catalog.json
for key in 5120x17408 5120x6144; do
  for sch in wg_c32_k8_s4 wg_c32_k8_s4_kn1 wg_c32_k8_s4_kn2 wg_c32_k8_s4_kn4 wg_c32_k8_s4_kn7 wg_c32_k8_s4_kn8 \
             wg_c32_k8_s4_kn16 wg_c32_k8_s4_kn32 wg_c32_k8_s4_kn56 wg_c32_k8_s4_kn63; do
    python3 docs/results/h200-2026-12-04e/route_profile.py $R/kn-catalog.json $R/p.json \
      q4_linear_add/$key=32:$sch,64:wg_c64_k6_s4 || exit 1
    NINFER_DEVICE_PROFILES=$R/p.json timeout 40 /tmp/bin/KNb/ninfer bench --only q4_linear_add/$key \
      --widths 1,4,8,16,24,32 --samples 7 --json > $R/kn-$key-$sch.json 2> $R/kn-$key-$sch.err
    echo "kn $key $sch rc=$?" >> $R/kn-rc.txt
  done
done
python3 - $R >> $S <<'PY'
import glob, json, sys
print("(a) ninfer bench, op µs / projection-only µs (medians of 7)")
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/kn-*.json")):
    if f.endswith("catalog.json"): continue
    try: rep = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    for r in rep["results"]:
        rows.setdefault((r["key"], r["schedule"]), {})[r["width"]] = (r["us"], r["projection_us"])
for (key, sch), by_w in sorted(rows.items()):
    print(f"{key:26} {sch:20} " + " ".join(f"T{w}:{u:.2f}/{p:.2f}" for w, (u, p) in sorted(by_w.items())))
PY
mkdir -p $OUT/gs
OUT=$OUT/gs A=/tmp/bin/R1 B=/tmp/bin/GS ONLY=q4_linear_add CHECK=1 CHECK_TIMEOUT=150 ROUNDS=2 MATCH=wg_c WIDTHS=1,8,16,24,32 \
  timeout 300 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "(b) GS rc=$?" >> $S
grep -vE "^==|^rc=|^name|^NVIDIA" $OUT/gs/summary-calibrate-ab.txt >> $S
echo "(c) t2 stamps" >> $S
for key in 5120x17408 5120x6144 17408x5120; do for w in 1 8 16; do
  NINFER_STAMPS=1 timeout 30 /tmp/bin/STb/ninfer bench --only t2_i8_small/$key --widths $w --samples 5 > $R/stamps-$key-$w.txt 2>&1
  echo "ST $key T=$w rc=$? records=$(grep -c '^STAMP ' $R/stamps-$key-$w.txt) $(grep t2_i8_small $R/stamps-$key-$w.txt | tail -1)" >> $S
done; done
python3 docs/results/h200-2026-12-04d/stamps_timeline.py $R/stamps-*-1.txt >> $S 2>&1
tar -C $OUT -cJf /tmp/out-call2.tar.xz raw gs && rm -rf $OUT/raw $OUT/gs && mv /tmp/out-call2.tar.xz $OUT/
cat $S
