#!/usr/bin/env bash
# Builds an experiment with the pip nvcc (scripts/setup-cuda.sh), cudart linked statically,
# so the binary runs on the GPU machine as is: experiments/build.sh q4_micro
# (ARCH="-gencode arch=compute_90a,code=sm_90a" for the wgmma experiments).
# nvcc's own headers need the CCCL headers (<nv/target>), which the build's NVRTC does not:
# they are installed here on first use, pinned like the other CUDA wheels.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
cuda=${NINFER_CUDA_ROOT:-$root/.cuda/nvidia/cu13}
[ -x "$cuda/bin/nvcc" ] || "$root/scripts/setup-cuda.sh" > /dev/null
cccl=${CCCL_INCLUDE:-$root/.cuda-cccl/nvidia/cu13/include/cccl}
if [ ! -e "$cccl/nv/target" ]; then
  echo "experiments: installing the CCCL headers (nvidia-cuda-cccl 13.0) into .cuda-cccl/" >&2
  python3 -m pip install --quiet --target "$root/.cuda-cccl" "nvidia-cuda-cccl==13.0.85"
fi
mkdir -p "$root/target/exp"
"$cuda/bin/nvcc" -O3 -std=c++17 ${ARCH:--arch=sm_90} --expt-relaxed-constexpr -Xptxas -v -I"$cuda/include" -I"$cccl" \
  -L"$cuda/lib" -cudart static -o "$root/target/exp/$1" "$here/$1.cu" 2> "$root/target/exp/$1.ptxas.txt" || {
  grep -v "^ptxas info" "$root/target/exp/$1.ptxas.txt" >&2; exit 1; }
grep -E "registers|spill" "$root/target/exp/$1.ptxas.txt" | paste - - | sed 's/ptxas info    ://g' | head -40 || true
