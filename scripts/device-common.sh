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
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$log"
