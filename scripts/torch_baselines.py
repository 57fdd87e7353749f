#!/usr/bin/env python3
"""PyTorch baselines for small-T projections y[T,N] = x[T,K] @ W[N,K]^T on one GPU.

Baselines (each probed at start-up and skipped with a reason when unavailable):
  bf16_linear    torch.nn.functional.linear, bf16 weights and activations
  fp8_scaled_mm  torch._scaled_mm, e4m3 weights and activations, per-tensor fp32
                 scales, bf16 out (T is padded up to a multiple of 16 only when the
                 unpadded call is refused; the result's note says so)
  int4pack_mm    torch._weight_int4pack_mm (tinygemm), int4 groupwise, group 128,
                 bf16 scales and zeros, bf16 activations

Method: fresh random inputs (never zeros); R distinct weight copies with
R * bytes >= max(200 MB, 3 x L2) so that every launch reads its weights from HBM;
one CUDA graph of L launches (L >= 2R, a multiple of R) rotating through the
copies; per-op time = replay time (CUDA events) / L; median over >= 7 replays after
warm-up. The same run also measures device bandwidth: a large device-to-device copy
((bytes read + bytes written) / time) and torch.sum over a large bf16 tensor
(bytes read / time). The timing harness and the bandwidth measurement are shared with
torch_attention_baselines.py (scripts/baselines_common.py).

Output: JSON (to --out, or stdout) and a short table on stderr.

  python3 scripts/torch_baselines.py --out torch_baselines.json
  python3 scripts/torch_baselines.py --quick --shapes 5120x6144 --widths 1,8,32
"""

import argparse
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines_common as common  # noqa: E402  (shared with the other baseline scripts)
from baselines_common import log  # noqa: E402

DEFAULT_SHAPES = "5120x6144,5120x17408,17408x5120,248320x5120"
DEFAULT_WIDTHS = "1,2,3,4,5,6,7,8,10,12,14,16,20,24,28,32"
BASELINES = ("bf16_linear", "fp8_scaled_mm", "int4pack_mm")
GROUP_SIZE = 128


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        parts = item.split("x")
        if len(parts) != 2:
            raise argparse.ArgumentTypeError("shape %r is not NxK" % item)
        n, k = int(parts[0]), int(parts[1])
        if n <= 0 or k <= 0:
            raise argparse.ArgumentTypeError("shape %r must be positive" % item)
        shapes.append((n, k))
    if not shapes:
        raise argparse.ArgumentTypeError("no shapes given")
    return shapes


def parse_widths(text):
    widths = []
    for item in text.split(","):
        item = item.strip()
        if item:
            w = int(item)
            if w <= 0:
                raise argparse.ArgumentTypeError("width %r must be positive" % item)
            widths.append(w)
    if not widths:
        raise argparse.ArgumentTypeError("no widths given")
    return widths


def parse_baselines(text):
    names = [s.strip() for s in text.split(",") if s.strip()]
    for n in names:
        if n not in BASELINES:
            raise argparse.ArgumentTypeError(
                "unknown baseline %r (choose from %s)" % (n, ", ".join(BASELINES)))
    return names


def build_parser():
    p = argparse.ArgumentParser(
        description="Time PyTorch baselines (bf16 linear, fp8 _scaled_mm, int4 "
                    "_weight_int4pack_mm) for y[T,N] = x[T,K] W^T with weights "
                    "streamed from HBM (rotating copies, CUDA graphs).")
    p.add_argument("--shapes", type=parse_shapes, default=parse_shapes(DEFAULT_SHAPES),
                   help="comma-separated NxK weight shapes (default %s)" % DEFAULT_SHAPES)
    p.add_argument("--widths", type=parse_widths, default=parse_widths(DEFAULT_WIDTHS),
                   help="comma-separated T values (default %s)" % DEFAULT_WIDTHS)
    p.add_argument("--baselines", type=parse_baselines, default=list(BASELINES),
                   help="comma-separated subset of %s" % ",".join(BASELINES))
    common.add_timing_args(p, "ops", "bytes over all weight copies")
    common.add_bandwidth_arg(p)
    p.add_argument("--fp8-pad", choices=("auto", "always", "never"), default="auto",
                   help="pad T to a multiple of 16 for _scaled_mm: auto = only when the "
                        "unpadded call is refused (default auto)")
    p.add_argument("--fp8-accum", choices=("fast", "precise"), default="fast",
                   help="_scaled_mm use_fast_accum (default fast)")
    p.add_argument("--no-check", action="store_true",
                   help="skip the per-point accuracy check against a float32 reference")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--device", default="cuda:0")
    return p


# --------------------------------------------------------------------------------------
# Everything below needs torch; it is imported in main() so that --help works without it.
# --------------------------------------------------------------------------------------

torch = None  # set in main()


def rel_err(y, ref):
    y = y.float()
    ref = ref.float()
    den = ref.norm().item()
    num = (y - ref).norm().item()
    if not math.isfinite(num):
        return float("inf")
    return num / den if den > 0 else num


# ---------------- fp8 ----------------

class Fp8Api:
    def __init__(self):
        self.scale_shape = None   # () or (1,)
        self.needs_pad = None     # bool
        self.probe_note = ""

    def call(self, x, w_t, sa, sb, fast):
        r = torch._scaled_mm(x, w_t, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                             use_fast_accum=fast)
        if isinstance(r, tuple):  # very old releases returned (out, amax)
            r = r[0]
        return r

    def scale(self, v, device):
        t = torch.tensor(v, dtype=torch.float32, device=device)
        return t.reshape(self.scale_shape)


def probe_fp8(device, fast):
    if not hasattr(torch, "_scaled_mm"):
        raise RuntimeError("torch._scaled_mm not present in this torch")
    if not hasattr(torch, "float8_e4m3fn"):
        raise RuntimeError("torch.float8_e4m3fn dtype not present")
    api = Fp8Api()
    N, K = 256, 512
    w = (torch.randn(N, K, device=device) * 2).to(torch.float8_e4m3fn)
    errors = []
    for shape in ((), (1,)):
        api.scale_shape = shape
        sa, sb = api.scale(0.5, device), api.scale(0.25, device)
        x = (torch.randn(16, K, device=device) * 2).to(torch.float8_e4m3fn)
        try:
            y = api.call(x, w.t(), sa, sb, fast)
            torch.cuda.synchronize(device)
        except Exception as e:
            errors.append("scale shape %s: %s" % (shape, str(e).splitlines()[0]))
            continue
        ref = (x.float() * 0.5) @ (w.float() * 0.25).t()
        err = rel_err(y, ref)
        if err > 2e-2:
            raise RuntimeError("_scaled_mm probe mismatch: rel err %.3g" % err)
        break
    else:
        raise RuntimeError("_scaled_mm probe failed: " + " | ".join(errors))
    # Does T need padding to a multiple of 16?
    x3 = (torch.randn(3, K, device=device) * 2).to(torch.float8_e4m3fn)
    try:
        y = api.call(x3, w.t(), sa, sb, fast)
        torch.cuda.synchronize(device)
        ref = (x3.float() * 0.5) @ (w.float() * 0.25).t()
        api.needs_pad = rel_err(y, ref) > 2e-2
        api.probe_note = "unpadded T accepted" if not api.needs_pad else \
            "unpadded T gave wrong results"
    except Exception as e:
        api.needs_pad = True
        api.probe_note = "unpadded T refused: %s" % str(e).splitlines()[0][:160]
    return api


# ---------------- int4 ----------------

class Int4Api:
    def __init__(self):
        self.input_kind = None    # "uint8[N,K/2]" or "int32[N,K]"
        self.inner_k_tiles = None
        self.hi_first = True      # nibble order of the uint8 input (even k in high nibble)
        self.probe_note = ""

    def pack(self, w_u8):
        """w_u8: uint8 [N, K/2] of random nibbles -> packed weight tensor."""
        if self.input_kind == "uint8[N,K/2]":
            return torch._convert_weight_to_int4pack(w_u8.contiguous(), self.inner_k_tiles)
        q = unpack_nibbles(w_u8, True).to(torch.int32)
        return torch._convert_weight_to_int4pack(q.contiguous(), self.inner_k_tiles)

    @staticmethod
    def mm(x, packed, sz):
        return torch._weight_int4pack_mm(x, packed, GROUP_SIZE, sz)


def unpack_nibbles(w_u8, hi_first):
    hi = (w_u8 >> 4) & 0xF
    lo = w_u8 & 0xF
    a, b = (hi, lo) if hi_first else (lo, hi)
    N = w_u8.shape[0]
    return torch.stack([a, b], dim=-1).reshape(N, -1)  # [N, K]


def int4_reference_weight(w_u8, sz, hi_first):
    """Dequantize tinygemm style: w = (q - 8) * scale + zero, per group of K."""
    q = unpack_nibbles(w_u8, hi_first).float()               # [N, K]
    scales = sz[..., 0].float().t()                           # [N, K/g]
    zeros = sz[..., 1].float().t()
    scales = scales.repeat_interleave(GROUP_SIZE, dim=1)      # [N, K]
    zeros = zeros.repeat_interleave(GROUP_SIZE, dim=1)
    return (q - 8.0) * scales + zeros


def make_scales_zeros(N, K, device):
    G = K // GROUP_SIZE
    scales = torch.rand(G, N, device=device) * 0.02 + 0.005
    zeros = torch.randn(G, N, device=device) * 0.01
    return torch.stack([scales, zeros], dim=-1).to(torch.bfloat16).contiguous()  # [G,N,2]


def probe_int4(device):
    for name in ("_convert_weight_to_int4pack", "_weight_int4pack_mm"):
        if not hasattr(torch, name):
            raise RuntimeError("torch.%s not present in this torch" % name)
    api = Int4Api()
    N, K, T = 256, 1024, 5
    w_u8 = torch.randint(0, 256, (N, K // 2), dtype=torch.uint8, device=device)
    sz = make_scales_zeros(N, K, device)
    x = torch.randn(T, K, device=device, dtype=torch.bfloat16)
    errors = []
    for kind in ("uint8[N,K/2]", "int32[N,K]"):
        for ikt in (8, 4, 2):
            api.input_kind, api.inner_k_tiles = kind, ikt
            try:
                packed = api.pack(w_u8)
                y = api.mm(x, packed, sz)
                torch.cuda.synchronize(device)
            except Exception as e:
                errors.append("%s ikt=%d: %s" % (kind, ikt, str(e).splitlines()[0][:160]))
                continue
            best = None
            for hi_first in (True, False):
                ref = x.float() @ int4_reference_weight(w_u8, sz, hi_first).t()
                err = rel_err(y, ref)
                if best is None or err < best[0]:
                    best = (err, hi_first)
            api.hi_first = best[1]
            api.probe_note = "convert(%s, inner_k_tiles=%d); probe rel err %.2g%s" % (
                kind, ikt, best[0],
                "" if best[0] < 2e-2 else " (reference layout not matched; timing only)")
            return api
    raise RuntimeError("int4pack probe failed: " + " | ".join(errors))


# ---------------- per-shape benchmarks ----------------

def bench_shape(shape, args, apis, results, skipped, l2_bytes):
    N, K = shape
    shape_s = "%dx%d" % (N, K)
    device = args.device
    rotate_bytes = max(args.rotate_bytes, 3 * l2_bytes)

    for baseline in args.baselines:
        api = apis.get(baseline)
        if isinstance(api, str):  # probe failed: reason
            skipped.append({"shape": shape_s, "baseline": baseline, "reason": api})
            continue
        try:
            run_baseline(baseline, api, N, K, shape_s, args, rotate_bytes, results, skipped)
        except Exception as e:
            reason = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
            log("  SKIP %s %s: %s" % (shape_s, baseline, reason))
            log("".join(traceback.format_exc().splitlines(True)[-6:]))
            skipped.append({"shape": shape_s, "baseline": baseline, "reason": reason})
        finally:
            torch.cuda.synchronize(device)
            torch.cuda.empty_cache()


def run_baseline(baseline, api, N, K, shape_s, args, rotate_bytes, results, skipped):
    device = args.device
    inv = 1.0 / math.sqrt(K)
    ref_w = None  # float32 [N,K] reference of copy 0 (for the accuracy check)

    if baseline == "bf16_linear":
        weight_bytes = N * K * 2
        R = common.copies_for(weight_bytes, rotate_bytes, 2)
        ws = [(torch.randn(N, K, device=device, dtype=torch.bfloat16) * inv) for _ in range(R)]
        if not args.no_check:
            ref_w = ws[0].float()
        F = torch.nn.functional

        def make_inputs(T):
            x = torch.randn(T, K, device=device, dtype=torch.bfloat16)
            ops = [(lambda w=w: F.linear(x, w)) for w in ws]
            check = (lambda: F.linear(x, ws[0]), x.float(), T)
            return ops, check, T, "", T * K * 2, T * N * 2

    elif baseline == "fp8_scaled_mm":
        if K % 16 or N % 16:
            raise RuntimeError("_scaled_mm needs N and K multiples of 16")
        weight_bytes = N * K
        R = common.copies_for(weight_bytes, rotate_bytes, 2)
        ws = []
        for _ in range(R):
            ws.append((torch.randn(N, K, device=device, dtype=torch.bfloat16) * 2)
                      .to(torch.float8_e4m3fn))
        sa = api.scale(0.5, device)
        sb = api.scale(0.25 * inv, device)
        if not args.no_check:
            ref_w = ws[0].float() * (0.25 * inv)
        fast = args.fp8_accum == "fast"

        def make_inputs(T):
            if args.fp8_pad == "always" or (args.fp8_pad == "auto" and api.needs_pad):
                Tp = int(math.ceil(T / 16.0)) * 16
            else:
                Tp = T
            x = (torch.randn(Tp, K, device=device, dtype=torch.bfloat16) * 2) \
                .to(torch.float8_e4m3fn)
            ops = [(lambda w=w: api.call(x, w.t(), sa, sb, fast)) for w in ws]
            check = (lambda: api.call(x, ws[0].t(), sa, sb, fast)[:T], x[:T].float() * 0.5, T)
            note = "T padded %d->%d (rows of random data)" % (T, Tp) if Tp != T else ""
            return ops, check, Tp, note, Tp * K, Tp * N * 2

    elif baseline == "int4pack_mm":
        if K % GROUP_SIZE:
            raise RuntimeError("K=%d not a multiple of group size %d" % (K, GROUP_SIZE))
        if K % (api.inner_k_tiles * 16):
            raise RuntimeError("K=%d not a multiple of inner_k_tiles*16=%d"
                               % (K, api.inner_k_tiles * 16))
        if N % 8:
            raise RuntimeError("N=%d not a multiple of 8" % N)
        sz_bytes = (K // GROUP_SIZE) * N * 2 * 2
        weight_bytes = N * K // 2 + sz_bytes
        R = common.copies_for(weight_bytes, rotate_bytes, 2)
        packs, szs = [], []
        first_u8 = None
        for i in range(R):
            w_u8 = torch.randint(0, 256, (N, K // 2), dtype=torch.uint8, device=device)
            packs.append(api.pack(w_u8))
            szs.append(make_scales_zeros(N, K, device))
            if i == 0 and not args.no_check:
                first_u8 = w_u8
            del w_u8
        if first_u8 is not None:
            ref_w = int4_reference_weight(first_u8, szs[0], api.hi_first)
            del first_u8

        def make_inputs(T):
            x = torch.randn(T, K, device=device, dtype=torch.bfloat16)
            ops = [(lambda p=p, s=s: api.mm(x, p, s)) for p, s in zip(packs, szs)]
            check = (lambda: api.mm(x, packs[0], szs[0]), x.float(), T)
            return ops, check, T, "", T * K * 2, T * N * 2
    else:
        raise RuntimeError("unknown baseline")

    L = common.launches_for(R, args.min_launches)
    log("  %s %s: R=%d copies x %.1f MB = %.0f MB, %d ops per graph"
        % (shape_s, baseline, R, weight_bytes / 1e6, R * weight_bytes / 1e6, L))
    torch.cuda.synchronize(args.device)

    for T in args.widths:
        try:
            ops, check, t_run, note, x_bytes, y_bytes = make_inputs(T)
            err = None
            if ref_w is not None:
                fn, xf, t_keep = check
                y = fn()
                err = rel_err(y[:t_keep], xf @ ref_w.t())
            samples, mode = common.time_rotating(ops, L, args.replays, args.warmup,
                                                 args.device)
            us = common.median(samples)
            total_bytes = weight_bytes + x_bytes + y_bytes
            rec = {
                "shape": shape_s, "baseline": baseline, "width": T,
                "us": us, "samples": samples,
                "note": "; ".join(n for n in (note, api_note(baseline, api, args)) if n),
                "run_width": t_run,
                "weight_bytes": weight_bytes, "bytes": total_bytes,
                "gbs": total_bytes / (us * 1e-6) / 1e9,
                "copies": R, "launches": L, "timing": mode,
                "rel_err": err,
            }
            results.append(rec)
            log("    T=%-3d %9.2f us  %7.0f GB/s%s%s" % (
                T, us, rec["gbs"],
                "" if err is None else "  err %.1e" % err,
                ("  [" + note + "]") if note else ""))
            del ops
        except Exception as e:
            reason = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
            log("    T=%-3d SKIP %s" % (T, reason))
            skipped.append({"shape": shape_s, "baseline": baseline, "width": T,
                            "reason": reason})
            torch.cuda.synchronize(args.device)


def api_note(baseline, api, args):
    if baseline == "fp8_scaled_mm":
        return "e4m3 x e4m3, per-tensor scales, bf16 out, use_fast_accum=%s" % (
            args.fp8_accum == "fast")
    if baseline == "int4pack_mm":
        return "group %d, inner_k_tiles %d, input %s" % (
            GROUP_SIZE, api.inner_k_tiles, api.input_kind)
    return ""


# ---------------- output ----------------

def table_cell(baseline, w, r):
    mark = "*" if r.get("run_width", w) != w else " "   # ran at a padded width
    return "%12.2f%s(%6.0f)" % (r["us"], mark, r["gbs"])


def print_table(doc):
    res = doc["results"]
    shapes = []
    for r in res:
        if r["shape"] not in shapes:
            shapes.append(r["shape"])
    log("")
    log("device %s | torch %s | cuda %s | read %.0f GB/s | copy %.0f GB/s" % (
        doc["device"], doc["torch"], doc["cuda"],
        doc.get("read_bandwidth_gbs") or float("nan"),
        doc.get("copy_bandwidth_gbs") or float("nan")))
    for shape in shapes:
        by = {}
        widths = []
        for r in res:
            if r["shape"] != shape:
                continue
            by[(r["baseline"], r["width"])] = r
            if r["width"] not in widths:
                widths.append(r["width"])
        cols = [b for b in BASELINES if any(k[0] == b for k in by)]
        log("")
        log("shape %s (N x K), us per op (GB/s)" % shape)
        common.log_grid("T", 5, cols, 22, sorted(widths), by, table_cell)
    if any(r.get("run_width", r["width"]) != r["width"] for r in res):
        log("* ran at T padded up to a multiple of 16 (_scaled_mm; see the result's note)")
    for s in doc.get("skipped", []):
        log("skipped: %s %s%s: %s" % (s.get("shape", "-"), s["baseline"],
                                      " T=%d" % s["width"] if "width" in s else "",
                                      s["reason"]))


def main(argv=None):
    args = build_parser().parse_args(argv)
    bw_reps = common.resolve_replays(args)

    global torch
    try:
        import torch as _torch
    except ImportError as e:
        log("error: PyTorch is required: %s" % e)
        return 2
    torch = _torch
    if not torch.cuda.is_available():
        log("error: no CUDA device visible to torch")
        return 2

    torch.manual_seed(args.seed)
    torch.cuda.manual_seed_all(args.seed)
    dev = torch.device(args.device)
    torch.cuda.set_device(dev)
    doc = common.device_doc(dev)
    l2_bytes = doc["l2_bytes"]
    doc["config"] = {
        "shapes": ["%dx%d" % s for s in args.shapes],
        "widths": args.widths, "baselines": args.baselines,
        "replays": args.replays, "warmup": args.warmup,
        "min_launches": args.min_launches,
        "rotate_bytes": max(args.rotate_bytes, 3 * l2_bytes),
        "group_size": GROUP_SIZE, "fp8_pad": args.fp8_pad,
        "fp8_accum": args.fp8_accum, "seed": args.seed,
        "timing": "CUDA graph of L ops rotating R weight copies; us = median over "
                  "replays of replay time / L",
    }
    log("torch_baselines: %s (sm %s, %d SMs, L2 %.0f MB), torch %s, cuda %s" % (
        doc["device"], doc["capability"], doc["sm_count"], l2_bytes / 1e6,
        doc["torch"], doc["cuda"]))
    t0 = time.time()

    # Bandwidth first, on a quiet device.
    common.bandwidth_into(doc, dev, args.bw_gib, bw_reps, str)

    # Probe the baselines.
    apis = {}
    probes = {}
    for b in args.baselines:
        try:
            if b == "bf16_linear":
                apis[b] = None
                probes[b] = "torch.nn.functional.linear"
            elif b == "fp8_scaled_mm":
                apis[b] = probe_fp8(dev, args.fp8_accum == "fast")
                probes[b] = "torch._scaled_mm; scale shape %s; %s" % (
                    apis[b].scale_shape, apis[b].probe_note)
            elif b == "int4pack_mm":
                apis[b] = probe_int4(dev)
                probes[b] = "torch._weight_int4pack_mm; " + apis[b].probe_note
            log("probe %s: ok (%s)" % (b, probes[b]))
        except Exception as e:
            reason = "unavailable: %s" % (str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
            apis[b] = reason
            probes[b] = reason
            log("probe %s: SKIPPED, %s" % (b, reason))
        torch.cuda.synchronize(dev)
    doc["probes"] = probes

    results, skipped = [], []
    for shape in args.shapes:
        log("shape %dx%d (N x K)" % shape)
        bench_shape(shape, args, apis, results, skipped, l2_bytes)
    return common.finish(doc, results, skipped, t0, args.out, print_table)


if __name__ == "__main__":
    sys.exit(main())
