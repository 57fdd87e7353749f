#!/usr/bin/env bash
# call 4: TRIG = b7870b9 with the producer rings' PDL trigger at the start of the kernel
# (after the mbarrier setup) instead of after the loops, so the next op's quantization and
# ring may be scheduled while this one streams (experiment; diff trig-at-start-call4.diff).
# OLD = b7870b9. ninfer check of q4 with TRIG, then `ninfer bench` of both q4 keys on the
# built-in entry, the two binaries interleaved, three rounds; the medians per binary.
set -u
cd "$(dirname "$0")/../../.."
bins="OLD TRIG"
for b in $bins; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/ninfer.xz; do xz -dc $f > /tmp/bin/$b/ninfer; done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== TRIG: ninfer check --only q4_linear_add"
/tmp/bin/TRIG/ninfer check --only q4_linear_add > $OUT/check-q4-call4.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call4.txt | head -5 | tee -a $S
mkdir -p /tmp/b4
for round in 1 2 3; do for b in $bins; do
  /tmp/bin/$b/ninfer bench --only q4_linear_add --widths 1,2,4,8,12,16,24,32 --json > /tmp/b4/$b-$round.json 2>/dev/null || say "bench $b failed"
done; done
tar czf $OUT/bench-call4.tgz -C /tmp b4
python3 - $bins <<'PY' | tee -a $S
import json, sys, glob, statistics
bins = sys.argv[1:]
def pts(p):
    d = json.load(open(p)); rows = d["results"] if isinstance(d, dict) and "results" in d else d
    return {(r["key"], r["width"]): r["us"] for r in rows}
runs = {b: [pts(p) for p in sorted(glob.glob(f"/tmp/b4/{b}-*.json"))] for b in bins}
print(f"{'key':26} {'T':>3} " + " ".join(f"{b:>14}" for b in bins))
for pt in sorted(runs[bins[0]][0]):
    med = {b: statistics.median([r[pt] for r in runs[b] if pt in r]) for b in bins}
    spread = {b: max(r[pt] for r in runs[b]) - min(r[pt] for r in runs[b]) for b in bins}
    print(f"{pt[0]:26} {pt[1]:>3} " + " ".join(f"{med[b]:7.2f} ({med[b]/med[bins[0]]:.3f})" for b in bins))
PY
