#!/usr/bin/env python3
"""Compare ninfer's decode-attention bench with scripts/torch_attention_baselines.py.

  python3 scripts/compare_attention_baselines.py TORCH_JSON NINFER_JSON [--markdown] [--all]

TORCH_JSON  : output of scripts/torch_attention_baselines.py
              {"device", "torch", "read_bandwidth_gbs", ...,
               "results": [{"op": "sdpa", "backend": "flash"|"cudnn"|"efficient",
                            "window": S, "width": W, "us": ..., "gbps": ...,
                            "formulation": ..., "note": ...}]}
NINFER_JSON : `ninfer bench --json` {"device", "read_bandwidth_gbs",
               "results": [{"key": "attn_i8_small/h24/int8/w1", "width": S, "us": ...,
                            "schedule": ..., "bytes": ..., "gbs": ...}]}
              For attention keys the last part "w<N>" is W (new query columns), the part
              before it the KV format (int8, rk8v4, rk4v4, ...), and "width" is the
              window (tokens in the cache).
The two files may be given in either order (they are told apart by their rows).

Per (format, W, window): ninfer us and GB/s (its own byte count), each PyTorch backend's
us, and the ratios backend us / ninfer us (> 1 means ninfer is faster). PyTorch reads a
BF16 cache (4096 bytes per token over the 4 KV heads), ninfer its quantized one, so the
ratio is the end-to-end speed-up of the step, not a kernel-quality figure; the torch GB/s
column shows how close the BF16 baseline is to the read bandwidth. Missing entries are
shown as '-'. When several ninfer keys share (format, W, window), the fastest is shown
(--all shows each). Uses only the standard library (the helpers shared with
compare_baselines.py are in baselines_common.py).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with compare_baselines.py)
from baselines_common import as_int, fmt, geomean, num  # noqa: E402

BACKENDS = (("flash", "flash"), ("cudnn", "cudnn"), ("efficient", "eff"))
W_PART = re.compile(r"^w(\d+)$", re.IGNORECASE)


def kind_of(doc):
    rows = [r for r in doc["results"] if isinstance(r, dict)]
    if any(r.get("op") == "sdpa" or ("backend" in r and "window" in r) for r in rows):
        return "torch"
    if any("key" in r for r in rows):
        return "ninfer"
    return None


def parse_key(key):
    """'attn_i8_small/h24/int8/w1' -> (family, format, W); None when there is no w<N> part."""
    parts = [p for p in str(key).split("/") if p]
    if not parts:
        return None
    m = W_PART.match(parts[-1])
    if not m:
        return None
    fmt = parts[-2] if len(parts) >= 3 else parts[0]
    return parts[0], fmt, int(m.group(1))


def main(argv=None):
    p = common.compare_parser(
        "Table of ninfer decode attention vs PyTorch SDPA (FLASH, cuDNN, "
        "EFFICIENT) per KV format, W and window; ratio = torch us / ninfer us.",
        "torch_attention_baselines.py", "ninfer bench --json output",
        "one row per ninfer key (default: the fastest key per format, W and window)")
    p.add_argument("--prefix", default="attn",
                   help="ninfer keys whose family starts with this are attention rows "
                        "(default attn)")
    args = p.parse_args(argv)

    a = common.load("compare_attention_baselines", args.torch_json)
    b = common.load("compare_attention_baselines", args.ninfer_json)
    ka, kb = kind_of(a), kind_of(b)
    notes = set()
    if ka == "ninfer" and kb == "torch":
        a, b = b, a
        notes.add("note: the files were given as NINFER TORCH; read them the other way round")
    elif ka != "torch" or kb != "ninfer":
        if ka != "torch":
            notes.add("warning: %s has no sdpa rows" % args.torch_json)
        if kb != "ninfer":
            notes.add("warning: %s has no ninfer key rows" % args.ninfer_json)
    tdoc, ndoc = a, b

    # PyTorch: (backend, W, window) -> record.
    base = {}
    present = []
    for r in tdoc["results"]:
        if not isinstance(r, dict) or r.get("op", "sdpa") != "sdpa":
            continue
        us = num(r.get("us"))
        w, s = as_int(r.get("width")), as_int(r.get("window"))
        be = r.get("backend")
        if us is None or us <= 0 or w is None or s is None or not be:
            continue
        base[(be, w, s)] = r
        if be not in present:
            present.append(be)
    cols = [(be, short) for be, short in BACKENDS if be in present]
    cols += [(be, be) for be in present if be not in dict(BACKENDS)]
    if not cols:
        cols = [(be, short) for be, short in BACKENDS[:2]]
        notes.add("no PyTorch sdpa results: baseline columns are empty")

    # ninfer attention rows: (format, W, window[, key]) -> record.
    rows = {}
    unparsed = 0
    for r in ndoc["results"]:
        if not isinstance(r, dict) or "key" not in r:
            continue
        parsed = parse_key(r["key"])
        if parsed is None or not parsed[0].startswith(args.prefix):
            if str(r["key"]).startswith(args.prefix):
                unparsed += 1
            continue
        _, kvfmt, w = parsed
        us = num(r.get("us"))
        s = as_int(r.get("width"))
        if us is None or us <= 0 or s is None:
            continue
        group = (kvfmt, w, s, r["key"]) if args.all else (kvfmt, w, s)
        common.keep_fastest(rows, group, r, us)
    if unparsed:
        notes.add("%d ninfer '%s*' rows without a trailing w<N> key part were ignored"
                  % (unparsed, args.prefix))

    header = ["format", "W", "window", "ninfer key", "sched", "ninfer us", "GB/s"]
    for _, short in cols:
        header += ["%s us" % short]
    for _, short in cols:
        header += ["x%s" % short]
    header += ["torch GB/s"]

    table = []
    ratios = {}      # (format, backend) -> [ratio]
    matched = set()
    for g in sorted(rows, key=lambda g: (g[0], g[1], g[2], str(g[3]) if len(g) > 3 else "")):
        r = rows[g]
        kvfmt, w, s = g[0], g[1], g[2]
        us = num(r["us"])
        gbs = num(r.get("gbs"))
        nbytes = num(r.get("bytes"))
        if gbs is None and nbytes:
            gbs = nbytes / (us * 1e-6) / 1e9
        key_head = str(r["key"]).rsplit("/", 1)[0]
        line = [kvfmt, str(w), str(s), key_head, common.schedule_text(r),
                fmt(us, ".2f"), fmt(gbs, ".0f")]
        bus_cells, ratio_cells = [], []
        best_tgbs = None
        for be, _ in cols:
            br = base.get((be, w, s))
            if br is None:
                bus_cells.append("-")
                ratio_cells.append("-")
                continue
            matched.add((be, w, s))
            bus = num(br["us"])
            mark = "" if br.get("timing", "cuda_graph") == "cuda_graph" else "e"
            if mark:
                notes.add("e: that baseline was timed as eager launches (graph capture failed)")
            ratio = bus / us
            ratios.setdefault((kvfmt, be), []).append(ratio)
            bus_cells.append(fmt(bus, ".2f") + mark)
            ratio_cells.append(fmt(ratio, ".2f"))
            tg = num(br.get("gbps"))
            if tg is not None and (best_tgbs is None or tg > best_tgbs):
                best_tgbs = tg
        table.append(line + bus_cells + ratio_cells + [fmt(best_tgbs, ".0f")])

    # PyTorch points that no ninfer row asked for.
    extra = sorted({(w, s) for (be, w, s) in base if (be, w, s) not in matched})
    if extra and rows:
        notes.add("PyTorch points with no ninfer row: " +
                  ", ".join("W=%d/%d" % ws for ws in extra[:24]) +
                  (" ..." if len(extra) > 24 else ""))
    elif extra:
        # No ninfer attention rows at all: still show the baselines.
        for w, s in extra:
            line = ["-", str(w), str(s), "-", "-", "-", "-"]
            best_tgbs = None
            for be, _ in cols:
                br = base.get((be, w, s))
                line.append("-" if br is None else fmt(num(br["us"]), ".2f"))
                if br is not None:
                    tg = num(br.get("gbps"))
                    if tg is not None and (best_tgbs is None or tg > best_tgbs):
                        best_tgbs = tg
            line += ["-"] * len(cols) + [fmt(best_tgbs, ".0f")]
            table.append(line)
        notes.add("no ninfer attention rows (keys '%s*/.../w<N>'): PyTorch points only"
                  % args.prefix)

    formats = sorted({k[0] for k in ratios})
    summary = []
    for kvfmt in formats:
        summary.append([kvfmt] + [fmt(geomean(ratios.get((kvfmt, be), [])), ".2f")
                                  for be, _ in cols])
    sum_header = ["format"] + ["geomean x%s" % short for _, short in cols]

    bw_n, bw_t = num(ndoc.get("read_bandwidth_gbs")), num(tdoc.get("read_bandwidth_gbs"))
    info = common.info_lines(ndoc, tdoc, ("torch", "cuda", "cudnn"), [
        "read bandwidth: ninfer run %s GB/s, torch run %s GB/s" % (
            fmt(bw_n, ".0f"), fmt(bw_t, ".0f")),
        "xNAME = PyTorch us / ninfer us (> 1: ninfer faster); PyTorch reads a BF16 cache "
        "(window x 4096 bytes); torch GB/s = the fastest baseline's K/V GB/s",
    ])
    if not table:
        info.append("nothing to compare")

    common.emit(info, header, table, sum_header, summary, sorted(notes), args.markdown,
                {0, 3, 4})
    return 0


if __name__ == "__main__":
    common.quiet_sigpipe()
    sys.exit(main())
