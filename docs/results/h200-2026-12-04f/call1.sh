#!/usr/bin/env bash
# call 1 (prepared in the twenty-third session, which had no GPU): branch natural-k, the
# Q4 weights packed in the fragments' own k order, so that the warpgroup schedules land x
# with a TMA tensor copy and q4_act_wg is gone (docs/perf-notes-q4.md, twenty-third
# session). The checks, under timeouts (at most 590 s together):
#   1. ninfer check of q4_linear_add with NK, then with NINFER_PTX=baseline (the mma.sync
#      fallbacks of the warpgroup kernel, the compute_80 rings); the quant_act_i8_q4 row
#      checks the new int8 order on its own;
#   2. compute-sanitizer memcheck of the two routed warpgroup schedules (the TMA path).
# Build: scripts/build-ab.sh NK natural-k (without the branch: scripts/build-ab.sh NK
#   <main's commit of this session> docs/results/h200-2026-12-04f/natural-k.diff); NK keeps
#   ninfer-calibrate for call 3's recalibration.
# carry target/ab/NK.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh NK || exit 1
S=$OUT/summary-call1.txt
R=$OUT/raw; mkdir -p $R
say() { echo "$*" | tee -a $S; }
say "== check NK"
timeout 150 /tmp/bin/NK/ninfer check --only q4_linear_add > $R/check-q4-NK.txt 2>&1; say "rc=$?"
grep -E "checks of|FAIL|quant_act" $R/check-q4-NK.txt | head -20 | tee -a $S
say "== check NK, NINFER_PTX=baseline"
NINFER_PTX=baseline timeout 150 /tmp/bin/NK/ninfer check --only q4_linear_add > $R/check-q4-NK-baseline.txt 2>&1; say "rc=$?"
grep -E "checks of|FAIL" $R/check-q4-NK-baseline.txt | head -20 | tee -a $S
for sched in wg_c32_k8_s4 wg_c64_k6_s4; do
  say "== memcheck $sched"
  timeout 100 compute-sanitizer --tool memcheck --print-limit 20 /tmp/bin/NK/ninfer check --only q4_linear_add/5120x6144 \
    --schedule $sched > $R/memcheck-$sched.txt 2>&1; say "rc=$?"
  grep -E 'ERROR SUMMARY|checks of' $R/memcheck-$sched.txt | tail -2 | tee -a $S
done
# 3. (added in the twenty-fourth session, which had no GPU either) the host path of a verify
#    request that main gained then, unexercised on a GPU so far: AttnPrepared::run_request
#    (K/V appends, then the attention by the installed routes and switches) through the
#    bench rows it feeds, both settings of attn_parallel_tiles.
say "== bench of verify requests (run_request)"
timeout 90 /tmp/bin/NK/ninfer bench --only attn_parallel_tiles --samples 3 > $R/bench-verify-NK.txt 2>&1; say "rc=$?"
tail -7 $R/bench-verify-NK.txt | tee -a $S
tar -C $OUT -cJf /tmp/out-call1.tar.xz raw && rm -rf $R && mv /tmp/out-call1.tar.xz $OUT/
cat $S
