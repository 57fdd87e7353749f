#!/usr/bin/env bash
# call 2: the lent card is an H100 (NVIDIA H100 80GB HBM3, 132 SMs), which has no built-in
# entry. What a user's first run on it does: `ninfer-calibrate` of every family into a
# fresh profile file (timed), then, from the same call, `ninfer bench` of the projections
# and of decode attention on that profile and on the compiled routes, and the PyTorch
# baselines on the same shapes, widths and windows (ratios from this one run).
# Build: FINAL2 = scripts/build-ab.sh of ee6b3c2 (main's PTX; the route catalog of main);
#   EX as in call1.sh; carry target/ab/FINAL2, target/ab/EX.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 || exit 1
B=/tmp/bin/FINAL2
S=$OUT/summary-call2.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
t0=$(date +%s)
P=$OUT/h100-profiles.json
timeout 300 $B/ninfer-calibrate --out $P --detail > $OUT/calibrate.txt 2>&1
echo "calibrate rc=$? at $(( $(date +%s) - t0 )) s" >> $S
grep -E "keys measured" $OUT/calibrate.txt >> $S
W=1,8,16,32,64
for fam in t2_i8_small q4_linear_add q6_head; do
  timeout 60 $B/ninfer bench --device-profile-path $P --only $fam --widths $W --json > $OUT/bench-$fam-cal.json 2>/dev/null
  echo "bench $fam (calibrated) rc=$? at $(( $(date +%s) - t0 )) s" >> $S
  timeout 60 $B/ninfer bench --device-profile off --only $fam --widths $W --json > $OUT/bench-$fam-off.json 2>/dev/null
  echo "bench $fam (compiled) rc=$?" >> $S
  python3 scripts/compare_routes.py $OUT/bench-$fam-off.json $OUT/bench-$fam-cal.json > $OUT/routes-$fam.txt 2>&1
  echo "compare_routes $fam rc=$?" >> $S; tail -3 $OUT/routes-$fam.txt >> $S
done
timeout 150 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120,248320x5120 --widths $W --out $OUT/torch.json 2> $OUT/torch.err
echo "torch baselines rc=$? at $(( $(date +%s) - t0 )) s" >> $S
for fam in t2_i8_small q4_linear_add q6_head; do
  python3 scripts/compare_baselines.py --all $OUT/torch.json $OUT/bench-$fam-cal.json > $OUT/compare-$fam.txt 2>&1
  grep -E "shape|^(5120|17408|248320)x" $OUT/compare-$fam.txt >> $S
done
if [ $(( $(date +%s) - t0 )) -lt 430 ]; then
  for key in attn_i8_small/h24/int8/w1 attn_i8_small/h24/rk8v4/w1 attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8; do
    timeout 40 $B/ninfer bench --device-profile-path $P --only $key --widths 8192,65536,262144 --json > $OUT/bench-${key//\//_}.json 2>/dev/null
    echo "bench $key rc=$?" >> $S
  done
  timeout 60 python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,8 --backends flash,cudnn --out $OUT/torch-attn.json 2> $OUT/torch-attn.err
  echo "torch attention rc=$? at $(( $(date +%s) - t0 )) s" >> $S
  python3 - $OUT/bench-attn.json $OUT/bench-attn_i8_small_h24_*.json <<'PY'
import json, sys
docs = [json.load(open(p)) for p in sys.argv[2:] if open(p).read().strip()]
merged = dict(docs[0]); merged["results"] = [r for d in docs for r in d["results"]]
json.dump(merged, open(sys.argv[1], "w"))
PY
  python3 scripts/compare_attention_baselines.py $OUT/torch-attn.json $OUT/bench-attn.json > $OUT/compare-attn.txt 2>&1
  tail -30 $OUT/compare-attn.txt >> $S
fi
# last, if time is left: call 1's even split lengths on the calibrated W = 8 route (EX's
# route catalog is FINAL2's: template text is not in the digest), two rounds
if [ $(( $(date +%s) - t0 )) -lt 500 ] && scripts/device-unpack.sh EX; then
  for round in 1 2; do
    for side in A EVEN; do
      bin=/tmp/bin/FINAL2; e=""
      [ $side = EVEN ] && bin=/tmp/bin/EX && e="NINFER_EXP_EVEN_SPLITS=1"
      for key in attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8; do
        env $e timeout 20 $bin/ninfer bench --device-profile-path $P --only $key --widths 65536,262144 --json > $OUT/even-$side-$round-${key//\//_}.json 2>/dev/null
      done
    done
  done
  python3 - $OUT >> $S <<'PY'
import json, sys, glob, statistics, os
out = sys.argv[1]
def pts(p):
    try: return {(r["key"], r["width"]): (r["us"], r.get("schedule", "")) for r in json.load(open(p))["results"]}
    except Exception: return {}
med = {}
for s in ("A", "EVEN"):
    runs = [pts(p) for p in sorted(glob.glob(os.path.join(out, f"even-{s}-*.json")))]
    keys = set().union(*runs) if runs else set()
    med[s] = {k: statistics.median([r[k][0] for r in runs if k in r]) for k in keys}
print("even split lengths on the calibrated W = 8 routes (µs, medians of 2):")
for k in sorted(med["A"]):
    if k in med["EVEN"]:
        print(f"  {k[0]:30} {k[1]:>7} {med['A'][k]:8.2f} {med['EVEN'][k]:8.2f} {med['EVEN'][k] / med['A'][k]:6.3f}")
PY
fi
echo "done at $(( $(date +%s) - t0 )) s" >> $S
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz --exclude='summary-*' --exclude='h100-profiles.json' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' ! -name 'h100-profiles.json' -exec rm -rf {} + && mv /tmp/raw-call2.tar.xz $OUT/
cat $S
