#!/usr/bin/env python3
"""Per-mode table of `ninfer bench --json` reports taken under several settings.

  python3 scripts/bench_modes_table.py DIR [MODE ...] [--ratio A/B ...]

DIR holds reports named <family>-<mode>-<round>.json (the device call scripts' raw/ folders:
one report per family, setting and interleaved round). Per (key, width, schedule) it prints
the median over rounds of each mode's op µs, in the order of the MODE arguments (default:
sorted), then each requested ratio A/B: mode A's median over mode B's. Uses only the
standard library.
"""
import glob
import json
import os
import statistics
import sys


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    folder, rest = argv[0], argv[1:]
    modes, ratios = [], []
    while rest:
        arg = rest.pop(0)
        if arg == "--ratio":
            if not rest or "/" not in rest[0]:
                sys.exit("bench_modes_table.py: --ratio takes A/B, two mode names")
            ratios.append(tuple(rest.pop(0).split("/", 1)))
        else:
            modes.append(arg)
    rows, seen = {}, set()
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        parts = os.path.basename(path)[:-5].split("-")
        if len(parts) != 3:
            continue  # not <family>-<mode>-<round>.json
        mode = parts[1]
        try:
            report = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable ({e})")
            continue
        seen.add(mode)
        for r in report["results"]:
            rows.setdefault((r["key"], r["width"], r["schedule"]), {}).setdefault(mode, []).append(r["us"])
    modes = modes or sorted(seen)
    for a, b in ratios:
        if a not in modes or b not in modes:
            sys.exit(f"bench_modes_table.py: --ratio {a}/{b} names a mode not among {modes}")
    print("op µs, median over the rounds (each a median of the bench's samples)")
    print(f"{'key':28} {'T':>3} {'schedule':28} " + " ".join(f"{m:>7}" for m in modes)
          + "".join(f" {a + '/' + b:>9}" for a, b in ratios))
    for (key, width, schedule), by_mode in sorted(rows.items()):
        med = {m: statistics.median(v) for m, v in by_mode.items()}
        cells = " ".join(f"{med[m]:7.2f}" if m in med else "      -" for m in modes)
        ratio_cells = "".join(
            f" {med[a] / med[b]:9.3f}" if a in med and b in med else "         -" for a, b in ratios)
        print(f"{key:28} {width:3} {schedule:28} {cells}{ratio_cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
