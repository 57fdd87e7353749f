#!/usr/bin/env python3
"""Compare ninfer's prompt-attention timings with scripts/torch_prompt_baselines.py.

  python3 scripts/compare_prompt_baselines.py TORCH_JSON OURS_JSON [--text] [--target 1.3]

TORCH_JSON : output of scripts/torch_prompt_baselines.py
             {"device", "torch", "cuda", "env": {...},
              "results": [{"case": "c1024@32K", "backend": "flash"|"cudnn"|..., "chunk": C,
                           "len": S, "pos": ..., "us": ... or null, "tflops": ...,
                           "pairs": ..., "flops": ..., "formulation": ..., "note": ...,
                           "timing": "cuda_graph"|"eager (...)"}]}
OURS_JSON  : {"prompt": [{"case": "c1024@32K", "format": "int8",
                          "kernel": "attn_prompt_w8", "pack_gqa": false, "pv_f16": false,
                          "us": 1234.5, "tflops": 456.7, "chunk": 1024, "len": 32768}, ...],
              ...}  (other top-level keys are ignored; "device" is shown when present)
The two files may be given in either order (they are told apart by their contents).

For each case and KV format: our best configuration (smallest us) with its us and TFLOP/s,
SDPA FLASH and cuDNN us and TFLOP/s, and the ratios ours/flash and ours/cudnn in TFLOP/s
(= their us / our us: > 1 means ours is faster); a ratio >= --target (1.3) against
FLASH is marked as meeting the target. Then one table per case and format with every
configuration. TFLOP/s are computed the same way on both sides, from the visible
(query, key) pairs: pairs = C*pos + C*(C+1)/2, FLOPs = 4 * 24 * 256 * pairs, with
pos = len - C; when our file's "tflops" disagrees with that by more than 1% a note says
so. A missing baseline or one that could not be timed is shown as n/a. Markdown by
default (--text: aligned plain text). Uses only the standard library.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with the other comparisons)
from baselines_common import as_int, num  # noqa: E402

PROG = "compare_prompt_baselines"
HQ, HEAD_DIM = 24, 256
BASELINES = (("flash", "flash"), ("cudnn", "cuDNN"))
NA = "n/a"


def pairs_of(C, S):
    pos = S - C
    return C * pos + C * (C + 1) // 2


def flops_of(C, S):
    return 4 * HQ * HEAD_DIM * pairs_of(C, S)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("%s: cannot read JSON %s: %s\n" % (PROG, path, e))
        sys.exit(1)


def kind_of(doc):
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("prompt"), list):
        return "ours"
    rows = doc.get("results")
    if isinstance(rows, list) and any(isinstance(r, dict) and "backend" in r and "case" in r
                                      for r in rows):
        return "torch"
    return None


def flag(v):
    """A configuration switch as 'on' / 'off' / '?' (bool, 0/1, 'on'/'off', ...)."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if v is None:
        return "?"
    s = str(v).strip().lower()
    if s in ("1", "true", "on", "yes"):
        return "on"
    if s in ("0", "false", "off", "no"):
        return "off"
    return s or "?"


def f_us(v):
    return NA if v is None else "%.1f" % v


def f_tf(v):
    return NA if v is None else "%.1f" % v


def f_ratio(v):
    return NA if v is None else "%.2f" % v


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Tables of ninfer prompt attention vs PyTorch SDPA (FLASH, cuDNN) per "
                    "case and KV format; ratio = their us / our us (TFLOP/s ours / theirs).")
    p.add_argument("torch_json", help="output of scripts/torch_prompt_baselines.py")
    p.add_argument("ours_json", help='our prompt timings: {"prompt": [{"case", "format", '
                                     '"kernel", "pack_gqa", "pv_f16", "us", "tflops", '
                                     '"chunk", "len"}, ...]}')
    p.add_argument("--text", action="store_true",
                   help="aligned plain text instead of markdown tables")
    p.add_argument("--target", type=float, default=1.3,
                   help="speed-up over SDPA FLASH that counts as meeting the target "
                        "(default 1.3)")
    p.add_argument("--no-details", action="store_true",
                   help="only the summary table (not one table per case and format)")
    args = p.parse_args(argv)
    markdown = not args.text

    a, b = load_json(args.torch_json), load_json(args.ours_json)
    ka, kb = kind_of(a), kind_of(b)
    notes = []
    torch_path = args.torch_json
    if ka == "ours" and kb == "torch":
        a, b = b, a
        torch_path = args.ours_json
        notes.append("the files were given as OURS TORCH; read them the other way round")
    elif ka != "torch" or kb != "ours":
        if ka != "torch":
            notes.append("warning: %s has no torch_prompt_baselines results (rows with "
                         "'case' and 'backend')" % args.torch_json)
        if kb != "ours":
            notes.append("warning: %s has no 'prompt' list" % args.ours_json)
    tdoc = a if isinstance(a, dict) else {}
    odoc = b if isinstance(b, dict) else {}

    # ---- PyTorch baselines: case -> backend -> row; also (chunk, len) -> case ----
    base = {}
    case_shape = {}
    case_order = []
    by_shape = {}
    for r in tdoc.get("results") or []:
        if not isinstance(r, dict) or not r.get("case") or not r.get("backend"):
            continue
        name = str(r["case"])
        C = as_int(r.get("chunk", r.get("C")))
        S = as_int(r.get("len"))
        if name not in case_order:
            case_order.append(name)
        if C is not None and S is not None:
            case_shape.setdefault(name, (C, S))
            by_shape.setdefault((C, S), name)
        base.setdefault(name, {})[str(r["backend"])] = r

    # ---- our rows: (case, format) -> config -> row (fastest per config) ----
    ours = {}
    bad_rows = 0
    tflops_mismatch = []
    for r in odoc.get("prompt") or []:
        if not isinstance(r, dict):
            bad_rows += 1
            continue
        us = num(r.get("us"))
        C, S = as_int(r.get("chunk")), as_int(r.get("len"))
        name = r.get("case")
        if not name and C is not None and S is not None:
            name = by_shape.get((C, S), "C%d/len%d" % (C, S))
        if us is None or us <= 0 or not name:
            bad_rows += 1
            continue
        name = str(name)
        if (C is None or S is None) and name in case_shape:
            C, S = case_shape[name]
        fmt_ = str(r.get("format") or "?")
        cfg = (str(r.get("kernel") or "?"), flag(r.get("pack_gqa")), flag(r.get("pv_f16")))
        tf = None
        if C is not None and S is not None and 0 < C <= S:
            tf = flops_of(C, S) / (us * 1e-6) / 1e12
            given = num(r.get("tflops"))
            if given is not None and tf > 0 and abs(given - tf) > 0.01 * tf:
                tflops_mismatch.append("%s %s %s: file %.1f, pairs-based %.1f" % (
                    name, fmt_, cfg[0], given, tf))
        else:
            tf = num(r.get("tflops"))
        row = {"us": us, "tflops": tf, "chunk": C, "len": S, "raw": r}
        slot = ours.setdefault((name, fmt_), {})
        cur = slot.get(cfg)
        if cur is None or us < cur["us"]:
            slot[cfg] = row
    if bad_rows:
        notes.append("%d rows of our 'prompt' list had no usable us / case and were ignored"
                     % bad_rows)
    if tflops_mismatch:
        notes.append("our file's tflops differ from the pairs-based count (the tables use "
                     "the pairs-based one): " + "; ".join(tflops_mismatch[:8]) +
                     (" ..." if len(tflops_mismatch) > 8 else ""))

    # ---- order: cases as in the torch file, then the others; formats sorted ----
    names = list(case_order)
    for name, _ in sorted(ours):
        if name not in names:
            names.append(name)
    groups = [(n, f) for n in names for f in sorted({f for (c, f) in ours if c == n})]

    def baseline(name, be, C, S):
        """(us, tflops, mark) of a baseline for this case, None when missing or untimed;
        mark: '' or 'e' (eager timing)."""
        br = base.get(name, {}).get(be)
        if br is None:
            return None
        us = num(br.get("us"))
        if us is None or us <= 0:
            return None
        tf = num(br.get("tflops"))
        bc = as_int(br.get("chunk", br.get("C")))
        bs = as_int(br.get("len"))
        if bc is not None and bs is not None and 0 < bc <= bs:
            tf = flops_of(bc, bs) / (us * 1e-6) / 1e12
        mark = "" if str(br.get("timing", "cuda_graph")) == "cuda_graph" else "e"
        return us, tf, mark, (bc, bs)

    def ratio(our, their, C, S, shape):
        """their us / our us when the shapes are the same, else ours / theirs TFLOP/s."""
        if their is None:
            return None
        if shape == (C, S) or None in shape:
            return their[0] / our["us"]
        if our["tflops"] and their[1]:
            return our["tflops"] / their[1]
        return None

    shape_warned = set()
    eager_seen = False
    summary = []
    details = []
    for name, fmt_ in groups:
        cfgs = ours[(name, fmt_)]
        order = sorted(cfgs, key=lambda c: cfgs[c]["us"])
        best_cfg = order[0]
        best = cfgs[best_cfg]
        C, S = best["chunk"], best["len"]
        bl = {}
        for be, _ in BASELINES:
            bl[be] = baseline(name, be, C, S)
            if bl[be] is not None:
                eager_seen = eager_seen or bool(bl[be][2])
                if None not in bl[be][3] and (C, S) != bl[be][3] and name not in shape_warned:
                    shape_warned.add(name)
                    notes.append("warning: %s: our rows are C=%s len=%s, the baselines C=%d "
                                 "len=%d: ratios are TFLOP/s ratios" % (
                                     name, C, S, bl[be][3][0], bl[be][3][1]))
        if name not in base:
            notes.append("%s: no PyTorch baselines in %s" % (name, torch_path))
        for be, label in BASELINES:
            br = base.get(name, {}).get(be)
            if br is not None and bl[be] is None:
                notes.append("%s %s baseline: not timed: %s" % (
                    name, label, str(br.get("note") or "no us")[:240]))

        def ratios(row):
            rf = ratio(row, bl["flash"], row["chunk"], row["len"],
                       bl["flash"][3] if bl["flash"] else (None, None))
            rc = ratio(row, bl["cudnn"], row["chunk"], row["len"],
                       bl["cudnn"][3] if bl["cudnn"] else (None, None))
            met = NA if rf is None else ("MET" if rf >= args.target else "no")
            return rf, rc, met

        rf, rc, met = ratios(best)
        cells = [name, "-" if C is None else str(C), "-" if S is None else str(S), fmt_,
                 "%s pack_gqa=%s pv_f16=%s" % best_cfg, f_us(best["us"]), f_tf(best["tflops"])]
        for be, _ in BASELINES:
            x = bl[be]
            cells += [NA if x is None else f_us(x[0]) + x[2],
                      NA if x is None else f_tf(x[1])]
        cells += [f_ratio(rf), f_ratio(rc), met]
        summary.append(cells)

        rows = []
        for cfg in order:
            row = cfgs[cfg]
            rf_, rc_, met_ = ratios(row)
            rows.append([cfg[0] + (" (best)" if cfg == best_cfg else ""), cfg[1], cfg[2],
                         f_us(row["us"]), f_tf(row["tflops"]),
                         f_ratio(rf_), f_ratio(rc_), met_])
        details.append((name, fmt_, C, S, bl, rows))

    # Baseline cases with no rows of ours.
    only_base = [n for n in case_order if not any(c == n for c, _ in ours)]
    for name in only_base:
        C, S = case_shape.get(name, (None, None))
        cells = [name, "-" if C is None else str(C), "-" if S is None else str(S), "-",
                 "(none of ours)", NA, NA]
        for be, _ in BASELINES:
            x = baseline(name, be, C, S)
            if x is not None:
                eager_seen = eager_seen or bool(x[2])
            cells += [NA if x is None else f_us(x[0]) + x[2], NA if x is None else f_tf(x[1])]
        cells += [NA, NA, NA]
        summary.append(cells)

    # ---- print ----
    put = common.md_table if markdown else common.print_aligned
    tv = tdoc.get("env") if isinstance(tdoc.get("env"), dict) else tdoc
    info = ["ours: %s | torch baselines: %s (torch %s, cuda %s, cudnn %s)" % (
        odoc.get("device", "?"), tv.get("device", tdoc.get("device", "?")),
        tv.get("torch", "?"), tv.get("cuda", "?"), tv.get("cudnn", "?"))]
    if odoc.get("device") and tv.get("device") and odoc.get("device") != tv.get("device"):
        info.append("WARNING: the two files were measured on different devices")
    info.append("TFLOP/s over the visible (query, key) pairs (4 x 24 x 256 FLOPs each); "
                "xflash / xcuDNN = their us / our us (> 1: ours faster); target: xflash "
                ">= %.2f" % args.target)
    for line in info:
        print(line + "  " if markdown else line)
    print()
    if markdown:
        print("### Best configuration per case and format")
        print()
    header = ["case", "C", "len", "format", "our best", "us", "TFLOP/s"]
    for _, label in BASELINES:
        header += ["%s us" % label, "%s TFLOP/s" % label]
    header += ["x%s" % label for _, label in BASELINES]
    header += ["target (>= %.2f x flash)" % args.target]
    if summary:
        put(header, summary, {0, 3, 4})
    else:
        print("nothing to compare")
    if not args.no_details:
        for name, fmt_, C, S, bl, rows in details:
            print()
            title = "%s (C=%s, len=%s), format %s" % (name, C, S, fmt_)
            base_txt = ", ".join("%s %s" % (
                label, NA if bl[be] is None else "%s us / %s TFLOP/s" % (
                    f_us(bl[be][0]) + bl[be][2], f_tf(bl[be][1])))
                for be, label in BASELINES)
            if markdown:
                print("### " + title)
                print()
                print("SDPA: " + base_txt)
                print()
            else:
                print(title + "; SDPA: " + base_txt)
            put(["kernel", "pack_gqa", "pv_f16", "us", "TFLOP/s"]
                + ["x%s" % label for _, label in BASELINES] + ["target"], rows, {0})
    if eager_seen:
        notes.append("e: that baseline was timed as eager launches (graph capture failed)")
    notes = list(dict.fromkeys(notes))
    if notes:
        print()
        for n in notes:
            print(("- " + n) if markdown else n)
    return 0


if __name__ == "__main__":
    common.quiet_sigpipe()
    sys.exit(main())
