#!/usr/bin/env bash
# call 5: FINAL (10d8a25, the shipped build: the l2_prefetch copy of r16c1k4s2w1p1x1m0
# added): t2_i8_small recalibrated into the built-in entry (its routes are the shipped
# ones), a second calibration compared, then every family's `ninfer check`.
set -u
cd "$(dirname "$0")/../.."
for b in FINAL; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL
S=$OUT/summary-call5.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (FINAL)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call5.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== second calibration (fresh profile file), routes against the first"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json $F/ninfer-calibrate --only t2_i8_small --print > /tmp/cal2.json 2> /tmp/cal2.txt; say "rc=$?"; grep -E 'keys measured' /tmp/cal2.txt | tee -a $S
python3 - $OUT/profile-recalibrated-call5.json /tmp/cal2.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p))
    devs = d["devices"] if "devices" in d else [d]
    return {k: v for e in devs for k, v in e.get("routes", {}).items() if k.startswith("t2_i8_small")}
a, b = routes(sys.argv[1]), routes(sys.argv[2])
for k in sorted(a):
    print(k, "same" if a[k] == b.get(k) else f"DIFFERS: first {a[k]} second {b.get(k)}")
PY
say "== FINAL: ninfer check (every family, every variant and width)"
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
timeout 400 $F/ninfer check > /tmp/check-all.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/check-all.txt | tail -5 | tee -a $S
gzip -c /tmp/check-all.txt > $OUT/check-all-call5.txt.gz
