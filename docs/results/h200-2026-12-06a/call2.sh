#!/usr/bin/env bash
# call 2: BF16 producer rings with the cluster sum (`ring_c8_k4_s3_g4_cl`,
# `ring_c16_k4_s3_g4_cl`, bf16cl.diff), which need no quantization launch, against the
# routed int8 rings (`_a8_cl`, quantization launch + ring): `ninfer check` of both at every
# width of both q4 keys, then `ninfer-calibrate --detail --only q4_linear_add` (every
# candidate's time; a fresh profile file per run), twice.
# Build: scripts/build-ab.sh BFCL 446b7ff docs/results/h200-2026-12-06a/bf16cl.diff; carry
# target/ab/BFCL. Run: OUT=$OUT bash call2.sh.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh BFCL || exit 1
B=/tmp/bin/BFCL
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$S"
for s in ring_c8_k4_s3_g4_cl ring_c16_k4_s3_g4_cl; do
  timeout 60 $B/ninfer check --only q4_linear_add --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
for round in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 45 $B/ninfer-calibrate --detail --only q4_linear_add \
    > $OUT/calibrate-$round.txt 2>&1
  say "calibrate $round rc=$? (${SECONDS}s) $(tail -1 $OUT/calibrate-$round.txt)"
done
python3 - $OUT/calibrate-1.txt $OUT/calibrate-2.txt <<'PY' | tee -a "$S"
import sys, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    for l in open(path):
        p = l.split()
        if len(p) >= 4 and p[0].startswith("q4_linear_add/") and p[1].isdigit():
            try:
                rows[(p[0], int(p[1]))][p[2]].append(float(p[3]))
            except ValueError:
                pass
cols = ["ring_c8_k4_s3_g4_a8_cl", "ring_c8_k4_s3_g4", "ring_c8_k4_s3_g4_cl",
        "ring_c16_k4_s3_g4_a8_cl", "ring_c16_k4_s3_g4_cl"]
print(f"{'key':26} {'T':>3} " + " ".join(f"{c:>24}" for c in cols) + "  best")
for (k, t), c in sorted(rows.items()):
    if t > 16:
        continue
    med = {n: sorted(v)[len(v) // 2] for n, v in c.items()}
    best = min(med, key=med.get)
    print(f"{k:26} {t:>3} " + " ".join(f"{'/'.join(f'{x:.2f}' for x in c[n]) if n in c else '-':>24}" for n in cols) + f"  {best} {med[best]:.2f}")
PY
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call2.tar.xz $OUT/
