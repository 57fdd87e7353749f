"""Code shared by the PyTorch baseline scripts and the scripts that compare with them.

Timing (scripts/torch_baselines.py, scripts/torch_attention_baselines.py):
  log, median, add_timing_args, add_bandwidth_arg, resolve_replays, device_doc,
  event_times_ms, measure_bandwidth, bandwidth_into, time_rotating, copies_for,
  launches_for, log_grid, write_doc, finish
SDPA attention (scripts/torch_attention_baselines.py, scripts/torch_prompt_baselines.py):
  the model's shape (HQ, HKV, GROUP, HEAD_DIM, SCALE, model_fields), BACKENDS,
  parse_backends, parse_count, Unsupported, short_exc, warning_reasons, traceback_tail, skip_reason,
  import_sdpa, setup_device, device_name, log_device, sync, sync_quietly,
  missing_backend, pinned, Form, lower_right_text, additive_causal_mask, sdpa_ops, first_call, in_layout,
  random_bhsd, planted_inputs, reference_attention, try_form, discriminates, fmt_errs,
  selftest_backends, judge_trials, log_selftest_summary, env_text, backends_in
Comparing (scripts/compare_baselines.py, scripts/compare_attention_baselines.py):
  compare_parser, load, num, as_int, fmt, geomean, schedule_text, keep_fastest,
  info_lines, print_aligned, md_table, emit, quiet_sigpipe

Only the standard library is imported here. The timing and SDPA functions import torch
when they are called, so that importing this module (and every script's --help) works
without it.
Import it from a script in this folder with

  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
  import baselines_common as common
"""

import argparse
import contextlib
import json
import math
import signal
import statistics
import sys
import time
import traceback
import warnings


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs) if xs else float("nan")


# ======================================================================================
# Timing on one GPU (torch_baselines.py, torch_attention_baselines.py)
# ======================================================================================

# ---------------- command line ----------------

def add_timing_args(p, calls, rotated):
    """--out, --quick, --replays, --warmup, --min-launches and --rotate-bytes.
    calls: what one launch is called in the help ("ops", "calls"); rotated: what
    --rotate-bytes counts ("bytes over all weight copies", ...)."""
    p.add_argument("--out", default=None, help="JSON output path (default: stdout)")
    p.add_argument("--quick", action="store_true",
                   help="fewer replays (7) and fewer bandwidth repetitions")
    p.add_argument("--replays", type=int, default=None,
                   help="timed graph replays per point (default 25, --quick 7; min 7)")
    p.add_argument("--warmup", type=int, default=3, help="untimed graph replays (default 3)")
    p.add_argument("--min-launches", type=int, default=64,
                   help="at least this many %s per graph (rounded up to a multiple of R, "
                        "and at least 2R; default 64)" % calls)
    p.add_argument("--rotate-bytes", type=float, default=200e6,
                   help="minimum %s (default 200e6; raised to "
                        "3 x L2 when that is larger)" % rotated)


def add_bandwidth_arg(p):
    p.add_argument("--bw-gib", type=float, default=2.0,
                   help="size of the bandwidth test buffers in GiB (default 2)")


def resolve_replays(args):
    """Sets args.replays (default 25, --quick 7; at least 7) and returns the number of
    bandwidth repetitions (15, --quick 5)."""
    if args.replays is None:
        args.replays = 7 if args.quick else 25
    if args.replays < 7:
        log("note: raising --replays %d to the minimum of 7" % args.replays)
        args.replays = 7
    return 5 if args.quick else 15


# ---------------- device ----------------

def device_doc(dev, extra=()):
    """The start of a result JSON: device, torch, cuda, then the (key, value) pairs of
    `extra`, then capability, sm_count and l2_bytes (60e6 when torch does not say)."""
    import torch
    props = torch.cuda.get_device_properties(dev)
    doc = {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
    }
    doc.update(extra)
    doc.update({
        "capability": "%d.%d" % (props.major, props.minor),
        "sm_count": props.multi_processor_count,
        "l2_bytes": int(getattr(props, "L2_cache_size", 0) or 60e6),
    })
    return doc


# ---------------- CUDA-event timing ----------------

def event_times_ms(fn, reps, warmup, device):
    """Runs fn() `warmup` times untimed, synchronizes, then `reps` times each between two
    CUDA events; returns the elapsed milliseconds of each timed run."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize(device)
    ms = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return ms


# ---------------- bandwidth ----------------

def measure_bandwidth(device, gib, reps, warmup=3):
    """Copy bandwidth ((bytes read + bytes written) / time of a device-to-device copy)
    and read bandwidth (bytes read / time of torch.sum) over bf16 buffers of `gib` GiB,
    median over `reps` CUDA-event-timed repetitions after `warmup`."""
    import torch
    n_bytes = int(gib * (1 << 30))
    n_bytes -= n_bytes % 4096
    n_el = n_bytes // 2  # bf16
    res = {"bandwidth_bytes": n_bytes}
    src = torch.empty(n_el, dtype=torch.bfloat16, device=device).normal_()
    dst = torch.empty_like(src).normal_()

    def timed(fn):
        return [t * 1e-3 for t in event_times_ms(fn, reps, warmup, device)]  # s

    ts = timed(lambda: dst.copy_(src))
    res["copy_bandwidth_gbs"] = 2 * n_bytes / median(ts) / 1e9
    res["copy_samples_us"] = [x * 1e6 for x in ts]
    del dst
    torch.cuda.empty_cache()

    ts = timed(lambda: torch.sum(src))
    res["read_method"] = "torch.sum(bf16)"
    res["read_bandwidth_gbs"] = n_bytes / median(ts) / 1e9
    res["read_samples_us"] = [x * 1e6 for x in ts]
    del src
    torch.cuda.empty_cache()
    return res


def bandwidth_into(doc, device, gib, reps, describe):
    """measure_bandwidth, logged, into doc (read_bandwidth_gbs, copy_bandwidth_gbs and the
    whole measurement as "bandwidth"); on failure both figures are None and the error,
    as describe(exception) gives it, is logged."""
    import torch
    try:
        bw = measure_bandwidth(device, gib, reps)
        doc.update({
            "read_bandwidth_gbs": bw["read_bandwidth_gbs"],
            "copy_bandwidth_gbs": bw["copy_bandwidth_gbs"],
            "bandwidth": bw,
        })
        log("bandwidth: read %.0f GB/s (%s), copy %.0f GB/s (read+write), %.2f GiB buffers"
            % (bw["read_bandwidth_gbs"], bw["read_method"], bw["copy_bandwidth_gbs"], gib))
    except Exception as e:
        log("bandwidth measurement failed: %s" % describe(e))
        doc["read_bandwidth_gbs"] = None
        doc["copy_bandwidth_gbs"] = None
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()


# ---------------- timing harness ----------------

def time_rotating(ops, launches, replays, warmup, device, pin=contextlib.nullcontext,
                  describe=lambda e: str(e).splitlines()[0][:120],
                  tolerate_sync_error=False):
    """ops: list of R zero-arg callables, op i reading copy i of the rotated data.
    Captures one CUDA graph of `launches` calls cycling through ops (after two eager
    rounds of warm-up on a side stream) and returns (us per call samples, mode string):
    one sample per timed replay, replay time (CUDA events) / launches, after `warmup`
    untimed replays. When capture fails the same sequence is timed as eager launches and
    the mode says so: "eager (graph capture failed: describe(exception))".
    pin(): a context entered around the warm-up, the capture and each eager run (e.g. the
    one that selects an SDPA backend); tolerate_sync_error: ignore an error from the
    synchronize that follows a failed capture instead of raising it."""
    import torch
    R = len(ops)
    seq = [ops[i % R] for i in range(launches)]
    # Eager warm-up on a side stream (cuBLAS handles and heuristics, cuDNN plans, lazy
    # module loads, allocator).
    s = torch.cuda.Stream(device)
    s.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(s), pin():
        for _ in range(2):
            for op in ops:
                op()
    torch.cuda.current_stream(device).wait_stream(s)
    torch.cuda.synchronize(device)

    graph = None
    mode = "cuda_graph"
    try:
        graph = torch.cuda.CUDAGraph()
        with pin(), torch.cuda.graph(graph):
            outs = [op() for op in seq]
        del outs
        run = graph.replay
    except Exception as e:  # fall back to eager launches, timed the same way
        graph = None
        mode = "eager (graph capture failed: %s)" % describe(e)
        try:
            torch.cuda.synchronize(device)
        except Exception:
            if not tolerate_sync_error:
                raise

        def run():
            with pin():
                for op in seq:
                    op()

    samples = [t * 1e3 / launches  # us per call
               for t in event_times_ms(run, replays, warmup, device)]
    del graph
    torch.cuda.synchronize(device)
    return samples, mode


def copies_for(bytes_per_copy, rotate_bytes, min_copies=1):
    """Copies R of the rotated data so that R * bytes_per_copy >= rotate_bytes; at least
    min_copies (and 1)."""
    return max(1, min_copies, int(math.ceil(rotate_bytes / max(1, bytes_per_copy))))


def launches_for(R, min_launches):
    """Calls per graph: at least 2R and min_launches, a multiple of R."""
    L = max(2 * R, min_launches)
    return int(math.ceil(L / R)) * R


# ---------------- output ----------------

def log_grid(label, label_width, cols, cell_width, keys, by, cell):
    """A table on stderr: a header line (label, then the column names), then one line per
    key (an int) with, per column c, cell(c, key, r) for r = by[(c, key)], or '-' right
    aligned in cell_width where by has no entry."""
    log("%*s" % (label_width, label) + "".join("  %*s" % (cell_width, c) for c in cols))
    for k in keys:
        line = "%*d" % (label_width, k)
        for c in cols:
            r = by.get((c, k))
            if r is None:
                line += "  %*s" % (cell_width, "-")
            else:
                line += "  " + cell(c, k, r)
        log(line)


def write_doc(doc, path):
    """The result JSON to path (logged), or to stdout when path is empty."""
    text = json.dumps(doc, indent=1)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
        log("wrote %s" % path)
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def finish(doc, results, skipped, t0, path, print_table):
    """The end of a timing run: results, skipped and the time since t0 ("elapsed_s") into
    doc, the JSON written (write_doc), the table printed (print_table(doc)); returns 0."""
    doc["results"] = results
    doc["skipped"] = skipped
    doc["elapsed_s"] = time.time() - t0
    write_doc(doc, path)
    print_table(doc)
    return 0


# ======================================================================================
# SDPA attention baselines (torch_attention_baselines.py, torch_prompt_baselines.py)
# ======================================================================================

# ---------------- the seed model's attention, backends ----------------

HQ = 24          # query heads
HKV = 4          # KV heads
GROUP = HQ // HKV
HEAD_DIM = 256
SCALE = 1.0 / math.sqrt(HEAD_DIM)

BACKENDS = ("flash", "cudnn", "efficient", "math")
SDP_ENUM_NAMES = {
    "flash": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
    "efficient": "EFFICIENT_ATTENTION",
    "math": "MATH",
}
ALIGNMENTS = ("bottom_right", "top_left", "none")


def parse_backends(text):
    """--backends: comma-separated names from BACKENDS, in order, without repeats."""
    names = [s.strip().lower() for s in text.split(",") if s.strip()]
    for n in names:
        if n not in BACKENDS:
            raise argparse.ArgumentTypeError(
                "unknown backend %r (choose from %s)" % (n, ", ".join(BACKENDS)))
    if not names:
        raise argparse.ArgumentTypeError("no backends given")
    return list(dict.fromkeys(names))


def parse_count(text, what, allow_k=True, shown=None):
    """'1024' or, with allow_k, '32k' / '32K' (x 1024) -> an int > 0. Errors
    (argparse.ArgumentTypeError) name `what` and `shown`, by default the text as read
    (stripped, lower case, without the k)."""
    t = text.strip().lower()
    mult = 1
    if allow_k and t.endswith("k"):
        t, mult = t[:-1], 1024
    if shown is None:
        shown = t
    try:
        v = int(t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError("%s %r is not an integer" % (what, shown))
    if v <= 0:
        raise argparse.ArgumentTypeError("%s %r must be positive" % (what, shown))
    return v


def model_fields():
    """The first fields of a result's "model": heads, head dim, scale, dtype."""
    return {"q_heads": HQ, "kv_heads": HKV, "group": GROUP, "head_dim": HEAD_DIM,
            "scale": SCALE, "dtype": "bfloat16"}


# ---------------- errors ----------------

class Unsupported(Exception):
    """A formulation that this torch or backend cannot run; the message says why."""


def short_exc(e, n=240):
    """'Type: first line of the message' (at most n characters of it)."""
    s = str(e).strip()
    first = s.splitlines()[0] if s else ""
    return ("%s: %s" % (type(e).__name__, first[:n])) if first else type(e).__name__


def warning_reasons(wlist, n=3, width=160):
    """The useful lines of the warnings SDPA emits when a pinned backend is refused."""
    out = []
    for w in wlist:
        msg = " ".join(str(w.message).split()).split(" (Triggered internally")[0]
        low = msg.lower()
        if not msg or "runtime disabled" in low or low.endswith("because:") or "numpy" in low:
            continue
        if msg[:width] not in out:
            out.append(msg[:width])
    return out[:n]


def traceback_tail():
    """The last lines of the traceback of the exception being handled."""
    return "".join(traceback.format_exc().splitlines(True)[-6:])


def skip_reason(label, e):
    """Logs a failed point ('    <label> SKIP <reason>' and the traceback's tail) and
    returns the reason (short_exc(e, 300))."""
    reason = short_exc(e, 300)
    log("    %s SKIP %s" % (label, reason))
    log(traceback_tail())
    return reason


# ---------------- torch, device ----------------

def import_sdpa(without_lower_right):
    """Imports torch (with torch.nn.functional, SDPBackend and sdpa_kernel, which the SDPA
    functions here use) and causal_lower_right (None, with a note that then
    `without_lower_right`, when this torch lacks it). Returns (torch, causal_lower_right),
    or None (logged) when torch or sdpa_kernel is missing."""
    try:
        import torch
        import torch.nn.functional  # noqa: F401
        from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: F401
    except ImportError as e:
        log("error: PyTorch (with torch.nn.attention.sdpa_kernel) is required: %s" % e)
        return None
    try:
        from torch.nn.attention.bias import causal_lower_right
    except ImportError:
        causal_lower_right = None
        log("note: torch.nn.attention.bias.causal_lower_right missing: %s"
            % without_lower_right)
    return torch, causal_lower_right


def setup_device(args):
    """args.device made current (a CPU device only with args.selftest), the seeds set
    from args.seed, autograd off, TF32 off (full-precision float32 references). Returns
    (device, cudnn version or None), or (None, None) after logging why it cannot run."""
    import torch
    dev = torch.device(args.device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            log("error: no CUDA device visible to torch")
            return None, None
        torch.cuda.set_device(dev)
    elif not args.selftest:
        log("error: timing needs a CUDA device (--device %s works only with --selftest)"
            % args.device)
        return None, None
    torch.manual_seed(args.seed)
    if dev.type == "cuda":
        torch.cuda.manual_seed_all(args.seed)
    torch.set_grad_enabled(False)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cudnn_version = None
    try:
        cudnn_version = torch.backends.cudnn.version()
    except Exception:
        pass
    return dev, cudnn_version


def device_name(dev):
    """The CUDA device's name, or "cpu"."""
    import torch
    return torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"


def log_device(script, doc, cudnn_version):
    """The start-up line of a timing run: device, capability, SMs, L2, versions."""
    log("%s: %s (sm %s, %d SMs, L2 %.0f MB), torch %s, cuda %s, cudnn %s"
        % (script, doc["device"], doc["capability"], doc["sm_count"], doc["l2_bytes"] / 1e6,
           doc["torch"], doc["cuda"], cudnn_version))


def sync(device):
    """torch.cuda.synchronize on a CUDA device; nothing on the CPU."""
    import torch
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def sync_quietly(device):
    """sync(device), ignoring an error (after a failed call)."""
    try:
        sync(device)
    except Exception:
        pass


# ---------------- backends ----------------

def missing_backend(backend):
    """Why `backend` cannot be pinned in this torch, or None when it can."""
    from torch.nn.attention import SDPBackend
    if not hasattr(SDPBackend, SDP_ENUM_NAMES[backend]):
        return "SDPBackend.%s not in this torch" % SDP_ENUM_NAMES[backend]
    return None


def pinned(backend):
    """Context manager that leaves only `backend` enabled for SDPA."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel([getattr(SDPBackend, SDP_ENUM_NAMES[backend])])


# ---------------- formulations ----------------

class Form:
    """One way to call SDPA. kind: gqa | fold | expand; causal: none | lower_right | mask |
    is_causal. The scripts subclass it with describe()."""

    def __init__(self, kind, causal):
        self.kind = kind
        self.causal = causal

    @property
    def name(self):
        return self.kind if self.causal == "none" else "%s+%s" % (self.kind, self.causal)

    @property
    def short(self):
        k = {"gqa": "g", "fold": "f", "expand": "x"}[self.kind]
        c = {"none": "", "lower_right": "+lr", "mask": "+m", "is_causal": "+ic"}[self.causal]
        return k + c


def lower_right_text(backend, shape, elsewhere):
    """How attn_mask=causal_lower_right(<shape>) runs on `backend`: FLASH's own causal
    kernel, EFFICIENT's lower-right mask type, on the others `elsewhere`."""
    if backend == "flash":
        return "causal_lower_right(%s) -> FLASH native causal (bottom-right)" % shape
    if backend == "efficient":
        return "causal_lower_right(%s) -> EFFICIENT lower-right mask type" % shape
    return "causal_lower_right(%s), %s" % (shape, elsewhere)


def additive_causal_mask(C, S, device, rep=1):
    """[1, 1, rep*C, S] bf16: 0 where key j is visible to query row i (j <= S - C + i,
    bottom-right), -inf elsewhere; with rep > 1 the C rows repeated rep times (row g*C + i
    is row i). Built row block by row block (no C x S int64 temporaries)."""
    import torch
    m = torch.zeros(C, S, dtype=torch.bfloat16, device=device)
    j = torch.arange(S, device=device).view(1, S)
    step = max(1, (1 << 26) // max(1, S))
    for r0 in range(0, C, step):
        r1 = min(C, r0 + step)
        i = torch.arange(r0, r1, device=device).view(-1, 1)
        m[r0:r1].masked_fill_(j > (S - C) + i, float("-inf"))
    if rep > 1:
        m = m.repeat(rep, 1)
    return m.view(1, 1, rep * C, S)


def sdpa_ops(inputs, attn_mask, kwargs):
    """One zero-argument callable per (q, k, v) of `inputs`, each calling
    F.scaled_dot_product_attention(q, k, v[, attn_mask], **kwargs) and returning its
    output. Call them inside pinned(backend): the backend is chosen when SDPA is called
    (eagerly or while a graph is captured), not when a graph is replayed."""
    import torch.nn.functional as F

    def make(q, k, v):
        if attn_mask is None:
            def op():
                return F.scaled_dot_product_attention(q, k, v, **kwargs)
        else:
            def op():
                # positional, as documented for CausalBias
                return F.scaled_dot_product_attention(q, k, v, attn_mask, **kwargs)
        return op

    return [make(q, k, v) for q, k, v in inputs]


def first_call(prepare, backend, device):
    """prepare() -> (ops, ...); runs ops[0]() once under pinned(backend) and synchronizes.
    Returns (its output, what prepare returned); raises Unsupported with short_exc of the
    error and the warnings SDPA gave when it refused the pinned backend."""
    with warnings.catch_warnings(record=True) as wlist:
        warnings.simplefilter("always")
        try:
            prepared = prepare()
            ops = prepared[0]
            with pinned(backend):
                y = ops[0]()
            sync(device)
        except Exception as e:
            reasons = warning_reasons(wlist)
            raise Unsupported(short_exc(e) + (" [" + " | ".join(reasons) + "]"
                                              if reasons else ""))
    return y, prepared


# ---------------- inputs and references ----------------

def in_layout(t_bhsd, layout):
    """t: [1, H, L, D] float; returns bf16 [1, H, L, D] in the requested memory layout."""
    import torch
    if layout == "bhsd":
        return t_bhsd.to(torch.bfloat16).contiguous()
    return t_bhsd.transpose(1, 2).contiguous().to(torch.bfloat16).transpose(1, 2)


def random_bhsd(heads, length, layout, device):
    """Random bf16 [1, heads, length, HEAD_DIM] in the memory layout bhsd or bshd."""
    import torch
    if layout == "bhsd":
        return torch.randn(1, heads, length, HEAD_DIM, device=device, dtype=torch.bfloat16)
    return torch.randn(1, length, heads, HEAD_DIM, device=device,
                       dtype=torch.bfloat16).transpose(1, 2)


def planted_inputs(C, S, layout, device):
    """q [1,24,C,D], k, v [1,4,S,D] (bf16, in `layout`) where the C newest keys (the
    cache's last C tokens: the decode step's new columns, the prompt chunk's own tokens)
    of every KV head carry about as much softmax weight each as all the older keys
    together: q has a component a*e_kv and those keys are a*e_kv + noise, with a^2/16 =
    ln S. Query row i then weighs the i+1 new keys it sees (bottom-right), none of them
    (top-left, i < S - C) or all C (no mask), and the three alignments give clearly
    different outputs."""
    import torch
    L = math.log(max(S, 2))
    a = math.sqrt(16.0 * L)
    pos = S - C
    e = torch.randn(HKV, HEAD_DIM, device=device)
    e = e / e.norm(dim=-1, keepdim=True)
    q = torch.randn(1, HQ, C, HEAD_DIM, device=device)
    q += a * e.repeat_interleave(GROUP, dim=0).view(1, HQ, 1, HEAD_DIM)
    k = torch.randn(1, HKV, S, HEAD_DIM, device=device)
    k[0, :, pos:, :] = a * e.view(HKV, 1, HEAD_DIM) \
        + 0.25 * torch.randn(HKV, C, HEAD_DIM, device=device)
    v = torch.randn(1, HKV, S, HEAD_DIM, device=device)
    return in_layout(q, layout), in_layout(k, layout), in_layout(v, layout)


def reference_attention(q, k, v, pos, align, dtype, rows=None):
    """Attention of q [1,24,C,D] over k, v [1,4,S,D] in `dtype`, one KV head at a time
    (scores [6, rows, S]), query head h on KV head h // 6; align: bottom_right (query row
    i sees keys 0..=pos+i), top_left (0..=i) or none. rows: a list of query rows, or None
    for all C. Returns [24, len(rows) or C, D]."""
    import torch
    S = k.shape[2]
    dev = q.device
    if rows is None:
        ri = torch.arange(q.shape[2], device=dev)
    else:
        ri = torch.tensor(rows, device=dev, dtype=torch.long)
    j = torch.arange(S, device=dev).view(1, S)
    if align == "bottom_right":
        visible = j <= (pos + ri).view(-1, 1)
    elif align == "top_left":
        visible = j <= ri.view(-1, 1)
    elif align == "none":
        visible = None
    else:
        raise ValueError(align)
    out = torch.empty(HQ, len(ri), HEAD_DIM, dtype=dtype, device=dev)
    for h in range(HKV):
        kh = k[0, h].to(dtype)                                       # [S, D]
        vh = v[0, h].to(dtype)
        qh = q[0, h * GROUP:(h + 1) * GROUP]                         # [6, C, D]
        if rows is not None:
            qh = qh.index_select(1, ri)                              # [6, n, D]
        qh = qh.to(dtype)
        s = torch.matmul(qh, kh.t()) * SCALE                         # [6, n, S]
        if visible is not None:
            s.masked_fill_(~visible, float("-inf"))
        out[h * GROUP:(h + 1) * GROUP] = torch.matmul(torch.softmax(s, dim=-1), vh)
        del kh, vh, qh, s
    return out


# ---------------- self-test ----------------

def try_form(form, prepare, backend, device, refs, err_of, tol, err_what):
    """Runs one formulation once (first_call(prepare, backend, device)) and compares its
    output with refs {align: reference} by err_of(y, ref). Returns (result, output or
    None): result has ran, ok (the bottom-right error <= tol), reason (why it was refused,
    or the wrong result's errors, named err_what), errs {align: error} and best (the
    closest alignment)."""
    res = {"form": form.name, "ran": False, "ok": False, "reason": "", "errs": {}}
    try:
        y, _ = first_call(prepare, backend, device)
    except Exception as e:  # refused (no kernel, shape, mask, ...) or failed
        res["reason"] = str(e) if isinstance(e, Unsupported) else short_exc(e)
        sync_quietly(device)
        return res, None
    res["ran"] = True
    for align, ref in refs.items():
        res["errs"][align] = err_of(y, ref)
    e_br = res["errs"]["bottom_right"]
    res["best"] = min(res["errs"], key=lambda a: res["errs"][a])
    res["ok"] = e_br <= tol
    if not res["ok"]:
        res["reason"] = "wrong result: %s %.3g vs bottom-right (closest: %s %.3g)" % (
            err_what, e_br, res["best"], res["errs"][res["best"]])
    return res, y


def discriminates(res, alts, tol):
    """Would a wrong alignment have been caught? (the alternatives `alts` that a shape can
    tell apart from bottom-right differ by >> tol)"""
    alts = [res["errs"][a] for a in alts if a in res["errs"]]
    return bool(alts) and min(alts) > 5 * tol


def fmt_errs(r):
    """A try_form result's errors against the three alignments, or '-'."""
    if not r["ran"]:
        return "%29s" % "-"
    e = r["errs"]
    return "err br %.1e tl %.1e none %.1e" % (e["bottom_right"], e["top_left"], e["none"])


def selftest_backends(backends):
    """The backends this torch can pin (the others logged as skipped)."""
    out = []
    for b in backends:
        why = missing_backend(b)
        if why:
            log("selftest: %s SKIPPED: %s" % (b, why))
            continue
        out.append(b)
    return out


def judge_trials(trials, label, informational, alts, tol, chosen, key, allow_expand):
    """The verdicts on one backend's trials [(form, try_form result)] at one shape. Logs a
    line per trial after `label` (one for all when every one was refused for the same
    reason); sets chosen[key] to the first formulation that is correct and would be timed
    (expand only with allow_expand), None when none is. informational(form): a row that is
    only shown (is_causal where it is not bottom-right); alts: as for discriminates.
    Returns ([(form, result, informational, verdict)], how many ran but were WRONG)."""
    reasons = {r["reason"] for _, r in trials}
    quiet = False
    if not any(r["ran"] for _, r in trials) and len(reasons) == 1:
        log("%s %-18s %s" % (label, "(every one)", "refused: " + reasons.pop()))
        quiet = True
    judged = []
    wrong = 0
    for form, r in trials:
        info = informational(form)
        if r["ran"]:
            if info:
                verdict = "info: behaves as %s" % r["best"]
            elif r["ok"]:
                verdict = "ok" if discriminates(r, alts, tol) else \
                    "ok (alignment not discriminated)"
            else:
                verdict = "WRONG (closest: %s)" % r["best"]
                wrong += 1
        else:
            verdict = ("info: " if info else "") + "refused: " + r["reason"]
        if not info:
            if chosen.get(key) is None and r["ok"] and \
                    (form.kind != "expand" or allow_expand):
                chosen[key] = form.name
            chosen.setdefault(key, None)
        judged.append((form, r, info, verdict))
        if not quiet:
            log("%s %-18s %s" % (label, form.name, fmt_errs(r) + "  " + verdict[:240]))
    return judged, wrong


def log_selftest_summary(backends, chosen, per, key_text, sort, wrong, ref_bad=0):
    """The end of a self-test: per backend the formulation chosen per key (W, shape; as
    key_text(key), in sorted order with sort), then whether anything was WRONG (ref_bad:
    shapes on which the reference itself was wrong)."""
    for b in backends:
        c = chosen.get(b, {})
        log("  %-9s timed formulation per %s: %s" % (b, per, ", ".join(
            "%s %s" % (key_text(k), c.get(k) or "NONE") for k in (sorted(c) if sort else c))))
    if ref_bad:
        log("selftest: the reference computation itself is WRONG on %d shape(s)" % ref_bad)
    if wrong:
        log("selftest: %d formulation(s) ran but gave WRONG results" % wrong)
    elif not ref_bad:
        log("selftest: every formulation that ran matched the bottom-right reference")


# ---------------- output ----------------

def env_text(doc):
    """'device .. | torch .. | cuda .. | cudnn ..', the start of a table's header line."""
    return "device %s | torch %s | cuda %s | cudnn %s" % (
        doc["device"], doc["torch"], doc["cuda"], doc.get("cudnn"))


def backends_in(results):
    """The backends (of BACKENDS, in that order) that have a row in `results`."""
    return [b for b in BACKENDS if any(r["backend"] == b for r in results)]


# ======================================================================================
# Comparing with ninfer (compare_baselines.py, compare_attention_baselines.py)
# ======================================================================================

def compare_parser(description, torch_script, ninfer_help, all_help):
    """The arguments both comparisons take: TORCH_JSON (the output of
    scripts/<torch_script>), NINFER_JSON, --markdown and --all."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("torch_json", help="output of scripts/%s" % torch_script)
    p.add_argument("ninfer_json", help=ninfer_help)
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    p.add_argument("--all", action="store_true", help=all_help)
    return p


def load(prog, path, what=None):
    """A JSON object with a "results" list, or exit 1 with a message on stderr.
    what: which file it is ("torch", "ninfer"), named in the messages when given."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("%s: cannot read %sJSON %s: %s\n"
                         % (prog, what + " " if what else "", path, e))
        sys.exit(1)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        sys.stderr.write("%s: %s has no 'results' list\n"
                         % (prog, "%s JSON %s" % (what, path) if what else path))
        sys.exit(1)
    return doc


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


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def schedule_text(r):
    """A ninfer row's "schedule" as a table cell: JSON for a dict or list, '-' if none."""
    sched = r.get("schedule")
    if isinstance(sched, (dict, list)):
        sched = json.dumps(sched, separators=(",", ":"))
    return "-" if sched in (None, "") else str(sched)


def keep_fastest(rows, group, r, us):
    """rows[group] = r unless rows already holds a faster row (smaller "us") there."""
    cur = rows.get(group)
    if cur is None or us < num(cur["us"]):
        rows[group] = r


def info_lines(ndoc, tdoc, torch_fields, lines):
    """The header lines: the devices of the two files and the torch run's `torch_fields`
    (e.g. "torch", "cuda"), then `lines`, then a warning when the devices differ."""
    info = ["ninfer: %s | torch baselines: %s (%s)" % (
        ndoc.get("device", "?"), tdoc.get("device", "?"),
        ", ".join("%s %s" % (k, tdoc.get(k, "?")) for k in torch_fields))]
    info += lines
    if ndoc.get("device") and tdoc.get("device") and ndoc.get("device") != tdoc.get("device"):
        info.append("WARNING: the two files were measured on different devices")
    return info


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


def md_table(h, rows, left):
    esc = lambda c: c.replace("|", "\\|")
    print("| " + " | ".join(esc(c) for c in h) + " |")
    print("|" + "|".join(":---" if i in left else "---:" for i in range(len(h))) + "|")
    for r in rows:
        print("| " + " | ".join(esc(c) for c in r) + " |")


def emit(info, header, table, sum_header, summary, notes, markdown, left,
         empty_table=False, star_marks=False):
    """Prints the info lines, the table (left: the columns aligned left), the summary
    table (its first column left) and the notes, as text or (markdown) as markdown.
    empty_table: print the table's header even when it has no rows. star_marks: a
    trailing '*' of a cell and a leading '*' of a note are footnote marks, escaped in
    markdown."""
    put = md_table if markdown else print_aligned
    for line in info:
        print(line + "  " if markdown else line)
    print()
    if table or empty_table:
        if markdown and star_marks:
            table = [[c[:-1] + "\\*" if c.endswith("*") else c for c in r] for r in table]
        put(header, table, left)
    if summary and table:
        print()
        put(sum_header, summary, {0})
    if notes:
        print()
        for n in notes:
            if markdown:
                n = "- " + (n.replace("*", "\\*", 1) if star_marks and n.startswith("*") else n)
            print(n)


def quiet_sigpipe():
    """Die quietly on SIGPIPE, e.g. when piped into head."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
