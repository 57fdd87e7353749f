#!/usr/bin/env python3
"""The warpgroup (`g`) t2_i8_small candidates against the best other candidate, from the
per-candidate medians that `ninfer-calibrate --detail` prints (µs, the lower of a
candidate's two measurements where it has two).

    python3 scripts/t2_warpgroup_table.py calibrate-t2_i8_small.txt [--widths 1,8,16,32]
"""
import argparse
import collections
import re

ap = argparse.ArgumentParser()
ap.add_argument("detail")
ap.add_argument("--widths", default="1,8,16,20,24,28,32")
args = ap.parse_args()
widths = {int(w) for w in args.widths.split(",")}
best = collections.defaultdict(dict)
for line in open(args.detail):
    m = re.match(r"(t2_i8_small/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)", line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
for (key, w), c in sorted(best.items()):
    g = {v: u for v, u in c.items() if v.endswith("g")}
    o = {v: u for v, u in c.items() if not v.endswith("g")}
    if g and o and w in widths:
        bo = min(o, key=o.get)
        cells = ", ".join(f"{v} {u:.2f}" for v, u in sorted(g.items(), key=lambda x: x[1]))
        print(f"{key} T={w}: best other {bo} {o[bo]:.2f}; {cells}")
