#!/usr/bin/env bash
# The projection families' final numbers in one GPU call: `ninfer bench` of each family on
# the routes this binary resolves (the built-in entry on a GPU it names; the profile file
# starts empty), the PyTorch baselines on the same shapes and widths, and the ratio tables
# (scripts/compare_baselines.py --all), all from the same run.
# Usage on the GPU machine:
#   OUT=/dir BIN=/dir/with/ninfer [FAMILIES="q4_linear_add t2_i8_small"] \
#     [SHAPES=5120x17408,5120x6144,17408x5120] [WIDTHS=1,8,16,32,64] [TAG=final] \
#     scripts/device-run-baselines.sh
# Files: bench-<family>-<TAG>.json, torch-<TAG>.json, compare-<family>-<TAG>.txt, and the
# summary (the tables' rows) in summary-baselines.txt.
LOG_NAME=summary-baselines.txt
source "$(dirname "$0")/device-common.sh"
FAMILIES=${FAMILIES:-q4_linear_add t2_i8_small}
SHAPES=${SHAPES:-5120x17408,5120x6144,17408x5120}
WIDTHS=${WIDTHS:-1,8,16,32,64}
TAG=${TAG:-final}
for fam in $FAMILIES; do
  timeout 120 "$B/ninfer" bench --only "$fam" --widths "$WIDTHS" --json > "$OUT/bench-$fam-$TAG.json" 2> "$work/bench.err"
  say "bench $fam rc=$?"
done
timeout 150 python3 scripts/torch_baselines.py --shapes "$SHAPES" --widths "$WIDTHS" --out "$OUT/torch-$TAG.json" \
  2> "$work/torch.txt" || tail -5 "$work/torch.txt" | tee -a "$log"
for fam in $FAMILIES; do
  python3 scripts/compare_baselines.py --all "$OUT/torch-$TAG.json" "$OUT/bench-$fam-$TAG.json" > "$OUT/compare-$fam-$TAG.txt" 2>&1
  grep -E "shape|^(5120|17408)x" "$OUT/compare-$fam-$TAG.txt" | tee -a "$log"
done
