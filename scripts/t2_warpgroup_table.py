#!/usr/bin/env python3
"""Selected candidates against the best other candidate, per key and width, from the
per-candidate medians that `ninfer-calibrate --detail` prints (µs, the lower of a
candidate's two measurements where it has two). By default the warpgroup (`g`)
t2_i8_small schedules; --family and --select pick others (a regular expression on the
schedule name), e.g. the trials of a device call.

    python3 scripts/t2_warpgroup_table.py calibrate-t2_i8_small.txt [--widths 1,8,16,32]
    python3 scripts/t2_warpgroup_table.py calibrate-q4.txt --family q4_linear_add \\
        --select '^wg_.*_cl$' --widths 9-32
"""
import argparse
import collections
import re


def widths_arg(text):
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


ap = argparse.ArgumentParser()
ap.add_argument("detail")
ap.add_argument("--widths", default="1,8,16,20,24,28,32", help="widths and ranges, e.g. 1,8,9-32")
ap.add_argument("--family", default="t2_i8_small")
ap.add_argument("--select", default="g$", help="regular expression on the schedule name")
args = ap.parse_args()
widths = widths_arg(args.widths)
select = re.compile(args.select)
best = collections.defaultdict(dict)
for line in open(args.detail):
    m = re.match(r"(%s/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)" % re.escape(args.family), line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, float("inf")))
for (key, w), c in sorted(best.items()):
    g = {v: u for v, u in c.items() if select.search(v)}
    o = {v: u for v, u in c.items() if not select.search(v)}
    if g and o and w in widths:
        bo = min(o, key=o.get)
        cells = ", ".join(f"{v} {u:.2f}" for v, u in sorted(g.items(), key=lambda x: x[1]))
        print(f"{key} T={w}: best other {bo} {o[bo]:.2f}; {cells}")
