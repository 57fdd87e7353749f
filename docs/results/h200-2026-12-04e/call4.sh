#!/usr/bin/env bash
# call 4: is the knock-out kernel's T-dependent time (call 2: bit 63 at 5120x17408 9.8 µs at
# T = 1, 22.4 at T = 32, but 10.9 / 14.7 in call 3 with a dump kernel between launches) the
# programmatic-dependent-launch chain? ninfer bench (KS binary, no NINFER_Q4DUMP, so no
# dump kernel) with NINFER_PDL=1 (default), 0 and `second`, interleaved twice, for the
# shipped schedule wg_c32_k8_s4 and the knock-outs 63 and 56, routed by route_profile.py.
# carry target/ab/KS (ninfer only).
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh KS || exit 1
S=$OUT/summary-call4.txt
R=$OUT/raw; mkdir -p $R
/tmp/bin/KS/ninfer catalog --json > $R/ks-catalog.json
for round in 1 2; do
  for sch in wg_c32_k8_s4 wg_c32_k8_s4_kn63 wg_c32_k8_s4_kn56; do
    python3 docs/results/h200-2026-12-04e/route_profile.py $R/ks-catalog.json $R/p-$sch.json \
      q4_linear_add/5120x17408=32:$sch,64:wg_c64_k6_s4 || exit 1
    for pdl in 1 0 second; do
      NINFER_PDL=$pdl NINFER_DEVICE_PROFILES=$R/p-$sch.json timeout 40 /tmp/bin/KS/ninfer bench \
        --only q4_linear_add/5120x17408 --widths 1,8,16,32 --samples 7 --json > $R/pdl-$sch-$pdl-$round.json 2> $R/pdl-$sch-$pdl-$round.err
      echo "$sch PDL=$pdl round $round rc=$?" >> $R/rc.txt
    done
  done
done
python3 - $R >> $S <<'PY'
import glob, json, sys, statistics as st
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/pdl-*.json")):
    sch, pdl = f.rsplit("/", 1)[1][4:-5].rsplit("-", 2)[:2]
    try: rep = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    for r in rep["results"]:
        rows.setdefault((sch, pdl, r["width"]), []).append((r["us"], r["projection_us"]))
print("schedule              PDL     T   op µs (rounds)        projection µs (rounds)")
for (sch, pdl, w), v in sorted(rows.items()):
    print(f"{sch:21} {pdl:6} {w:3}  " + " ".join(f"{u:6.2f}" for u, _ in v) + "   " + " ".join(f"{p:6.2f}" for _, p in v))
PY
tar -C $OUT -cJf /tmp/out-call4.tar.xz raw && rm -rf $R && mv /tmp/out-call4.tar.xz $OUT/
cat $S
