#!/usr/bin/env bash
# call 8 (prepared, not run): ST = HEAD plus t2-stamps-prepared.diff: per-CTA %globaltimer
# stamps in t2_i8_small's per-warp kernel (entry, after the PDL wait, main loop done,
# cross-warp sum done, end; common/stamps.cuh), one launch's records printed by the
# module's <entry>_stampdump kernel after each op (NINFER_STAMPS=1). ninfer bench on the
# built-in entry at T = 1, 8 and 16 for each key; stamps_timeline.py prints the phases.
# ptxas (sm_90): the stamps cost 2-6 registers; the 5120x17408 T = 1 route
# (r16c1k8s3w1p0x1m1) spills 16 bytes at its 80-register bound, so its phases are
# approximate. Build: scripts/build-ab.sh ST HEAD docs/results/h200-2026-12-04d/t2-stamps-prepared.diff
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh ST || exit 1
S=$OUT/summary-call8.txt
for key in 5120x17408 5120x6144 17408x5120; do for w in 1 8 16; do
  NINFER_STAMPS=1 timeout 60 /tmp/bin/ST/ninfer bench --only t2_i8_small/$key --widths $w --samples 5 > $OUT/stamps-$key-$w.txt 2>&1
  echo "$key T=$w rc=$? records=$(grep -c '^STAMP ' $OUT/stamps-$key-$w.txt) $(grep t2_i8_small $OUT/stamps-$key-$w.txt | tail -1)" | tee -a $S
done; done
python3 docs/results/h200-2026-12-04d/stamps_timeline.py $OUT/stamps-*-1.txt | tee -a $S
