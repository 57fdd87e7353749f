#!/usr/bin/env bash
# call 5: call 4 found the q4 warpgroup op slower with programmatic dependent launch on its
# first kernel (q4_act_wg) than with it on the projection only (NINFER_PDL=second): 5120x17408
# T = 32 30.5 against 28.1 µs (stamped build). Here the shipped binaries (R1 = HEAD's
# kernels) on the built-in entry, every q4 and t2 key: ninfer bench with NINFER_PDL=1
# (default), second and 0, interleaved, two rounds.
# carry target/ab/R1.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh R1 || exit 1
S=$OUT/summary-call5.txt
R=$OUT/raw; mkdir -p $R
for round in 1 2; do
  for pdl in 1 second 0; do
    NINFER_PDL=$pdl timeout 90 /tmp/bin/R1/ninfer bench --only q4_linear_add --widths 1,4,8,16,24,32,48,64 \
      --samples 7 --json > $R/q4-$pdl-$round.json 2> $R/q4-$pdl-$round.err
    echo "q4 PDL=$pdl round $round rc=$?" >> $R/rc.txt
    NINFER_PDL=$pdl timeout 90 /tmp/bin/R1/ninfer bench --only t2_i8_small --widths 1,4,8,16,32 \
      --samples 7 --json > $R/t2-$pdl-$round.json 2> $R/t2-$pdl-$round.err
    echo "t2 PDL=$pdl round $round rc=$?" >> $R/rc.txt
  done
done
cat $R/rc.txt >> $S
python3 - $R >> $S <<'PY'
import glob, json, sys, statistics as st
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    fam, pdl, rnd = f.rsplit("/", 1)[1][:-5].split("-")
    try: rep = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    for r in rep["results"]:
        rows.setdefault((r["key"], r["width"], r["schedule"]), {}).setdefault(pdl, []).append(r["us"])
print("op µs, median of the two rounds (each a median of 7)")
print(f"{'key':28} {'T':>3} {'schedule':28} {'PDL=1':>7} {'second':>7} {'0':>7} {'sec/1':>6}")
for (key, w, sch), d in sorted(rows.items()):
    m = {p: st.median(v) for p, v in d.items()}
    a, b, c = m.get("1"), m.get("second"), m.get("0")
    f = lambda x: f"{x:7.2f}" if x else "      -"
    print(f"{key:28} {w:3} {sch:28} {f(a)} {f(b)} {f(c)} {b / a if a and b else 0:6.3f}")
PY
tar -C $OUT -cJf /tmp/out-call5.tar.xz raw && rm -rf $R && mv /tmp/out-call5.tar.xz $OUT/
cat $S
