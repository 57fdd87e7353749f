#!/usr/bin/env bash
# call 1 (branch a8p, binaries A8P): q4 int8 rings that quantize their K slice once per CTA
# (`ring_c8_k4_s{3,4}_g4_a8p_cl`, act_i8 = 2: no quant_act_i8_q4 launch) and BF16 rings
# with the cluster sum (`ring_c{8,16}_k4_s3_g4_cl`), against the routed int8 rings
# (`_a8_cl`: the quantization launch, then the ring). In the order of what matters, each
# step only while the device time allows (BUDGET seconds):
# (1) `ninfer check --only q4_linear_add --schedule S --every-width` of the four;
# (2) `ninfer-calibrate --detail --only q4_linear_add` twice, a fresh profile file each
#     (every candidate's median), and their table at T <= 16;
# (3) `ninfer bench` A B A B at T = 1, 2, 4, 8, 16, one binary: A = the built-in entry
#     re-stamped for A8P's route catalog, B = the same with calibration 1's q4 routes;
# (4) memcheck of the a8p s3 ring on 5120x6144.
# Build: the release binaries of branch a8p, stripped and xz'd into target/ab/A8P (as
# scripts/build-ab.sh does); carry target/ab/A8P. Ran as: OUT=$OUT BUDGET=420 bash call1.sh.
# Known fault, as it ran: step (3)'s A_ENV / B_ENV expand $OUT after the same command's
# OUT=$AB (bash assigns a command's prefix variables left to right), so they named
# $OUT/ab/profile-*.json, which do not exist; device-run-ab.sh refused them (rc 2) and
# step (3) did not run. Call 2 ran it.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh A8P || exit 1
B=/tmp/bin/A8P
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-450} - SECONDS )); } # the device time this call may still use
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$S"
for s in ring_c8_k4_s3_g4_a8p_cl ring_c8_k4_s4_g4_a8p_cl ring_c8_k4_s3_g4_cl ring_c16_k4_s3_g4_cl; do
  timeout 60 $B/ninfer check --only q4_linear_add --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
for round in 1 2; do
  [ "$(left)" -gt 50 ] || break
  NINFER_DEVICE_PROFILES=$OUT/cal-$round.json timeout 45 $B/ninfer-calibrate --detail --only q4_linear_add \
    > $OUT/calibrate-$round.txt 2>&1
  say "calibrate $round rc=$? (${SECONDS}s) $(tail -1 $OUT/calibrate-$round.txt)"
done
python3 - $OUT/calibrate-*.txt <<'PY' | tee -a "$S"
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
cols = ["ring_c8_k4_s3_g4_a8_cl", "ring_c8_k4_s3_g4_a8p_cl", "ring_c8_k4_s4_g4_a8p_cl", "ring_c8_k4_s3_g4_cl",
        "ring_c16_k4_s3_g4_a8_cl", "ring_c16_k4_s3_g4_cl"]
short = ["a8_cl", "a8p_s3", "a8p_s4", "bf16_cl", "c16_a8_cl", "c16_bf16_cl"]
print(f"{'key':24} {'T':>3} " + " ".join(f"{c:>13}" for c in short) + "  best")
for (k, t), c in sorted(rows.items()):
    if t > 16:
        continue
    med = {n: sorted(v)[len(v) // 2] for n, v in c.items()}
    best = min(med, key=med.get)
    print(f"{k[14:]:24} {t:>3} " + " ".join(f"{'/'.join(f'{x:.2f}' for x in c[n]) if n in c else '-':>13}" for n in cols) + f"  {best} {med[best]:.2f}")
PY
digest=$($B/ninfer catalog | sed -n 's/^route catalog //p' | head -1)
python3 - "$digest" $OUT/profile-A.json $OUT/cal-1.json $OUT/profile-B.json <<'PY'
import json, sys
digest, a, cal, b = sys.argv[1:]
d = json.load(open("runtime/src/profile/builtin-device-profiles.json"))
for e in d["devices"]:
    e["calibration"]["route_catalog"] = digest
json.dump(d, open(a, "w"), indent=2)
try:
    c = json.load(open(cal))
    routes = {k: v for e in c["devices"] for k, v in e["routes"].items() if k.startswith("q4_linear_add/")}
except Exception as err:
    routes = {}
    print("no calibrated q4 routes:", err)
for e in d["devices"]:
    e["routes"].update(routes)
json.dump(d, open(b, "w"), indent=2)
for k, v in sorted(routes.items()):
    print("B routes", k, v)
PY
if [ "$(left)" -gt 90 ] && [ -f $OUT/cal-1.json ]; then
  AB=$OUT/ab; mkdir -p $AB
  OUT=$AB A=$B B=$B ROUNDS=2 WIDTHS=1,2,4,8,16 \
    A_ENV="NINFER_DEVICE_PROFILES=$OUT/profile-A.json" B_ENV="NINFER_DEVICE_PROFILES=$OUT/profile-B.json" \
    timeout $(( $(left) - 40 )) bash scripts/device-run-ab.sh q4_linear_add/5120x17408 q4_linear_add/5120x6144 > /dev/null 2>&1
  say "ab rc=$? (${SECONDS}s)"; cat $AB/summary-ab.txt >> "$S"; cat $AB/summary-ab.txt
fi
if [ "$(left)" -gt 50 ]; then
  timeout $(( $(left) - 15 )) compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule ring_c8_k4_s3_g4_a8p_cl \
    --only q4_linear_add/5120x6144 > $OUT/memcheck.txt 2>&1
  say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
fi
# at most 8 files come back: the summary, and everything else in one archive
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
