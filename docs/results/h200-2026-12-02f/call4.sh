#!/usr/bin/env bash
# call 4: q4_linear_add's producer ring asking L2 for the weights 6 stages ahead of its
# copies (QPF = 2112783 + that change, every producer-ring schedule) against BASE (619ab1c,
# session start), A B A B on the built-in entries (same q4 routes); QPF's q4 checks.
set -u
cd "$(dirname "$0")/../.."
for b in BASE QPF; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== A/B (A = BASE, B = QPF)"
OUT=/tmp/abo A=/tmp/bin/BASE B=/tmp/bin/QPF WIDTHS=1,4,8,12,16,32,64 scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /tmp/ab.txt 2>&1
tail -15 /tmp/ab.txt | tee -a $S
say "== QPF: ninfer check --only q4_linear_add"
/tmp/bin/QPF/ninfer check --only q4_linear_add > $OUT/check-q4-call4.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call4.txt | tee -a $S
