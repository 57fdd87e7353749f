#!/usr/bin/env python3
"""Per-CTA phase times of one warpgroup-kernel launch from call 2's Q4DBG records
(x y smid last t0 t1 t2 t3 t4 t5, globaltimer ns): medians and maxima of each phase,
relative to the launch's first entry."""
import statistics as st, sys
for path in sys.argv[1:]:
    recs = [list(map(int, l.split()[1:])) for l in open(path) if l.startswith("Q4DBG ")]
    if not recs:
        continue
    t0min = min(r[4] for r in recs)
    end = max(r[9] for r in recs)
    def col(f):
        return [f(r) for r in recs]
    phases = {
        "entry (after first)": col(lambda r: r[4] - t0min),
        "pdl wait": col(lambda r: r[5] - r[4]),
        "group 0 landed": col(lambda r: r[6] - r[5]),
        "main loop": col(lambda r: r[7] - r[6]),
        "ws + counter": col(lambda r: r[8] - r[7]),
        "main loop end (abs)": col(lambda r: r[7] - t0min),
    }
    last = [r for r in recs if r[3] == 1]
    phases["reduce+residual (last)"] = [r[9] - r[8] for r in last]
    phases["end of last CTAs (abs)"] = [r[9] - t0min for r in last]
    print(f"{path}: {len(recs)} CTAs, span {(end - t0min) / 1000:.2f} us")
    for name, v in phases.items():
        v = sorted(v)
        print(f"  {name:24s} min {v[0] / 1000:6.2f}  med {st.median(v) / 1000:6.2f}  p90 {v[int(0.9 * (len(v) - 1))] / 1000:6.2f}  max {v[-1] / 1000:6.2f} us")
