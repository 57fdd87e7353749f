#!/usr/bin/env python3
"""Compare ninfer bench timings with the PyTorch baselines of scripts/torch_baselines.py.

  python3 scripts/compare_baselines.py TORCH_JSON NINFER_JSON [--markdown] [--all]

TORCH_JSON  : output of scripts/torch_baselines.py
              {"device", "torch", "read_bandwidth_gbs", "copy_bandwidth_gbs",
               "results": [{"shape": "5120x17408", "baseline": ..., "width": T, "us": ...}]}
NINFER_JSON : {"device", "read_bandwidth_gbs",
               "results": [{"key": "t2_i8_small/5120x17408", "width": T, "us": ...,
                            "schedule": ..., "bytes": optional bytes moved per op}]}
              The part of "key" after the last '/' is the shape (N x K).

Per shape and width: ninfer us, each baseline's us and the speed-up baseline/ninfer
(> 1 means ninfer is faster), and, where bytes are known, ninfer's achieved GB/s and
its fraction of the measured read bandwidth. When several ninfer keys share a shape
and width, the fastest is shown (--all shows each). Uses only the standard library
(the helpers shared with compare_attention_baselines.py are in baselines_common.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with compare_attention_baselines.py)
from baselines_common import fmt, geomean, num  # noqa: E402

BASELINES = (
    ("bf16_linear", "bf16"),
    ("fp8_scaled_mm", "fp8"),
    ("int4pack_mm", "int4"),
)


def shape_of_key(key):
    return str(key).rsplit("/", 1)[-1].strip().lower()


def parse_shape(s):
    try:
        n, k = s.lower().split("x")
        return int(n), int(k)
    except ValueError:
        return None


def main(argv=None):
    p = common.compare_parser(
        "Table of ninfer vs PyTorch baseline timings (speed-up = baseline us / "
        "ninfer us) with ninfer's fraction of measured read bandwidth.",
        "torch_baselines.py", "ninfer bench JSON",
        "one row per ninfer key (default: fastest key per shape and width)")
    p.add_argument("--bw-source", choices=("ninfer", "torch"), default="ninfer",
                   help="which file's read_bandwidth_gbs to use for the fraction "
                        "(default ninfer, falling back to torch)")
    p.add_argument("--assume-weight-bits", type=float, default=None,
                   help="when a ninfer result has no 'bytes', estimate bytes as "
                        "N*K*bits/8 (marked '~')")
    args = p.parse_args(argv)

    tdoc = common.load("compare_baselines", args.torch_json, "torch")
    ndoc = common.load("compare_baselines", args.ninfer_json, "ninfer")

    # Read bandwidth used for the fraction.
    bw_n = num(ndoc.get("read_bandwidth_gbs"))
    bw_t = num(tdoc.get("read_bandwidth_gbs"))
    if args.bw_source == "ninfer":
        bw, bw_from = (bw_n, "ninfer") if bw_n else (bw_t, "torch")
    else:
        bw, bw_from = (bw_t, "torch") if bw_t else (bw_n, "ninfer")
    if not bw:
        bw_from = "none"

    # Baselines: (shape, baseline, width) -> record.
    base = {}
    present = []
    for r in tdoc["results"]:
        if not isinstance(r, dict):
            continue
        us, w = num(r.get("us")), common.as_int(r.get("width"))
        b = r.get("baseline")
        if w is None or us is None or us <= 0 or b is None:
            continue
        base[(str(r.get("shape", "")).lower(), b, w)] = r
        if b not in present:
            present.append(b)
    cols = [(b, short) for b, short in BASELINES if b in present]
    cols += [(b, b) for b in present if b not in dict(BASELINES)]

    # ninfer rows.
    rows = {}
    for r in ndoc["results"]:
        if not isinstance(r, dict) or "key" not in r:
            continue
        us, w = num(r.get("us")), common.as_int(r.get("width"))
        if w is None or us is None or us <= 0:
            continue
        shape = shape_of_key(r["key"])
        group = (shape, w, r["key"]) if args.all else (shape, w)
        common.keep_fastest(rows, group, r, us)

    def shape_sort(s):
        ps = parse_shape(s)
        return (0, ps) if ps else (1, s)

    shapes = sorted({g[0] for g in rows}, key=shape_sort)
    out = []
    header = ["shape", "T", "ninfer key", "sched", "ninfer us", "GB/s", "%readBW"]
    for _, short in cols:
        header += ["%s us" % short, "x%s" % short]

    notes = set()
    speedups = {}  # (shape, baseline) -> [ratios]
    table = []
    for shape in shapes:
        for g in sorted((g for g in rows if g[0] == shape), key=lambda g: g[1:]):
            r = rows[g]
            w = g[1]
            us = num(r["us"])
            nbytes = num(r.get("bytes"))
            approx = False
            if nbytes is None and args.assume_weight_bits:
                ps = parse_shape(shape)
                if ps:
                    nbytes = ps[0] * ps[1] * args.assume_weight_bits / 8.0
                    approx = True
                    notes.add("~ bytes estimated as N*K*%g/8 (no 'bytes' in ninfer JSON)"
                              % args.assume_weight_bits)
            gbs = nbytes / (us * 1e-6) / 1e9 if nbytes else None
            frac = gbs / bw if (gbs is not None and bw) else None
            line = [shape, str(w), str(r["key"]).rsplit("/", 1)[0],
                    common.schedule_text(r),
                    fmt(us, ".2f"),
                    ("~" if approx and gbs is not None else "") + fmt(gbs, ".0f"),
                    ("~" if approx and frac is not None else "") +
                    fmt(None if frac is None else 100 * frac, ".1f")]
            for b, short in cols:
                br = base.get((shape, b, w))
                if br is None:
                    line += ["-", "-"]
                    continue
                bus = num(br["us"])
                mark = ""
                rw = br.get("run_width")
                if rw is not None and rw != br.get("width"):
                    mark = "*"
                    notes.add("* baseline ran at a padded width (see its note in the torch JSON)")
                ratio = bus / us
                speedups.setdefault((shape, b), []).append(ratio)
                line += [fmt(bus, ".2f") + mark, fmt(ratio, ".2f")]
            table.append(line)

    # Summary: geometric-mean speed-up per shape and baseline.
    summary = []
    for shape in shapes:
        if not any((shape, b) in speedups for b, _ in cols):
            notes.add("shapes with no baseline in the torch JSON: not in the summary")
            continue
        s = [shape]
        for b, short in cols:
            s.append(fmt(geomean(speedups.get((shape, b), [])), ".2f"))
        summary.append(s)
    sum_header = ["shape"] + ["geomean x%s" % short for _, short in cols]

    info = common.info_lines(ndoc, tdoc, ("torch", "cuda"), [
        "read bandwidth for %%readBW: %s GB/s (from %s JSON); torch run: read %s GB/s, "
        "copy %s GB/s" % (fmt(bw, ".0f"), bw_from, fmt(bw_t, ".0f"),
                          fmt(num(tdoc.get("copy_bandwidth_gbs")), ".0f")),
        "xNAME = baseline us / ninfer us (> 1: ninfer faster)",
    ])

    if not table:
        info.append("no ninfer results to compare")

    # The table is printed even when empty (its header); '*' marks a padded baseline.
    common.emit(info, header, table, sum_header, summary, sorted(notes), args.markdown,
                {0, 2, 3}, empty_table=True, star_marks=True)
    return 0


if __name__ == "__main__":
    common.quiet_sigpipe()
    sys.exit(main())
