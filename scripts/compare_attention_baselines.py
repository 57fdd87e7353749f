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
(--all shows each). Uses only the standard library.
"""

import argparse
import json
import math
import re
import signal
import sys

BACKENDS = (("flash", "flash"), ("cudnn", "cudnn"), ("efficient", "eff"))
W_PART = re.compile(r"^w(\d+)$", re.IGNORECASE)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("compare_attention_baselines: cannot read JSON %s: %s\n" % (path, e))
        sys.exit(1)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        sys.stderr.write("compare_attention_baselines: %s has no 'results' list\n" % path)
        sys.exit(1)
    return doc


def kind_of(doc):
    rows = [r for r in doc["results"] if isinstance(r, dict)]
    if any(r.get("op") == "sdpa" or ("backend" in r and "window" in r) for r in rows):
        return "torch"
    if any("key" in r for r in rows):
        return "ninfer"
    return None


def num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def as_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
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


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Table of ninfer decode attention vs PyTorch SDPA (FLASH, cuDNN, "
                    "EFFICIENT) per KV format, W and window; ratio = torch us / ninfer us.")
    p.add_argument("torch_json", help="output of scripts/torch_attention_baselines.py")
    p.add_argument("ninfer_json", help="ninfer bench --json output")
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    p.add_argument("--all", action="store_true",
                   help="one row per ninfer key (default: the fastest key per format, W "
                        "and window)")
    p.add_argument("--prefix", default="attn",
                   help="ninfer keys whose family starts with this are attention rows "
                        "(default attn)")
    args = p.parse_args(argv)

    a, b = load(args.torch_json), load(args.ninfer_json)
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
        cur = rows.get(group)
        if cur is None or us < num(cur["us"]):
            rows[group] = r
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
        sched = r.get("schedule")
        if isinstance(sched, (dict, list)):
            sched = json.dumps(sched, separators=(",", ":"))
        key_head = str(r["key"]).rsplit("/", 1)[0]
        line = [kvfmt, str(w), str(s), key_head, "-" if sched in (None, "") else str(sched),
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
    info = [
        "ninfer: %s | torch baselines: %s (torch %s, cuda %s, cudnn %s)" % (
            ndoc.get("device", "?"), tdoc.get("device", "?"), tdoc.get("torch", "?"),
            tdoc.get("cuda", "?"), tdoc.get("cudnn", "?")),
        "read bandwidth: ninfer run %s GB/s, torch run %s GB/s" % (
            fmt(bw_n, ".0f"), fmt(bw_t, ".0f")),
        "xNAME = PyTorch us / ninfer us (> 1: ninfer faster); PyTorch reads a BF16 cache "
        "(window x 4096 bytes); torch GB/s = the fastest baseline's K/V GB/s",
    ]
    if ndoc.get("device") and tdoc.get("device") and ndoc.get("device") != tdoc.get("device"):
        info.append("WARNING: the two files were measured on different devices")
    if not table:
        info.append("nothing to compare")

    if args.markdown:
        emit_markdown(info, header, table, sum_header, summary, sorted(notes))
    else:
        emit_text(info, header, table, sum_header, summary, sorted(notes))
    return 0


def print_aligned(header, rows, left):
    widths = [len(h) for h in header]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))

    def render(r):
        cells = []
        for i, c in enumerate(r):
            cells.append(c.ljust(widths[i]) if i in left else c.rjust(widths[i]))
        return "  ".join(cells).rstrip()

    print(render(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(render(r))


def emit_text(info, header, table, sum_header, summary, notes):
    for line in info:
        print(line)
    print()
    if table:
        print_aligned(header, table, {0, 3, 4})
    if summary:
        print()
        print_aligned(sum_header, summary, {0})
    if notes:
        print()
        for n in notes:
            print(n)


def emit_markdown(info, header, table, sum_header, summary, notes):
    for line in info:
        print(line + "  ")
    print()

    def md(h, rows, left):
        esc = lambda c: c.replace("|", "\\|")
        print("| " + " | ".join(esc(c) for c in h) + " |")
        print("|" + "|".join(":---" if i in left else "---:" for i in range(len(h))) + "|")
        for r in rows:
            print("| " + " | ".join(esc(c) for c in r) + " |")

    if table:
        md(header, table, {0, 3, 4})
    if summary:
        print()
        md(sum_header, summary, {0})
    if notes:
        print()
        for n in notes:
            print("- " + n)


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    sys.exit(main())
