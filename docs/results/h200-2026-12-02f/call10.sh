#!/usr/bin/env bash
# call 10: SO = ad084b1 with the prefetch at start only (iterations stages .. n - 1, none in
# the loop) on every l2_prefetch schedule, plus act_smem T = 1 copies (r16c1k8s3w1p0x1m1l8,
# r16c1k8s2w1p0x1m1l8, r16c1k8s3w1p0x1m1l12) and r16c8k8s2w1p0x1m0l12. `ninfer-calibrate
# --detail --only t2_i8_small` with FINAL then SO then FINAL (fresh profile files), candidates'
# medians side by side; SO's checks of the new schedules.
set -u
cd "$(dirname "$0")/../.."
for b in FINAL SO; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a $S; }
n=0
for b in FINAL SO FINAL SO; do
  n=$((n+1))
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json /tmp/bin/$b/ninfer-calibrate --detail --only t2_i8_small --print > /dev/null 2> $OUT/calibrate-$b-$n-call10.txt
  say "$b run $n: $(grep 'keys measured' $OUT/calibrate-$b-$n-call10.txt)"
done
python3 - $OUT <<'PY' | tee -a $S
import re, sys, glob, collections, statistics
out = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for p in sorted(glob.glob(f"{out}/calibrate-*-call10.txt")):
    side = p.split("calibrate-")[1].split("-")[0]
    for l in open(p):
        m = re.match(r"(t2_i8_small/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)", l)
        if m and "l" in m[3][-4:] and re.search(r"l\d+$", m[3]) or (m and m[2] == "1"):
            t[(m[1].split("/")[1], int(m[2]), m[3])][side].append(float(m[4]))
print(f"{'key':11} {'T':>3} {'candidate':24} {'FINAL':>12} {'SO':>12}")
for (k, w, c), d in sorted(t.items()):
    if w not in (1, 2, 8, 16) : continue
    f = "/".join(f"{x:.2f}" for x in d.get("FINAL", [])) or "-"
    s = "/".join(f"{x:.2f}" for x in d.get("SO", [])) or "-"
    print(f"{k:11} {w:>3} {c:24} {f:>12} {s:>12}")
PY
for sch in r16c1k8s3w1p0x1m1l8 r16c1k8s2w1p0x1m1l8 r16c1k8s3w1p0x1m1l12 r16c8k8s2w1p0x1m0l12 r16c8k8s2w1p0x1m0l8; do
  say "== SO: ninfer check --only t2_i8_small --schedule $sch"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json /tmp/bin/SO/ninfer check --only t2_i8_small --schedule $sch > /tmp/c.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/c.txt | tee -a $S
done
