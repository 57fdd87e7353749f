#!/usr/bin/env bash
# call 1: decode attention, two experiments in one binary (EX, branch even-splits, both
# behind experiment variables): NINFER_EXP_EVEN_SPLITS=1 spreads the window's key blocks
# evenly over a full wave of splits; NINFER_EXP_B16=1 picks a reduce with 16 splits' loads in
# flight per thread (one L2 round trip for up to 128 splits instead of two). First `ninfer
# check` of three keys with both on, then `ninfer bench` of A = FINAL2 (ee6b3c2, main's PTX)
# against EX with B16 only and with both, interleaved, two rounds: on the H200 on its
# built-in entry, elsewhere (the H100 this session had) on the compiled routes.
# Build: EX = target/release of the branch, stripped and xz'd; carry target/ab/FINAL2,
#   target/ab/EX.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 EX || exit 1
S=$OUT/summary-call1.txt
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
# no built-in entry but the H200's: elsewhere the benches run the compiled routes
PROFILE=""; grep -q H200 $S || PROFILE="--device-profile off"
EXP="NINFER_EXP_EVEN_SPLITS=1 NINFER_EXP_B16=1"
t0=$(date +%s)
for key in attn_i8_small/h24/int8/w1 attn_i8_small/h24/rk8v4/w1 attn_i8_small/h24/int8/w8; do
  env $EXP timeout 100 /tmp/bin/EX/ninfer check --only $key > $OUT/check-ex-${key//\//_}.txt 2>&1
  echo "check $key (both on) rc=$? at $(( $(date +%s) - t0 )) s" >> $S
  grep -E "FAIL|checks of|error" $OUT/check-ex-${key//\//_}.txt | head -8 >> $S
done
keys="attn_i8_small/h24/int8/w1 attn_i8_small/h24/rk8v4/w1 attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8"
for round in 1 2; do
  for side in A B16 EVEN; do
    case $side in
      A) bin=/tmp/bin/FINAL2; e="" ;;
      B16) bin=/tmp/bin/EX; e="NINFER_EXP_B16=1" ;;
      EVEN) bin=/tmp/bin/EX; e="$EXP" ;;
    esac
    for key in $keys; do
      env $e timeout 90 $bin/ninfer bench $PROFILE --only $key --widths 8192,65536,262144 --json > $OUT/b-$side-$round-${key//\//_}.json 2>/dev/null || echo "bench $side $key failed" >> $S
    done
  done
done
python3 - $OUT $keys >> $S <<'PY'
import json, sys, glob, statistics, os
out, keys = sys.argv[1], sys.argv[2:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
print(f"{'key':30} {'window':>7} {'A':>8} {'B16':>8} {'EVEN':>8} {'B16/A':>6} {'EVEN/A':>6}")
for key in keys:
    k = key.replace("/", "_"); med = {}
    for s in ("A", "B16", "EVEN"):
        runs = [pts(p) for p in sorted(glob.glob(os.path.join(out, f"b-{s}-*-{k}.json")))]
        med[s] = {pt: statistics.median([r[pt] for r in runs if pt in r]) for pt in (runs[0] if runs else {})}
    for pt in sorted(med["A"]):
        a, b, e = med["A"][pt], med["B16"].get(pt, float("nan")), med["EVEN"].get(pt, float("nan"))
        print(f"{pt[0]:30} {pt[1]:>7} {a:8.2f} {b:8.2f} {e:8.2f} {b/a:6.3f} {e/a:6.3f}")
PY
echo "benches done at $(( $(date +%s) - t0 )) s" >> $S
tar czf $OUT/bench-json.tgz -C $OUT $(cd $OUT && ls b-*.json) && rm -f $OUT/b-*.json
cat $S
