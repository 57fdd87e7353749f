#!/usr/bin/env python3
"""Compares two `ninfer bench --json` reports of the same run: the compiled routes
(`--device-profile off`) against the calibrated profile, per key and width.

usage: compare_routes.py BENCH_COMPILED.json BENCH_CALIBRATED.json [--tolerance 0.02]
Exit status 1 if a calibrated route is slower than the compiled one by more than the
tolerance (default 2 %, the spread of repeated measurements of one schedule)."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("compiled")
    ap.add_argument("calibrated")
    ap.add_argument("--tolerance", type=float, default=0.02)
    a = ap.parse_args()
    base = {(r["key"], r["width"]): r for r in json.load(open(a.compiled))["results"]}
    cal = {(r["key"], r["width"]): r for r in json.load(open(a.calibrated))["results"]}
    slower = 0
    print(f"{'key':<24} {'T':>3}  {'compiled':<18} {'µs':>7}  {'calibrated':<18} {'µs':>7}  {'ratio':>6}")
    for k in sorted(base, key=lambda k: (k[0], k[1])):
        if k not in cal:
            continue
        b, c = base[k], cal[k]
        ratio = c["us"] / b["us"]
        flag = ""
        if ratio > 1 + a.tolerance:
            flag = "  SLOWER"
            slower += 1
        print(f"{k[0]:<24} {k[1]:>3}  {b['schedule']:<18} {b['us']:>7.2f}  {c['schedule']:<18} {c['us']:>7.2f}  {ratio:>6.3f}{flag}")
    print(f"{slower} widths where the calibrated route is slower than the compiled one by more than {a.tolerance:.0%}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
