#!/usr/bin/env bash
# call 11: PUSH = 5d45d11 (RES) with the cluster rings' K-slice sum pushed: after a relaxed
# cluster barrier every CTA stores its fragments into their owners' rings with st.async,
# counted by bytes on the owner's mbarrier, and each owner sums its share when they have
# landed (no memory barrier, no remote loads; cluster-push-call11.diff). RES = 5d45d11.
# ninfer check of q4 with PUSH, the two cluster routes' checks five more times and a
# memcheck; `ninfer bench` of both q4 keys on the built-in entry, interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
bins="RES PUSH"
for b in $bins; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call11.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== PUSH: ninfer check --only q4_linear_add"
/tmp/bin/PUSH/ninfer check --only q4_linear_add > $OUT/check-q4-call11.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call11.txt | head -5 | tee -a $S
say "== PUSH: memcheck q4_linear_add/5120x6144 --schedule ring_c8_k4_s3_g4_a8_cl"
compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/PUSH/ninfer check --only q4_linear_add/5120x6144 --schedule ring_c8_k4_s3_g4_a8_cl > /tmp/mc.txt 2>&1
say "rc=$?"; grep -E "ERROR SUMMARY|checks of" /tmp/mc.txt | tail -2 | tee -a $S
for rep in 1 2 3 4 5; do
  /tmp/bin/PUSH/ninfer check --only q4_linear_add/5120x17408 --schedule ring_c8_k4_s3_g4_a8_cl 2>&1 | grep -E 'FAIL|checks of' | tee -a $S
  /tmp/bin/PUSH/ninfer check --only q4_linear_add/5120x17408 --schedule ring_c16_k4_s3_g4_a8_cl 2>&1 | grep -E 'FAIL|checks of' | tee -a $S
done
mkdir -p /tmp/b11
for round in 1 2 3; do for b in $bins; do
  /tmp/bin/$b/ninfer bench --only q4_linear_add --widths 1,2,4,8,12,16,24,32 --json > /tmp/b11/$b-$round.json 2>/dev/null || say "bench $b failed"
done; done
tar czf $OUT/bench-call11.tgz -C /tmp b11
python3 - $bins <<'PY' | tee -a $S
import json, sys, glob, statistics
bins = sys.argv[1:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
runs = {b: [pts(p) for p in sorted(glob.glob(f"/tmp/b11/{b}-*.json"))] for b in bins}
print(f"{'key':26} {'T':>3} " + " ".join(f"{b:>14}" for b in bins))
for pt in sorted(runs[bins[0]][0]):
    med = {b: statistics.median([r[pt] for r in runs[b] if pt in r]) for b in bins}
    print(f"{pt[0]:26} {pt[1]:>3} " + " ".join(f"{med[b]:7.2f} ({med[b]/med[bins[0]]:.3f})" for b in bins))
PY
