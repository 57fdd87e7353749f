"""Code shared by the PyTorch baseline scripts and the scripts that compare with them.

Timing (scripts/torch_baselines.py, scripts/torch_attention_baselines.py):
  log, median, add_timing_args, add_bandwidth_arg, resolve_replays, device_doc,
  event_times_ms, measure_bandwidth, bandwidth_into, time_rotating, copies_for,
  launches_for, log_grid, write_doc, finish
Comparing (scripts/compare_baselines.py, scripts/compare_attention_baselines.py):
  compare_parser, load, num, as_int, fmt, geomean, schedule_text, keep_fastest,
  info_lines, print_aligned, md_table, emit, quiet_sigpipe

Only the standard library is imported here. The timing functions import torch when they
are called, so that importing this module (and every script's --help) works without it.
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
