#!/usr/bin/env bash
# The full GPU session (the device machine has no Rust: build here with
# `cargo build --release`, carry the binaries), in three phases that each fit one device
# call (10 minutes):
#   check      every variant against the CPU reference, then memcheck
#   bench      bench on compiled routes, PyTorch baselines (projections, SDPA attention)
#   calibrate  calibrate -> bench on the calibrated profile -> comparison tables (needs the
#              bench phase's files in $PREV) -> the main job (ninfer routes), whose start-up
#              calibration is the run's second calibration
# Usage on the GPU machine: OUT=/some/dir [PREV=/dir/of/bench/phase] scripts/device-run.sh PHASE
set -u
B=${BIN:-target/release}
OUT=${OUT:-/tmp/ninfer-out}
PREV=${PREV:-$OUT}
phase=${1:-check}
mkdir -p "$OUT"
# Profiles (and their lock files) live outside $OUT: only 8 files come back from it.
work=$(mktemp -d)
export NINFER_DEVICE_PROFILES=$work/device-profiles.json
export PYTHONUNBUFFERED=1
log=$OUT/summary-$phase.txt
say() { echo "$@" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$log"

if [ "$phase" = check ]; then
say "== ninfer check (every variant, every width)"
$B/ninfer check > "$OUT/check.txt" 2>&1
rc=$?
tail -25 "$OUT/check.txt" | tee -a "$log"
[ $rc -eq 0 ] || { say "check failed (rc=$rc): stopping"; exit 1; }

  : > "$OUT/memcheck.txt"
  # memcheck on the first (smallest) key of every family, every variant, every width;
  # and the attention's other code paths (4-bit K and V, the widest query-tile class)
  for key in $($B/ninfer catalog --json | python3 -c 'import json,sys; print(" ".join(f["keys"][0] for f in json.load(sys.stdin)["families"]))') attn_i8_small/h24/rk4v4/w8; do
    say "== compute-sanitizer memcheck (every variant of $key)"
    compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only "$key" >> "$OUT/memcheck.txt" 2>&1
    say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$OUT/memcheck.txt" | tail -2 | tee -a "$log"
  done
fi

if [ "$phase" = bench ]; then
say "== bench, compiled routes"
$B/ninfer bench --device-profile off --out "$OUT/bench-compiled.json" 2>/dev/null | tee -a "$log"

say "== PyTorch baselines"
# Every shape of the catalog's route keys (<N>x<K>), at every calibration width.
shapes=$($B/ninfer catalog --json | python3 -c 'import json,sys; import re; print(",".join(sorted({s for f in json.load(sys.stdin)["families"] for s in (k.split("/", 1)[1] for k in f["keys"]) if re.fullmatch(r"\d+x\d+", s)})))')
python3 scripts/torch_baselines.py --shapes "$shapes" --widths 1,2,3,4,5,6,7,8,10,12,14,16,20,24,28,32,40,48,56,64 --out "$OUT/torch.json" 2> "$work/torch.txt" || tail -5 "$work/torch.txt"
say "== PyTorch SDPA baselines (BF16 KV, flash and cuDNN)"
python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,2,4,8 --backends flash,cudnn --replays 9 --out "$OUT/torch-attention.json" 2> "$OUT/torch-attention.txt" || tail -5 "$OUT/torch-attention.txt"
tail -30 "$OUT/torch-attention.txt" | tee -a "$log"
fi

if [ "$phase" = calibrate ]; then
say "== ninfer-calibrate"
start=$(date +%s%N)
$B/ninfer-calibrate --detail --print > "$work/calibrated.json" 2> "$OUT/calibrate.txt"
echo "calibration wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$OUT/calibrate.txt"
grep -E "keys measured|wall|error" "$OUT/calibrate.txt" | tee -a "$log"
say "-- calibrated entry"; cat "$work/calibrated.json" | tee -a "$log"
cp "$NINFER_DEVICE_PROFILES" "$OUT/device-profiles.json"

say "== bench, calibrated profile"
$B/ninfer bench --out "$OUT/bench-calibrated.json" 2>/dev/null | tee -a "$log"

say "== calibrated vs compiled routes (re-measured; the compiled bench is the bench phase's, same machine)"
python3 scripts/compare_routes.py "$PREV/bench-compiled.json" "$OUT/bench-calibrated.json" | tee -a "$log"
say "== comparison (calibrated routes vs PyTorch)"
python3 scripts/compare_baselines.py --all "$PREV/torch.json" "$OUT/bench-calibrated.json" | tee -a "$log"
python3 scripts/compare_attention_baselines.py "$PREV/torch-attention.json" "$OUT/bench-calibrated.json" | tee -a "$log"

say "== the main job on this GPU: ninfer routes (built-in entry, then a start-up calibration into an empty file)"
NINFER_DEVICE_PROFILES=$work/empty.json $B/ninfer routes 2>&1 | head -12 | tee -a "$log"
NINFER_DEVICE_PROFILES=$work/startup.json $B/ninfer routes --device-profile calibrate 2>&1 | tee -a "$log"

say "== the two calibrations of this run (ninfer-calibrate, then the start-up one) compared"
python3 - "$OUT/device-profiles.json" "$work/startup.json" <<'PY' | tee -a "$log"
import json, sys
a, b = (json.load(open(p))["devices"][0]["routes"] for p in sys.argv[1:3])
same = [k for k in a if a[k] == b.get(k)]
print(f"{len(same)} of {len(a)} keys identical")
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print(f"  {k}: first {a.get(k)}  second {b.get(k)}")
PY
fi
