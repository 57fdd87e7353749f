#!/usr/bin/env bash
# call 5: main after this session's merges (FINAL2 = natural-k, wg_c32_k6_s4 and the
# recalibrated built-in entry, route catalog 2aaa99999fbaf241):
#   1. ninfer check of q4_linear_add; memcheck of the new route wg_c32_k6_s4;
#   2. ninfer bench of q4 on the built-in entry (every calibration width);
#   3. two more calibrations of q4 (fresh profile files), their routes against the built-in
#      entry's: does a calibration agree with the shipped one?
# Build: scripts/build-ab.sh FINAL2 main.  carry target/ab/FINAL2.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL2 || exit 1
B=/tmp/bin/FINAL2
S=$OUT/summary-call5.txt
say() { echo "$*" | tee -a $S; }
say "== check q4"
timeout 150 $B/ninfer check --only q4_linear_add > $OUT/check-q4.txt 2>&1; say "rc=$?"
grep -E "checks of|FAIL" $OUT/check-q4.txt | head -10 | tee -a $S
say "== memcheck wg_c32_k6_s4"
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only q4_linear_add \
  --schedule wg_c32_k6_s4 > $OUT/memcheck-wg_c32_k6_s4.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of' $OUT/memcheck-wg_c32_k6_s4.txt | tail -2 | tee -a $S
say "== bench q4 on the built-in entry"
timeout 120 $B/ninfer bench --only q4_linear_add --out $OUT/bench-q4-final.json > $OUT/bench-q4-final.txt 2>&1; say "rc=$?"
cat $OUT/bench-q4-final.txt >> $S
for r in 1 2; do
  say "== calibration $r into a fresh file"
  p=/tmp/cal-$r.json; rm -f $p
  timeout 60 $B/ninfer-calibrate --only q4_linear_add --out $p > $OUT/calibrate-$r.txt 2>&1; say "rc=$?"
  tail -1 $OUT/calibrate-$r.txt | tee -a $S
  cp $p $OUT/calibrate-$r.json
done
python3 - $OUT/calibrate-1.json $OUT/calibrate-2.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p)); return {k: v for k, v in d["devices"][0]["routes"].items() if k.startswith("q4_")}
b = {k: v for k, v in json.load(open("runtime/src/profile/builtin-device-profiles.json"))["devices"][0]["routes"].items() if k.startswith("q4_")}
for p in sys.argv[1:]:
    r = routes(p)
    for k in sorted(b):
        print(f"{p.rsplit('/',1)[1]} {k}: {'same as built-in' if r.get(k) == b[k] else 'differs: ' + str(r.get(k))}")
PY
cd $OUT && tar -cJf /tmp/raw-call5.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call5.tar.xz $OUT/
