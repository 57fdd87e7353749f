#!/usr/bin/env bash
# Runs every rendered q6_head variant's kernel source on the CPU (g++ -std=c++20, one
# thread per lane, mma.sync emulated across the lanes; shim.h) against the f64 reference
# at every width it serves. Needs a prior `cargo build`/`cargo test` of ninfer-runtime
# (for the rendered sources under target/) and NINFER_CUDA_ROOT as for cargo.
#   scripts/q6_cpu_sim/run.sh [N K]     default 80 384 (5 tiles: partial CTAs)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-80}; k=${2:-384}; tokens=32
case_dir=$(mktemp -d)
trap 'rm -rf "$case_dir"' EXIT
(cd "$root" && Q6_SIM_DIR=$case_dir Q6_SIM_N=$n Q6_SIM_K=$k Q6_SIM_T=$tokens \
  cargo test -q -p ninfer-runtime --lib dump_cpu_sim_case -- --ignored >/dev/null)
kernels=$(ls -td "$root"/target/debug/build/ninfer-runtime-*/out/kernels | head -1)
rc=0
for src in "$kernels"/q6_head__*.cu; do
  name=$(basename "$src" .cu)
  body="$case_dir/$name.body.cu"
  # the kernel after the device helpers (the shim provides those and the CUDA types)
  sed -n '/^#define Q6_W /,$p' "$src" > "$body"
  if grep -q '^#define Q6_GEMV 1' "$src"; then mw=2; else
    mw=$(( 8 * $(sed -n 's/^#define Q6_CT \([0-9]*\).*/\1/p' "$src") )); fi
  g++ -std=c++20 -O1 -pthread -I"$root/scripts/q6_cpu_sim" -DKERNEL_SRC="\"$body\"" \
      -DENTRY="$name" -o "$case_dir/$name" "$root/scripts/q6_cpu_sim/main.cpp"
  "$case_dir/$name" "$case_dir" "$n" "$k" "$tokens" "$mw" || rc=1
done
exit $rc
