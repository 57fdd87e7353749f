#!/usr/bin/env bash
# call 12: FINAL = bace366 (the PUSH binary of call 11: try_wait, relaxed cluster arrivals,
# residual reads off the fences, the pushed cluster sum). ninfer check of q4; the q4
# family recalibrated into the built-in entry (device-run-recalibrate.sh: bench on the
# built-in routes, calibration, bench on the new ones, compare_routes.py); a second
# calibration (stability); PyTorch baselines on the same shapes and the comparison
# against the built-in entry's bench.
set -u
cd "$(dirname "$0")/../../.."
for b in PUSH; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/PUSH
S=$OUT/summary-call12.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
say "== FINAL: ninfer check --only q4_linear_add"
$F/ninfer check --only q4_linear_add > $OUT/check-q4-call12.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call12.txt | head -5 | tee -a $S
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (FINAL)"
OUT=/tmp/rc BIN=$F FAMILY=q4_linear_add timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-builtin.json bench-q4_linear_add-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call12.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== a second calibration (q4)"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p2.json $F/ninfer-calibrate --only q4_linear_add --out /tmp/second.json > /tmp/second.txt 2>&1; say "rc=$?"; tail -1 /tmp/second.txt | tee -a $S
cp /tmp/second.json $OUT/calibrated-second-call12.json
python3 - $OUT/profile-recalibrated-call12.json $OUT/calibrated-second-call12.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p)); e = d["devices"][0] if "devices" in d else d
    return {k: v for k, v in e["routes"].items() if k.startswith("q4_linear_add")}
a, b = routes(sys.argv[1]), routes(sys.argv[2])
for k in sorted(a):
    print(k, "first:", a[k]); print(k, "second:", b.get(k))
PY
say "== PyTorch baselines and the comparison against the built-in entry's bench"
timeout 240 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144 --widths 1,8,16,32,64 --out /tmp/torch-q4-call12.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt
cp /tmp/torch-q4-call12.json $OUT/torch-q4-call12.json
python3 scripts/compare_baselines.py --all /tmp/torch-q4-call12.json $OUT/bench-q4_linear_add-builtin-call12.json 2>&1 | tee $OUT/compare-q4-call12.txt | grep -E "q4_linear_add|key" | tee -a $S
# at most 8 files come back from a device call
(cd $OUT && tar czf extras-call12.tgz calibrate-q4_linear_add-call12.txt summary-recalibrate-call12.txt calibrated-second-call12.json torch-q4-call12.json && rm calibrate-q4_linear_add-call12.txt summary-recalibrate-call12.txt calibrated-second-call12.json torch-q4-call12.json)
