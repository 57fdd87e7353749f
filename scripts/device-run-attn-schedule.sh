#!/usr/bin/env bash
# One GPU call after adding a decode-attention schedule to catalog.toml: `ninfer check` of
# that schedule alone (every format, W and window), memcheck of it at int8 W = 8, `ninfer
# bench` of attn_i8_small on the built-in entry, a calibration of attn_i8_small logging
# every candidate's time, and the bench again on that calibration, all in the same run.
# Usage on the GPU machine: SCHEDULE=8x1x64w OUT=/some/dir BIN=/dir/with/binaries \
#   scripts/device-run-attn-schedule.sh
LOG_NAME=summary-attn-schedule.txt
source "$(dirname "$0")/device-common.sh"
S=${SCHEDULE:?SCHEDULE=<a schedule name from catalog.toml>}
say "== ninfer check --only attn_i8_small --schedule $S --every-width"
timeout 200 $B/ninfer check --only attn_i8_small --schedule "$S" --every-width > "$OUT/check-$S.txt" 2>&1
say "check rc=$?"; grep -E "FAIL|checks of|error" "$OUT/check-$S.txt" | head -30 | tee -a "$log"
say "== compute-sanitizer memcheck (int8 W = 8, $S)"
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only attn_i8_small/h24/int8/w8 --schedule "$S" > "$work/mc.txt" 2>&1
say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of|rror" "$work/mc.txt" | tail -4 | tee -a "$log"
say "== bench attn_i8_small, built-in entry"
timeout 100 $B/ninfer bench --only attn_i8_small --samples 7 --json > "$OUT/bench-builtin.json" 2> "$work/bench1.txt"
say "bench rc=$?"
say "== ninfer-calibrate --only attn_i8_small --detail"
timeout 200 $B/ninfer-calibrate --only attn_i8_small --detail --print > "$work/calibrated.json" 2> "$OUT/calibrate-attn.txt"
say "calibrate rc=$?"; grep -E "keys measured|error" "$OUT/calibrate-attn.txt" | tee -a "$log"
cp "$NINFER_DEVICE_PROFILES" "$OUT/device-profiles.json"
say "== bench attn_i8_small, that calibration"
timeout 100 $B/ninfer bench --only attn_i8_small --samples 7 --json > "$OUT/bench-calibrated.json" 2> "$work/bench2.txt"
say "bench rc=$?"
python3 scripts/compare_routes.py "$OUT/bench-builtin.json" "$OUT/bench-calibrated.json" | tee -a "$log"
