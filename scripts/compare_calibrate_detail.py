#!/usr/bin/env python3
"""Compare `ninfer-calibrate --detail` logs of two builds, candidate by candidate.

Each log line "key T candidate µs [note]" is one timing; a candidate timed twice in one
log (the confirmation) keeps its first time. Logs of the same build from several rounds
give a median per (key, T, candidate).

    compare_calibrate_detail.py --a A1.txt A2.txt --b B1.txt B2.txt [--match wg_] [--widths 1,16,32]
    compare_calibrate_detail.py --a R1.txt R2.txt --columns CAND,CAND [--widths ...]

Prints, per (key, T), every candidate matching --match with its A and B medians and B/A,
then the fastest candidate of each build at that width. With --columns (one build, no
--b): one row per (key, T), each named candidate's time in every log (a/b/...), and the
fastest candidate of all by median.
"""
import argparse
import re
import statistics
from collections import defaultdict

LINE = re.compile(r"^(\S+/\S+)\s+(\d+)\s+(\S+)\s+([0-9.]+)")


def parse(path):
    times = {}
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if m:
            key, width, cand, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
            times.setdefault((key, width, cand), us)
    return times


def runs(paths):
    times = defaultdict(list)
    for p in paths:
        for point, us in parse(p).items():
            times[point].append(us)
    return times


def medians(paths):
    return {point: statistics.median(v) for point, v in runs(paths).items()}


def columns(paths, cands, widths):
    times = runs(paths)
    med = {point: statistics.median(v) for point, v in times.items()}
    points = sorted({(k, t) for k, t, _ in times if not widths or t in widths})
    print(f"{'key':28} {'T':>3} " + " ".join(f"{c:>24}" for c in cands) + "  fastest")
    for key, t in points:
        cells = ["/".join(f"{us:.2f}" for us in times.get((key, t, c), [])) or "-" for c in cands]
        us, best = min((us, c) for (k, w, c), us in med.items() if (k, w) == (key, t))
        print(f"{key:28} {t:>3} " + " ".join(f"{x:>24}" for x in cells) + f"  {best} {us:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", nargs="+", required=True, help="logs of build A")
    ap.add_argument("--b", nargs="+", help="logs of build B")
    ap.add_argument("--match", default="", help="only candidates containing this")
    ap.add_argument("--widths", default="", help="comma-separated widths (default: all)")
    ap.add_argument("--columns", default="", help="one build: comma-separated candidates, a column each")
    args = ap.parse_args()
    widths = {int(w) for w in args.widths.split(",") if w}
    if args.columns:
        if args.b:
            ap.error("--columns reads one build's logs (--a only)")
        columns(args.a, [c for c in args.columns.split(",") if c], widths)
        return
    if not args.b:
        ap.error("--b is required without --columns")
    a, b = medians(args.a), medians(args.b)
    points = sorted({(k, t) for k, t, _ in list(a) + list(b) if not widths or t in widths})
    print(f"{'key':28} {'T':>3} {'candidate':26} {'A µs':>8} {'B µs':>8} {'B/A':>6}")
    for key, t in points:
        cands = sorted({c for k, w, c in list(a) + list(b) if (k, w) == (key, t) and args.match in c})
        for c in cands:
            ta, tb = a.get((key, t, c)), b.get((key, t, c))
            ratio = f"{tb / ta:6.3f}" if ta and tb else ""
            fa = f"{ta:8.2f}" if ta else f"{'-':>8}"
            fb = f"{tb:8.2f}" if tb else f"{'-':>8}"
            print(f"{key:28} {t:>3} {c:26} {fa} {fb} {ratio}")
        for name, side in (("A", a), ("B", b)):
            here = [(us, c) for (k, w, c), us in side.items() if (k, w) == (key, t)]
            if here:
                us, c = min(here)
                print(f"{key:28} {t:>3} {'fastest in ' + name + ': ' + c:44} {us:8.2f}")


if __name__ == "__main__":
    main()
