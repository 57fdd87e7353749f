# Sourced by the device-run-*.sh scripts after setting LOG_NAME: binaries ($B, from BIN),
# the output folder ($OUT), a scratch folder whose profile file the runs use ($work,
# NINFER_DEVICE_PROFILES), the summary log and `say` (echo to it and the terminal),
# and the GPU's name and driver as the log's first line.
set -u
B=${BIN:-target/release}
OUT=${OUT:-/tmp/ninfer-out}
mkdir -p "$OUT"
work=$(mktemp -d)
export NINFER_DEVICE_PROFILES=$work/device-profiles.json
export PYTHONUNBUFFERED=1
log=$OUT/$LOG_NAME
say() { echo "$@" | tee -a "$log"; }
# ab_rounds FN: for the A/B scripts, FN SIDE ROUND DIR for each of ROUNDS (default 2)
# interleaved rounds, side A ($A) before side B ($B), so drift shows within each side.
ab_rounds() {
  local round side dir
  for round in $(seq 1 "${ROUNDS:-2}"); do
    for side in A B; do
      dir=$A; [ "$side" = B ] && dir=$B
      "$1" "$side" "$round" "$dir"
    done
  done
}
# check_prompt: `ninfer check` of every prompt kernel, format and switch with $B (table in
# $OUT/check-prompt.txt) and, unless MEMCHECK=0, compute-sanitizer memcheck of int8 and rk4v4
check_prompt() {
  say "== ninfer check --only attn_prompt ($B)"
  $B/ninfer check --only attn_prompt --every-width > "$OUT/check-prompt.txt" 2>&1
  say "check rc=$?"; grep -E "FAIL|checks of|error" "$OUT/check-prompt.txt" | head -40 | tee -a "$log"
  if [ "${MEMCHECK:-1}" = 1 ]; then
    for key in attn_prompt/h24/int8 attn_prompt/h24/rk4v4; do
      say "== compute-sanitizer memcheck ($key)"
      compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only "$key" > "$work/mc.txt" 2>&1
      say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$work/mc.txt" | tail -2 | tee -a "$log"
    done
  fi
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$log"
