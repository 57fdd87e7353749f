#!/usr/bin/env bash
# Builds an experiment with the pip nvcc (scripts/setup-cuda.sh), cudart linked statically,
# so the binary runs on the GPU machine as is: experiments/build.sh q4_micro
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuda=${NINFER_CUDA_ROOT:-$here/../.cuda/nvidia/cu13}
mkdir -p "$here/../target/exp"
"$cuda/bin/nvcc" -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Xptxas -v -I"$cuda/include" -I"${CCCL_INCLUDE:-$cuda/include/cccl}" \
  -L"$cuda/lib" -cudart static -o "$here/../target/exp/$1" "$here/$1.cu" 2> "$here/../target/exp/$1.ptxas.txt"
grep -E "registers|spill" "$here/../target/exp/$1.ptxas.txt" | paste - - | sed 's/ptxas info    ://g' | head -40 || true
