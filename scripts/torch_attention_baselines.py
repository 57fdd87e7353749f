#!/usr/bin/env python3
"""PyTorch baselines for decode ("small-T") attention: F.scaled_dot_product_attention.

The seed model's decode step: 24 query heads over 4 KV heads (GQA group 6, query head h
reads KV head h // 6), head dim 256, scale 1/16, a BF16 K/V cache of `window` tokens and
W new query columns (W = 1..8) attending causally with bottom-right alignment: column i
sees keys 0 ..= window - W + i (the last W cache tokens are the new ones).

Backends, each pinned with torch.nn.attention.sdpa_kernel([SDPBackend.X]), probed at
start-up and skipped with a reason when unavailable:
  flash      FLASH_ATTENTION
  cudnn      CUDNN_ATTENTION
  efficient  EFFICIENT_ATTENTION (an extra)
  math       MATH (not in the default list: only for checking this script)

Formulations, tried in order per backend and W; the first that runs and matches the
reference is timed, and the result's "formulation" and "note" say which one ran:
  gqa     enable_gqa=True: q [1,24,W,256] against K/V [1,4,window,256]; no expansion, so
          the bytes read are the 4-head cache
  fold    the 6 query heads of a KV head folded into the query length: q [1,4,6W,256]
          against K/V [1,4,window,256] (row g*W + i is query head 6*kv + g, column i)
  expand  K/V repeated to 24 heads beforehand (reads 6x the bytes): never timed unless
          --allow-expand; without it the skip reason says that it would have worked
Causality for W > 1 (W = 1 needs no mask: every key is visible):
  +lower_right  attn_mask=torch.nn.attention.bias.causal_lower_right(W, window). Its
                dispatch runs FLASH's own causal kernel (bottom-right for q_len != kv_len)
                and EFFICIENT's lower-right mask type without any mask tensor; on other
                backends it materializes a boolean mask on every call.
  +mask         an additive BF16 mask [1,1,rows,window] (0 / -inf), built once.
is_causal=True is never used for W > 1: SDPA documents it as upper-left aligned for a
non-square mask (tril(ones(L, S))), and FLASH refuses it when q_len != kv_len. --selftest
shows this (its informational is_causal rows).
Default order: flash and efficient gqa+lower_right, gqa+mask, fold+mask, expand+...;
cudnn gqa+mask first (a precomputed mask instead of CausalBias's per-call one).

Method: fresh random inputs (never zeros); R copies of the K/V cache (and of q) with
R * bytes >= max(200 MB, 3 x L2) so that every call reads K/V from HBM (one copy at
262144 tokens: 1 GiB); one CUDA graph of L calls (L >= 2R, a multiple of R) rotating
through the copies; us per call = replay time (CUDA events) / L, median over >= 7
replays after warm-up. When capture fails the same sequence is timed as eager launches
between events and the note says so. Reported per call: us, K/V bytes (BF16 codes,
4 KV heads: window * 4 * 256 * 2 * 2), GB/s over those bytes, and TFLOP/s counting
4 * W * 24 * window * 256 FLOPs (QK and PV). Each point is checked against a float32
reference on copy 0 (--no-check skips it); the probe at start-up checks every
formulation against a float64 reference on a small window with planted keys that make
the three alignments (bottom-right, top-left, no mask) give clearly different outputs.
The same run measures read bandwidth (torch.sum over a large bf16 tensor) and copy
bandwidth. The timing harness and the bandwidth measurement are shared with
torch_baselines.py (scripts/baselines_common.py).

Output: JSON (to --out, or stdout) and a table on stderr.

  python3 scripts/torch_attention_baselines.py --selftest
  python3 scripts/torch_attention_baselines.py --out torch_attention.json
  python3 scripts/torch_attention_baselines.py --quick --windows 65536 --widths 1,8
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with the other baseline scripts)
from baselines_common import log, short_exc, Unsupported  # noqa: E402
# The model's shape and the backends, shared with torch_prompt_baselines.py.
from baselines_common import (  # noqa: E402
    HQ, HKV, GROUP, HEAD_DIM, SCALE, BACKENDS, ALIGNMENTS, parse_backends)

DEFAULT_WINDOWS = "8192,65536,262144"
DEFAULT_WIDTHS = "1,2,4,8"
DEFAULT_BACKENDS = "flash,cudnn,efficient"


def parse_ints(text, what, allow_k=False):
    out = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        v = common.parse_count(item, what, allow_k)
        if v not in out:
            out.append(v)
    if not out:
        raise argparse.ArgumentTypeError("no %ss given" % what)
    return out


def parse_windows(text):
    return parse_ints(text, "window", allow_k=True)


def parse_widths(text):
    return parse_ints(text, "width")


def build_parser():
    p = argparse.ArgumentParser(
        description="Time torch.nn.functional.scaled_dot_product_attention (FLASH, cuDNN, "
                    "EFFICIENT backends) for decode steps of the seed model: 24 query heads, "
                    "4 KV heads, head dim 256, BF16 K/V cache of WINDOW tokens, W new "
                    "query columns with bottom-right causal alignment; K/V streamed from "
                    "HBM (rotating copies, CUDA graphs).")
    p.add_argument("--windows", type=parse_windows, default=parse_windows(DEFAULT_WINDOWS),
                   help="comma-separated cache lengths in tokens, 'k' = 1024 allowed "
                        "(default %s)" % DEFAULT_WINDOWS)
    p.add_argument("--widths", type=parse_widths, default=parse_widths(DEFAULT_WIDTHS),
                   help="comma-separated W, new query columns per step (default %s)"
                        % DEFAULT_WIDTHS)
    p.add_argument("--backends", type=parse_backends, default=parse_backends(DEFAULT_BACKENDS),
                   help="comma-separated subset of %s (default %s)"
                        % (",".join(BACKENDS), DEFAULT_BACKENDS))
    common.add_timing_args(p, "calls", "K/V bytes over all cache copies")
    p.add_argument("--min-copies", type=int, default=1,
                   help="at least this many cache copies (default 1: one 1 GiB copy at "
                        "262144 tokens; 2 removes any L2 carry-over between calls)")
    common.add_bandwidth_arg(p)
    p.add_argument("--kv-layout", choices=("bhsd", "bshd"), default="bhsd",
                   help="memory layout of q and the K/V cache: bhsd = [1, heads, tokens, 256] "
                        "contiguous (each head's tokens together, SDPA's native layout); "
                        "bshd = [1, tokens, heads, 256] viewed as BHSD (default bhsd)")
    p.add_argument("--allow-expand", action="store_true",
                   help="allow timing the formulation that expands K/V to 24 heads "
                        "(6x the bytes read) when nothing else works")
    p.add_argument("--no-check", action="store_true",
                   help="skip the per-point accuracy check against a float32 reference")
    p.add_argument("--tol", type=float, default=2e-2,
                   help="largest accepted relative error (default 2e-2): normwise at the "
                        "timed points, max-abs / max-abs(ref) in the probe and --selftest")
    p.add_argument("--probe-window", type=int, default=1024,
                   help="cache length of the start-up probe that picks and checks the "
                        "formulations (default 1024)")
    p.add_argument("--selftest", action="store_true",
                   help="only check numerics: every backend and formulation at "
                        "--selftest-window against a float64 reference (bottom-right, "
                        "top-left and unmasked), max relative error printed; exit 1 on a "
                        "formulation that runs but gives wrong results. Works with "
                        "--device cpu too (MATH and CPU FLASH)")
    p.add_argument("--selftest-window", type=int, default=300,
                   help="cache length for --selftest (default 300)")
    p.add_argument("--selftest-widths", type=parse_widths, default=parse_widths("1,2,3,4,5,6,7,8"),
                   help="W values for --selftest (default 1..8)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--device", default="cuda:0")
    return p


# --------------------------------------------------------------------------------------
# Everything below needs torch; it is imported in main() so that --help works without it.
# --------------------------------------------------------------------------------------

torch = None        # set in main()
causal_lower_right = None


# ---------------- formulations ----------------

class Form(common.Form):
    """kind: gqa | fold | expand; causal: none | lower_right | mask | is_causal."""

    def describe(self, backend, W):
        parts = {
            "gqa": "enable_gqa=True, q [1,24,%d,256] vs K/V [1,4,S,256] (no expansion)" % W,
            "fold": "6 query heads folded into the query length: q [1,4,%d,256] vs K/V "
                    "[1,4,S,256] (no expansion)" % (GROUP * W),
            "expand": "K/V expanded to 24 heads beforehand (repeat_interleave): reads 6x "
                      "the bytes of the 4-head cache",
        }[self.kind]
        if self.causal == "none":
            c = "no mask (W=1: every key visible)" if W == 1 else "no mask"
        elif self.causal == "lower_right":
            c = common.lower_right_text(backend, "W, S",
                                        "materialized to a bool mask on every call")
        elif self.causal == "mask":
            rows = GROUP * W if self.kind == "fold" else W
            c = "additive bf16 mask [1,1,%d,S] (0/-inf, bottom-right), built once" % rows
        else:
            c = "is_causal=True (SDPA: upper-left alignment when q_len != kv_len)"
        return "%s; %s" % (parts, c)


def candidate_forms(backend, W):
    if W == 1:
        return [Form("gqa", "none"), Form("fold", "none"), Form("expand", "none")]
    if backend in ("cudnn", "math"):
        order = ("mask", "lower_right")
    else:
        order = ("lower_right", "mask")
    return ([Form("gqa", c) for c in order] + [Form("fold", "mask")]
            + [Form("expand", c) for c in order])


def prepare_form(form, backend, W, S, qs, kvs, device):
    """Bind a formulation to its inputs. qs: list of q [1,24,W,256]; kvs: list of (k, v)
    [1,4,S,256] (same length). Returns (ops, canon, info): ops[i]() runs copy i and returns
    the raw output, canon(out) gives [1,24,W,256], info has extra byte counts."""
    info = {"mask_bytes": 0, "kv_read_factor": 1}
    attn_mask = None
    if form.causal == "mask":
        # [1, 1, rep*W, S]; row r = g*W + i (the fold layout) when rep > 1.
        attn_mask = common.additive_causal_mask(W, S, device,
                                                rep=GROUP if form.kind == "fold" else 1)
        info["mask_bytes"] = attn_mask.numel() * attn_mask.element_size()
    elif form.causal == "lower_right":
        if causal_lower_right is None:
            raise Unsupported("torch.nn.attention.bias.causal_lower_right not in this torch")
        if form.kind == "fold":
            raise Unsupported("fold needs a per-row mask, not a triangular bias")
        attn_mask = causal_lower_right(W, S)
    is_causal = form.causal == "is_causal"

    inputs = []
    if form.kind == "gqa":
        gqa = True
        for q, (k, v) in zip(qs, kvs):
            inputs.append((q, k, v))

        def canon(o):
            return o
    elif form.kind == "fold":
        gqa = False
        for q, (k, v) in zip(qs, kvs):
            # [1,24,W,D] -> [1,4,6,W,D] -> [1,4,6W,D]: row g*W + i = head 6*kv + g, column i.
            # Done once here (a view for bhsd); the engine can write q in any layout.
            inputs.append((q.reshape(1, HKV, GROUP * W, HEAD_DIM).contiguous(), k, v))

        def canon(o):
            return o.reshape(1, HQ, W, HEAD_DIM)
    elif form.kind == "expand":
        gqa = False
        info["kv_read_factor"] = GROUP
        for q, (k, v) in zip(qs, kvs):
            inputs.append((q, k.repeat_interleave(GROUP, dim=1),
                           v.repeat_interleave(GROUP, dim=1)))

        def canon(o):
            return o
    else:
        raise ValueError(form.kind)

    kwargs = {}
    if gqa:
        kwargs["enable_gqa"] = True
    if is_causal:
        kwargs["is_causal"] = True
    # Call the ops inside pinned(backend) (see common.sdpa_ops).
    return common.sdpa_ops(inputs, attn_mask, kwargs), canon, info


# ---------------- references ----------------

def reference(q, k, v, W, align, dtype):
    """Attention of q [1,24,W,D] over k, v [1,4,S,D] in `dtype` (common.reference_attention
    over all W columns, pos = S - W): [1,24,W,D]; align: bottom_right (column i sees keys
    0..=S-W+i), top_left (0..=i), none."""
    return common.reference_attention(q, k, v, k.shape[2] - W, align, dtype).unsqueeze(0)


def rel_errors(y, ref):
    """(max |y - ref| / max |ref|, ||y - ref|| / ||ref||); inf when y is not finite."""
    d = y.to(ref.dtype) - ref
    num_max = d.abs().max().item()
    num_norm = d.norm().item()
    if not (math.isfinite(num_max) and math.isfinite(num_norm)):
        return float("inf"), float("inf")
    den_max = ref.abs().max().item()
    den_norm = ref.norm().item()
    return (num_max / den_max if den_max > 0 else num_max,
            num_norm / den_norm if den_norm > 0 else num_norm)


def try_form(form, backend, W, S, q, k, v, refs, tol, device):
    """Run one formulation once on (q, k, v) and compare with refs {align: tensor}.
    Returns a dict: ran, ok, reason, errs {align: max rel err}, norm_err, best."""
    def prepare():
        ops, canon, _ = prepare_form(form, backend, W, S, [q], [(k, v)], device)
        return [lambda: canon(ops[0]())],     # the output as [1,24,W,256]

    res, y = common.try_form(form, prepare, backend, device, refs,
                             lambda y, ref: rel_errors(y, ref)[0], tol, "max rel err")
    if y is not None:
        res["norm_err"] = rel_errors(y, refs["bottom_right"])[1]
        del y
    return res


def alternatives(W):
    """The wrong alignments the probe and --selftest tell apart from bottom-right: top-left,
    and no mask when W > 1."""
    return ("top_left",) + (("none",) if W > 1 else ())


# ---------------- sizes ----------------

def kv_bytes_of(S):
    return S * HKV * HEAD_DIM * 2 * 2   # K and V, bf16


def flops_of(W, S):
    return 4 * W * HQ * S * HEAD_DIM    # QK^T and PV, 2 FLOPs per MAC


# ---------------- probe ----------------

def probe_backend(backend, args, device):
    """Availability of a backend and, per W, the formulations that run and are correct
    (bottom-right) at the probe window. Returns a JSON-able dict."""
    out = {"available": False, "reason": "", "probe_window": args.probe_window, "widths": {}}
    missing = common.missing_backend(backend)
    if missing:
        out["reason"] = missing
        return out
    S = args.probe_window
    any_ok = False
    first_failures = []
    for W in args.widths:
        entry = {"forms": [], "refused": []}
        out["widths"][str(W)] = entry
        if W > S:
            entry["refused"].append("W > probe window")
            continue
        q, k, v = common.planted_inputs(W, S, args.kv_layout, device)
        refs = {a: reference(q, k, v, W, a, torch.float64) for a in ALIGNMENTS}
        for form in candidate_forms(backend, W):
            r = try_form(form, backend, W, S, q, k, v, refs, args.tol, device)
            if r["ok"]:
                entry["forms"].append({
                    "name": form.name, "max_rel_err": r["errs"]["bottom_right"],
                    "alignment_discriminated": common.discriminates(r, alternatives(W),
                                                                    args.tol)})
                any_ok = True
            else:
                entry["refused"].append("%s: %s" % (form.name, r["reason"]))
                if not first_failures:
                    first_failures.append("W=%d %s: %s" % (W, form.name, r["reason"]))
        del q, k, v, refs
    out["available"] = any_ok
    if not any_ok:
        out["reason"] = "no formulation works: " + "; ".join(first_failures)[:400]
    return out


def probe_summary(pr):
    parts = []
    for W, e in pr["widths"].items():
        names = [f["name"] for f in e["forms"]]
        parts.append("W=%s %s" % (W, ",".join(names) if names else "none"))
    return "; ".join(parts)


# ---------------- the timed points ----------------

def run_window(S, args, probes, results, skipped, l2_bytes, device):
    rotate_bytes = max(args.rotate_bytes, 3 * l2_bytes)
    kv_bytes = kv_bytes_of(S)
    R = common.copies_for(kv_bytes, rotate_bytes, args.min_copies)
    L = common.launches_for(R, args.min_launches)
    live = [b for b in args.backends if probes[b]["available"]]
    for b in args.backends:
        if not probes[b]["available"]:
            skipped.append({"backend": b, "window": S,
                            "reason": probes[b]["reason"] or "unavailable"})
    if not live:
        return
    log("window %d: R=%d copies x %.1f MB = %.0f MB of K/V, %d calls per graph"
        % (S, R, kv_bytes / 1e6, R * kv_bytes / 1e6, L))
    kvs = [(common.random_bhsd(HKV, S, args.kv_layout, device),
            common.random_bhsd(HKV, S, args.kv_layout, device)) for _ in range(R)]
    for W in args.widths:
        if W > S:
            for b in live:
                skipped.append({"backend": b, "window": S, "width": W, "reason": "W > window"})
            continue
        qs = [common.random_bhsd(HQ, W, args.kv_layout, device) for _ in range(R)]
        ref = None
        if not args.no_check:
            ref = reference(qs[0], kvs[0][0], kvs[0][1], W, "bottom_right", torch.float32)
        for b in live:
            try:
                run_point(b, W, S, qs, kvs, ref, R, L, args, probes, results, skipped, device)
            except Exception as e:
                reason = common.skip_reason("%s W=%d" % (b, W), e)
                skipped.append({"backend": b, "window": S, "width": W, "reason": reason})
            finally:
                torch.cuda.synchronize(device)
                torch.cuda.empty_cache()
        del qs, ref
    del kvs
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()


def run_point(backend, W, S, qs, kvs, ref, R, L, args, probes, results, skipped, device):
    entry = probes[backend]["widths"].get(str(W), {"forms": [], "refused": []})
    passing = [f["name"] for f in entry["forms"]]
    by_name = {f.name: f for f in candidate_forms(backend, W)}
    tried = []
    for name in passing:
        form = by_name[name]
        if form.kind == "expand" and not args.allow_expand:
            tried.append("%s works but expands K/V to 24 heads (6x bytes): not timed without "
                         "--allow-expand" % name)
            continue
        ops = None
        try:
            ops, canon, info = prepare_form(form, backend, W, S, qs, kvs, device)
            with common.pinned(backend):
                y = canon(ops[0]())
            torch.cuda.synchronize(device)
            err = max_err = None
            if ref is not None:
                max_err, err = rel_errors(y, ref)
                if not err <= args.tol:
                    tried.append("%s: wrong result at window %d (rel err %.3g)" % (name, S, err))
                    continue
            del y
            samples, mode = common.time_rotating(
                ops, L, args.replays, args.warmup, device, pin=lambda: common.pinned(backend),
                describe=lambda e: short_exc(e, 120), tolerate_sync_error=True)
        except Exception as e:
            tried.append("%s: %s" % (name, short_exc(e, 200)))
            common.sync_quietly(device)
            continue
        finally:
            del ops
        us = common.median(samples)
        kv_bytes = kv_bytes_of(S)
        flops = flops_of(W, S)
        notes = [name + ": " + form.describe(backend, W)]
        if mode != "cuda_graph":
            notes.append("timed as eager launches: " + mode)
        if tried:
            notes.append("passed over: " + "; ".join(tried))
        rec = {
            "op": "sdpa", "backend": backend, "window": S, "width": W,
            "us": us, "gbps": kv_bytes / (us * 1e-6) / 1e9,
            "tflops": flops / (us * 1e-6) / 1e12,
            "kv_bytes": kv_bytes,
            "kv_bytes_read": kv_bytes * info["kv_read_factor"],
            "mask_bytes": info["mask_bytes"],
            "flops": flops,
            "formulation": name,
            "note": "; ".join(notes),
            "rel_err": err, "max_rel_err": max_err,
            "samples": samples, "copies": R, "launches": L, "timing": mode,
            "kv_layout": args.kv_layout,
        }
        results.append(rec)
        log("    %-9s W=%-2d %10.2f us  %6.0f GB/s  %6.1f TFLOP/s  %-18s%s%s" % (
            backend, W, us, rec["gbps"], rec["tflops"], name,
            "" if err is None else "  err %.1e" % err,
            "" if mode == "cuda_graph" else "  [eager]"))
        return
    reason = "; ".join(tried) if tried else "no formulation passed the probe: " + \
        "; ".join(entry.get("refused", []))[:400]
    log("    %-9s W=%-2d SKIP %s" % (backend, W, reason[:300]))
    skipped.append({"backend": backend, "window": S, "width": W, "reason": reason})


# ---------------- self-test ----------------

def run_selftest(args, device):
    S = args.selftest_window
    tol = args.tol
    rows = []
    wrong = 0
    chosen = {}   # backend -> {W: form name or None}
    log("selftest: window %d, layout %s, planted keys; error = max |y - ref| / max |ref| "
        "against float64 references with bottom-right (br, the correct one), top-left (tl) "
        "and no (none) causal mask; tolerance %.3g" % (S, args.kv_layout, tol))
    backends = common.selftest_backends(args.backends)
    for W in args.selftest_widths:
        if W > S:
            log("selftest: W=%d > window %d, skipped" % (W, S))
            continue
        q, k, v = common.planted_inputs(W, S, args.kv_layout, device)
        refs = {a: reference(q, k, v, W, a, torch.float64) for a in ALIGNMENTS}
        for b in backends:
            forms = candidate_forms(b, W)
            info_forms = [] if W == 1 else [Form("gqa", "is_causal")]
            trials = [(f, try_form(f, b, W, S, q, k, v, refs, tol, device))
                      for f in forms + info_forms]
            judged, n_wrong = common.judge_trials(
                trials, "%-9s W=%d" % (b, W), lambda f: f.causal == "is_causal",
                alternatives(W), tol,
                chosen.setdefault(b, {}), W, args.allow_expand)
            wrong += n_wrong
            for form, r, informational, verdict in judged:
                rows.append({"backend": b, "width": W, "window": S, "formulation": form.name,
                             "ran": r["ran"], "ok": r["ok"], "informational": informational,
                             "max_rel_err": r["errs"], "norm_rel_err": r.get("norm_err"),
                             "verdict": verdict})
        del q, k, v, refs
    log("")
    log("selftest summary (window %d, layout %s, tolerance %.3g):" % (S, args.kv_layout, tol))
    common.log_selftest_summary(backends, chosen, "W", lambda W: "W=%d" % W, True, wrong)
    doc = {"selftest": True, "window": S, "tol": tol, "rows": rows, "chosen": {
        b: {str(W): n for W, n in c.items()} for b, c in chosen.items()}, "wrong": wrong}
    return doc, (1 if wrong else 0)


# ---------------- output ----------------

def table_cell(b, w, r):
    short = "?"
    for f in candidate_forms(b, w):
        if f.name == r["formulation"]:
            short = f.short
    return "%10.2f%s (%5.0f) %-5s" % (
        r["us"], " " if r["timing"] == "cuda_graph" else "e", r["gbps"], short)


def print_table(doc):
    res = doc["results"]
    log("")
    log(common.env_text(doc) + " | read %.0f GB/s | copy %.0f GB/s" % (
        doc.get("read_bandwidth_gbs") or float("nan"),
        doc.get("copy_bandwidth_gbs") or float("nan")))
    backends = common.backends_in(res)
    windows = sorted({r["window"] for r in res})
    for S in windows:
        by = {(r["backend"], r["width"]): r for r in res if r["window"] == S}
        widths = sorted({w for (_, w) in by})
        log("")
        log("window %d: us per call (GB/s over the 4-head BF16 K/V, %.0f MB) formulation"
            % (S, kv_bytes_of(S) / 1e6))
        common.log_grid("W", 3, backends, 29, widths, by, table_cell)
    log("")
    log("formulations: g = enable_gqa, f = heads folded into q length, x = K/V expanded; "
        "+lr = causal_lower_right, +m = additive mask; 'e' = eager timing (capture failed)")
    for s in doc.get("skipped", []):
        log("skipped: %s%s%s: %s" % (s["backend"],
                                     " window=%d" % s["window"] if "window" in s else "",
                                     " W=%d" % s["width"] if "width" in s else "",
                                     s["reason"][:300]))


def main(argv=None):
    args = build_parser().parse_args(argv)
    bw_reps = common.resolve_replays(args)

    global torch, causal_lower_right
    imported = common.import_sdpa("W > 1 uses masks only")
    if imported is None:
        return 2
    torch, causal_lower_right = imported
    dev, cudnn_version = common.setup_device(args)
    if dev is None:
        return 2

    if args.selftest:
        log("torch_attention_baselines --selftest: %s, torch %s, cudnn %s" % (
            common.device_name(dev), torch.__version__, cudnn_version))
        doc, rc = run_selftest(args, dev)
        doc.update({"device": common.device_name(dev), "torch": torch.__version__,
                    "cudnn": cudnn_version})
        if args.out:
            common.write_doc(doc, args.out)
        return rc

    for W in args.widths:
        for S in args.windows:
            if W > S:
                log("note: W=%d > window %d will be skipped" % (W, S))

    doc = common.device_doc(dev, [("cudnn", cudnn_version)])
    l2_bytes = doc["l2_bytes"]
    doc["model"] = dict(
        common.model_fields(),
        causal="bottom-right: column i of W sees keys 0..=window-W+i",
        flops_per_call="4 * W * 24 * window * 256",
        kv_bytes_per_call="window * 4 * 256 * 2 (bf16) * 2 (K and V)",
    )
    doc["config"] = {
        "windows": args.windows, "widths": args.widths, "backends": args.backends,
        "replays": args.replays, "warmup": args.warmup,
        "min_launches": args.min_launches, "min_copies": args.min_copies,
        "rotate_bytes": max(args.rotate_bytes, 3 * l2_bytes),
        "kv_layout": args.kv_layout, "allow_expand": args.allow_expand,
        "check": not args.no_check, "tol": args.tol,
        "probe_window": args.probe_window, "seed": args.seed,
        "timing": "CUDA graph of L calls rotating R K/V cache copies; us = median over "
                  "replays of replay time / L",
    }
    common.log_device("torch_attention_baselines", doc, cudnn_version)
    t0 = time.time()

    # Bandwidth first, on a quiet device.
    common.bandwidth_into(doc, dev, args.bw_gib, bw_reps, short_exc)

    # Probe the backends and pick the formulations.
    probes = {}
    for b in args.backends:
        try:
            probes[b] = probe_backend(b, args, dev)
        except Exception as e:
            probes[b] = {"available": False, "reason": "probe failed: " + short_exc(e, 300),
                         "widths": {}}
        if probes[b]["available"]:
            log("probe %s: ok at window %d (%s)" % (b, args.probe_window, probe_summary(probes[b])))
        else:
            log("probe %s: SKIPPED, %s" % (b, probes[b]["reason"]))
        torch.cuda.synchronize(dev)
        torch.cuda.empty_cache()
    doc["probes"] = probes

    results, skipped = [], []
    for S in args.windows:
        try:
            run_window(S, args, probes, results, skipped, l2_bytes, dev)
        except Exception as e:  # e.g. out of memory for the cache copies
            reason = short_exc(e, 300)
            log("window %d SKIPPED: %s" % (S, reason))
            for b in args.backends:
                skipped.append({"backend": b, "window": S, "reason": reason})
            torch.cuda.synchronize(dev)
            torch.cuda.empty_cache()
    return common.finish(doc, results, skipped, t0, args.out, print_table)


if __name__ == "__main__":
    sys.exit(main())
