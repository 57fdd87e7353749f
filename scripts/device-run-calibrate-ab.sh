#!/usr/bin/env bash
# A/B of every calibration candidate of two builds in one GPU call: `ninfer-calibrate
# --detail` of the same families with binary A and binary B, interleaved A B A B (each on
# a fresh profile file, so each measures every candidate its catalog has), then
# scripts/compare_calibrate_detail.py: per (key, width, candidate) the median of each
# side's rounds and B/A, and the fastest candidate of each side. A candidate that only one
# build has shows with one side empty: the way to time a trial schedule against the
# shipped ones.
# Usage on the GPU machine:
#   OUT=/dir A=/dir/with/old/binaries B=/dir/with/new/binaries [ONLY=q4_linear_add] \
#     [ROUNDS=2] [MATCH=wg_] [WIDTHS=1,8,16,32] scripts/device-run-calibrate-ab.sh
# ONLY: the calibration's --only prefix (default: every family);
# MATCH, WIDTHS: what the printed table keeps (the full table goes to compare-calibrate-ab.txt);
# CHECK=1: first `ninfer check` of the same families with B (under CHECK_TIMEOUT seconds,
# default 200: a hung kernel costs that, not the whole call), its table in check-B.txt.
LOG_NAME=summary-calibrate-ab.txt
BIN=${B:?B: folder of the new binaries}
source "$(dirname "$0")/device-common.sh"
A=${A:?A: folder of the old binaries}
if [ "${CHECK:-0}" = 1 ]; then
  say "== B: ninfer check ${ONLY:+--only $ONLY}"
  timeout "${CHECK_TIMEOUT:-200}" "$B/ninfer" check ${ONLY:+--only "$ONLY"} > "$OUT/check-B.txt" 2>&1
  say "check rc=$?"
  grep -E "FAIL|checks of" "$OUT/check-B.txt" | head -20 | tee -a "$log"
fi
calibrate_side() { # SIDE ROUND DIR
  say "== $1 (round $2): ninfer-calibrate --detail ${ONLY:+--only $ONLY}"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json "$3/ninfer-calibrate" --detail ${ONLY:+--only "$ONLY"} \
    > "$OUT/calibrate-$1-$2.txt" 2>&1
  say "rc=$? $(tail -1 "$OUT/calibrate-$1-$2.txt")"
}
ab_rounds calibrate_side
compare="$(dirname "$0")/compare_calibrate_detail.py"
python3 "$compare" --a "$OUT"/calibrate-A-*.txt --b "$OUT"/calibrate-B-*.txt > "$OUT/compare-calibrate-ab.txt"
python3 "$compare" --a "$OUT"/calibrate-A-*.txt --b "$OUT"/calibrate-B-*.txt \
  ${MATCH:+--match "$MATCH"} ${WIDTHS:+--widths "$WIDTHS"} | tee -a "$log"
