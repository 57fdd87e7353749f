#!/usr/bin/env bash
# One GPU call after kernel changes that only touch some families: a full calibration
# (every family and switch: the built-in entry is one measurement, stamped with the current
# route catalog), then the changed families' bench on the calibrated profile and on the
# compiled routes. FAMILIES: space-separated `ninfer bench --only` prefixes.
# Only 8 files come back from $OUT: the entry, the calibration log and the summary go
# there; the bench JSONs stay in the scratch folder (their tables are in the summary).
# Usage on the GPU machine: OUT=/some/dir BIN=/dir FAMILIES="q4_linear_add ..." scripts/device-run-final.sh
LOG_NAME=summary-final.txt
source "$(dirname "$0")/device-common.sh"
say "== ninfer-calibrate (every family and switch)"
start=$(date +%s%N)
$B/ninfer-calibrate --detail --print > "$OUT/calibrated-entry.json" 2> "$OUT/calibrate.txt"
echo "calibration wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$OUT/calibrate.txt"
grep -E "keys measured|wall|error" "$OUT/calibrate.txt" | tee -a "$log"
for f in ${FAMILIES:-}; do
  tag=$(echo "$f" | tr '/' '_')
  say "== bench $f: compiled routes, then the calibrated profile"
  $B/ninfer bench --only "$f" --device-profile off --out "$work/bench-$tag-compiled.json" > /dev/null 2>&1
  $B/ninfer bench --only "$f" --out "$work/bench-$tag-calibrated.json" 2>/dev/null | tee -a "$log"
  python3 scripts/compare_routes.py "$work/bench-$tag-compiled.json" "$work/bench-$tag-calibrated.json" | tail -2 | tee -a "$log"
done
