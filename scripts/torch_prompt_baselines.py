#!/usr/bin/env python3
"""PyTorch baselines for prompt ("prefill") attention: F.scaled_dot_product_attention.

The seed model's prompt step: 24 query heads over 4 KV heads (GQA group 6, query head h
reads KV head h // 6), head dim 256, scale 1/16, BF16 Q/K/V, batch 1. A chunk of C query
tokens at positions pos .. pos+C-1 attends causally to a K/V cache of len = pos + C
tokens (the chunk's own K/V are the cache's last C tokens), bottom-right aligned: query
row i sees keys 0 ..= pos + i.

Cases (--cases, default all three; more with --case NAME=C,len):
  c1024@32K    C = 1024,  len = 32768   (pos = 31744)
  c1024@131K   C = 1024,  len = 131072  (pos = 130048)
  c16384@0     C = 16384, len = 16384   (pos = 0: a 16K-token prompt, square causal)

Backends, each pinned with torch.nn.attention.sdpa_kernel([SDPBackend.X]):
  flash      FLASH_ATTENTION
  cudnn      CUDNN_ATTENTION
  efficient  EFFICIENT_ATTENTION (an extra, not in the default list)
  math       MATH (only for --selftest on small shapes)

Formulations, tried in order per case and backend; the first that runs and matches the
reference is timed, and the result's "formulation" and "note" say which one ran and why
the others were passed over:
  gqa     enable_gqa=True: q [1,24,C,256] against K/V [1,4,len,256] (no expansion)
  expand  K/V repeated to 24 heads beforehand (repeat_interleave); only timed with
          --allow-expand (without it the note says whether it would have worked)
Causality:
  +is_causal    C == len (square): is_causal=True (upper-left = lower-right there)
  +lower_right  C < len: attn_mask=torch.nn.attention.bias.causal_lower_right(C, len).
                FLASH: its own causal kernel, bottom-right for q_len != kv_len, no mask
                tensor; EFFICIENT: its lower-right mask type; CUDNN and MATH: CausalBias
                materializes a [C, len] bool mask on every call (inside the timed graph).
  +mask         an additive BF16 mask [1,1,C,len] (0 / -inf, bottom-right), built once
                (the fallback for cuDNN when lower_right is refused or wrong; tried on
                every backend, FLASH refuses it). --cudnn-mask-first tries it before
                lower_right on cuDNN.
is_causal=True is never used for C < len: SDPA documents it as upper-left aligned for a
non-square mask; --selftest shows what each backend does with it (informational rows).

Correctness: each (case, backend) output is compared with a float32 reference on a subset
of query rows (--check-rows, default 64, evenly spaced, always the first and the last),
computed per KV head (never a C x len score matrix for all heads); the checked rows are
split in blocks of --check-block consecutive checked rows and the relative L2 error
||y - ref|| / ||ref|| of every block must be <= --tol (2e-2). A mismatch disqualifies the
formulation (the note says why). --selftest checks every backend and formulation on tiny
shapes (C=100, len=300 and C=len=200) against float64 references with planted keys that
make bottom-right, top-left and unmasked attention give clearly different outputs.

Timing (as scripts/torch_attention_baselines.py, helpers in scripts/baselines_common.py):
fresh random inputs (randn, never zeros); R copies of (q, K, V) with R * bytes >=
max(--rotate-bytes, 3 x L2); one CUDA graph of L calls (L >= 2R and >= --min-launches,
default 4, a multiple of R) rotating through the copies; us per call = replay time (CUDA
events) / L, median over >= 7 replays after warm-up. When capture fails the same sequence
is timed as eager launches and the note says so.

FLOPs count exactly the visible (query, key) pairs: pairs = sum_{i<C} (pos + i + 1)
= C*pos + C*(C+1)/2, FLOPs = 4 * 24 * 256 * pairs (QK and PV, 2 FLOPs per MAC);
tflops = FLOPs / time.

Output: JSON (to --out, or stdout): "env" (device, torch, cuda, cudnn, ...; also at the
top level as in the other baseline scripts), "model", "config", "results" (one object
per (case, backend): case, backend, C/chunk, len, pos, us, tflops, pairs, flops,
formulation, note, ...; us/tflops/formulation are null when nothing could be timed) and
"skipped"; a table on stderr.

  python3 scripts/torch_prompt_baselines.py --selftest
  python3 scripts/torch_prompt_baselines.py --out torch_prompt.json
  python3 scripts/torch_prompt_baselines.py --quick --cases c1024@32K --case c4096@64K=4096,64K
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with the other baseline scripts)
from baselines_common import log, short_exc, Unsupported  # noqa: E402
# The model's shape and the backends, shared with torch_attention_baselines.py.
from baselines_common import (  # noqa: E402
    HQ, HKV, GROUP, HEAD_DIM, SCALE, BACKENDS, ALIGNMENTS, parse_backends)

DEFAULT_CASES = (
    ("c1024@32K", 1024, 32768),
    ("c1024@131K", 1024, 131072),
    ("c16384@0", 16384, 16384),
)
DEFAULT_BACKENDS = "flash,cudnn"
DEFAULT_SELFTEST_SHAPES = "100:300,200:200"
DEFAULT_MIN_LAUNCHES = 4


# --------------------------------------------------------------------------------------
# Command line (standard library only, so that --help works without torch)
# --------------------------------------------------------------------------------------

def parse_tokens(text, what):
    """'1024', '32k' / '32K' (x 1024) -> int > 0 (errors quote the text as given)."""
    return common.parse_count(text, what, shown=text)


def check_shape(name, C, S):
    if C > S:
        raise argparse.ArgumentTypeError(
            "%s: chunk %d is longer than the cache (%d): the chunk's own tokens are the "
            "cache's last C tokens, so C <= len" % (name, C, S))
    return name, C, S


def parse_case(text):
    """NAME=C,len (k = 1024 allowed) -> (name, C, len)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError("--case %r: expected NAME=C,len" % text)
    name, rest = text.split("=", 1)
    name = name.strip()
    parts = [p for p in rest.split(",") if p.strip()]
    if not name or len(parts) != 2:
        raise argparse.ArgumentTypeError("--case %r: expected NAME=C,len" % text)
    return check_shape(name, parse_tokens(parts[0], "chunk"), parse_tokens(parts[1], "len"))


def parse_case_names(text):
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise argparse.ArgumentTypeError("no cases given")
    return list(dict.fromkeys(names))


def parse_selftest_shapes(text):
    """'100:300,200:200' -> [(name, C, len)]."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if ":" not in item:
            raise argparse.ArgumentTypeError("selftest shape %r: expected C:len" % item)
        c, s = item.split(":", 1)
        C, S = parse_tokens(c, "chunk"), parse_tokens(s, "len")
        out.append(check_shape("C%d_len%d" % (C, S), C, S))
    if not out:
        raise argparse.ArgumentTypeError("no selftest shapes given")
    return out


def build_parser():
    p = argparse.ArgumentParser(
        description="Time torch.nn.functional.scaled_dot_product_attention (FLASH, cuDNN "
                    "backends) for prompt (prefill) chunks of the seed model: 24 query "
                    "heads over 4 KV heads, head dim 256, BF16, a chunk of C query tokens "
                    "attending causally (bottom-right) to a cache of len = pos + C "
                    "tokens. TFLOP/s count the visible (query, key) pairs exactly.",
        epilog="built-in cases: " + ", ".join(
            "%s (C=%d, len=%d)" % c for c in DEFAULT_CASES))
    p.add_argument("--cases", type=parse_case_names, default=None,
                   help="comma-separated built-in case names to run (default: all three); "
                        "'none' runs only the --case ones")
    p.add_argument("--case", dest="extra_cases", type=parse_case, action="append",
                   default=[], metavar="NAME=C,len",
                   help="an extra case (repeatable), e.g. c4096@64K=4096,64K "
                        "(k = 1024; C <= len)")
    p.add_argument("--backends", type=parse_backends, default=parse_backends(DEFAULT_BACKENDS),
                   help="comma-separated subset of %s (default %s)"
                        % (",".join(BACKENDS), DEFAULT_BACKENDS))
    common.add_timing_args(p, "calls", "bytes of q, K and V over all input copies")
    # These calls take milliseconds: a few per graph are enough.
    for a in p._actions:
        if a.dest == "quick":
            a.help = "fewer replays (7) and a shorter dense-matmul measurement"
        if a.dest == "min_launches":
            a.default = DEFAULT_MIN_LAUNCHES
            a.help = ("at least this many calls per graph (rounded up to a multiple of R, "
                      "and at least 2R; default %d)" % DEFAULT_MIN_LAUNCHES)
    p.add_argument("--min-copies", type=int, default=1,
                   help="at least this many copies of (q, K, V) (default 1)")
    p.add_argument("--layout", choices=("bhsd", "bshd"), default="bhsd",
                   help="memory layout of q, K and V: bhsd = [1, heads, tokens, 256] "
                        "contiguous (SDPA's native layout); bshd = [1, tokens, heads, 256] "
                        "viewed as BHSD (default bhsd)")
    p.add_argument("--allow-expand", action="store_true",
                   help="allow timing the formulation that expands K/V to 24 heads when "
                        "no enable_gqa formulation works")
    p.add_argument("--cudnn-mask-first", action="store_true",
                   help="on cuDNN try the precomputed additive mask before "
                        "causal_lower_right (which cuDNN gets as a bool mask materialized "
                        "on every call)")
    p.add_argument("--flash-impl", default=None, metavar="NAME",
                   help="activate this flash attention implementation first "
                        "(torch.nn.attention.activate_flash_attention_impl, e.g. FA3 when "
                        "its package is installed); default: torch's built-in one")
    p.add_argument("--tol", type=float, default=2e-2,
                   help="largest accepted relative L2 error per block of checked rows "
                        "(default 2e-2)")
    p.add_argument("--check-rows", type=int, default=64,
                   help="query rows checked against the float32 reference, evenly spaced, "
                        "first and last included (default 64)")
    p.add_argument("--check-block", type=int, default=8,
                   help="checked rows per error block (default 8)")
    p.add_argument("--no-check", action="store_true",
                   help="skip the accuracy check (time the first formulation that runs)")
    p.add_argument("--no-peak", action="store_true",
                   help="skip the dense bf16 matmul measurement (8192^3, for context)")
    p.add_argument("--selftest", action="store_true",
                   help="only check numerics: every backend and formulation on "
                        "--selftest-shapes against float64 references (bottom-right, "
                        "top-left, unmasked) with planted keys; exit 1 when a formulation "
                        "runs but gives wrong results. Works with --device cpu too")
    p.add_argument("--selftest-shapes", type=parse_selftest_shapes,
                   default=parse_selftest_shapes(DEFAULT_SELFTEST_SHAPES),
                   help="comma-separated C:len shapes for --selftest (default %s)"
                        % DEFAULT_SELFTEST_SHAPES)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--device", default="cuda:0")
    return p


def selected_cases(args):
    """The (name, C, len) cases to run: the built-in ones named by --cases (all when not
    given; 'all' and 'none' allowed), then the --case ones (a --case with a built-in
    name replaces it); exits with a message on an unknown name."""
    extra = {n: (n, c, s) for n, c, s in args.extra_cases}
    # A --case with a built-in name replaces that case.
    builtin = {n: extra.get(n, (n, c, s)) for n, c, s in DEFAULT_CASES}
    out = []
    if args.cases is None:
        out = list(builtin.values())
    else:
        for n in args.cases:
            if n.lower() == "none":
                continue
            if n.lower() == "all":
                out += [c for c in builtin.values() if c not in out]
                continue
            if n in extra:
                continue          # added below
            match = builtin.get(n) or next(
                (c for k, c in builtin.items() if k.lower() == n.lower()), None)
            if match is None:
                log("error: unknown case %r (built-in: %s; define others with "
                    "--case NAME=C,len)" % (n, ", ".join(builtin)))
                sys.exit(2)
            if match not in out:
                out.append(match)
    for c in args.extra_cases:
        if all(c[0] != o[0] for o in out):
            out.append(c)
    return out


# --------------------------------------------------------------------------------------
# Everything below needs torch; it is imported in main() so that --help works without it.
# --------------------------------------------------------------------------------------

torch = None        # set in main()
causal_lower_right = None
BF16 = None


def pairs_of(C, S):
    """Visible (query, key) pairs: row i of the chunk sees pos + i + 1 keys."""
    pos = S - C
    return C * pos + C * (C + 1) // 2


def flops_of(C, S):
    return 4 * HQ * HEAD_DIM * pairs_of(C, S)    # QK^T and PV, 2 FLOPs per MAC


def bytes_of(C, S):
    """Bytes of one copy of the inputs: q [24,C,256] and K, V [4,S,256], bf16."""
    return (HQ * C + 2 * HKV * S) * HEAD_DIM * 2


# ---------------- formulations ----------------

class Form(common.Form):
    """kind: gqa | expand; causal: is_causal | lower_right | mask."""

    def describe(self, backend, C, S):
        kind = {
            "gqa": "enable_gqa=True, q [1,24,%d,256] vs K/V [1,4,%d,256] (no expansion)"
                   % (C, S),
            "expand": "K/V expanded to 24 heads beforehand (repeat_interleave, not timed): "
                      "q [1,24,%d,256] vs K/V [1,24,%d,256]" % (C, S),
        }[self.kind]
        if self.causal == "is_causal":
            c = ("is_causal=True (square: upper-left = bottom-right)" if C == S else
                 "is_causal=True (SDPA: upper-left alignment when q_len != kv_len)")
        elif self.causal == "lower_right":
            c = common.lower_right_text(backend, "C, len",
                                        "materialized by CausalBias to a [C, len] bool mask "
                                        "on every call (inside the timed graph)")
        else:
            c = "additive bf16 mask [1,1,%d,%d] (0/-inf, bottom-right), built once" % (C, S)
        return "%s; %s" % (kind, c)


def candidate_forms(backend, C, S, mask_first=False):
    if C == S:
        order = ("is_causal", "mask")
    elif mask_first:
        order = ("mask", "lower_right")
    else:
        order = ("lower_right", "mask")
    return [Form("gqa", c) for c in order] + [Form("expand", c) for c in order]


def forms_for(backend, C, S, args):
    return candidate_forms(backend, C, S,
                           mask_first=(backend == "cudnn" and args.cudnn_mask_first))


def prepare_form(form, C, S, copies, device):
    """Bind a formulation to its inputs. copies: list of (q [1,24,C,256], k, v [1,4,S,256]).
    Returns (ops, info): ops[i]() runs copy i and returns the [1,24,C,256] output; info
    has mask_bytes and kv_read_factor. Call the ops inside pinned(backend): the backend is
    chosen when SDPA is called (eagerly or while a graph is captured)."""
    info = {"mask_bytes": 0, "kv_read_factor": 1}
    attn_mask = None
    is_causal = False
    if form.causal == "is_causal":
        is_causal = True
    elif form.causal == "lower_right":
        if causal_lower_right is None:
            raise Unsupported("torch.nn.attention.bias.causal_lower_right not in this torch")
        attn_mask = causal_lower_right(C, S)
    elif form.causal == "mask":
        attn_mask = common.additive_causal_mask(C, S, device)
        info["mask_bytes"] = attn_mask.numel() * attn_mask.element_size()
    else:
        raise ValueError(form.causal)

    kwargs = {"scale": SCALE}
    if form.kind == "gqa":
        kwargs["enable_gqa"] = True
        inputs = list(copies)
    elif form.kind == "expand":
        info["kv_read_factor"] = GROUP
        inputs = [(q, k.repeat_interleave(GROUP, dim=1), v.repeat_interleave(GROUP, dim=1))
                  for q, k, v in copies]
    else:
        raise ValueError(form.kind)
    if is_causal:
        kwargs["is_causal"] = True
    return common.sdpa_ops(inputs, attn_mask, kwargs), info


# ---------------- inputs and references ----------------

def check_rows(C, n):
    """Up to n query rows, evenly spaced, the first and the last included (sorted)."""
    if n >= C:
        return list(range(C))
    n = max(2, n)
    rows = {round(t * (C - 1) / (n - 1)) for t in range(n)}
    rows.update((0, C - 1))
    return sorted(rows)


def reference_rows(q, k, v, rows, pos, align, dtype):
    """Attention of the query rows `rows` (a list of ints) of q [1,24,C,D] over k, v
    [1,4,S,D] in `dtype` (common.reference_attention); align: bottom_right (row i sees
    keys 0..=pos+i), top_left (0..=i) or none. Returns [24, len(rows), D]."""
    return common.reference_attention(q, k, v, pos, align, dtype, rows=rows)


def naive_row(q, k, v, head, row, pos):
    """One output row computed the slow, obvious way in float64 (checks reference_rows)."""
    n = pos + row + 1
    qv = q[0, head, row].to(torch.float64)
    kk = k[0, head // GROUP, :n].to(torch.float64)
    vv = v[0, head // GROUP, :n].to(torch.float64)
    s = (kk @ qv) * SCALE
    w = torch.exp(s - s.max())
    return (w / w.sum()) @ vv


def block_errors(y, ref, rows, block):
    """y: the SDPA output [1,24,C,D]; ref: [24,len(rows),D] for the query rows `rows`.
    Returns (max over blocks of `block` consecutive checked rows of ||d|| / ||ref|| over
    the block (all heads), ||d|| / ||ref|| over all checked rows, max |d| / max |ref|);
    inf when y is not finite."""
    ri = torch.tensor(rows, device=y.device, dtype=torch.long)
    yr = y[0].index_select(1, ri).to(ref.dtype)                      # [24, n, D]
    d = yr - ref
    if not bool(torch.isfinite(d).all()):
        return float("inf"), float("inf"), float("inf")
    worst = 0.0
    n = len(rows)
    for b0 in range(0, n, max(1, block)):
        b1 = min(n, b0 + max(1, block))
        num_ = d[:, b0:b1].norm().item()
        den = ref[:, b0:b1].norm().item()
        worst = max(worst, num_ / den if den > 0 else num_)
    tot_den = ref.norm().item()
    total = d.norm().item() / tot_den if tot_den > 0 else d.norm().item()
    max_den = ref.abs().max().item()
    maxrel = d.abs().max().item() / max_den if max_den > 0 else d.abs().max().item()
    return worst, total, maxrel


def run_once(form, backend, C, S, copies, device):
    """(y, ops, info) from one eager call of copy 0, or raises Unsupported with the reason
    (and the warnings SDPA gave when it refused the pinned backend)."""
    y, (ops, info) = common.first_call(lambda: prepare_form(form, C, S, copies, device),
                                       backend, device)
    return y, ops, info


# ---------------- the timed points ----------------

def run_case(case, args, results, skipped, l2_bytes, device):
    name, C, S = case
    pos = S - C
    rotate_bytes = max(args.rotate_bytes, 3 * l2_bytes)
    nbytes = bytes_of(C, S)
    R = common.copies_for(nbytes, rotate_bytes, args.min_copies)
    L = common.launches_for(R, args.min_launches)
    log("case %s: C=%d len=%d pos=%d, %.3f TFLOP per call, R=%d copies x %.1f MB, "
        "%d calls per graph" % (name, C, S, pos, flops_of(C, S) / 1e12, R, nbytes / 1e6, L))
    copies = [(common.random_bhsd(HQ, C, args.layout, device),
               common.random_bhsd(HKV, S, args.layout, device),
               common.random_bhsd(HKV, S, args.layout, device)) for _ in range(R)]
    rows = check_rows(C, args.check_rows)
    ref = None
    if not args.no_check:
        q0, k0, v0 = copies[0]
        ref = reference_rows(q0, k0, v0, rows, pos, "bottom_right", torch.float32)
        common.sync(device)
    for b in args.backends:
        base = {"op": "sdpa_prompt", "case": name, "backend": b, "C": C, "chunk": C,
                "len": S, "pos": pos, "pairs": pairs_of(C, S), "flops": flops_of(C, S),
                "us": None, "tflops": None, "formulation": None, "note": None,
                "layout": args.layout}
        reason = common.missing_backend(b)
        if reason:
            base["note"] = reason
            results.append(base)
            skipped.append({"case": name, "backend": b, "reason": reason})
            log("    %-9s SKIP %s" % (b, reason))
            continue
        try:
            run_point(b, case, copies, rows, ref, R, L, args, base, results, skipped, device)
        except Exception as e:
            reason = common.skip_reason("%-9s" % b, e)
            base["note"] = reason
            results.append(base)
            skipped.append({"case": name, "backend": b, "reason": reason})
        finally:
            common.sync_quietly(device)
            torch.cuda.empty_cache()
    del copies, ref
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()


def run_point(backend, case, copies, rows, ref, R, L, args, base, results, skipped, device):
    name, C, S = case
    tried = []
    flash_note = None
    if backend == "flash" and args.flash_impl:
        flash_note = "flash impl %s (activate_flash_attention_impl)" % args.flash_impl
    expand_works = False
    for form in forms_for(backend, C, S, args):
        if form.kind == "expand" and expand_works:
            continue      # one expand formulation that works (not timed) is enough to say so
        ops = y = None
        samples = None
        err = total = maxrel = None
        try:
            y, ops, info = run_once(form, backend, C, S, copies, device)
            if ref is not None:
                err, total, maxrel = block_errors(y, ref, rows, args.check_block)
                if not err <= args.tol:
                    tried.append("%s: wrong result (rel L2 err %.3g over a block of checked "
                                 "rows, tolerance %.3g)" % (form.name, err, args.tol))
                    continue
            del y
            y = None
            if form.kind == "expand" and not args.allow_expand:
                expand_works = True
                tried.append("%s: runs%s but expands K/V to 24 heads, not timed without "
                             "--allow-expand" % (form.name, "" if ref is None else
                                                 " and matches (err %.1e)" % err))
                continue
            samples, mode = common.time_rotating(
                ops, L, args.replays, args.warmup, device, pin=lambda: common.pinned(backend),
                describe=lambda e: short_exc(e, 120), tolerate_sync_error=True)
        except Exception as e:
            tried.append("%s: %s" % (form.name, str(e)[:300] if isinstance(e, Unsupported)
                                     else short_exc(e, 300)))
            common.sync_quietly(device)
            continue
        finally:
            del ops, y
            torch.cuda.empty_cache()
        us = common.median(samples)
        notes = [form.name + ": " + form.describe(backend, C, S)]
        if flash_note:
            notes.append(flash_note)
        if ref is None:
            notes.append("not checked (--no-check)")
        if mode != "cuda_graph":
            notes.append("timed as eager launches: " + mode)
        if tried:
            notes.append("passed over: " + merged_reasons(tried))
        rec = dict(base)
        rec.update({
            "us": us,
            "tflops": rec["flops"] / (us * 1e-6) / 1e12,
            "formulation": form.name,
            "note": "; ".join(notes),
            "rel_err": err, "rel_err_all_rows": total, "max_rel_err": maxrel,
            "checked_rows": None if ref is None else len(rows),
            "mask_bytes": info["mask_bytes"], "kv_read_factor": info["kv_read_factor"],
            "samples": samples, "copies": R, "launches": L, "timing": mode,
        })
        results.append(rec)
        log("    %-9s %10.1f us  %6.1f TFLOP/s  %-18s%s%s" % (
            backend, us, rec["tflops"], form.name,
            "" if err is None else "  err %.1e" % err,
            "" if mode == "cuda_graph" else "  [eager]"))
        return
    reason = merged_reasons(tried) if tried else "no formulation"
    log("    %-9s SKIP %s" % (backend, reason[:400]))
    rec = dict(base)
    rec["note"] = "nothing timed: " + reason
    results.append(rec)
    skipped.append({"case": name, "backend": backend, "reason": reason})


def merged_reasons(tried):
    """'form: reason' strings, with the forms that share one reason named together."""
    by = {}
    for t in tried:
        name, _, reason = t.partition(": ")
        if not reason:
            name, reason = "", t
        by.setdefault(reason, []).append(name)
    return "; ".join("%s: %s" % (", ".join(n for n in names if n), reason) if any(names)
                     else reason for reason, names in by.items())


# ---------------- self-test ----------------

def try_form(form, backend, C, S, q, k, v, refs, rows, args, device):
    """Run one formulation once on (q, k, v) and compare with refs {align: tensor}.
    Returns a dict: ran, ok, reason, errs {align: max block rel L2 err}, maxrel, best."""
    res, y = common.try_form(
        form, lambda: prepare_form(form, C, S, [(q, k, v)], device), backend, device, refs,
        lambda y, ref: block_errors(y, ref, rows, args.check_block)[0], args.tol,
        "rel L2 err")
    if y is not None:
        res["maxrel"] = block_errors(y, refs["bottom_right"], rows, args.check_block)[2]
        del y
    return res


def alternatives(C, S):
    """The wrong alignments a shape can tell apart from bottom-right: top-left is the same
    when C == len, no mask when C == 1."""
    return (() if C == S else ("top_left",)) + (("none",) if C > 1 else ())


def run_selftest(args, device):
    tol = args.tol
    rows_out = []
    wrong = 0
    chosen = {}   # backend -> {shape: form name or None}
    log("selftest: layout %s, planted keys; error = largest relative L2 error over blocks "
        "of %d rows against float64 references with bottom-right (br, the correct one), "
        "top-left (tl) and no (none) causal mask; tolerance %.3g"
        % (args.layout, args.check_block, tol))
    backends = common.selftest_backends(args.backends)
    ref_bad = 0
    for shape, C, S in args.selftest_shapes:
        pos = S - C
        q, k, v = common.planted_inputs(C, S, args.layout, device)
        rows = list(range(C))
        refs = {a: reference_rows(q, k, v, rows, pos, a, torch.float64) for a in ALIGNMENTS}
        # The reference itself against the obvious per-row computation, and the row-subset
        # path (as used at the timed points) against the full one.
        worst = 0.0
        for h in sorted({0, GROUP - 1, GROUP, HQ - 1}):
            for i in sorted({0, 1 % C, C // 2, C - 1}):
                d = (naive_row(q, k, v, h, i, pos) - refs["bottom_right"][h, i]).abs().max()
                worst = max(worst, d.item())
        sub = check_rows(C, 7)
        sref = reference_rows(q, k, v, sub, pos, "bottom_right", torch.float64)
        worst = max(worst, (sref - refs["bottom_right"][:, sub]).abs().max().item())
        if not worst < 1e-9:
            ref_bad += 1
            log("selftest %s: REFERENCE WRONG: differs from the per-row computation by %.3g"
                % (shape, worst))
        else:
            log("selftest %s (C=%d, len=%d, pos=%d): reference checked (max diff %.1e)"
                % (shape, C, S, pos, worst))
        for b in backends:
            forms = forms_for(b, C, S, args)
            info_forms = [] if C == S else [Form("gqa", "is_causal")]
            trials = [(f, try_form(f, b, C, S, q, k, v, refs, rows, args, device))
                      for f in forms + info_forms]
            judged, n_wrong = common.judge_trials(
                trials, "  %-9s" % b, lambda f: f.causal == "is_causal" and C != S,
                alternatives(C, S), tol, chosen.setdefault(b, {}), shape, args.allow_expand)
            wrong += n_wrong
            for form, r, informational, verdict in judged:
                rows_out.append({
                    "backend": b, "shape": shape, "chunk": C, "len": S, "pos": pos,
                    "formulation": form.name, "ran": r["ran"], "ok": r["ok"],
                    "informational": informational, "rel_err": r["errs"],
                    "max_rel_err": r.get("maxrel"), "verdict": verdict})
        del q, k, v, refs
    log("")
    log("selftest summary (layout %s, tolerance %.3g):" % (args.layout, tol))
    common.log_selftest_summary(backends, chosen, "shape", str, False, wrong, ref_bad)
    doc = {"selftest": True, "tol": tol, "rows": rows_out, "chosen": chosen,
           "wrong": wrong, "reference_wrong": ref_bad}
    return doc, (1 if (wrong or ref_bad) else 0)


# ---------------- context: dense bf16 matmul ----------------

def measure_peak(device, reps):
    """TFLOP/s of an 8192^3 bf16 matmul on random data (median of CUDA-event times)."""
    n = 8192
    a = torch.randn(n, n, device=device, dtype=BF16)
    b = torch.randn(n, n, device=device, dtype=BF16)
    c = torch.empty(n, n, device=device, dtype=BF16)
    ms = common.event_times_ms(lambda: torch.matmul(a, b, out=c), reps, 5, device)
    del a, b, c
    torch.cuda.empty_cache()
    return 2 * n ** 3 / (common.median(ms) * 1e-3) / 1e12


# ---------------- output ----------------

def print_table(doc):
    res = doc["results"]
    log("")
    log(common.env_text(doc) + " | dense bf16 matmul %s TFLOP/s" % (
        "%.0f" % doc["peak_bf16_tflops"] if doc.get("peak_bf16_tflops") else "-"))
    backends = common.backends_in(res)
    cases = []
    for r in res:
        if r["case"] not in [c[0] for c in cases]:
            cases.append((r["case"], r["chunk"], r["len"]))
    by = {(r["case"], r["backend"]): r for r in res}
    w = 34
    log("")
    log("us per call (TFLOP/s over the visible pairs) formulation; 'e' = eager timing")
    log("%-12s %6s %7s" % ("case", "C", "len") + "".join("  %-*s" % (w, b) for b in backends))
    for name, C, S in cases:
        line = "%-12s %6d %7d" % (name, C, S)
        for b in backends:
            r = by.get((name, b))
            if r is None or r.get("us") is None:
                cell = "-"
            else:
                cell = "%9.1f%s (%5.1f) %s" % (
                    r["us"], " " if r.get("timing") == "cuda_graph" else "e",
                    r["tflops"], r["formulation"])
            line += "  %-*s" % (w, cell)
        log(line)
    for s in doc.get("skipped", []):
        log("skipped: %s %s: %s" % (s.get("case", "?"), s.get("backend", "?"),
                                    str(s.get("reason", ""))[:300]))


def main(argv=None):
    args = build_parser().parse_args(argv)
    common.resolve_replays(args)
    if args.check_rows < 2:
        log("note: raising --check-rows %d to 2 (the first and the last row)" % args.check_rows)
        args.check_rows = 2
    cases = [] if args.selftest else selected_cases(args)
    if not args.selftest and not cases:
        log("error: no cases selected")
        return 2

    global torch, causal_lower_right, BF16
    imported = common.import_sdpa("C < len uses masks only")
    if imported is None:
        return 2
    torch, causal_lower_right = imported
    BF16 = torch.bfloat16

    if args.flash_impl:
        try:
            import torch.nn.attention as _attn
            _attn.activate_flash_attention_impl(args.flash_impl)
        except Exception as e:
            log("error: cannot activate flash attention impl %r: %s"
                % (args.flash_impl, short_exc(e, 300)))
            return 2
        log("flash attention impl %s activated" % args.flash_impl)

    dev, cudnn_version = common.setup_device(args)
    if dev is None:
        return 2
    dev_name = common.device_name(dev)

    if args.selftest:
        log("torch_prompt_baselines --selftest: %s, torch %s, cudnn %s" % (
            dev_name, torch.__version__, cudnn_version))
        doc, rc = run_selftest(args, dev)
        env = {"device": dev_name, "torch": torch.__version__, "cuda": torch.version.cuda,
               "cudnn": cudnn_version, "flash_impl": args.flash_impl or "default"}
        doc.update(env)
        doc["env"] = env
        if args.out:
            common.write_doc(doc, args.out)
        return rc

    doc = common.device_doc(dev, [("cudnn", cudnn_version)])
    l2_bytes = doc["l2_bytes"]
    doc["flash_impl"] = args.flash_impl or "default"
    doc["python"] = sys.version.split()[0]
    doc["model"] = dict(
        common.model_fields(), batch=1,
        causal="bottom-right: row i of the chunk (C rows) sees keys 0..=pos+i, len = pos + C",
        pairs_per_call="C*pos + C*(C+1)/2",
        flops_per_call="4 * 24 * 256 * pairs",
    )
    doc["config"] = {
        "cases": [{"case": n, "chunk": c, "len": s, "pos": s - c} for n, c, s in cases],
        "backends": args.backends, "replays": args.replays, "warmup": args.warmup,
        "min_launches": args.min_launches, "min_copies": args.min_copies,
        "rotate_bytes": max(args.rotate_bytes, 3 * l2_bytes), "layout": args.layout,
        "allow_expand": args.allow_expand, "cudnn_mask_first": args.cudnn_mask_first,
        "check": not args.no_check, "tol": args.tol, "check_rows": args.check_rows,
        "check_block": args.check_block, "seed": args.seed,
        "timing": "CUDA graph of L calls rotating R copies of (q, K, V); us = median over "
                  "replays of replay time / L",
    }
    common.log_device("torch_prompt_baselines", doc, cudnn_version)
    t0 = time.time()

    doc["peak_bf16_tflops"] = None
    if not args.no_peak:
        try:
            doc["peak_bf16_tflops"] = measure_peak(dev, 7 if args.quick else 15)
            log("dense bf16 matmul 8192^3: %.0f TFLOP/s" % doc["peak_bf16_tflops"])
        except Exception as e:
            log("dense bf16 matmul measurement failed: %s" % short_exc(e))
            torch.cuda.synchronize(dev)
            torch.cuda.empty_cache()
    doc["env"] = {k: doc.get(k) for k in (
        "device", "torch", "cuda", "cudnn", "capability", "sm_count", "l2_bytes",
        "flash_impl", "python", "peak_bf16_tflops")}

    results, skipped = [], []
    for case in cases:
        try:
            run_case(case, args, results, skipped, l2_bytes, dev)
        except Exception as e:  # e.g. out of memory for the input copies
            reason = short_exc(e, 300)
            log("case %s SKIPPED: %s" % (case[0], reason))
            log(common.traceback_tail())
            name, C, S = case
            for b in args.backends:
                if any(r["case"] == name and r["backend"] == b for r in results):
                    continue
                results.append({
                    "op": "sdpa_prompt", "case": name, "backend": b, "C": C, "chunk": C,
                    "len": S, "pos": S - C, "pairs": pairs_of(C, S), "flops": flops_of(C, S),
                    "us": None, "tflops": None, "formulation": None,
                    "note": "case failed: " + reason, "layout": args.layout})
                skipped.append({"case": name, "backend": b, "reason": reason})
            common.sync_quietly(dev)
            torch.cuda.empty_cache()
    return common.finish(doc, results, skipped, t0, args.out, print_table)


if __name__ == "__main__":
    sys.exit(main())
