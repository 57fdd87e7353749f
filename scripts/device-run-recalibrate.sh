#!/usr/bin/env bash
# One GPU call after schedules were added to families in catalog.toml (which changes the
# route-catalog digest, so the built-in entry no longer applies as it is): the built-in
# entry re-stamped with this build's digest becomes the profile file (its routes name only
# schedules that are still in the catalog; `ninfer profile check` says so), the family is
# benched on those routes, recalibrated into the same entry (the other keys kept), and
# benched again; compare_routes.py prints the per-width ratios. SECOND=1: then a second
# calibration into a copy of the recalibrated file, and this card's routes of the FAMILY
# keys from both (near ties are what differs).
# Usage on the GPU machine:
#   OUT=/some/dir BIN=/dir/with/binaries FAMILY="q4_linear_add t2_i8_small" [SECOND=1] \
#     scripts/device-run-recalibrate.sh
FAMILY=${FAMILY:?FAMILY names the route-key prefixes, separated by spaces}
LOG_NAME=summary-recalibrate.txt
source "$(dirname "$0")/device-common.sh"
digest=$($B/ninfer catalog | sed -n 's/^route catalog //p' | head -1)
say "== built-in entry re-stamped with route catalog $digest"
python3 - "$digest" "$NINFER_DEVICE_PROFILES" <<'EOF'
import json, sys
digest, path = sys.argv[1], sys.argv[2]
d = json.load(open("runtime/src/profile/builtin-device-profiles.json"))
for e in d["devices"]:
    e["calibration"]["route_catalog"] = digest
json.dump(d, open(path, "w"), indent=2)
EOF
cp "$NINFER_DEVICE_PROFILES" "$work/builtin-restamped.json"
$B/ninfer profile check "$NINFER_DEVICE_PROFILES" 2>&1 | tail -3 | tee -a "$log"
for fam in $FAMILY; do
  say "== bench $fam on the built-in routes"
  $B/ninfer bench --only "$fam" ${SAMPLES:+--samples $SAMPLES} --out "$OUT/bench-$fam-builtin.json" 2>/dev/null | tee -a "$log"
done
for fam in $FAMILY; do
  say "== ninfer-calibrate --only $fam (merged into the entry)"
  $B/ninfer-calibrate --detail --only "$fam" > "$OUT/calibrate-$fam.txt" 2>&1
  grep -E "keys measured|error" "$OUT/calibrate-$fam.txt" | tee -a "$log"
done
cp "$NINFER_DEVICE_PROFILES" "$OUT/profile-recalibrated.json"
for fam in $FAMILY; do
  say "== bench $fam on the recalibrated routes"
  $B/ninfer bench --only "$fam" ${SAMPLES:+--samples $SAMPLES} --out "$OUT/bench-$fam-recalibrated.json" 2>/dev/null | tee -a "$log"
  python3 scripts/compare_routes.py "$OUT/bench-$fam-builtin.json" "$OUT/bench-$fam-recalibrated.json" | tail -50 | tee -a "$log"
done
if [ "${SECOND:-0}" = 1 ]; then
  cp "$OUT/profile-recalibrated.json" "$OUT/profile-second.json"
  for fam in $FAMILY; do
    say "== second ninfer-calibrate --only $fam (into a copy)"
    NINFER_DEVICE_PROFILES=$OUT/profile-second.json $B/ninfer-calibrate --detail --only "$fam" \
      > "$OUT/calibrate-second-$fam.txt" 2>&1
    grep -E "keys measured|error" "$OUT/calibrate-second-$fam.txt" | tee -a "$log"
  done
  # this card's entry: the one whose calibration block the runs rewrote
  python3 - "$work/builtin-restamped.json" "$OUT/profile-recalibrated.json" "$OUT/profile-second.json" $FAMILY <<'EOF' | tee -a "$log"
import json, sys
before, first, second = (json.load(open(p))["devices"] for p in sys.argv[1:4])
prefixes = tuple(f + "/" for f in sys.argv[4:])
was = {e["hardware_class"]: e["calibration"] for e in before}
for a in first:
    if was.get(a["hardware_class"]) == a["calibration"]:
        continue
    b = next((e for e in second if e["hardware_class"] == a["hardware_class"]), {"routes": {}})
    for key in sorted(k for k in a["routes"] if k.startswith(prefixes)):
        same = a["routes"][key] == b["routes"].get(key)
        print(f"{a['hardware_class']} {key}\n  first  {a['routes'][key]}\n  second {b['routes'].get(key)}"
              + ("  (same)" if same else "  (differs)"))
EOF
fi
