#!/usr/bin/env python3
"""Per-CTA phases of one launch from `STAMP` records (common/stamps.cuh of
t2-stamps-prepared.diff: x y smid last, then the stamps t0..t3 and the end, globaltimer
ns): for the t2 per-warp kernel, entry (after the launch's first), the PDL wait, the main
loop, the cross-warp sum and the store or K-split tail. Medians, p90 and maxima, µs.
Usage: stamps_timeline.py FILE..."""
import statistics as st
import sys

PHASES = [
    ("entry (after first)", lambda r, t0: r[4] - t0),
    ("pdl wait", lambda r, t0: r[5] - r[4]),
    ("main loop", lambda r, t0: r[6] - r[5]),
    ("cross-warp sum", lambda r, t0: r[7] - r[6]),
    ("store / K-split tail", lambda r, t0: r[8] - r[7]),
    ("main loop end (abs)", lambda r, t0: r[6] - t0),
    ("end (abs)", lambda r, t0: r[8] - t0),
]
for path in sys.argv[1:]:
    recs = [list(map(int, l.split()[1:])) for l in open(path) if l.startswith("STAMP ")]
    if not recs:
        print(f"{path}: no STAMP records")
        continue
    t0 = min(r[4] for r in recs)
    per_sm = {}
    for r in recs:
        per_sm[r[2]] = per_sm.get(r[2], 0) + 1
    print(f"{path}: {len(recs)} CTAs on {len(per_sm)} SMs (at most {max(per_sm.values())} per SM), "
          f"span {(max(r[8] for r in recs) - t0) / 1000:.2f} us")
    for name, f in PHASES:
        v = sorted(f(r, t0) for r in recs)
        print(f"  {name:22s} min {v[0] / 1000:6.2f}  med {st.median(v) / 1000:6.2f}  "
              f"p90 {v[int(0.9 * (len(v) - 1))] / 1000:6.2f}  max {v[-1] / 1000:6.2f}")
