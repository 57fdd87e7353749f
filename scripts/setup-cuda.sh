#!/usr/bin/env bash
# Installs NVRTC, the CUDA headers and ptxas from pinned pip wheels into .cuda/ (once;
# again only when scripts/cuda-requirements.txt changes). Prints the CUDA root it set up.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target="$root/.cuda"
req="$root/scripts/cuda-requirements.txt"
stamp="$target/.requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$req" && [ -f "$target/nvidia/cu13/lib/libnvrtc.so.13" ]; then
  echo "$target/nvidia/cu13"
  exit 0
fi
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "setup-cuda: needs python3 with pip to fetch the CUDA wheels" >&2; exit 1; }
echo "setup-cuda: installing the pinned CUDA 13.0 wheels into .cuda/ (one time, ~500 MB)" >&2
rm -rf "$target.partial"
"$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
  --target "$target.partial" -r "$req" >&2
rm -rf "$target"
mv "$target.partial" "$target"
cp "$req" "$stamp"
echo "$target/nvidia/cu13"
