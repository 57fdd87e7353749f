#!/usr/bin/env bash
# call 10: RES = 48d4392 (CLR2) with the K-split workspace path reading the residual only in
# the last CTA of a row block, after its fence and together with the other slices'
# partials (before: every CTA read it just before its first fence, which then waited for
# it; residual-by-last-cta-call10.diff). CLR2 = 48d4392. ninfer check of q4 with RES,
# memchecks of the T = 17-64 routes at 5120x6144; `ninfer bench` of both q4 keys on the
# built-in entry (T = 1-64), the two binaries interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
bins="CLR2 RES"
for b in $bins; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== RES: ninfer check --only q4_linear_add"
/tmp/bin/RES/ninfer check --only q4_linear_add > $OUT/check-q4-call10.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call10.txt | head -5 | tee -a $S
for sch in ring_c32_w8_k6_s4_g2_a8 wg_c64_k4_s4; do
say "== RES: memcheck q4_linear_add/5120x6144 --schedule $sch"
compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/RES/ninfer check --only q4_linear_add/5120x6144 --schedule $sch > /tmp/mc.txt 2>&1
say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
done
for rep in 1 2 3; do
  /tmp/bin/RES/ninfer check --only q4_linear_add/5120x17408 --schedule ring_c32_w8_k6_s4_g2_a8 2>&1 | grep -E 'FAIL|checks of' | tee -a $S
  /tmp/bin/RES/ninfer check --only q4_linear_add/5120x17408 --schedule wg_c64_k6_s4 2>&1 | grep -E 'FAIL|checks of' | tee -a $S
done
mkdir -p /tmp/b10
for round in 1 2 3; do for b in $bins; do
  /tmp/bin/$b/ninfer bench --only q4_linear_add --widths 1,8,16,24,32,40,48,56,64 --json > /tmp/b10/$b-$round.json 2>/dev/null || say "bench $b failed"
done; done
tar czf $OUT/bench-call10.tgz -C /tmp b10
python3 - $bins <<'PY' | tee -a $S
import json, sys, glob, statistics
bins = sys.argv[1:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
runs = {b: [pts(p) for p in sorted(glob.glob(f"/tmp/b10/{b}-*.json"))] for b in bins}
print(f"{'key':26} {'T':>3} " + " ".join(f"{b:>14}" for b in bins))
for pt in sorted(runs[bins[0]][0]):
    med = {b: statistics.median([r[pt] for r in runs[b] if pt in r]) for b in bins}
    print(f"{pt[0]:26} {pt[1]:>3} " + " ".join(f"{med[b]:7.2f} ({med[b]/med[bins[0]]:.3f})" for b in bins))
PY
