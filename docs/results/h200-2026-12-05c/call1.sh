#!/usr/bin/env bash
# call 1: the decode warpgroup schedule `8x1x64w` (the W = 8 route of the H100 and H200
# entries), two changes against main (MAIN = b9e0616):
#   RS   rowscale-qk.diff: one int8 scale per query row, so a score's four group sums need
#        one FMA each from a per-key start value the producer writes (-MAGIC x the key's
#        scale sum), the row scale folded into the softmax exponent;
#   EVEN last session's even-splits-b16.diff (binary EX) with NINFER_EXP_EVEN_SPLITS=1: the
#        window's key tiles spread over the whole wave of splits (measured 3-4 % faster at
#        W = 8 on the mma.sync route only).
# First RS's `ninfer check --schedule 8x1x64w --every-width` and a memcheck of int8 W = 8,
# then `ninfer bench` A / RS / EVEN interleaved, two rounds, on the card's built-in entry.
# Build: scripts/build-ab.sh MAIN; scripts/build-ab.sh EX HEAD ../h200-2026-12-05b/even-splits-b16.diff;
#   RS = target/release of main + rowscale-qk.diff, stripped and xz'd.
#   Carry target/ab/MAIN, target/ab/EX, target/ab/RS.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh MAIN EX RS || exit 1
S=$OUT/summary-call1.txt
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
PROFILE=""; grep -q -E "H200|H100" $S || PROFILE="--device-profile off"
t0=$(date +%s)
timeout 150 /tmp/bin/RS/ninfer check --schedule 8x1x64w --every-width > $OUT/check-rs.txt 2>&1
echo "check RS --schedule 8x1x64w rc=$? at $(( $(date +%s) - t0 )) s" >> $S
grep -E "FAIL|checks of|error" $OUT/check-rs.txt | head -12 >> $S
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/RS/ninfer check --only attn_i8_small/h24/int8/w8 --schedule 8x1x64w > $OUT/memcheck-rs.txt 2>&1
echo "memcheck RS int8 w8 rc=$? at $(( $(date +%s) - t0 )) s" >> $S
grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-rs.txt | tail -2 >> $S
keys="attn_i8_small/h24/int8/w8 attn_i8_small/h24/rk8v4/w8"
for round in 1 2; do
  for side in A RS EVEN; do
    case $side in
      A) bin=/tmp/bin/MAIN; e="" ;;
      RS) bin=/tmp/bin/RS; e="" ;;
      EVEN) bin=/tmp/bin/EX; e="NINFER_EXP_EVEN_SPLITS=1" ;;
    esac
    for key in $keys; do
      env $e timeout 90 $bin/ninfer bench $PROFILE --only $key --widths 8192,65536,262144 --json > $OUT/b-$side-$round-${key//\//_}.json 2>/dev/null || echo "bench $side $key failed" >> $S
    done
  done
  echo "round $round done at $(( $(date +%s) - t0 )) s" >> $S
done
python3 - $OUT $keys >> $S <<'PY'
import json, sys, glob, statistics, os
out, keys = sys.argv[1], sys.argv[2:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
print(f"{'key':30} {'window':>7} {'A':>8} {'RS':>8} {'EVEN':>8} {'RS/A':>6} {'EVEN/A':>6}   runs A | RS | EVEN")
for key in keys:
    k = key.replace("/", "_"); med = {}; raw = {}
    for s in ("A", "RS", "EVEN"):
        runs = [pts(p) for p in sorted(glob.glob(os.path.join(out, f"b-{s}-*-{k}.json")))]
        raw[s] = {pt: [r[pt] for r in runs if pt in r] for pt in (runs[0] if runs else {})}
        med[s] = {pt: statistics.median(v) for pt, v in raw[s].items()}
    for pt in sorted(med["A"]):
        a, b, e = med["A"][pt], med["RS"].get(pt, float("nan")), med["EVEN"].get(pt, float("nan"))
        runs = " | ".join("/".join(f"{x:.2f}" for x in raw[s].get(pt, [])) for s in ("A", "RS", "EVEN"))
        print(f"{pt[0]:30} {pt[1]:>7} {a:8.2f} {b:8.2f} {e:8.2f} {b/a:6.3f} {e/a:6.3f}   {runs}")
PY
echo "benches done at $(( $(date +%s) - t0 )) s" >> $S
tar czf $OUT/bench-json.tgz -C $OUT $(cd $OUT && ls b-*.json) && rm -f $OUT/b-*.json
cat $S
