#!/usr/bin/env bash
# call 13: FINAL2 = bace366 + the cluster rings' last arrival moved after the CTA's own share
# has landed (so no CTA exits while pushes to it, or from it, are in flight), against PUSH
# (bace366). FINAL2: ninfer check of q4, the two cluster routes' checks five more times at
# each shape, memchecks of them; `ninfer bench` of both q4 keys at T <= 16 (the cluster
# routes, the same in both binaries' built-in entries), interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
bins="PUSH FINAL2"
for b in $bins; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/ninfer.xz; do xz -dc $f > /tmp/bin/$b/ninfer; done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call13.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== FINAL2: ninfer check --only q4_linear_add"
/tmp/bin/FINAL2/ninfer check --only q4_linear_add > $OUT/check-q4-call13.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call13.txt | head -5 | tee -a $S
for key in 5120x6144 5120x17408; do for sch in ring_c8_k4_s3_g4_a8_cl ring_c16_k4_s3_g4_a8_cl ring_c8_k4_s4_g4_a8_cl; do
  say "== FINAL2: memcheck q4_linear_add/$key --schedule $sch"
  compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/FINAL2/ninfer check --only q4_linear_add/$key --schedule $sch > /tmp/mc.txt 2>&1
  say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
  for rep in 1 2 3 4 5; do /tmp/bin/FINAL2/ninfer check --only q4_linear_add/$key --schedule $sch 2>&1 | grep -E 'FAIL|checks of' | tee -a $S; done
done; done
mkdir -p /tmp/b13
for round in 1 2 3; do for b in $bins; do
  /tmp/bin/$b/ninfer bench --only q4_linear_add --widths 1,2,4,8,12,16 --json > /tmp/b13/$b-$round.json 2>/dev/null || say "bench $b failed"
done; done
tar czf $OUT/bench-call13.tgz -C /tmp b13
python3 - $bins <<'PY' | tee -a $S
import json, sys, glob, statistics
bins = sys.argv[1:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
runs = {b: [pts(p) for p in sorted(glob.glob(f"/tmp/b13/{b}-*.json"))] for b in bins}
print(f"{'key':26} {'T':>3} " + " ".join(f"{b:>14}" for b in bins))
for pt in sorted(runs[bins[0]][0]):
    med = {b: statistics.median([r[pt] for r in runs[b] if pt in r]) for b in bins}
    print(f"{pt[0]:26} {pt[1]:>3} " + " ".join(f"{med[b]:7.2f} ({med[b]/med[bins[0]]:.3f})" for b in bins))
PY
