#!/usr/bin/env bash
# The full GPU session in one call (the device machine has no Rust: build here with
# `cargo build --release`, carry target/release/ninfer and ninfer-calibrate):
#   check every variant -> memcheck -> bench on compiled routes -> PyTorch baselines
#   -> calibrate twice -> bench on the calibrated profile -> comparison tables.
# Usage on the GPU machine: OUT=/some/dir scripts/device-run.sh [quick]
set -u
B=${BIN:-target/release}
OUT=${OUT:-/tmp/ninfer-out}
mkdir -p "$OUT"
export NINFER_DEVICE_PROFILES=$OUT/device-profiles.json
export PYTHONUNBUFFERED=1
log=$OUT/summary.txt
say() { echo "$@" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$log"

say "== ninfer check (every variant, every width)"
$B/ninfer check > "$OUT/check.txt" 2>&1
rc=$?
tail -25 "$OUT/check.txt" | tee -a "$log"
[ $rc -eq 0 ] || { say "check failed (rc=$rc): stopping"; exit 1; }

if [ "${1:-}" != quick ]; then
  say "== compute-sanitizer memcheck (every variant on t2_i8_small/5120x6144)"
  compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only t2_i8_small/5120x6144 > "$OUT/memcheck.txt" 2>&1
  say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$OUT/memcheck.txt" | tee -a "$log"
fi

say "== bench, compiled routes"
$B/ninfer bench --device-profile off --out "$OUT/bench-compiled.json" 2>/dev/null | tee -a "$log"

say "== PyTorch baselines"
python3 scripts/torch_baselines.py --out "$OUT/torch.json" 2> "$OUT/torch.txt" || tail -5 "$OUT/torch.txt"

say "== ninfer-calibrate (twice)"
/usr/bin/time -f "calibration wall %e s" $B/ninfer-calibrate --detail --print > "$OUT/calibrated.json" 2> "$OUT/calibrate.txt"
grep -E "keys measured|wall|error" "$OUT/calibrate.txt" | tee -a "$log"
$B/ninfer-calibrate --out "$OUT/second-profile.json" --print > "$OUT/calibrated-second.json" 2>> "$OUT/calibrate.txt"
grep -E "keys measured" "$OUT/calibrate.txt" | tail -1 | tee -a "$log"
say "-- first calibration routes"; grep -A40 '"routes"' "$OUT/calibrated.json" | tee -a "$log"
say "-- second calibration routes"; grep -A40 '"routes"' "$OUT/calibrated-second.json" | tee -a "$log"

say "== bench, calibrated profile"
$B/ninfer bench --out "$OUT/bench-calibrated.json" 2>/dev/null | tee -a "$log"

say "== comparison (compiled routes vs PyTorch, same run)"
python3 scripts/compare_baselines.py "$OUT/torch.json" "$OUT/bench-compiled.json" | tee -a "$log"
say "== comparison (calibrated routes vs PyTorch, same run)"
python3 scripts/compare_baselines.py "$OUT/torch.json" "$OUT/bench-calibrated.json" | tee -a "$log"
