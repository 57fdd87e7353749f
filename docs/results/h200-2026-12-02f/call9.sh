#!/usr/bin/env bash
# call 9: FINAL (10d8a25): does the prefetching routes' gain depend on programmatic
# dependent launch? t2_i8_small/5120x17408 and 5120x6144 at T = 2, 8, 16, built-in entry
# (prefetching routes) against --device-profile off (compiled routes), with NINFER_PDL=1
# and NINFER_PDL=0, each twice, interleaved.
set -u
cd "$(dirname "$0")/../.."
for b in FINAL; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL
S=$OUT/summary-call9.txt
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for round in 1 2; do
  for pdl in 1 0; do
    for side in builtin compiled; do
      args=""; [ $side = compiled ] && args="--device-profile off"
      for key in t2_i8_small/5120x17408 t2_i8_small/5120x6144; do
        NINFER_PDL=$pdl $F/ninfer bench --only $key --widths 2,8,16 $args --json 2>/dev/null > /tmp/b-$round-$pdl-$side-${key//\//_}.json
      done
    done
  done
done
python3 - <<'PY' | tee -a $S
import json, glob, statistics
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"].split("/")[1], r["width"]): (r["us"], r.get("schedule", "")) for r in rows}
print(f"{'key':12} {'T':>3} {'PDL':>4} {'compiled µs':>14} {'prefetch route µs':>18} {'ratio':>6}")
for key in ["5120x17408", "5120x6144"]:
    for t in [2, 8, 16]:
        for pdl in ["1", "0"]:
            v = {}
            for side in ["compiled", "builtin"]:
                xs = [pts(p)[(key, t)][0] for p in glob.glob(f"/tmp/b-*-{pdl}-{side}-t2_i8_small_{key}.json")]
                v[side] = xs
            c, b = statistics.median(v["compiled"]), statistics.median(v["builtin"])
            print(f"{key:12} {t:>3} {pdl:>4} {'/'.join(f'{x:.2f}' for x in v['compiled']):>14} {'/'.join(f'{x:.2f}' for x in v['builtin']):>18} {b / c:6.3f}")
PY
